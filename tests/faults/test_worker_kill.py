"""A worker of each queue SIGKILLed in the middle of a job (and the drivesync worker in the
middle of a delivery): another worker finishes the work, exactly once."""

from __future__ import annotations

import dataclasses
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

import config.settings as product
from jobs.models import Job
from jobs.services import job_submit
from tests.faults.effects import new_mark
from tests.faults.harness import (
    Tally,
    env_int,
    make_partners,
    report,
    start_fault_worker,
    tally_jobs,
    wait_final,
    wait_rerun,
)
from tests.support.processes import LOGS, start_beat, start_worker, wait_for
from tools.registry import TOOLS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.mark.parametrize("queue", ["interactive", "batch", "video"])
def test_worker_sigkilled_mid_job(queue: str, procs: list[Any]) -> None:
    """Diagnostic jobs routed to the queue; its only worker is SIGKILLed while the first job
    is half done, a new worker of that queue takes over."""
    (user, _), = make_partners(1)
    tool = dataclasses.replace(TOOLS["diagnostics.sleep"], queue=queue)
    count = env_int("FAULTS_KILL_JOBS", 6)
    first = start_worker(queues=queue, concurrency=1)
    # beat's reconciler runs on the drivesync queue, as in production
    procs += [first, start_worker(queues="drivesync", concurrency=1), start_beat()]
    marks = {str(job_submit(org=user.organization, user=user, tool=tool, payload={
        "seconds": 2.5 if i == 0 else 0.3, "fail": False, "ignore_soft_limit": False,
        "outputs": 2, "mark": mark}).job.pk): mark for i, mark in enumerate(
            new_mark() for _ in range(count))}
    ids = list(marks)
    wait_for(lambda: Job.objects.get(pk=ids[0]).progress >= 30, 30, what="half-way")

    first.kill()  # SIGKILL to worker and pool: the message stays unacked, the job running
    killed = time.monotonic()
    killed_at = Job.objects.get(pk=ids[0])
    assert killed_at.status == "running"
    procs.append(start_worker(queues=queue, concurrency=1))

    recovery = wait_rerun(ids[0], attempt=2, since=killed)
    assert wait_final(ids, timeout=90), "jobs still open 90 s after the kill"
    tally = tally_jobs(f"worker SIGKILL ({queue})", ids, marks=marks)
    tally.recovery_s = recovery
    tally.notes["recovery"] = "kill -> the job running again on a new worker"
    tally.notes["clocks"] = (f"the suites' (heartbeat stale after "
                             f"{settings.JOB_HEARTBEAT_STALE_SECONDS:g} s, reconcile every "
                             f"{settings.JOB_RECONCILE_SECONDS:g} s)")
    tally.notes["killed_job_attempts"] = Job.objects.get(pk=ids[0]).attempts
    report(tally)
    assert tally.lost == 0 and tally.doubled == 0
    assert tally.succeeded == count, tally.failed
    assert Job.objects.get(pk=ids[0]).attempts == 2


def test_drivesync_worker_sigkilled_mid_delivery(procs: list[Any], fake_google: Any,
                                                 tmp_path: Path) -> None:
    """Recolor outputs delivered to a Google Drive output folder (the loopback fake); the
    drivesync worker is SIGKILLed after some files were uploaded and before the rest."""
    from tests.faults.drives import delivered_keys, google_output_folder, succeeded_recolors
    from workers.tasks.drives import deliver_outputs_enqueue

    (user, _), = make_partners(1, staff=False)
    folder_id = google_output_folder(fake_google, user.organization)
    jobs = succeeded_recolors(user, count=env_int("FAULTS_DELIVERY_JOBS", 4), outputs=3)
    writes = LOGS / f"drive-writes-{uuid.uuid4().hex[:8]}.log"
    # A delivery holds its job for DELIVERY_LEASE_SECONDS (600 s in production: the task's
    # time limit), a killed one too: a short lease here, so the takeover is seen in minutes.
    lease = env_int("FAULTS_DELIVERY_LEASE_SECONDS", 15)
    env = {"FAULTS_GOOGLE_URL": fake_google.base_url, "FAULTS_DRIVE_WRITE_DELAY": "1.0",
           "FAULTS_DRIVE_WRITES": str(writes), "DELIVERY_LEASE_SECONDS": str(lease)}
    first = start_fault_worker("drivesync", concurrency=1, env=env)
    procs.append(first)
    for job in jobs:
        deliver_outputs_enqueue(job_id=str(job.pk), tool="recolor")
    wait_for(lambda: len(fake_google.children(folder_id)) >= 2, 60, what="first uploads")

    first.kill()
    killed = time.monotonic()
    before = len(fake_google.children(folder_id))
    procs += [start_fault_worker("drivesync", concurrency=2,
                                 env=env | {"FAULTS_DRIVE_WRITE_DELAY": "0"}), start_beat()]

    from jobs.models import JobOutput

    wait_for(lambda: not JobOutput.objects.filter(job__in=jobs, drive_file_id="").exists(),
             120, interval=0.2, what="every output delivered")
    recovery = time.monotonic() - killed
    keys = delivered_keys(fake_google, folder_id)
    expected = {f"{j.pk}:{i}" for j in jobs for i in range(3)}
    tally = Tally("drivesync worker SIGKILL mid-delivery", submitted=len(expected))
    tally.succeeded = len(expected & set(keys))
    tally.lost = len(expected - set(keys))
    tally.doubled = sum(n - 1 for n in keys.values() if n > 1)
    tally.recovery_s = recovery
    tally.notes["recovery"] = "kill -> every output delivered"
    tally.notes.update(files_before_kill=before, files=sum(keys.values()),
                       delivery_lease_s=f"{lease} (production: {product.DELIVERY_LEASE_SECONDS})")
    # the output rows point at files that exist
    for out in JobOutput.objects.filter(job__in=jobs):
        assert out.drive_file_id in fake_google.files
    report(tally)
    assert tally.lost == 0 and tally.doubled == 0
