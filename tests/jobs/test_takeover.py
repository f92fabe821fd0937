"""Recovery in seconds (issue 21, item 5): a run records its host and pid on the job; when a
prefork pool child is SIGKILLed, the worker publishes the task again at the front of its queue,
and the run that takes it sees that the old run's process is gone and takes the job over at
once (no wait for a stale heartbeat), ahead of newer work. Real worker processes; the pool
child's pid is read from the job."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from jobs.models import Job, JobOutput, JobStatus
from jobs.services import RUN_HOST, job_start, job_submit
from tests.support.polling import wait_job
from tests.support.processes import CeleryProcess, start_worker, wait_for
from tools.registry import TOOLS

pytestmark = pytest.mark.django_db(transaction=True)

SLEEP = TOOLS["diagnostics.sleep"]


@pytest.fixture
def one_child(django_db_setup: Any) -> Iterator[CeleryProcess]:
    """A prefork worker with one pool child on the diagnostics' queue."""
    proc = start_worker(queues=SLEEP.queue, concurrency=1)
    yield proc
    proc.stop()


def submit(user: Any, seconds: float, outputs: int = 1) -> Job:
    return job_submit(org=user.organization, user=user, tool=SLEEP,
                      payload={"seconds": seconds, "outputs": outputs}).job


def running_pid(job: Job) -> int:
    """The pool child running the job, as its run recorded it."""
    def pid() -> int | None:
        job.refresh_from_db()
        return job.run_pid if job.status == JobStatus.RUNNING and job.progress > 0 else None

    found = wait_for(pid, 30, what=f"job {job.pk} running")
    assert job.run_host == RUN_HOST and found != os.getpid()
    return int(found)


def kill_child(job: Job) -> tuple[float, int]:
    pid = running_pid(job)
    os.kill(pid, signal.SIGKILL)
    return time.monotonic(), pid


def run_folders(job: Job) -> list[str]:
    """The lease folders runs stored files in (each run writes under its own lease)."""
    folder = f"jobs/{job.organization_id}/{job.pk}"
    return default_storage.listdir(folder)[0] if default_storage.exists(folder) else []


def test_a_killed_pool_childs_job_runs_again_at_once(partner: Any,
                                                     one_child: CeleryProcess) -> None:
    # given a job running in the worker's only pool child
    job = submit(partner, seconds=3, outputs=2)
    killed_at, pid = kill_child(job)

    # when that child is SIGKILLed, the job is running again under a new run
    def retaken() -> Job | None:
        job.refresh_from_db()
        return job if job.attempts == 2 and job.run_pid not in (None, pid) else None

    wait_for(retaken, 30, what="the job taken over")
    print(f"\njob running again {time.monotonic() - killed_at:.1f} s after its pool child "
          f"was SIGKILLed (idle queue)")

    # then it succeeds, with one successful run after the kill: two takes in all, one set of
    # outputs, and files from one run only
    done = wait_job(job.pk, timeout=60)
    assert (done.status, done.attempts, done.error_code) == (JobStatus.SUCCEEDED, 2, "")
    assert JobOutput.objects.filter(job=done).count() == 2
    assert len(run_folders(done)) == 1


def test_a_killed_pool_childs_job_goes_ahead_of_newer_work(partner: Any,
                                                           one_child: CeleryProcess) -> None:
    # given a job running in the only pool child, and three newer jobs waiting behind it
    job = submit(partner, seconds=3)
    running_pid(job)
    newer = [submit(partner, seconds=0.2) for _ in range(3)]
    killed_at, _ = kill_child(job)

    # when the child is killed, the job runs next, before any of the newer ones starts
    done = wait_job(job.pk, timeout=60)
    print(f"\nkilled job done {time.monotonic() - killed_at:.1f} s after the kill, "
          f"behind {len(newer)} newer jobs")
    assert (done.status, done.attempts) == (JobStatus.SUCCEEDED, 2)
    for other in newer:
        finished = wait_job(other.pk, timeout=60)
        assert finished.status == JobStatus.SUCCEEDED
        assert finished.started_at is not None and done.started_at is not None
        assert finished.started_at > done.started_at, "a newer job ran before the killed one"


def test_a_live_run_is_not_taken_over(partner: Any) -> None:
    """A duplicate delivery while the run lives (this process; a fresh heartbeat) does
    nothing; once the run's heartbeat is older than the takeover threshold it is taken."""
    job = submit(partner, seconds=0)
    first = job_start(job_id=job.pk)
    assert first is not None and (first.run_host, first.run_pid) == (RUN_HOST, os.getpid())
    assert job_start(job_id=job.pk) is None

    # a run on another host that went quiet
    Job.objects.filter(pk=job.pk).update(
        run_host="elsewhere", heartbeat_at=timezone.now() - timedelta(minutes=5))
    second = job_start(job_id=job.pk)
    assert second is not None and second.lease != first.lease and second.attempts == 2


def test_a_dead_run_past_its_attempts_fails_the_job(partner: Any, settings: Any) -> None:
    job = submit(partner, seconds=0)
    assert job_start(job_id=job.pk) is not None
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)  # a pid of this host that is gone
    Job.objects.filter(pk=job.pk).update(run_pid=dead, attempts=settings.JOB_MAX_ATTEMPTS)

    assert job_start(job_id=job.pk) is None
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "worker_lost")
