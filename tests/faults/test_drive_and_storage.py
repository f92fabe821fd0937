"""A Drive outage in the middle of a delivery, and output storage that fills up or refuses
writes: the work is delivered once when the drive is back; a job whose outputs cannot be
stored fails with a clear error and never serves a half-written file."""

from __future__ import annotations

import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from jobs.models import Job, JobOutput
from tests.faults.effects import new_mark
from tests.faults.harness import (
    Gunicorn,
    HttpLog,
    Partner,
    Tally,
    env_float,
    env_int,
    make_partners,
    report,
    start_fault_worker,
    tally_jobs,
    wait_final,
)
from tests.support.fake_drive import ENDPOINTS
from tests.support.processes import LOGS, start_beat, start_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def drive_outage(fake: Any, *, start_when: Any, seconds: float) -> threading.Thread:
    """Every Drive endpoint answers 503 for `seconds`, from the moment start_when() holds."""

    def run() -> None:
        deadline = time.monotonic() + 120
        while not start_when() and time.monotonic() < deadline:
            time.sleep(0.05)
        for endpoint in ENDPOINTS:
            fake.inject(endpoint, "unavailable", times=1_000_000)
        time.sleep(seconds)
        with fake._lock:  # the outage ends: drop the faults still queued
            for queue in fake._faults.values():
                queue.clear()

    thread = threading.Thread(target=run, name="drive-outage", daemon=True)
    thread.start()
    return thread


def test_drive_outage_in_the_middle_of_a_delivery(procs: list[Any], fake_google: Any) -> None:
    from tests.faults.drives import delivered_keys, google_output_folder, succeeded_recolors
    from workers.tasks.drives import deliver_outputs_enqueue

    (user, _), = make_partners(1, staff=False)
    folder_id = google_output_folder(fake_google, user.organization)
    count, outputs = env_int("FAULTS_DELIVERY_JOBS", 4), 3
    jobs = succeeded_recolors(user, count=count, outputs=outputs)
    writes = LOGS / f"drive-writes-{uuid.uuid4().hex[:8]}.log"
    env = {"FAULTS_GOOGLE_URL": fake_google.base_url, "FAULTS_DRIVE_WRITE_DELAY": "0.3",
           "FAULTS_DRIVE_WRITES": str(writes)}
    procs += [start_fault_worker("drivesync", concurrency=2, env=env), start_beat()]
    outage_seconds = env_float("FAULTS_DRIVE_OUTAGE_SECONDS", 20)
    outage = drive_outage(fake_google, seconds=outage_seconds,
                          start_when=lambda: len(fake_google.children(folder_id)) >= 2)
    started = time.monotonic()
    for job in jobs:
        deliver_outputs_enqueue(job_id=str(job.pk), tool="recolor")

    outage.join(180)
    back = time.monotonic()
    during = len(fake_google.children(folder_id))
    wait_for(lambda: not JobOutput.objects.filter(job__in=jobs, drive_file_id="").exists(),
             240, interval=0.5, what="every output delivered after the outage")
    took = time.monotonic() - started
    recovery = time.monotonic() - back
    time.sleep(3)  # deliveries still in flight (the reconciler's) would land now
    keys = delivered_keys(fake_google, folder_id)
    expected = {f"{j.pk}:{i}" for j in jobs for i in range(outputs)}
    tally = Tally("Drive outage mid-delivery", submitted=len(expected))
    tally.succeeded = len(expected & set(keys))
    tally.lost = len(expected - set(keys))
    tally.doubled = sum(n - 1 for n in keys.values() if n > 1)
    tally.recovery_s = recovery
    tally.notes["recovery"] = "Drive back -> every output delivered"
    uploads = writes.read_text().splitlines() if writes.exists() else []
    tally.notes.update(outage_s=outage_seconds, files_when_outage_ended=during,
                       uploads=len(uploads), delivered_after_s=round(took, 1))
    report(tally)
    for out in JobOutput.objects.filter(job__in=jobs):
        assert out.drive_file_id in fake_google.files
    assert tally.lost == 0
    assert tally.doubled == 0, f"files per key: {dict(keys)}"


@pytest.mark.parametrize("mode", ["full", "readonly"])
def test_storage_that_fills_up_or_refuses_writes(mode: str, procs: list[Any]) -> None:
    """Every output write of the worker fails (ENOSPC half-way / EROFS). Each job must fail
    with a clear storage error, soon, without outputs; nothing half-written is served."""
    (user, token), = make_partners(1)
    web = Gunicorn().start()
    procs += [web, start_fault_worker("interactive", concurrency=2,
                                      env={"FAULTS_STORAGE": mode}),
              start_worker(queues="drivesync", concurrency=1), start_beat()]
    log = HttpLog()
    partner = Partner(web.url, token, log)
    count = env_int("FAULTS_STORAGE_JOBS", 6)
    marks: dict[str, str] = {}
    for _ in range(count):
        mark = new_mark()
        job_id, _seen = partner.submit({"seconds": 0.2, "outputs": 2, "mark": mark})
        assert job_id
        marks[job_id] = mark
    ids = list(marks)
    # A clear failure comes from the run itself; the reconciler giving up on a "lost worker"
    # after JOB_MAX_ATTEMPTS stale heartbeats takes ~3 x (3 s + reconcile) here.
    ended = wait_final(ids, timeout=90)
    tally = tally_jobs(f"storage {mode}", ids, marks=marks)
    jobs = list(Job.objects.filter(pk__in=ids))
    tally.notes["attempts"] = sorted({j.attempts for j in jobs})
    tally.notes["errors"] = sorted({f"{j.error_code}: {j.error_message}" for j in jobs
                                    if j.status == "failed"})
    # what a partner sees: the job, and no output to fetch
    served = []
    for job_id in ids:
        body = partner.job(job_id) or {}
        served += body.get("outputs") or []
        resp = partner.call("GET", f"/api/jobs/{job_id}/outputs/0")
        if resp is not None and resp.status_code == 200:
            served.append(job_id)
    tally.notes["outputs_served"] = len(served)
    # half-written files left in storage (never referenced by a JobOutput row)
    media = Path(settings.MEDIA_ROOT)
    leftovers = [p for j in jobs for p in (media / "jobs" / str(j.organization_id) /
                                            str(j.pk)).rglob("*") if p.is_file()]
    tally.notes["stray_files_in_storage"] = len(leftovers)
    report(tally)
    assert ended, "jobs still open 90 s after they were submitted"
    assert tally.lost == 0 and tally.doubled == 0
    assert tally.succeeded == 0 and not served
    assert not JobOutput.objects.filter(job_id__in=ids).exists()
    assert set(tally.failed) == {"storage_error"} or all(
        "storage" in m.lower() or "space" in m.lower() or "read-only" in m.lower()
        for m in tally.notes["errors"]), f"no clear storage error: {tally.notes['errors']}"
    assert log.server_errors() == []
