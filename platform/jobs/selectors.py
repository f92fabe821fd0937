"""Reads: jobs of an organisation, queue positions, ETAs and queue figures."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any
from uuid import UUID

import redis
from django.conf import settings
from django.db.models import Count, Max, Min, Q, QuerySet, prefetch_related_objects
from django.utils import timezone

from accounts.models import Organization
from config.prepared import OneRow
from jobs import figures
from jobs.kinds import expected_or_default, job_catalogue
from jobs.models import Activity, Job, JobOutput, JobStatus
from jobs.presence import queue_processes

# The ETA takes the median of this many recent runs of a tool.
RUN_TIME_WINDOW = figures.RUN_WINDOW


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
    """The job with its outputs; only a succeeded job has any, so the others cost one query
    (every poll of a queued or running job reads this)."""
    job = _JOB_OF_ORG.get(org=org.pk, job=job_id)
    if job is None:
        return None
    if job.status == JobStatus.SUCCEEDED:
        prefetch_related_objects([job], "outputs")
    else:
        # An empty list already read: serialising it compiles no query either.
        none = JobOutput.objects.none()
        none._result_cache = []  # type: ignore[attr-defined]
        job._prefetched_objects_cache = {"outputs": none}  # type: ignore[attr-defined]
    return job


# The poll's read, compiled once per process (config.prepared).
_JOB_OF_ORG: OneRow[Job] = OneRow(
    lambda org, job: Job.objects.filter(organization_id=org, pk=job).order_by()[:1],
    org=Organization._meta.pk, job=Job._meta.pk)


# Per process: medians move slowly and every submit and poll asks for them. None: the tool
# has no run-time history yet.
_avg_cache: dict[str, tuple[float, float | None]] = {}


def tool_avg_seconds(*, tool: str, expected: float | None = None) -> float:
    """The median of the tool's recent run times, or else `expected` (the seed its jobs
    carry from the tool's declaration), or else a default."""
    return tool_avgs({tool: expected})[tool]


def tool_avgs(seeds: dict[str, float | None]) -> dict[str, float]:
    """`tool_avg_seconds` of several tools in one round trip."""
    now = time.monotonic()
    known: dict[str, float | None] = {}
    missing = []
    for tool in seeds:
        cached = _avg_cache.get(tool)
        if cached and now - cached[0] < settings.JOB_ETA_CACHE_SECONDS:
            known[tool] = cached[1]
        else:
            missing.append(tool)
    if missing:
        medians = figures.run_medians(missing)
        for tool in missing:
            # Redis away: the database's last runs (an indexed read of a few rows).
            avg = _tool_avg_seconds(tool) if medians is None else medians.get(tool)
            _avg_cache[tool] = (now, avg)
            known[tool] = avg
    return {tool: expected_or_default(seed) if known[tool] is None else float(known[tool] or 0)
            for tool, seed in seeds.items()}


def _tool_avg_seconds(tool: str) -> float | None:
    recent = (
        Job.objects.filter(tool=tool, status=JobStatus.SUCCEEDED, started_at__isnull=False,
                           finished_at__isnull=False)
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RUN_TIME_WINDOW]
    )
    durations = [(f - s).total_seconds() for s, f in recent if s and f]
    return statistics.median(durations) if durations else None


def _remaining(avg: float, elapsed: float | None, progress: int) -> float:
    """Seconds a running job still needs. Early on, the tool's typical run time says more
    than a first progress figure (5 % after 3 s is not 57 s to go); the job's own pace
    counts more as its progress grows."""
    if elapsed is None:
        return avg
    # A run past its typical time still has some way to go: a tenth of it at least.
    by_average = max(avg - elapsed, 0.1 * avg * (100 - progress) / 100)
    if progress <= 0:
        return by_average
    by_pace = elapsed * (100 - progress) / progress
    weight = progress / 100
    return max(0.0, (1 - weight) * by_average + weight * by_pace)


def _seeds() -> dict[str, float | None]:
    return {kind.slug: kind.expected_seconds for kind in job_catalogue()}


# `QueueFigures.avg`'s seed when none is given: the tool's declared time.
CATALOGUE_SEED = object()


