"""The one queue registry: queues split by kind of work so ops can scale each on its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kombu import Queue


@dataclass(frozen=True)
class QueueSpec:
    name: str
    purpose: str
    # The engine gets SoftTimeLimitExceeded at soft_limit and can fail the job cleanly;
    # the pool child is killed at hard_limit.
    soft_limit: int
    hard_limit: int

    def kombu_queue(self) -> Queue:
        return Queue(self.name, routing_key=self.name)


QUEUES: dict[str, QueueSpec] = {
    q.name: q
    for q in (
        QueueSpec("interactive", "direct tools: a person is waiting on the page", 240, 300),
        QueueSpec("batch", "card tools, Baghold, Earfit, Flats, Remodel", 900, 960),
        QueueSpec("video", "Spinview turntables", 1800, 1860),
        QueueSpec("drivesync", "drive listing, fetching, delivery and housekeeping", 600, 660),
        # Apart from drive delivery: endpoints that time out and retry must never hold up the
        # files partners wait for in their output folders.
        QueueSpec("webhooks", "signed callbacks to partners' endpoints", 60, 90),
    )
}

# Periodic housekeeping is light and rides on the drivesync queue.
MAINTENANCE_QUEUE = "drivesync"


def beat_schedule(*, reconcile_seconds: float) -> dict[str, dict[str, Any]]:
    return {
        "jobs-reconcile": {
            "task": "jobs.reconcile",
            "schedule": reconcile_seconds,
            "options": {"queue": MAINTENANCE_QUEUE, "expires": reconcile_seconds},
        },
        "jobs-cleanup-outputs": {
            "task": "jobs.cleanup_outputs",
            "schedule": 3600.0,
            "options": {"queue": MAINTENANCE_QUEUE, "expires": 3600},
        },
    }
