"""GET /api/usage/: an organisation's jobs of a month per tool and per provider, in one
query."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from studio.selectors import usage_for_month

from accounts.models import Organization
from jobs.models import Job
from tests.support.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 10, 14, 9, 0, tzinfo=UTC)


def job(org: Organization, tool: str, made_by: str, status: str, *, seconds: float | None = None,
        created: datetime = T0) -> Job:
    row = Job.objects.create(
        organization=org, tool=tool, queue="interactive", status=status, made_by=made_by,
        tier="studio" if made_by.split(":")[0] not in ("", "local") else "preview",
        started_at=created if seconds is not None else None,
        finished_at=created + timedelta(seconds=seconds) if seconds is not None else None)
    Job.objects.filter(pk=row.pk).update(created_at=created)  # auto_now_add on create
    return row


@pytest.fixture
def october(partner: Any) -> Organization:
    org = partner.organization
    job(org, "virtual-try-on", "fashn:tryon-v1.6", "succeeded", seconds=12.5)
    job(org, "virtual-try-on", "fashn:tryon-v1.5", "failed", seconds=2.0)
    job(org, "virtual-try-on", "fal:fal-ai/leffa", "succeeded", seconds=30.0)
    job(org, "virtual-try-on", "local", "succeeded", seconds=4.0)
    job(org, "recolor", "local", "succeeded", seconds=1.25)
    job(org, "recolor", "", "queued")  # not run yet: local, no time
    job(org, "recolor", "local", "canceled", seconds=0.5)
    # the month's edges: the last microsecond of September and 1 November are not October
    job(org, "recolor", "local", "succeeded", seconds=9,
        created=datetime(2026, 9, 30, 23, 59, 59, 999999, tzinfo=UTC))
    job(org, "recolor", "local", "succeeded", seconds=9, created=datetime(2026, 11, 1, tzinfo=UTC))
    job(OrganizationFactory(), "virtual-try-on", "fashn:tryon-v1.6", "succeeded", seconds=99)
    return org


def test_usage_per_tool_and_provider(api: APIClient, october: Organization) -> None:
    resp = api.get("/api/usage/", {"month": "2026-10"})

    assert resp.status_code == 200, resp.json()
    body = resp.json()
    assert body["month"] == "2026-10"
    assert body["start"].startswith("2026-10-01T00:00:00") and body["end"].startswith(
        "2026-11-01T00:00:00")
    rows = {(r["tool"], r["provider"]): r for r in body["rows"]}
    assert rows == {
        ("recolor", "local"): {"tool": "recolor", "provider": "local", "jobs": 3,
                               "succeeded": 1, "failed": 0, "seconds": 1.75},
        ("virtual-try-on", "fal"): {"tool": "virtual-try-on", "provider": "fal", "jobs": 1,
                                    "succeeded": 1, "failed": 0, "seconds": 30.0},
        ("virtual-try-on", "fashn"): {"tool": "virtual-try-on", "provider": "fashn", "jobs": 2,
                                      "succeeded": 1, "failed": 1, "seconds": 14.5},
        ("virtual-try-on", "local"): {"tool": "virtual-try-on", "provider": "local", "jobs": 1,
                                      "succeeded": 1, "failed": 0, "seconds": 4.0},
    }
    assert {p["provider"]: p["jobs"] for p in body["providers"]} == {
        "local": 4, "fal": 1, "fashn": 2}
    assert {t["tool"]: t["seconds"] for t in body["tools"]} == {
        "recolor": 1.75, "virtual-try-on": 48.5}
    assert body["total"] == {"jobs": 7, "succeeded": 4, "failed": 1, "seconds": 50.25}


def test_usage_is_one_query(october: Organization, django_assert_num_queries: Any) -> None:
    with django_assert_num_queries(1):
        usage = usage_for_month(org=october, month=date(2026, 10, 1))
    assert usage.total.jobs == 7


def test_usage_defaults_to_this_month(api: APIClient, partner: Any) -> None:
    job(partner.organization, "recolor", "local", "succeeded", seconds=2,
        created=timezone.now())
    body = api.get("/api/usage/").json()
    assert body["month"] == timezone.now().strftime("%Y-%m")
    assert body["total"]["jobs"] == 1


def test_an_empty_month(api: APIClient) -> None:
    body = api.get("/api/usage/", {"month": "2001-02"}).json()
    assert body["rows"] == [] and body["total"] == {"jobs": 0, "succeeded": 0, "failed": 0,
                                                    "seconds": 0.0}


@pytest.mark.parametrize("month", ["2026-13", "2026-00", "2026-1", "26-10", "2026-10-01",
                                   "0000-01", "9999-12", "", "октябрь", "2026-1\u0000",
                                   "x" * 10_000])
def test_a_bad_month_is_a_400(api: APIClient, month: str) -> None:
    resp = api.get("/api/usage/", {"month": month})
    assert resp.status_code == 400, resp.content[:200]
    assert resp.json()["error"] == "invalid" and "month" in resp.json()["fields"]


def test_unknown_filters_are_refused(api: APIClient) -> None:
    assert api.get("/api/usage/", {"tool": "recolor"}).status_code == 400
