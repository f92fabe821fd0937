"""The worker's runner: what a job carries from its tool, which engine made its result and its
tier (in the API and the webhook payload), and rows older than those columns."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient
from webhooks.models import Webhook, WebhookDelivery
from webhooks.services import events_dispatch

from jobs import selectors
from jobs.kinds import DEFAULT_EXPECTED_SECONDS, job_limits
from jobs.models import Job, JobStatus
from jobs.selectors import QueueFigures
from jobs.services import job_submit
from tools.registry import TOOLS
from workers import runner
from workers.engines.base import EngineError, EngineOutput
from workers.queues import QUEUES

SLEEP = TOOLS["diagnostics.sleep"]


class StudioEngine:
    """A provider-backed engine as the provider engines carry it."""

    made_by = "fashn:tryon-v1.6"
    tier = "studio"

    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail

    def __call__(self, params: dict[str, Any], progress: Any) -> list[EngineOutput]:
        progress(50)
        if self.fail:
            raise EngineError("provider_error", "The provider said no.")
        return [EngineOutput(b"{}", "application/json", "out.json")]


def submit(user: Any, **payload: Any) -> Job:
    return job_submit(org=user.organization, user=user, tool=SLEEP,
                      payload={"seconds": 0, **payload}).job


def hook(user: Any) -> None:
    Webhook.objects.create(organization=user.organization, created_by=user,
                           url="https://hooks.maison.test/atelier", secret="whsec_x",
                           events=["job.succeeded", "job.failed"])


def test_a_submit_copies_what_a_run_needs_onto_the_job(partner: Any) -> None:
    job = submit(partner)
    assert (job.queue, job.engine_name) == (SLEEP.queue, SLEEP.engine)
    assert (job.soft_limit, job.hard_limit) == SLEEP.limits
    assert job.expected_seconds == SLEEP.expected_seconds
    assert (job.made_by, job.tier) == ("", "")  # not run yet


def test_a_provider_engine_labels_the_job_in_the_api_and_the_webhook(
    partner: Any, api: APIClient, monkeypatch: Any
) -> None:
    hook(partner)
    monkeypatch.setattr(runner, "engine_for_job", lambda job: StudioEngine())
    job = submit(partner)
    assert runner.job_run(job_id=str(job.pk)) == "succeeded"
    job.refresh_from_db()
    assert (job.status, job.made_by, job.tier) == (JobStatus.SUCCEEDED, "fashn:tryon-v1.6",
                                                   "studio")
    body = api.get(f"/api/jobs/{job.pk}/").json()
    assert (body["engine"], body["tier"]) == ("fashn:tryon-v1.6", "studio")
    events_dispatch()  # the outbox's event, matched with the webhook
    (delivery,) = WebhookDelivery.objects.filter(event="job.succeeded")
    payload = delivery.payload["data"]["job"]
    assert (payload["engine"], payload["tier"]) == ("fashn:tryon-v1.6", "studio")
    # the webhook's job is the API's job, but for the output links that open without a session
    assert {k: v for k, v in payload.items() if k != "outputs"} == {
        k: v for k, v in body.items() if k != "outputs"}


def test_a_failed_run_says_which_engine_failed(partner: Any, monkeypatch: Any) -> None:
    hook(partner)
    monkeypatch.setattr(runner, "engine_for_job", lambda job: StudioEngine(fail=True))
    job = submit(partner)
    assert runner.job_run(job_id=str(job.pk)) == "failed"
    job.refresh_from_db()
    assert (job.error_code, job.made_by, job.tier) == ("provider_error", "fashn:tryon-v1.6",
                                                       "studio")
    events_dispatch()
    (delivery,) = WebhookDelivery.objects.filter(event="job.failed")
    assert delivery.payload["data"]["job"]["engine"] == "fashn:tryon-v1.6"


def test_a_local_engine_is_local_with_no_tier_of_its_own(partner: Any, api: APIClient) -> None:
    job = submit(partner)
    assert runner.job_run(job_id=str(job.pk)) == "succeeded"
    body = api.get(f"/api/jobs/{job.pk}/").json()
    assert (body["engine"], body["tier"]) == ("local", "")


def test_a_generative_tools_local_engine_is_a_preview(partner: Any, api: APIClient,
                                                      monkeypatch: Any) -> None:
    """Try-On run by the local engine (no provider account): its result is a local preview."""
    def local(params: dict[str, Any], progress: Any) -> list[EngineOutput]:
        return [EngineOutput(b"{}", "application/json", "out.json")]

    monkeypatch.setattr(runner, "engine_for_job", lambda job: local)
    monkeypatch.setattr(runner, "job_params", lambda job: {})  # no fetch of the made-up URLs
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["virtual-try-on"],
                     payload={"garmentUrl": "https://cdn.maison.test/g.jpg",
                              "modelUrl": "https://cdn.maison.test/m.jpg"}).job
    assert runner.job_run(job_id=str(job.pk)) == "succeeded"
    body = api.get(f"/api/jobs/{job.pk}/").json()
    assert (body["engine"], body["tier"]) == ("local", "preview")


def test_a_job_older_than_the_run_columns_still_runs_and_has_an_eta(
    partner: Any, monkeypatch: Any
) -> None:
    monkeypatch.setattr(selectors, "_avg_cache", {})  # no run-time history in this process
    old = Job.objects.create(organization=partner.organization, user=partner, tool=SLEEP.slug,
                             queue=SLEEP.queue, input={"seconds": 0})
    assert (old.engine_name, old.soft_limit, old.expected_seconds) == ("", None, None)
    # the queue's limits stand in for the job's own
    queue = QUEUES[SLEEP.queue]
    assert job_limits(old) == (queue.soft_limit, queue.hard_limit)
    # no run-time history and no seed: the default seed, on one worker process
    position, eta = QueueFigures().position_and_eta(old)
    assert (position, eta) == (0, pytest.approx(DEFAULT_EXPECTED_SECONDS))
    # its engine is found from its tool
    assert runner.job_run(job_id=str(old.pk)) == "succeeded"
    old.refresh_from_db()
    assert (old.status, old.made_by) == (JobStatus.SUCCEEDED, "local")


def test_a_job_whose_engine_is_gone_fails_clearly(partner: Any) -> None:
    job = submit(partner)
    Job.objects.filter(pk=job.pk).update(engine_name="no-such-engine")
    assert runner.job_run(job_id=str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.error_code == "unknown_tool"


def test_each_tool_runs_as_its_own_task_for_flower(partner: Any) -> None:
    """Flower lists runs by task name: jobs.run.<tool>, registered on the worker for every
    tool, with the generic jobs.run for a tool the catalogue no longer declares."""
    from config.celery_app import app
    from jobs.services import run_task_name
    from workers.tasks.jobs import RUN_TASKS

    assert run_task_name("recolor") == "jobs.run.recolor"
    assert run_task_name("no-longer-a-tool") == "jobs.run"
    assert {f"jobs.run.{slug}" for slug in TOOLS} | {"jobs.run"} == set(RUN_TASKS)
    assert {"jobs.run", "jobs.run.recolor", "jobs.run.diagnostics.sleep"} <= set(app.tasks)


@pytest.mark.django_db(transaction=True)
def test_a_time_limit_in_the_middle_of_a_statement_still_ends_the_job(partner: Any) -> None:
    # The soft time limit's exception lands wherever the run is. Once it landed while a
    # progress write was running on PostgreSQL: the connection was left in the middle of the
    # statement, the transaction that fails the job could not begin, and the job stayed
    # running until the reconciler found it.
    import signal

    from celery.exceptions import SoftTimeLimitExceeded
    from django.db import connection

    from jobs.services import job_fail, job_start

    if connection.vendor != "postgresql":
        pytest.skip("SQLite statements are not interrupted this way")
    job = submit(partner)
    taken = job_start(job_id=job.pk)
    assert taken is not None and taken.lease is not None

    def limit(*_: Any) -> None:
        raise SoftTimeLimitExceeded()

    before = signal.signal(signal.SIGALRM, limit)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(SoftTimeLimitExceeded), connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(3)")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
    broken = connection.connection.info.transaction_status
    assert broken != 0  # left mid-statement: what the fix has to handle

    runner.connection_after_interrupt()
    assert job_fail(job_id=job.pk, lease=taken.lease, code="time_limit", message="late")
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "time_limit")
