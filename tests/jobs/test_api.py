"""The HTTP API of jobs, queues and activity, with the JSON error shape for bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import Job, JobStatus
from jobs.services import job_start, job_submit, job_succeed
from tests.conftest import client_for
from tests.support.factories import UserFactory
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

SLEEP_URL = "/api/diagnostics/sleep"


def finished_job(user: Any) -> Job:
    job = job_submit(org=user.organization, user=user, tool=TOOLS["diagnostics.sleep"],
                     payload={"seconds": 0}).job
    lease = job_start(job_id=job.pk).lease
    job_succeed(job=job, lease=lease,
                outputs=[EngineOutput(b'{"ok": 1}', "application/json", "r.json")])
    return job


def test_staff_submits_a_diagnostic_job_and_polls_it(staff_api: APIClient) -> None:
    resp = staff_api.post(SLEEP_URL, {"seconds": 2}, format="json")
    assert resp.status_code == 202
    body = resp.json()
    assert resp["Location"] == f"/api/jobs/{body['id']}/"
    assert body["status"] == "queued"
    assert body["queue_position"] == 0
    assert body["eta_seconds"] > 0
    assert body["input"]["seconds"] == 2

    detail = staff_api.get(resp["Location"])
    assert detail.status_code == 200
    assert detail.json()["id"] == body["id"]
    # both spellings of the path are served
    assert staff_api.get(resp["Location"].rstrip("/")).status_code == 200


def test_partners_may_not_run_the_diagnostic_tool(api: APIClient) -> None:
    resp = api.post(SLEEP_URL, {"seconds": 1}, format="json")
    assert resp.status_code == 403
    assert resp.json()["error"] == "forbidden"


def test_idempotency_key_header(staff_api: APIClient) -> None:
    first = staff_api.post(SLEEP_URL, {"seconds": 1}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    again = staff_api.post(SLEEP_URL, {"seconds": 1}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    other = staff_api.post(SLEEP_URL, {"seconds": 3}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    assert (first.status_code, again.status_code, other.status_code) == (202, 200, 409)
    assert first.json()["id"] == again.json()["id"]
    assert other.json()["error"] == "conflict"
    assert Job.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code", "field"),
    [
        ('{"seconds": 1', "application/json", 400, "malformed_request", None),
        ('{"seconds": "soon"}', "application/json", 400, "invalid", "seconds"),
        ('{"seconds": -1}', "application/json", 400, "invalid", "seconds"),
        ('{"seconds": 1e9}', "application/json", 400, "invalid", "seconds"),
        ('{"secondz": 1}', "application/json", 400, "invalid", "secondz"),
        ('[1, 2]', "application/json", 400, "invalid", None),
        ('"text"', "application/json", 400, "invalid", None),
        ("seconds=1", "application/x-www-form-urlencoded", 415, "unsupported_media_type", None),
        ('{"fail": "perhaps"}', "application/json", 400, "invalid", "fail"),
    ],
)
def test_bad_input_gets_a_json_error(staff_api: APIClient, body: str, content_type: str,
                                     status: int, code: str, field: str | None) -> None:
    resp = staff_api.generic("POST", SLEEP_URL, body, content_type=content_type)
    assert resp.status_code == status
    payload = resp.json()
    assert payload["error"] == code
    assert payload["message"]
    if field:
        assert field in payload["fields"]
    assert Job.objects.count() == 0


def test_a_huge_body_is_refused_with_413(staff_api: APIClient, settings: Any) -> None:
    body = json.dumps({"seconds": 1, "pad": "x" * (settings.MAX_REQUEST_BODY_BYTES + 10)})
    resp = staff_api.generic("POST", SLEEP_URL, body, content_type="application/json")
    assert resp.status_code == 413
    assert resp.json()["error"] == "too_large"


def test_list_filters_and_paginates(partner: Any, api: APIClient) -> None:
    done = finished_job(partner)
    job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
               payload={"seconds": 1})
    everything = api.get("/api/jobs/").json()
    assert everything["count"] == 2
    succeeded = api.get("/api/jobs/?status=succeeded").json()
    assert [j["id"] for j in succeeded["results"]] == [str(done.pk)]
    page = api.get("/api/jobs/?limit=1&offset=1").json()
    assert len(page["results"]) == 1 and page["previous"] is not None
    bad = api.get("/api/jobs/?status=sleeping")
    assert bad.status_code == 400 and "status" in bad.json()["fields"]
    assert api.get("/api/jobs/?limit=0").status_code == 400


def test_outputs_are_listed_and_downloadable(partner: Any, api: APIClient) -> None:
    job = finished_job(partner)
    body = api.get(f"/api/jobs/{job.pk}/").json()
    assert body["status"] == "succeeded" and body["progress"] == 100
    (output,) = body["outputs"]
    assert output["url"].endswith(f"/api/jobs/{job.pk}/outputs/0")
    resp = api.get(f"/api/jobs/{job.pk}/outputs/0")
    assert resp.status_code == 200
    assert b"".join(resp.streaming_content) == b'{"ok": 1}'
    assert api.get(f"/api/jobs/{job.pk}/outputs/1").status_code == 404


def test_cancel_and_retry_over_http(partner: Any, api: APIClient) -> None:
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
                     payload={"seconds": 1}).job
    resp = api.post(f"/api/jobs/{job.pk}/cancel/")
    assert resp.status_code == 200 and resp.json()["status"] == "canceled"
    again = api.post(f"/api/jobs/{job.pk}/cancel/")
    assert again.status_code == 409 and again.json()["error"] == "conflict"
    retried = api.post(f"/api/jobs/{job.pk}/retry")
    assert retried.status_code == 200 and retried.json()["status"] == "queued"


def test_queues_and_activity(partner: Any, api: APIClient, staff_api: APIClient) -> None:
    # the staff tool is hidden from partners
    assert "diagnostics.sleep" not in {r["tool"] for r in api.get("/api/queues/").json()}
    job = finished_job(partner)
    (row,) = [r for r in staff_api.get("/api/queues/").json() if r["tool"] == "diagnostics.sleep"]
    assert row["tool"] == "diagnostics.sleep" and row["queue"] == "interactive"
    assert set(row) == {"tool", "queue", "queued", "running", "queue_position",
                        "avg_seconds", "eta_seconds"}

    entries = api.get("/api/activity/?tool=diagnostics.sleep&limit=5").json()
    assert [(e["action"], e["status"], e["details"]) for e in entries] == [
        ("Diagnostics: sleep job", "Success", "Finished with 1 output(s).")]
    job.refresh_from_db()  # what made it, as the job says
    assert (entries[0]["engine"], entries[0]["tier"]) == (job.made_by, job.tier)
    assert api.get("/api/activity/?limit=1000").status_code == 400


def test_unknown_ids_and_paths_answer_json_404(api: APIClient) -> None:
    for path in ("/api/jobs/00000000-0000-0000-0000-000000000000/", "/api/jobs/not-a-uuid/",
                 "/api/nothing-here"):
        resp = api.get(path)
        assert resp.status_code == 404, path
        assert resp.json()["error"] == "not_found"


def test_anonymous_gets_401(db: Any) -> None:
    resp = APIClient().get("/api/jobs/")
    assert resp.status_code == 401
    assert resp.json()["error"] == "not_authenticated"
    assert resp["WWW-Authenticate"] == "Bearer"


# Every endpoint that returns one organisation's object: a partner of another organisation
# gets 404. New endpoints belong in this list.
ORG_OBJECT_URLS = [
    ("get", "/api/jobs/{job}/"),
    ("post", "/api/jobs/{job}/cancel/"),
    ("post", "/api/jobs/{job}/retry/"),
    ("get", "/api/jobs/{job}/outputs/0"),
    ("delete", "/api/tokens/{token}/"),
]


@pytest.mark.parametrize(("method", "url"), ORG_OBJECT_URLS)
def test_another_organisation_gets_404(partner: Any, method: str, url: str) -> None:
    job = finished_job(partner)
    token = partner.api_tokens.create(name="x", prefix="atl_x", digest="d" * 64)
    outsider = client_for(UserFactory())
    resp = getattr(outsider, method)(url.format(job=job.pk, token=token.pk))
    assert resp.status_code == 404
    assert resp.json()["error"] == "not_found"
    # while the owner reaches it (a finished job cannot be canceled: 409, not 404)
    owner = client_for(partner)
    assert getattr(owner, method)(url.format(job=job.pk, token=token.pk)).status_code in (
        200, 204, 409)


def test_lists_hold_only_the_partners_organisation(partner: Any) -> None:
    finished_job(partner)
    outsider = client_for(UserFactory())
    assert outsider.get("/api/jobs/").json()["count"] == 0
    assert outsider.get("/api/activity/").json() == []
    job_status = Job.objects.get().status
    assert job_status == JobStatus.SUCCEEDED
