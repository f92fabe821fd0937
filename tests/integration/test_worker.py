"""Jobs through the real API, a real Redis and a real Celery worker process."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import JobStatus
from tests.support.polling import wait_job
from tests.support.processes import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

SLEEP_URL = "/api/diagnostics/sleep"


def test_a_diagnostic_job_runs_to_succeeded_with_progress_on_the_way(
    worker: Any, staff_api: APIClient
) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 3, "outputs": 2}, format="json").json()["id"]
    seen: list[tuple[str, int]] = []
    job = wait_job(job_id, statuses={"running"}, timeout=30)
    while job.status in ("queued", "running"):
        # Polled as a client would, ten times a second: in a tight loop a fast machine ran into
        # the partner rate limit (1,200 requests a minute) and got 429s.
        time.sleep(0.1)
        resp = staff_api.get(f"/api/jobs/{job_id}/")
        assert resp.status_code == 200, resp.content
        body = resp.json()
        seen.append((body["status"], body["progress"]))
        if body["status"] == "running":
            assert body["queue_position"] == 0
            assert body["eta_seconds"] is not None
        job.refresh_from_db()
    body = staff_api.get(f"/api/jobs/{job_id}/").json()

    assert body["status"] == "succeeded" and body["progress"] == 100
    assert body["attempts"] == 1
    midway = [p for s, p in seen if s == "running" and 0 < p < 100]
    assert len(set(midway)) >= 3, seen  # progress moved on the way, not only at the end
    assert [o["index"] for o in body["outputs"]] == [0, 1]
    first = staff_api.get(f"/api/jobs/{job_id}/outputs/0")
    report = json.loads(b"".join(first.streaming_content))
    assert report["slept_seconds"] >= 3


def test_a_failing_job_reports_its_error(worker: Any, staff_api: APIClient) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 0.2, "fail": True}, format="json").json()["id"]
    job = wait_job(job_id)
    assert job.status == JobStatus.FAILED
    body = staff_api.get(f"/api/jobs/{job_id}/").json()
    assert body["error"] == {"code": "diagnostic_failure",
                             "message": "The diagnostic job failed as asked."}
    assert body["outputs"] == []
    activity = staff_api.get("/api/activity/?tool=diagnostics.sleep&limit=1").json()
    assert activity[0]["status"] == "Error"


def test_canceling_a_running_job_stops_it(worker: Any, staff_api: APIClient) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 20}, format="json").json()["id"]
    wait_job(job_id, statuses={"running"}, timeout=30)
    assert staff_api.post(f"/api/jobs/{job_id}/cancel/").json()["status"] == "canceled"
    # the worker notices at its next progress write and moves on to other work
    follow = staff_api.post(SLEEP_URL, {"seconds": 0.1}, format="json").json()["id"]
    follow2 = staff_api.post(SLEEP_URL, {"seconds": 0.1}, format="json").json()["id"]
    assert wait_job(follow, timeout=15).status == JobStatus.SUCCEEDED
    assert wait_job(follow2, timeout=15).status == JobStatus.SUCCEEDED
    job = wait_job(job_id)
    assert job.status == JobStatus.CANCELED and not job.outputs.exists()


def test_retry_runs_a_failed_job_again(worker: Any, staff_api: APIClient) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 0.1, "fail": True}, format="json").json()["id"]
    assert wait_job(job_id).status == JobStatus.FAILED
    staff_api.post(f"/api/jobs/{job_id}/retry/")
    job = wait_job(job_id)
    assert job.status == JobStatus.FAILED and job.attempts == 1  # ran again, failed again


def test_soft_time_limit_fails_the_job_clearly(worker: Any, staff_api: APIClient,
                                               settings: Any) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 30}, format="json").json()["id"]
    job = wait_job(job_id, timeout=30)
    assert job.status == JobStatus.FAILED
    assert job.error_code == "time_limit"
    assert f"{settings.DIAGNOSTICS_SOFT_LIMIT} seconds" in job.error_message


def test_hard_time_limit_fails_the_job_and_it_is_not_retried(worker: Any, staff_api: APIClient,
                                                             settings: Any) -> None:
    job_id = staff_api.post(SLEEP_URL, {"seconds": 30, "ignore_soft_limit": True},
                            format="json").json()["id"]
    job = wait_job(job_id, timeout=30)
    assert job.status == JobStatus.FAILED
    assert job.error_code == "time_limit"
    assert "hard time limit" in job.error_message
    # the worker's pool replaced the killed child and goes on; the job stays failed
    follow = staff_api.post(SLEEP_URL, {"seconds": 0.1}, format="json").json()["id"]
    assert wait_job(follow, timeout=30).status == JobStatus.SUCCEEDED
    job.refresh_from_db()
    assert (job.status, job.attempts) == (JobStatus.FAILED, 1)


def test_a_soft_limit_while_outputs_are_stored_ends_the_job_with_its_event(
    worker: Any, staff: Any, staff_api: APIClient, settings: Any
) -> None:
    # given a webhook for every job event, and a job whose results take longer to store than
    # its soft limit leaves (the sleep is short; each of its two outputs takes 3 s)
    from django.core.files.storage import default_storage
    from webhooks.models import Webhook, WebhookDelivery

    hook = Webhook.objects.create(organization=staff.organization, url="http://127.0.0.1:9/h",
                                  events=["job.succeeded", "job.failed"], secret="whsec_t")
    job_id = staff_api.post(SLEEP_URL, {"seconds": 0.2, "outputs": 2, "save_seconds": 3},
                            format="json").json()["id"]

    # when the limit fires during the save
    job = wait_job(job_id, timeout=30)

    # then the job ended under its lease, was not taken for a lost worker, left no file, and
    # its one event was written with its end
    assert job.status == JobStatus.FAILED and job.error_code == "time_limit"
    assert "while its results were being stored" in job.error_message
    assert not job.outputs.exists()
    folder = f"jobs/{job.organization_id}/{job.pk}"
    leftovers = [f for d in (default_storage.listdir(folder)[0]
                             if default_storage.exists(folder) else [])
                 for f in default_storage.listdir(f"{folder}/{d}")[1]]
    assert leftovers == []
    # the worker's dispatcher turns the outbox's event into the delivery
    wait_for(lambda: WebhookDelivery.objects.filter(webhook=hook).exists(), 20,
             what="the job's delivery")
    events = list(WebhookDelivery.objects.filter(webhook=hook).values_list("event", flat=True))
    assert events == ["job.failed"]
    assert [d.payload["data"]["job"]["id"] for d in WebhookDelivery.objects.filter(
        webhook=hook)] == [job_id]
    # a heartbeat-stale sweep would have run it again: still one attempt
    job.refresh_from_db()
    assert job.attempts == 1
