"""The job lifecycle as services: guarded transitions, cancel, retry, idempotency, ETA."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from config.errors import Conflict
from jobs import figures
from jobs.models import Job, JobOutput, JobStatus
from jobs.selectors import QueueFigures, queue_position
from jobs.services import (
    job_cancel,
    job_fail,
    job_retry,
    job_start,
    job_submit,
    job_succeed,
    jobs_reconcile,
    outputs_cleanup,
)
from tests.support.factories import UserFactory
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

SLEEP = TOOLS["diagnostics.sleep"]


def submit(user: Any, **payload: Any) -> Job:
    return job_submit(org=user.organization, user=user, tool=SLEEP,
                      payload={"seconds": 0.1, **payload}).job


def out(text: str) -> EngineOutput:
    return EngineOutput(data=text.encode(), content_type="text/plain", filename="o.txt")


def test_lifecycle_queued_running_succeeded(partner: Any) -> None:
    job = submit(partner)
    assert job.status == JobStatus.QUEUED

    started = job_start(job_id=job.pk)
    assert started is not None and started.status == JobStatus.RUNNING
    assert started.input == {"seconds": 0.1} and started.attempts == 1
    lease = started.lease
    assert job_start(job_id=job.pk) is None  # a second delivery finds it taken

    assert job_succeed(job=job, lease=lease, outputs=[out("a"), out("b")])
    job.refresh_from_db()
    assert (job.status, job.progress, job.attempts) == (JobStatus.SUCCEEDED, 100, 1)
    assert list(job.outputs.values_list("index", flat=True)) == [0, 1]
    assert job.outputs.get(index=1).file.read() == b"b"


def test_a_run_that_lost_its_lease_cannot_finish_the_job(partner: Any) -> None:
    job = submit(partner)
    old = job_start(job_id=job.pk).lease
    # the reconciler gave the job to another run
    Job.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED, lease=None)
    new = job_start(job_id=job.pk).lease

    assert not job_succeed(job=job, lease=old, outputs=[out("stale")])
    assert not job_fail(job_id=job.pk, lease=old, code="x", message="stale")
    assert job_succeed(job=job, lease=new, outputs=[out("fresh")])
    assert [o.file.read() for o in JobOutput.objects.filter(job=job)] == [b"fresh"]


@pytest.mark.django_db(transaction=True)
def test_two_workers_finishing_the_same_job_exactly_one_wins(partner: Any) -> None:
    job = submit(partner)
    first = job_start(job_id=job.pk).lease
    Job.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED)  # taken over mid-run...
    second = job_start(job_id=job.pk).lease
    Job.objects.filter(pk=job.pk).update(lease=first)  # ...and both believe they own it
    results: dict[str, bool] = {}
    barrier = threading.Barrier(2)

    def finish(name: str, lease: uuid.UUID) -> None:
        barrier.wait()
        try:
            results[name] = job_succeed(job=job, lease=lease, outputs=[out(name)])
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(n, lease))
               for n, lease in (("first", first), ("second", second))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert sorted(results.values()) == [False, True]
    assert JobOutput.objects.filter(job=job).count() == 1
    assert Job.objects.get(pk=job.pk).status == JobStatus.SUCCEEDED


def test_cancel_and_retry(partner: Any) -> None:
    job = submit(partner)
    job = job_cancel(job=job)
    assert job.status == JobStatus.CANCELED
    with pytest.raises(Conflict):
        job_cancel(job=job)
    assert job_start(job_id=job.pk) is None  # a canceled job never starts

    job = job_retry(job=job)
    assert (job.status, job.attempts, job.error_code) == (JobStatus.QUEUED, 0, "")
    with pytest.raises(Conflict):
        job_retry(job=job)


def test_cancel_of_a_running_job_stops_its_writes(partner: Any) -> None:
    job = submit(partner)
    lease = job_start(job_id=job.pk).lease
    job_cancel(job=job)
    assert not job_succeed(job=job, lease=lease, outputs=[out("late")])
    assert Job.objects.get(pk=job.pk).status == JobStatus.CANCELED
    assert not JobOutput.objects.filter(job=job).exists()


def test_idempotency_key_returns_the_same_job_and_refuses_another_request(partner: Any) -> None:
    org = partner.organization
    first = job_submit(org=org, user=partner, tool=SLEEP, payload={"seconds": 1},
                       idempotency_key="k1")
    again = job_submit(org=org, user=partner, tool=SLEEP, payload={"seconds": 1},
                       idempotency_key="k1")
    assert first.created and not again.created
    assert first.job.pk == again.job.pk
    with pytest.raises(Conflict):
        job_submit(org=org, user=partner, tool=SLEEP, payload={"seconds": 2},
                   idempotency_key="k1")
    # keys are per organisation
    other = UserFactory()
    assert job_submit(org=other.organization, user=other, tool=SLEEP, payload={"seconds": 1},
                      idempotency_key="k1").created


def test_queue_position_and_eta_follow_the_backlog(
        partner: Any, django_capture_on_commit_callbacks: Any) -> None:
    now = timezone.now()
    # history: three past runs of 10 s each, recorded as the worker records them
    for _ in range(3):
        figures.run_recorded(tool=SLEEP.slug, seconds=10.0)
    with django_capture_on_commit_callbacks(execute=True):
        jobs = [submit(partner) for _ in range(3)]
    figures_ = QueueFigures()
    assert figures_.avg(SLEEP.slug) == pytest.approx(10.0)
    positions = [figures_.position_and_eta(j) for j in jobs]
    assert [p for p, _ in positions] == [0, 1, 2]
    assert [queue_position(job=j) for j in jobs] == [0, 1, 2]
    assert [eta for _, eta in positions] == [pytest.approx(10.0), pytest.approx(20.0),
                                             pytest.approx(30.0)]

    lease = job_start(job_id=jobs[0].pk)
    assert lease
    Job.objects.filter(pk=jobs[0].pk).update(started_at=now - timedelta(seconds=4), progress=40)
    figures.job_started(job_id=jobs[0].pk, queue=SLEEP.queue, tool=SLEEP.slug,
                        started_at=now - timedelta(seconds=4))
    figures.job_progressed(job_id=jobs[0].pk, percent=40)
    figures.job_progressed(job_id=jobs[0].pk, percent=10)  # a late, lower figure is ignored
    running = Job.objects.get(pk=jobs[0].pk)
    position, eta = QueueFigures().position_and_eta(running)
    assert position == 0
    assert eta == pytest.approx(6.0, abs=0.5)  # 4 s for 40 % → 6 s to go
    position, eta = QueueFigures().position_and_eta(jobs[1])
    assert position == 0
    assert eta == pytest.approx(16.0, abs=0.5)  # the running job's 6 s, then its own 10 s


@pytest.mark.django_db(transaction=True)
def test_reconciler_requeues_a_job_whose_worker_stopped_heartbeating(partner: Any) -> None:
    job = submit(partner)
    job_start(job_id=job.pk)
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(started_at=now - timedelta(minutes=10),
                                         heartbeat_at=now - timedelta(minutes=5))

    report = jobs_reconcile()
    job.refresh_from_db()
    # ran 5 minutes, longer than the tool's hard limit: that is a time limit, not a lost worker
    assert job.status == JobStatus.FAILED and job.error_code == "time_limit"
    assert report.failed_stale == 1

    job2 = submit(partner)
    job_start(job_id=job2.pk)
    stale = timezone.now() - timedelta(seconds=5)
    Job.objects.filter(pk=job2.pk).update(heartbeat_at=stale, started_at=stale)
    report = jobs_reconcile()
    job2.refresh_from_db()
    assert report.requeued_stale == 1
    assert job2.status == JobStatus.QUEUED and job2.lease is None and job2.enqueued_at


@pytest.mark.django_db(transaction=True)
def test_reconciler_gives_up_after_the_attempt_cap(partner: Any, settings: Any) -> None:
    job = submit(partner)
    job_start(job_id=job.pk)
    stale = timezone.now() - timedelta(seconds=5)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=stale, started_at=stale,
                                         attempts=settings.JOB_MAX_ATTEMPTS)
    jobs_reconcile()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error_code == "worker_lost"
    assert f"stopped {settings.JOB_MAX_ATTEMPTS} times" in job.error_message


@pytest.mark.django_db(transaction=True)
def test_reconciler_reenqueues_queued_jobs_the_broker_lost(partner: Any, redis_server: Any) -> None:
    job = submit(partner)  # enqueued on commit: the broker holds it
    job.refresh_from_db()
    assert job.enqueue_count == 1
    Job.objects.filter(pk=job.pk).update(enqueued_at=timezone.now() - timedelta(minutes=1))
    assert jobs_reconcile().reenqueued == 0  # still in the broker: left alone

    redis_server.flushall()  # the broker lost its data
    assert jobs_reconcile().reenqueued == 1
    job.refresh_from_db()
    assert job.enqueue_count == 2


def test_cleanup_removes_old_outputs(partner: Any) -> None:
    job = submit(partner)
    lease = job_start(job_id=job.pk).lease
    job_succeed(job=job, lease=lease, outputs=[out("old")])
    output = JobOutput.objects.get(job=job)
    storage, name = output.file.storage, output.file.name
    assert outputs_cleanup(older_than_days=1) == 0
    Job.objects.filter(pk=job.pk).update(finished_at=timezone.now() - timedelta(days=2))
    assert outputs_cleanup(older_than_days=1) == 1
    assert not JobOutput.objects.filter(job=job).exists()
    assert not storage.exists(name)


def test_a_storage_error_fails_the_job_clearly_and_leaves_no_partial_file(
    partner: Any, settings: Any, tmp_path: Any
) -> None:
    from workers.runner import job_run

    job = submit(partner, seconds=0)
    settings.MEDIA_ROOT = tmp_path / "media"
    (tmp_path / "media").mkdir()
    (tmp_path / "media" / "jobs").write_text("a file where the folder should be")
    assert job_run(job_id=str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error_code == "storage_error"
    assert "could not be stored" in job.error_message
    assert not JobOutput.objects.filter(job=job).exists()
