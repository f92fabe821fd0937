"""Reads: jobs of an organisation, queue positions, ETAs and queue figures."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone

from accounts.models import Organization
from jobs.kinds import expected_or_default, job_catalogue
from jobs.models import Activity, Job, JobStatus
from jobs.presence import queue_processes

# The ETA averages this many recent runs of a tool.
RUN_TIME_WINDOW = 20


def job_list(*, org: Organization, tool: str | None = None, status: str | None = None,
             batch: UUID | None = None, created_after: datetime | None = None,
             created_before: datetime | None = None) -> QuerySet[Job]:
    """Newest first; `created_after` is inclusive, `created_before` exclusive, so two
    adjacent ranges never count a job twice."""
    qs = Job.objects.filter(organization=org).prefetch_related("outputs")
    if tool:
        # A tool's jobs include those of its steps (Editorial's editorial.analyze and
        # editorial.generate), so the tool's page and the history list them all.
        qs = qs.filter(Q(tool=tool) | Q(tool__startswith=f"{tool}."))
    if status:
        qs = qs.filter(status=status)
    if batch:
        qs = qs.filter(batch_id=batch)
    if created_after:
        qs = qs.filter(created_at__gte=created_after)
    if created_before:
        qs = qs.filter(created_at__lt=created_before)
    return qs


def batch_job_list(*, org: Organization, batch_id: UUID) -> list[Job]:
    """The items of one of the organisation's batches in the order they were sent; empty for
    a batch that is not the organisation's."""
    return list(Job.objects.filter(organization=org, batch_id=batch_id)
                .prefetch_related("outputs").order_by("created_at", "pk"))


# Where a job's input names the picture it works on: a card's image, an earring, a bag.
SOURCE_KEYS = ("image_url", "ring_image", "Bag_Url")


def job_source(*, job: Job) -> str:
    """The input image or drive file a job worked on, or "" when its input names none."""
    inputs = job.input if isinstance(job.input, dict) else {}
    found = next((inputs[k] for k in SOURCE_KEYS if inputs.get(k)), None)
    return str(found or job.source_drive_file or "")


def job_get(*, org: Organization, job_id: UUID) -> Job | None:
    return Job.objects.filter(organization=org, pk=job_id).prefetch_related("outputs").first()


# Per process: averages move slowly and every submit and poll asks for them. None: the tool
# has no run-time history yet.
_avg_cache: dict[str, tuple[float, float | None]] = {}


def tool_avg_seconds(*, tool: str, expected: float | None = None) -> float:
    """Moving average of the tool's recent run times, or else `expected` (the seed its jobs
    carry from the tool's declaration), or else a default."""
    cached = _avg_cache.get(tool)
    now = time.monotonic()
    if cached and now - cached[0] < settings.JOB_ETA_CACHE_SECONDS:
        avg = cached[1]
    else:
        avg = _tool_avg_seconds(tool)
        _avg_cache[tool] = (now, avg)
    return expected_or_default(expected) if avg is None else avg


def _tool_avg_seconds(tool: str) -> float | None:
    recent = (
        Job.objects.filter(tool=tool, status=JobStatus.SUCCEEDED, started_at__isnull=False,
                           finished_at__isnull=False)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RUN_TIME_WINDOW]
    )
    durations = sorted((f - s).total_seconds() for s, f in recent if s and f)
    if durations:
        # The median: one run that waited on a cold start or a slow drive must not move every
        # partner's ETA.
        mid = len(durations) // 2
        return (durations[mid] if len(durations) % 2
                else (durations[mid - 1] + durations[mid]) / 2)
    return None