class QueueFigures:
    """Figures computed once per request, shared by every job it describes. Queue positions
    and the work ahead come from the counters of jobs.figures (no query, whatever the
    history and the backlog); the database answers only when Redis does not."""

    def __init__(self) -> None:
        self._avg: dict[str, float] = {}
        self._seeds: dict[str, float | None] | None = None

    def seed(self, tool: str) -> float | None:
        if self._seeds is None:
            self._seeds = _seeds()
        return self._seeds.get(tool)

    def avg(self, tool: str, expected: float | None | object = CATALOGUE_SEED) -> float:
        """The tool's typical run time; `expected` (by default the catalogue's) seeds it
        while the tool has no history (the first seed given in a request holds for the
        request)."""
        if tool not in self._avg:
            seed = self.seed(tool) if expected is CATALOGUE_SEED else expected
            assert seed is None or isinstance(seed, int | float)
            self._avg[tool] = tool_avg_seconds(tool=tool, expected=seed)
        return self._avg[tool]

    def avgs(self, tools: Any) -> None:
        """Fetch the typical run times of these tools at once."""
        wanted = {t: self.seed(t) for t in tools if t not in self._avg}
        if wanted:
            self._avg.update(tool_avgs(wanted))

    def remaining(self, job: Job) -> float:
        """Seconds a running job still needs."""
        avg = self.avg(job.tool, job.expected_seconds)
        elapsed = (None if job.started_at is None
                   else (timezone.now() - job.started_at).total_seconds())
        return _remaining(avg, elapsed, job.progress)

    def backlog_seconds(self, *, queue: str, before: Any | None = None) -> tuple[int, float]:
        """(jobs waiting ahead, seconds of work ahead) in a queue, all organisations alike:
        they share the workers. The running jobs' remainders are part of the work ahead."""
        state = figures.queue_state(queue=queue, before=before)
        if state is None:
            return self._db_backlog_seconds(queue=queue, before=before)
        self.avgs([*state.queued_by_tool, *state.front, *(run[1] for run in state.running)])
        # The first jobs ahead priced by their tools; any further ones at the queue's mix.
        seconds = sum(n * self.avg(tool) for tool, n in state.front.items())
        rest = state.ahead - sum(state.front.values())
        if rest > 0 and state.queued_by_tool:
            total = sum(state.queued_by_tool.values())
            mix = sum(n * self.avg(t) for t, n in state.queued_by_tool.items()) / total
            seconds += rest * mix
        for _, tool, started, progress in state.running:
            seconds += _remaining(self.avg(tool), figures.since(started), progress)
        return state.ahead, seconds

    def _db_backlog_seconds(self, *, queue: str, before: Any | None = None) -> tuple[int, float]:
        """The same from the database (Redis away): counts that grow with the backlog."""
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
        """A queued job's position (`queue_position`: the jobs queued before it in its queue,
        all organisations alike) and when it should be done: the work ahead (the queued jobs
        at their tools' typical run times and the running jobs' remainders) over the workers
        live on that queue, plus its own run. A running job: position 0 and its remainder."""
        if job.status == JobStatus.RUNNING:
            return 0, round(self.remaining(job), 1)
        if job.status != JobStatus.QUEUED:
            return None, None
        ahead, seconds = self.backlog_seconds(queue=job.queue, before=job.created_at)
        own = self.avg(job.tool, job.expected_seconds)
        return ahead, round(seconds / queue_processes(queue=job.queue) + own, 1)


def queue_position(*, job: Job) -> int | None:
    """The one definition of a queued job's position: the jobs queued in its queue before it,
    all organisations alike (0: it is next). None for a job that is not queued."""
    if job.status != JobStatus.QUEUED:
        return None
    return _position(queue=job.queue, created_at=job.created_at)


def _position(*, queue: str, created_at: Any) -> int:
    found = figures.queue_position(queue=queue, created_at=created_at)
    if found is None:  # Redis away: the database's count
        found = Job.objects.filter(queue=queue, status=JobStatus.QUEUED,
                                   created_at__lt=created_at).count()
    return found


