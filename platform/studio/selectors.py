"""Reads of the studio tier: an organisation's accounts and its usage per month."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db.models import Count, DurationField, ExpressionWrapper, F, Q, QuerySet, Sum

from accounts.models import Organization
from jobs.models import Job, JobStatus
from studio.models import ProviderAccount

LOCAL = "local"


def provider_account_list(*, org: Organization) -> QuerySet[ProviderAccount]:
    return ProviderAccount.objects.filter(organization=org).order_by("created_at", "id")


@dataclass
class UsageRow:
    jobs: int = 0
    succeeded: int = 0
    failed: int = 0
    seconds: float = 0.0

    def add(self, other: UsageRow) -> None:
        self.jobs += other.jobs
        self.succeeded += other.succeeded
        self.failed += other.failed
        self.seconds += other.seconds


@dataclass
class Usage:
    month: str
    start: datetime
    end: datetime
    # (tool, provider) → figures, in that order
    rows: dict[tuple[str, str], UsageRow] = field(default_factory=dict)

    def by(self, index: int) -> dict[str, UsageRow]:
        out: dict[str, UsageRow] = {}
        for key, row in self.rows.items():
            out.setdefault(key[index], UsageRow()).add(row)
        return out

    @property
    def total(self) -> UsageRow:
        total = UsageRow()
        for row in self.rows.values():
            total.add(row)
        return total


def provider_of(made_by: str) -> str:
    """`fashn:tryon-v1.6` → `fashn`; a job not yet made by anything, or locally, → `local`."""
    return (made_by or LOCAL).split(":", 1)[0] or LOCAL


def month_bounds(month: date) -> tuple[datetime, datetime]:
    start = datetime(month.year, month.month, 1, tzinfo=UTC)
    end = (start + timedelta(days=32)).replace(day=1)
    return start, end


def usage_for_month(*, org: Organization, month: date) -> Usage:
    """Jobs the organisation created in the month (UTC), per tool and per provider: how many,
    how many succeeded or failed, and the seconds they ran (finished − started). One query,
    grouped by tool and engine; the engines fold into their provider here."""
    start, end = month_bounds(month)
    ran = ExpressionWrapper(F("finished_at") - F("started_at"), output_field=DurationField())
    grouped = (
        Job.objects.filter(organization=org, created_at__gte=start, created_at__lt=end)
        .values("tool", "made_by")
        .annotate(
            jobs=Count("id"),
            succeeded=Count("id", filter=Q(status=JobStatus.SUCCEEDED)),
            failed=Count("id", filter=Q(status=JobStatus.FAILED)),
            ran=Sum(ran, filter=Q(started_at__isnull=False, finished_at__isnull=False)),
        )
        .order_by("tool", "made_by")
    )
    usage = Usage(month=f"{month.year:04d}-{month.month:02d}", start=start, end=end)
    for group in grouped:
        key = (group["tool"], provider_of(group["made_by"]))
        usage.rows.setdefault(key, UsageRow()).add(UsageRow(
            jobs=group["jobs"], succeeded=group["succeeded"], failed=group["failed"],
            seconds=_seconds(group["ran"])))
    return usage


def _seconds(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, timedelta):
        return max(value.total_seconds(), 0.0)
    return max(float(value) / 1_000_000, 0.0)  # microseconds, where a backend sums them raw
