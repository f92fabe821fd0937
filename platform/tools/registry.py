"""The tool registry: one place that declares every tool. Later tools only add entries."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from django.conf import settings
from rest_framework.serializers import Serializer

from tools.serializers import DiagnosticsSleepInput
from workers.queues import QUEUES


class Shape(StrEnum):
    JOB = "job"  # answers 202 with the job
    DIRECT = "direct"  # waits for the job and answers in the spec's shape
    BATCH = "batch"  # answers 202 with {batch_id, count, jobs}


@dataclass(frozen=True)
class Tool:
    slug: str
    name: str
    category: str
    route: str | None
    badge: str
    queue: str
    engine: str
    input_serializer: type[Serializer] | None
    shape: Shape
    eta_text: str
    # Seed for the ETA until the tool has run-time history of its own.
    expected_seconds: float
    staff_only: bool = False
    # Soft/hard time limits; the queue's when not given.
    soft_limit: int | None = None
    hard_limit: int | None = None

    def __post_init__(self) -> None:
        if self.queue not in QUEUES:
            raise ValueError(f"{self.slug}: unknown queue {self.queue}")

    @property
    def limits(self) -> tuple[int, int]:
        q = QUEUES[self.queue]
        return (self.soft_limit or q.soft_limit, self.hard_limit or q.hard_limit)


TOOLS: dict[str, Tool] = {
    t.slug: t
    for t in (
        Tool(
            slug="diagnostics.sleep",
            name="Diagnostics: sleep",
            category="operations",
            route=None,
            badge="Staff",
            queue="interactive",
            engine="diagnostics.sleep",
            input_serializer=DiagnosticsSleepInput,
            shape=Shape.JOB,
            eta_text="as long as asked",
            expected_seconds=1.0,
            staff_only=True,
            # Short limits so ops and the fault tests can reach them quickly.
            soft_limit=settings.DIAGNOSTICS_SOFT_LIMIT,
            hard_limit=settings.DIAGNOSTICS_HARD_LIMIT,
        ),
    )
}


def tool_get(slug: str) -> Tool | None:
    return TOOLS.get(slug)