class QueueFigures:
    """Averages computed once per request, shared by every job it describes."""

    def __init__(self) -> None:
        self._avg: dict[str, float] = {}

    def avg(self, tool: str, expected: float | None = None) -> float:
        """The tool's typical run time; `expected` seeds it while the tool has no history
        (the first seed given in a request holds for the request)."""
        if tool not in self._avg:
            self._avg[tool] = tool_avg_seconds(tool=tool, expected=expected)
        return self._avg[tool]

    def remaining(self, job: Job) -> float:
        """Seconds a running job still needs. Early on, the tool's typical run time says more
        than a first progress figure (5 % after 3 s is not 57 s to go); the job's own pace
        counts more as its progress grows."""
        avg = self.avg(job.tool, job.expected_seconds)
        if job.started_at is None:
            return avg
        elapsed = (timezone.now() - job.started_at).total_seconds()
        # A run past its typical time still has some way to go: a tenth of it at least.
        by_average = max(avg - elapsed, 0.1 * avg * (100 - job.progress) / 100)
        if job.progress <= 0:
            return by_average
        by_pace = elapsed * (100 - job.progress) / job.progress
        weight = job.progress / 100
        return max(0.0, (1 - weight) * by_average + weight * by_pace)

    def backlog_seconds(self, *, queue: str, before: Any | None = None) -> tuple[int, float]:
        """(jobs waiting ahead, seconds of work ahead) in a queue, all organisations alike:
        they share the workers."""
        ahead = Job.objects.filter(queue=queue, status=JobStatus.QUEUED)
        if before is not None:
            ahead = ahead.filter(created_at__lt=before)
        by_tool = ahead.values("tool").annotate(n=Count("pk"), expected=Max("expected_seconds"))
        count = 0
        seconds = 0.0
        for row in by_tool:
            count += row["n"]
            seconds += row["n"] * self.avg(row["tool"], row["expected"])
        for running in Job.objects.filter(queue=queue, status=JobStatus.RUNNING).only(
            "tool", "started_at", "progress", "expected_seconds"
        ):
            seconds += self.remaining(running)
        return count, seconds

    def position_and_eta(self, job: Job) -> tuple[int | None, float | None]:
        if job.status == JobStatus.RUNNING:
            return 0, round(self.remaining(job), 1)
        if job.status != JobStatus.QUEUED:
            return None, None
        ahead, seconds = self.backlog_seconds(queue=job.queue, before=job.created_at)
        own = self.avg(job.tool, job.expected_seconds)
        return ahead, round(seconds / queue_processes(queue=job.queue) + own, 1)


def queues_overview(*, org: Organization, include_staff: bool = False) -> list[dict[str, Any]]:
    """Per tool of the catalogue (jobs.kinds.job_catalogue): this organisation's queued and
    running jobs, and the ETA of a job sent now."""
    figures = QueueFigures()
    mine = {
        (row["tool"], row["status"]): row["n"]
        for row in Job.objects.filter(organization=org, status__in=[JobStatus.QUEUED,
                                                                    JobStatus.RUNNING])
        .values("tool", "status").annotate(n=Count("pk"))
    }
    backlog: dict[str, float] = {}
    rows = []
    for tool in job_catalogue():
        if not tool.available or (tool.staff_only and not include_staff):
            continue
        if tool.queue not in backlog:
            _, seconds = figures.backlog_seconds(queue=tool.queue)
            backlog[tool.queue] = seconds / queue_processes(queue=tool.queue)
        avg = figures.avg(tool.slug, tool.expected_seconds)
        rows.append({
            "tool": tool.slug,
            "queue": tool.queue,
            "queued": mine.get((tool.slug, JobStatus.QUEUED), 0),
            "running": mine.get((tool.slug, JobStatus.RUNNING), 0),
            "avg_seconds": round(avg, 1),
            "eta_seconds": round(backlog[tool.queue] + avg, 1),
        })
    return rows


def job_wait(*, job_id: UUID, timeout: float, interval: float = 0.2) -> Job:
    """The job once it has ended, or as it is when the timeout runs out."""
    deadline = time.monotonic() + timeout
    while True:
        job = Job.objects.get(pk=job_id)
        if job.status not in (JobStatus.QUEUED, JobStatus.RUNNING) or (
                time.monotonic() >= deadline):
            return job
        time.sleep(interval)


def activity_list(*, org: Organization, tool: str | None, limit: int) -> QuerySet[Activity]:
    qs = Activity.objects.filter(organization=org).select_related("job")
    if tool:
        qs = qs.filter(tool=tool)
    return qs[:limit]
