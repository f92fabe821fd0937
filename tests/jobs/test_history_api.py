"""The job history behind /jobs: list filters, retrying a batch's failed items, the CSV report."""

from __future__ import annotations

import csv
import io
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from jobs.models import Job, JobStatus
from jobs.services import job_fail, job_start, job_submit, job_succeed
from tests.conftest import client_for
from tests.support.factories import UserFactory
from tools.registry import TOOLS
from workers.engines.base import EngineOutput


def make_job(user: User, *, tool: str = "diagnostics.sleep", batch_id: uuid.UUID | None = None,
             created: datetime | None = None, payload: dict[str, Any] | None = None) -> Job:
    job = job_submit(org=user.organization, user=user, tool=TOOLS[tool],
                     payload=payload if payload is not None else {"seconds": 0},
                     batch_id=batch_id).job
    if created:
        Job.objects.filter(pk=job.pk).update(created_at=created)
        job.refresh_from_db()
    return job


def fail(job: Job, message: str = "The image could not be fetched.") -> Job:
    taken = job_start(job_id=job.pk)
    assert taken is not None
    lease = taken.lease
    assert job_fail(job_id=job.pk, lease=lease, code="fetch_failed", message=message)
    job.refresh_from_db()
    return job


def succeed(job: Job) -> Job:
    taken = job_start(job_id=job.pk)
    assert taken is not None and taken.lease is not None
    assert job_succeed(job=job, lease=taken.lease,
                       outputs=[EngineOutput(b'{"ok": 1}', "application/json", "r.json")])
    job.refresh_from_db()
    return job


def ids(resp: Any) -> list[str]:
    assert resp.status_code == 200, resp.content
    return [row["id"] for row in resp.json()["results"]]


@pytest.fixture
def batch(partner: User) -> tuple[uuid.UUID, list[Job]]:
    """Five items: three succeeded, two failed with their reasons."""
    batch_id = uuid.uuid4()
    jobs = [make_job(partner, batch_id=batch_id, payload={"seconds": 0, "n": i})
            for i in range(5)]
    for job in jobs[:3]:
        succeed(job)
    fail(jobs[3], "The image could not be fetched.")
    fail(jobs[4], "=HYPERLINK(\"x\") is not an image.")
    return batch_id, [Job.objects.get(pk=job.pk) for job in jobs]


def test_filters_by_tool_status_and_batch(partner: User, api: APIClient) -> None:
    sleep = make_job(partner)
    other = make_job(partner, tool="recolor", payload={"image_url": "https://cdn.test/a.jpg"})
    failed = fail(make_job(partner))
    batch_id = uuid.uuid4()
    in_batch = make_job(partner, batch_id=batch_id)
    make_job(UserFactory(), batch_id=batch_id)  # another organisation's job, same batch id

    assert ids(api.get("/api/jobs/?tool=recolor")) == [str(other.pk)]
    assert ids(api.get("/api/jobs/?status=failed")) == [str(failed.pk)]
    assert ids(api.get(f"/api/jobs/?batch={batch_id}")) == [str(in_batch.pk)]
    assert set(ids(api.get("/api/jobs/?tool=diagnostics.sleep&status=queued"))) == {
        str(sleep.pk), str(in_batch.pk)}
    # newest first
    assert ids(api.get("/api/jobs/")) == [str(j.pk) for j in (in_batch, failed, other, sleep)]


def test_a_tool_lists_the_jobs_of_its_steps(partner: User, api: APIClient) -> None:
    steps = [make_job(partner) for _ in range(3)]
    for job, tool in zip(steps, ["editorial.analyze", "editorial.generate",
                                 "editorial-product.generate"], strict=True):
        Job.objects.filter(pk=job.pk).update(tool=tool)

    # Editorial's page asks for tool=editorial: both its steps, not Editorial Product's
    assert ids(api.get("/api/jobs/?tool=editorial")) == [str(steps[1].pk), str(steps[0].pk)]
    assert ids(api.get("/api/jobs/?tool=editorial.generate")) == [str(steps[1].pk)]
    assert ids(api.get("/api/jobs/?tool=editorial-product")) == [str(steps[2].pk)]


