"""A run's end under faults (issue 21, items 4 and 5): the event is committed with the state
(outbox), so a soft time limit in what follows the commit loses nothing and removes nothing;
a job the reconciler requeues goes to the front of its queue."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.files.storage import default_storage
from django.utils import timezone
from webhooks import services as webhook_services
from webhooks.models import Webhook, WebhookDelivery

from jobs import figures
from jobs.models import Job, JobEvent, JobOutput, JobStatus
from jobs.services import job_start, job_submit, job_succeed, jobs_reconcile
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

pytestmark = pytest.mark.django_db(transaction=True)

SLEEP = TOOLS["diagnostics.sleep"]


def submit(user: Any) -> Job:
    return job_submit(org=user.organization, user=user, tool=SLEEP, payload={"seconds": 0}).job


def test_a_soft_limit_right_after_the_commit_keeps_the_job_its_files_and_its_event(
    partner: Any, monkeypatch: Any
) -> None:
    Webhook.objects.create(organization=partner.organization, url="https://h.maison.test/x",
                           secret="whsec_x", events=["job.succeeded"])
    job = submit(partner)
    taken = job_start(job_id=job.pk)
    assert taken is not None and taken.lease is not None

    def limit(**_kwargs: Any) -> bool:  # the soft limit firing after the commit (D3), in the
        raise SoftTimeLimitExceeded()   # one Redis call that follows it (figures and wake-up)

    monkeypatch.setattr(figures, "job_ended", limit)
    assert job_succeed(job=taken, lease=taken.lease,
                       outputs=[EngineOutput(b"{}", "application/json", "o.json")])

    job.refresh_from_db()
    assert job.status == JobStatus.SUCCEEDED
    (output,) = JobOutput.objects.filter(job=job)
    assert default_storage.exists(output.file.name)  # not taken for a failed save
    # the event was committed with the state; the next dispatch (the reconcile tick's, here
    # without its wake) delivers it once
    assert JobEvent.objects.filter(job=job).count() == 1
    monkeypatch.undo()
    webhook_services.events_dispatch()
    webhook_services.events_dispatch()
    assert WebhookDelivery.objects.filter(event="job.succeeded").count() == 1


def broker_queue(name: str, *, empty: bool = False) -> list[str]:
    """The task ids in a queue, front first (kombu pushes on the left, pops on the right);
    `empty` empties it first."""
    from config.celery_app import app

    with app.connection_for_write() as conn:
        client = conn.default_channel.client
        if empty:
            client.delete(name)
        raw = client.lrange(name, 0, -1)
    return [json.loads(item)["headers"]["id"] for item in reversed(raw)]


def test_a_job_the_reconciler_requeues_goes_to_the_front_of_its_queue(
    partner: Any, redis_server: Any
) -> None:
    # given newer jobs waiting in the broker, and a running job whose worker went silent
    lost = submit(partner)
    taken = job_start(job_id=lost.pk)
    assert taken is not None
    assert broker_queue(SLEEP.queue, empty=True) == []  # its first message was taken
    newer = [submit(partner) for _ in range(3)]
    stale = timezone.now() - timedelta(minutes=1)
    Job.objects.filter(pk=lost.pk).update(heartbeat_at=stale, started_at=stale)

    # when the reconciler requeues it
    assert jobs_reconcile().requeued_stale == 1

    # then its message is the next one out of the queue, ahead of the newer jobs'
    waiting = [task_id.split(".")[0] for task_id in broker_queue(SLEEP.queue)]
    assert waiting == [str(lost.pk), *(str(j.pk) for j in newer)]


def test_a_connection_broken_before_the_take_is_replaced(partner: Any) -> None:
    """The job's task skips the per-task health check (a round trip per job): its take
    replaces a connection that a database restart broke, as the check would have."""
    from django.db import close_old_connections, connection

    from workers.tasks.jobs import run_job

    if connection.vendor != "postgresql":
        pytest.skip("a PostgreSQL connection: SQLite's has nothing to break")
    job = submit(partner)
    connection.ensure_connection()
    close_old_connections()  # the task's prerun: it would health-check the next query
    connection.connection.close()  # the server went away under the kept connection

    assert run_job(str(job.pk)) == "succeeded"
    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.SUCCEEDED, 1)


def test_only_an_end_someone_hears_wakes_the_dispatcher_and_no_event_is_lost(
    partner: Any,
) -> None:
    """On PostgreSQL the statement that ends a job says whether anyone hears of it; an end
    nobody hears wakes no dispatch (its figures are sent without waiting for Redis), yet its
    event is in the outbox for the reconcile tick's dispatch. SQLite's ends always wake."""
    from django.db import connection
    from webhooks.services import DISPATCH_WAKE_KEY

    from workers.tasks.jobs import run_job

    client = figures.redis_client()
    client.delete(DISPATCH_WAKE_KEY)
    quiet = submit(partner)
    assert run_job(str(quiet.pk)) == "succeeded"

    # the figures this process sent unanswered are read back here: the job left its queue
    state = figures.queue_state(queue=quiet.queue)
    assert state is not None and (state.ahead, state.running) == (0, [])
    assert bool(client.exists(DISPATCH_WAKE_KEY)) == (connection.vendor != "postgresql")
    assert list(JobEvent.objects.values_list("job_id", flat=True)) == [quiet.pk]

    client.delete(DISPATCH_WAKE_KEY)
    Webhook.objects.create(organization=partner.organization, url="https://h.maison.test/x",
                           secret="whsec_x", events=["job.succeeded"])
    heard = submit(partner)
    assert run_job(str(heard.pk)) == "succeeded"
    assert client.exists(DISPATCH_WAKE_KEY)

    # one dispatch takes both events: the subscribed job's delivery, once
    assert webhook_services.events_dispatch() == 2
    assert not JobEvent.objects.exists()
    deliveries = WebhookDelivery.objects.filter(event="job.succeeded")
    assert deliveries.count() == 2  # the webhook of the organisation hears both jobs' ends
