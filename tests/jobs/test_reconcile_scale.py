"""The reconcile tick under a lock, its queued scan in bounded batches, and the pending drive
deliveries found from the undelivered outputs only."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from drives.services import deliveries_pending
from jobs import figures
from jobs.models import Job, JobOutput
from jobs.services import ReconcileReport, job_start, job_submit, job_succeed, jobs_reconcile
from tools.registry import TOOLS
from workers.engines.base import EngineOutput
from workers.tasks import maintenance


def _tick_in_a_thread(monkeypatch: Any, work: Any) -> tuple[list[dict[str, int]],
                                                              threading.Thread]:
    """A reconcile tick started in a thread whose work is `work` (the other steps do
    nothing): its report lands in the list once it ends."""
    monkeypatch.setattr(maintenance, "jobs_reconcile", work)
    monkeypatch.setattr(maintenance, "deliveries_reconcile", lambda **_: 0)
    monkeypatch.setattr(maintenance, "deliveries_due", lambda: 0)
    monkeypatch.setattr(maintenance, "figures_heal", lambda **_: figures.HealReport())
    monkeypatch.setattr(maintenance, "events_dispatch", lambda: 0)
    results: list[dict[str, int]] = []
    first = threading.Thread(target=lambda: results.append(maintenance.reconcile.run()))
    first.start()
    return results, first


def test_two_concurrent_ticks_exactly_one_does_the_work(monkeypatch: Any,
                                                        redis_server: Any) -> None:
    inside = threading.Event()
    release = threading.Event()
    calls: list[str] = []

    def slow_reconcile() -> Any:
        calls.append("work")
        inside.set()
        assert release.wait(10)
        return ReconcileReport()

    results, first = _tick_in_a_thread(monkeypatch, slow_reconcile)
    assert inside.wait(10)
    # a second tick while the first one works: it does nothing and says so
    second = maintenance.reconcile.run()
    release.set()
    first.join(10)

    assert second == {"skipped_locked": 1}
    assert calls == ["work"]
    assert results and results[0]["skipped_locked"] == 0
    # the lock is free again once the tick ended
    assert maintenance.reconcile.run()["skipped_locked"] == 0


def test_a_tick_longer_than_the_locks_ttl_keeps_it_and_a_killed_ticks_lock_frees_itself(
        monkeypatch: Any, redis_server: Any) -> None:
    monkeypatch.setattr(maintenance, "RECONCILE_LOCK_SECONDS", 0.6)
    inside = threading.Event()
    release = threading.Event()

    def slow_reconcile() -> Any:
        inside.set()
        assert release.wait(10)
        return ReconcileReport()

    results, first = _tick_in_a_thread(monkeypatch, slow_reconcile)
    assert inside.wait(10)
    time.sleep(2.0)  # more than three TTLs: only the renewals keep the lock
    assert maintenance.reconcile.run() == {"skipped_locked": 1}
    release.set()
    first.join(10)
    assert results and results[0]["skipped_locked"] == 0

    # A tick whose process was killed leaves its lock behind, unrenewed: held at first, free
    # once its TTL has run out, not after the tick's time limit.
    client = figures.redis_client()
    client.set(maintenance.RECONCILE_LOCK, "a-killed-tick", px=600)
    assert maintenance.reconcile.run() == {"skipped_locked": 1}
    time.sleep(0.8)
    assert maintenance.reconcile.run()["skipped_locked"] == 0


@pytest.mark.django_db(transaction=True)
def test_the_queued_scan_goes_through_every_batch(partner: Any, settings: Any,
                                                  redis_server: Any) -> None:
    settings.JOB_RECONCILE_BATCH = 2
    jobs = [job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
                       payload={"seconds": 0.1}).job for _ in range(5)]
    Job.objects.filter(pk__in=[j.pk for j in jobs]).update(
        enqueued_at=timezone.now() - timedelta(minutes=1))

    report = jobs_reconcile(broker_job_ids=set())  # the broker lost them all

    assert report.reenqueued == 5 and report.queued_scanned == 5


def test_only_drive_tool_outputs_await_delivery(partner: Any) -> None:
    def finished(tool: str, payload: dict[str, Any]) -> Job:
        job = job_submit(org=partner.organization, user=partner, tool=TOOLS[tool],
                         payload=payload).job
        lease = job_start(job_id=job.pk).lease
        job_succeed(job=job, lease=lease,
                    outputs=[EngineOutput(b"\x89PNG", "image/png", "out.png")])
        return job

    drive_job = finished("recolor", {"image_url": "https://cdn.maison.test/looks/a.jpg",
                                     "target_color": "#c5b299", "garment_type": "polo"})
    other = finished("diagnostics.sleep", {"seconds": 0})

    assert JobOutput.objects.get(job=drive_job).awaiting_delivery
    assert not JobOutput.objects.get(job=other).awaiting_delivery
    assert deliveries_pending(older_than_seconds=-60) == [drive_job.pk]
    JobOutput.objects.filter(job=drive_job).update(drive_file_id="x", awaiting_delivery=False)
    assert deliveries_pending(older_than_seconds=-60) == []
