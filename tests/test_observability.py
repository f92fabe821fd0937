"""Metrics for ops, request ids, JSON logs and the admin's bulk actions."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.test import Client

from jobs.models import Job, JobStatus
from jobs.services import job_fail, job_start, job_submit
from tools.registry import TOOLS


def test_metrics_are_for_staff_or_the_scrape_token(partner: Any, staff: Any, settings: Any) -> None:
    job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
               payload={"seconds": 1})
    assert Client().get("/metrics").status_code == 403
    web = Client()
    web.force_login(partner)
    assert web.get("/metrics").status_code == 403
    web.force_login(staff)
    text = web.get("/metrics").content.decode()
    assert 'atelier_jobs{status="queued",tool="diagnostics.sleep"} 1.0' in text
    assert 'atelier_queue_depth{queue="interactive"}' in text
    assert "atelier_http_requests_total" in text
    settings.METRICS_TOKEN = "scrape-me"
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-me").status_code == 200
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer nope").status_code == 403


def test_request_ids_are_kept_or_made(db: Any) -> None:
    given = Client().get("/healthz", HTTP_X_REQUEST_ID="abc-123")
    assert given["X-Request-ID"] == "abc-123"
    made = Client().get("/healthz")["X-Request-ID"]
    assert len(made) == 32


def test_logs_are_json_lines_with_the_request_and_job_ids(db: Any, capsys: Any) -> None:
    from django.conf import settings

    from config.observability import job_id_var, request_id_var

    assert settings.LOGGING["handlers"]["console"]["formatter"] == "json"
    logging.config.dictConfig(settings.LOGGING)
    try:
        request_token = request_id_var.set("rid-42")
        job_token = job_id_var.set("job-7")
        logging.getLogger("jobs.services").warning("worker lost")
        request_id_var.reset(request_token)
        job_id_var.reset(job_token)
        (line,) = [json.loads(x) for x in capsys.readouterr().err.splitlines()
                   if x.startswith("{")]
        assert line["message"] == "worker lost" and line["level"] == "WARNING"
        assert (line["request_id"], line["job_id"]) == ("rid-42", "job-7")
        assert "time" in line
    finally:
        logging.config.dictConfig(settings.LOGGING)


def test_admin_bulk_retry_and_cancel(partner: Any, staff: Any) -> None:
    tool = TOOLS["diagnostics.sleep"]
    failed = job_submit(org=partner.organization, user=partner, tool=tool, payload={"n": 1}).job
    job_fail(job_id=failed.pk, lease=job_start(job_id=failed.pk).lease, code="x", message="x")
    queued = job_submit(org=partner.organization, user=partner, tool=tool, payload={"n": 2}).job
    web = Client()
    web.force_login(staff)
    url = "/admin/jobs/job/"
    web.post(url, {"action": "retry_jobs", "_selected_action": [failed.pk, queued.pk]})
    web.post(url, {"action": "cancel_jobs", "_selected_action": [queued.pk]})
    assert Job.objects.get(pk=failed.pk).status == JobStatus.QUEUED
    assert Job.objects.get(pk=queued.pk).status == JobStatus.CANCELED


@pytest.mark.django_db(transaction=True)
def test_a_real_workers_log_is_json_lines_with_the_jobs_context(staff: Any) -> None:
    from rest_framework.test import APIClient

    from tests.conftest import client_for
    from tests.support.polling import wait_job
    from tests.support.processes import start_worker, wait_for

    api: APIClient = client_for(staff)
    proc = start_worker(queues="interactive,batch", concurrency=1, env={"LOG_FORMAT": "json"})
    try:
        job_id = api.post("/api/diagnostics/sleep", {"seconds": 0.1, "fail": True},
                          format="json").json()["id"]
        job = wait_job(job_id, timeout=30)
        # The task ends after the job's end is committed (its figures and wake-ups follow the
        # commit): stopped at once, a busy machine's pool child is killed before it logs.
        wait_for(lambda: f'"job_id": "{job_id}"' in proc.log.read_text(), 30,
                 what="the run's log lines")
    finally:
        proc.stop()
    lines = [line for line in proc.log.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert records and len(records) == len(lines), lines[:5]  # every line is a JSON object
    assert any(r["message"].endswith("ready.") for r in records)
    mine = [r for r in records if r.get("job_id") == job_id]
    assert mine, records[-5:]
    assert all((r["tool"], r["organization"], r["attempt"], r["queue"])
               == ("diagnostics.sleep", str(job.organization_id), "1", "interactive")
               for r in mine if r["tool"])
    assert any(r["tool"] for r in mine)