def test_filters_by_creation_date(partner: User, api: APIClient) -> None:
    early = make_job(partner, created=datetime(2026, 11, 22, 23, 30, tzinfo=UTC))
    day = make_job(partner, created=datetime(2026, 11, 23, 12, 0, tzinfo=UTC))
    late = make_job(partner, created=datetime(2026, 11, 24, 8, 0, tzinfo=UTC))

    # a bare date: from the start of the day, and up to the end of the day
    assert ids(api.get("/api/jobs/?created_after=2026-11-23")) == [str(late.pk), str(day.pk)]
    assert ids(api.get("/api/jobs/?created_before=2026-11-23")) == [str(day.pk), str(early.pk)]
    assert ids(api.get("/api/jobs/?created_after=2026-11-23&created_before=2026-11-23")) == [
        str(day.pk)]
    # a date-time is exact (and the before bound exclusive)
    assert ids(api.get("/api/jobs/?created_after=2026-11-23T12:00:00Z")) == [
        str(late.pk), str(day.pk)]
    assert ids(api.get("/api/jobs/?created_before=2026-11-23T12:00:00Z")) == [str(early.pk)]
    assert ids(api.get("/api/jobs/?created_after=2026-11-24T09:00:00%2B02:00")) == [
        str(late.pk)]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("created_after=yesterday", "created_after"),
        ("created_before=2026-02-30", "created_before"),
        ("created_after=2026-11-24T25:00", "created_after"),
        ("created_since=2026-11-24", "created_since"),
    ],
)
def test_a_bad_date_or_unknown_filter_is_a_json_400(api: APIClient, query: str,
                                                   field: str) -> None:
    resp = api.get(f"/api/jobs/?{query}")
    assert resp.status_code == 400
    body = resp.json()
    assert body["error"] == "invalid"
    assert list(body["fields"]) == [field]


def test_retry_failed_sends_only_the_failed_items_back(
        partner: User, api: APIClient, batch: tuple[uuid.UUID, list[Job]]) -> None:
    batch_id, jobs = batch
    running = make_job(partner, batch_id=batch_id)
    job_start(job_id=running.pk)

    resp = api.post(f"/api/batches/{batch_id}/retry-failed/")

    assert resp.status_code == 200
    assert resp.json() == {"retried": 2}
    statuses = {str(j.pk): j.status for j in Job.objects.filter(batch_id=batch_id)}
    assert [statuses[str(j.pk)] for j in jobs] == [JobStatus.SUCCEEDED] * 3 + [
        JobStatus.QUEUED] * 2
    assert statuses[str(running.pk)] == JobStatus.RUNNING
    again = Job.objects.get(pk=jobs[3].pk)
    assert (again.error_code, again.error_message, again.finished_at) == ("", "", None)
    # nothing left to retry; the path without the slash is the same call
    resp = api.post(f"/api/batches/{batch_id}/retry-failed")
    assert (resp.status_code, resp.json()) == (200, {"retried": 0})


def test_another_organisations_batch_is_404(
        batch: tuple[uuid.UUID, list[Job]]) -> None:
    batch_id, jobs = batch
    stranger = client_for(UserFactory())

    retry = stranger.post(f"/api/batches/{batch_id}/retry-failed/")
    report = stranger.get(f"/api/batches/{batch_id}/report.csv")
    unknown = stranger.get(f"/api/batches/{uuid.uuid4()}/report.csv")

    assert [r.status_code for r in (retry, report, unknown)] == [404, 404, 404]
    assert retry.json()["error"] == "not_found"
    assert report.json()["error"] == "not_found"
    assert Job.objects.filter(batch_id=batch_id, status=JobStatus.FAILED).count() == 2


def test_csv_report_has_a_row_per_item(partner: User, api: APIClient) -> None:
    batch_id = uuid.uuid4()
    done = succeed(make_job(partner, tool="recolor", batch_id=batch_id,
                            payload={"image_url": "https://cdn.test/shirt.jpg"}))
    failed = fail(make_job(partner, tool="recolor", batch_id=batch_id,
                           payload={"image_url": "https://cdn.test/gone.jpg"}),
                  "=HYPERLINK(\"x\") is not an image.")

    resp = api.get(f"/api/batches/{batch_id}/report.csv")

    assert resp.status_code == 200
    assert resp["Content-Type"].startswith("text/csv")
    assert resp["Content-Disposition"] == f'attachment; filename="batch-{batch_id}.csv"'
    rows = list(csv.reader(io.StringIO(resp.content.decode())))
    assert rows[0] == ["job_id", "tool", "source", "status", "error_code", "error_message",
                       "created_at", "finished_at", "output_urls"]
    assert len(rows) == 3
    first, second = rows[1], rows[2]
    assert first[:6] == [str(done.pk), "recolor", "https://cdn.test/shirt.jpg", "succeeded",
                         "", ""]
    assert first[6] == done.created_at.isoformat()
    assert done.finished_at is not None
    assert first[7] == done.finished_at.isoformat()
    assert first[8] == f"http://testserver/api/jobs/{done.pk}/outputs/0"
    assert api.get(first[8].removeprefix("http://testserver")).status_code == 200
    # a message a spreadsheet would run as a formula stays text
    assert second[:6] == [str(failed.pk), "recolor", "https://cdn.test/gone.jpg", "failed",
                          "fetch_failed", "'=HYPERLINK(\"x\") is not an image."]
    assert second[8] == ""