def queues_overview(*, org: Organization, include_staff: bool = False) -> list[dict[str, Any]]:
    """Per tool of the catalogue (jobs.kinds.job_catalogue): this organisation's queued and
    running jobs, the queue position of its oldest queued one (the figure its job line
    shows), and the ETA of a job sent now. One query (this organisation's active jobs,
    bounded by its cap); the rest comes from the queue counters."""
    figures_ = QueueFigures()
    mine: dict[tuple[str, str], int] = {}
    oldest: dict[str, Any] = {}
    for row in (Job.objects.filter(organization=org, status__in=[JobStatus.QUEUED,
                                                                 JobStatus.RUNNING])
                .values("tool", "status").annotate(n=Count("pk"), first=Min("created_at"))
                .order_by()):
        mine[(row["tool"], row["status"])] = row["n"]
        if row["status"] == JobStatus.QUEUED:
            oldest[row["tool"]] = row["first"]
    kinds = [tool for tool in job_catalogue()
             if tool.available and (include_staff or not tool.staff_only)]
    figures_.avgs([tool.slug for tool in kinds])
    backlog: dict[str, float] = {}
    rows = []
    for tool in kinds:
        if tool.queue not in backlog:
            _, seconds = figures_.backlog_seconds(queue=tool.queue)
            backlog[tool.queue] = seconds / queue_processes(queue=tool.queue)
        avg = figures_.avg(tool.slug, tool.expected_seconds)
        position = (_position(queue=tool.queue, created_at=oldest[tool.slug])
                    if tool.slug in oldest else None)
        rows.append({
            "tool": tool.slug,
            "queue": tool.queue,
            "queued": mine.get((tool.slug, JobStatus.QUEUED), 0),
            "running": mine.get((tool.slug, JobStatus.RUNNING), 0),
            "queue_position": position,
            "avg_seconds": round(avg, 1),
            "eta_seconds": round(backlog[tool.queue] + avg, 1),
        })
    return rows


_slots: tuple[int, threading.BoundedSemaphore] | None = None


@contextmanager
def direct_wait_slot() -> Iterator[bool]:
    """One of this process's DIRECT_WAIT_SLOTS for a request that waits on its job: True
    while it holds one, False at once when all are taken (the caller answers without
    waiting)."""
    global _slots
    size = max(0, int(settings.DIRECT_WAIT_SLOTS))
    if _slots is None or _slots[0] != size:  # first use, or the setting changed (tests)
        _slots = (size, threading.BoundedSemaphore(max(1, size)))
    semaphore = _slots[1]
    taken = size > 0 and semaphore.acquire(blocking=False)
    try:
        yield taken
    finally:
        if taken:
            semaphore.release()


# A waiting call reads its job again this often even without an end notice, in case the notice
# was lost (Redis restarted between the job's end and the pop): one query every 15 s, where
# the poll it replaces made five a second.
WAIT_RECHECK_SECONDS = 15.0


def job_wait(*, job_id: UUID, timeout: float, interval: float = 0.5) -> Job:
    """The job once it has ended, or as it is when the timeout runs out. The wait is a
    blocking pop on the job's end notice (jobs.figures, sent when its end commits), not a
    database poll: a waiting request costs a thread and an idle Redis connection, and a read
    every WAIT_RECHECK_SECONDS. Should Redis not answer, it reads the job every `interval`."""
    deadline = time.monotonic() + timeout
    job = Job.objects.get(pk=job_id)
    while job.status in (JobStatus.QUEUED, JobStatus.RUNNING):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        try:
            woken = figures.job_end_wait(job_id=job_id,
                                         timeout=min(left, WAIT_RECHECK_SECONDS))
        except redis.RedisError:
            woken = False
            time.sleep(min(interval, left))
        job = Job.objects.get(pk=job_id)
        if woken and job.status in (JobStatus.QUEUED, JobStatus.RUNNING):
            # A notice, yet the job runs (it ended and was retried at once): wait on.
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
    return job


def activity_list(*, org: Organization, tool: str | None, limit: int) -> QuerySet[Activity]:
    qs = Activity.objects.filter(organization=org).select_related("job")
    if tool:
        qs = qs.filter(tool=tool)
    return qs[:limit]
