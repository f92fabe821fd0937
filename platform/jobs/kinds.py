"""What the job core needs to know about a kind of job, without knowing any tool.

A submit is given a `JobKind` (the tool catalogue's entries are ones) and copies what a run
needs onto the Job row: its queue, its engine, its time limits and the seed of its ETA. From
then on the job core reads only the row. Rows written before those columns existed have them
empty; `job_limits` and `expected_or_default` fall back on the queue's limits and a seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from django.conf import settings
from django.utils.module_loading import import_string

from workers.queues import QUEUES

if TYPE_CHECKING:
    from jobs.models import Job

# The ETA of a kind of job that has neither run-time history nor a declared expectation.
DEFAULT_EXPECTED_SECONDS = 60.0


class JobKind(Protocol):
    """A kind of job, as a submit sees it (read-only: the catalogue's entries are frozen)."""

    @property
    def slug(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def queue(self) -> str: ...

    @property
    def engine(self) -> str | None: ...

    @property
    def limits(self) -> tuple[int, int]:
        """(soft, hard) time limits in seconds."""
        ...

    @property
    def expected_seconds(self) -> float: ...


class CatalogueKind(JobKind, Protocol):
    """A kind of job as the queue overview lists it."""

    @property
    def available(self) -> bool: ...

    @property
    def staff_only(self) -> bool: ...

    @property
    def drive_categories(self) -> tuple[str, ...] | None:
        """Its drive input folders' categories; None when it has no drive folders."""
        ...


def job_catalogue() -> list[CatalogueKind]:
    """Every kind of job the installation declares, from the object settings.JOB_CATALOGUE
    names (a mapping of kinds, an iterable of kinds, or a callable returning either): the
    project's configuration composes the apps, so the job core imports none of them."""
    found: Any = import_string(settings.JOB_CATALOGUE)
    if callable(found) and not isinstance(found, Mapping):
        found = found()
    kinds: Iterable[CatalogueKind] = found.values() if isinstance(found, Mapping) else found
    return list(kinds)


def kind_delivers(slug: str) -> bool:
    """Whether a kind of job delivers its outputs to a drive output folder."""
    return any(k.slug == slug and k.drive_categories is not None for k in job_catalogue())


def job_limits(job: Job) -> tuple[int | None, int | None]:
    """(soft, hard) time limits of a job: its own, else its queue's, else none."""
    queue = QUEUES.get(job.queue)
    soft = job.soft_limit or (queue.soft_limit if queue else None)
    hard = job.hard_limit or (queue.hard_limit if queue else None)
    return soft, hard


def expected_or_default(value: float | None) -> float:
    return float(value) if value else DEFAULT_EXPECTED_SECONDS
