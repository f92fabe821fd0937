"""Outputs reach the output folder within seconds, also while webhook endpoints fail and retry
(issue 21 item 6): webhook deliveries have their own queue and worker, and a job's delivery is
enqueued once however often the reconciler finds it waiting.

Real processes: a drivesync worker, a webhooks worker and beat (whose reconciler ticks every
second here); the endpoints are loopback servers that answer 500 after two seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from drives.models import DriveFolder
from drives.services import drive_client, drive_folders_ensure
from jobs.models import Job
from jobs.services import job_start, job_submit, job_succeed
from tests.faults.effects import DeliveryQueue, webhook_receivers
from tests.support.processes import CeleryProcess, start_beat, start_worker, wait_for
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

pytestmark = [pytest.mark.django_db(transaction=True)]

ENDPOINTS = 20
WAVES, PER_WAVE, OUTPUTS = 3, 3, 2
# A correctness bound on the delivery path, not a speed figure: a delivery that waited behind
# webhook retries, or behind a second copy of itself, took minutes.
WITHIN_SECONDS = 10.0


@pytest.fixture
def delivery_stack(django_db_setup: Any) -> Iterator[list[CeleryProcess]]:
    procs = [start_worker(queues="drivesync", concurrency=1),
             start_worker(queues="webhooks", concurrency=2, env={"OUTBOUND_ALLOW": "127.0.0.1"}),
             start_beat()]
    yield procs
    for proc in procs:
        proc.kill()


def succeeded_recolor(partner: Any, n: int) -> Job:
    """A Recolor job that ran and succeeded, as the worker ends it."""
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["recolor"], payload={
        "image_url": f"https://cdn.maison.test/looks/look-{n}.jpg", "target_color": "#c5b299",
        "garment_type": "polo"}).job
    started = job_start(job_id=job.pk)
    assert started is not None and started.lease is not None
    assert job_succeed(job=started, lease=started.lease, outputs=[
        EngineOutput(b"\x89PNG-" + bytes([n, i]) * 512, "image/png", "recolor.png")
        for i in range(OUTPUTS)])
    return job


def test_outputs_land_in_the_output_folder_within_seconds_while_webhooks_fail(
        partner: Any, delivery_stack: list[CeleryProcess]) -> None:
    from webhooks.models import Webhook
    from webhooks.services import new_secret

    from workers.tasks.drives import deliver_outputs_enqueue

    # given an organisation whose 20 webhook endpoints all fail (slowly) on every event
    drive_folders_ensure(org=partner.organization)
    folder = DriveFolder.objects.get(organization=partner.organization, tool="recolor",
                                     role="output")
    with webhook_receivers(fail_after=2.0) as hooks:
        for i in range(ENDPOINTS):
            Webhook.objects.create(organization=partner.organization,
                                   url=hooks.url(f"down{i}", failing=True),
                                   events=["job.succeeded"], secret=new_secret())

        # when its Recolor jobs succeed in waves, each delivery enqueued as the job task does
        jobs: list[Job] = []
        with DeliveryQueue() as queue:
            for wave in range(WAVES):
                for i in range(PER_WAVE):
                    job = succeeded_recolor(partner, wave * PER_WAVE + i)
                    deliver_outputs_enqueue(job_id=str(job.pk), tool=job.tool)
                    jobs.append(job)
                time.sleep(1.5)  # the reconciler ticks meanwhile
            shorts = {str(j.pk)[:8]: j for j in jobs}

            def files() -> list[Any]:
                return [f for f in drive_client(folder).list(folder.locator)
                        if any(s in f.name for s in shorts)]

            wait_for(lambda: len(files()) == len(jobs) * OUTPUTS, 60, interval=0.2,
                     what="every output in the folder")
            time.sleep(2)  # a second delivery of a job would be under way now
        failing_calls = hooks.count()

    # then every file is there once, written within seconds of its job's end
    landed = {}
    for item in files():
        job = next(j for s, j in shorts.items() if s in item.name)
        job.refresh_from_db()
        landed[item.name] = (item.modified_at - job.finished_at).total_seconds()
    print(f"\n[delivery] {len(landed)} files, landed after max {max(landed.values()):.2f} s, "
          f"median {sorted(landed.values())[len(landed) // 2]:.2f} s; "
          f"{failing_calls} failing webhook calls meanwhile; "
          f"most deliveries queued for one job: {max(queue.most.values(), default=0)} "
          f"({queue.samples} samples)")
    assert len(landed) == len(jobs) * OUTPUTS
    assert max(landed.values()) <= WITHIN_SECONDS, landed
    assert failing_calls > 0  # the endpoints were failing while the files were delivered
    # and the drivesync queue never held two deliveries of one job
    assert queue.samples > 10
    assert max(queue.most.values(), default=0) <= 1, dict(queue.most)


def test_a_delivery_waiting_for_its_retry_is_not_enqueued_again(partner: Any,
                                                                settings: Any) -> None:
    """A delivery that failed waits in Celery for its retry (up to ten minutes): the job's
    mark outlives that wait, so the reconciler adds no second delivery; once no retry is
    left, the mark is gone and the reconciler may enqueue it again."""
    import redis
    from django.core.cache import cache
    from django.core.files.storage import default_storage

    from jobs.models import JobOutput
    from workers.tasks.drives import (
        RETRY_BACKOFF_MAX,
        _marker,
        deliver_outputs,
        deliver_outputs_enqueue,
        deliveries_reconcile,
    )

    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("drivesync")
    cache.clear()
    drive_folders_ensure(org=partner.organization)
    job = succeeded_recolor(partner, 0)
    # given a job whose stored result is gone, so that its delivery fails
    for output in JobOutput.objects.filter(job=job):
        default_storage.delete(output.file.name)
    assert deliver_outputs_enqueue(job_id=str(job.pk), tool=job.tool)
    broker.delete("drivesync")  # the worker took that message: it runs here

    # when the delivery fails and Celery schedules its retry
    deliver_outputs.push_request(retries=0, id="first-attempt")
    try:
        with pytest.raises(Exception):  # noqa: B017 - Retry, after the missing file's error
            deliver_outputs.run(str(job.pk))
    finally:
        deliver_outputs.pop_request()

    # then the mark holds for longer than the retry may wait, and the reconciler adds nothing
    key = cache.make_key(_marker(str(job.pk)))
    assert broker.ttl(key) > RETRY_BACKOFF_MAX
    assert deliveries_reconcile(older_than_seconds=0) == 0

    # and when the last retry fails too, the mark goes: the reconciler enqueues it again
    deliver_outputs.push_request(retries=deliver_outputs.max_retries, id="last-attempt")
    try:
        with pytest.raises(Exception):  # noqa: B017 - the missing file's error, no retry left
            deliver_outputs.run(str(job.pk))
    finally:
        deliver_outputs.pop_request()
    assert not cache.get(_marker(str(job.pk)))
    assert deliveries_reconcile(older_than_seconds=0) == 1
    broker.delete("drivesync")
