"""The admin's ops tools: redeliver webhook deliveries, find a batch's jobs, filter jobs by
error code, and go from a job to its tasks in Flower."""

from __future__ import annotations

import uuid
from typing import Any

from django.test import Client
from webhooks.models import DeliveryStatus, Webhook, WebhookDelivery

from jobs.models import Job
from jobs.services import job_fail, job_start, job_submit, job_submit_batch
from tools.registry import TOOLS


def staff_client(staff: Any) -> Client:
    web = Client()
    web.force_login(staff)
    return web


def listed(web: Client, query: dict[str, str]) -> set[str]:
    resp = web.get("/admin/jobs/job/", query)
    assert resp.status_code == 200
    return {str(job.pk) for job in resp.context["cl"].result_list}


def failed_job(partner: Any, code: str, n: int) -> Job:
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["diagnostics.sleep"],
                     payload={"n": n}).job
    started = job_start(job_id=job.pk)
    assert started is not None
    job_fail(job_id=job.pk, lease=started.lease, code=code, message=code)
    return job


def test_redeliver_puts_deliveries_back_to_pending(partner: Any, staff: Any) -> None:
    hook = Webhook.objects.create(organization=partner.organization, url="https://hooks.test/x",
                                  events=["job.failed"], secret="s")
    gone = [WebhookDelivery.objects.create(webhook=hook, event="job.failed", payload={"n": i},
                                           status=DeliveryStatus.FAILED, attempts=8)
            for i in range(2)]
    untouched = WebhookDelivery.objects.create(webhook=hook, event="job.failed", payload={},
                                               status=DeliveryStatus.FAILED, attempts=8)
    resp = staff_client(staff).post(
        "/admin/webhooks/webhookdelivery/",
        {"action": "redeliver", "_selected_action": [str(d.pk) for d in gone]}, follow=True)
    assert "2 deliveries queued to be sent again" in resp.content.decode()
    for delivery in gone:
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.PENDING and delivery.next_attempt_at
        assert delivery.finished_at is None
    untouched.refresh_from_db()
    assert untouched.status == DeliveryStatus.FAILED


def test_error_code_filter_lists_the_codes_and_narrows_the_list(partner: Any,
                                                               staff: Any) -> None:
    timeout = failed_job(partner, "timeout", 1)
    bad = failed_job(partner, "bad_input", 2)
    web = staff_client(staff)
    page = web.get("/admin/jobs/job/").content.decode()
    assert "By error code" in page and "?error_code=timeout" in page
    assert listed(web, {"error_code": "timeout"}) == {str(timeout.pk)}
    assert listed(web, {"error_code": "bad_input"}) == {str(bad.pk)}
    assert listed(web, {}) == {str(timeout.pk), str(bad.pk)}


def test_search_by_batch_id_and_job_id(partner: Any, staff: Any) -> None:
    cards = [{"image_url": f"https://cdn.maison.test/polo-{i}.jpg", "target_color": "#c5b299",
              "garment_type": "polo"} for i in range(2)]
    batch = job_submit_batch(org=partner.organization, user=partner, tool=TOOLS["recolor"],
                             payloads=cards).jobs
    alone = failed_job(partner, "timeout", 1)
    web = staff_client(staff)
    assert listed(web, {"q": str(batch[0].batch_id)}) == {str(j.pk) for j in batch}
    assert listed(web, {"q": str(alone.pk)}) == {str(alone.pk)}
    assert listed(web, {"q": str(uuid.uuid4())}) == set()
    assert listed(web, {"q": "not-an-id"}) == set()


def test_job_page_links_to_its_tasks_in_flower(partner: Any, staff: Any, settings: Any) -> None:
    settings.FLOWER_URL = "https://flower.ops.test/"
    job = failed_job(partner, "timeout", 1)
    page = staff_client(staff).get(f"/admin/jobs/job/{job.pk}/change/").content.decode()
    # The task id is not stored: Flower's task search by the job id (its tasks' argument).
    assert f'href="https://flower.ops.test/api/tasks?search={job.pk}"' in page
    assert 'href="https://flower.ops.test/tasks"' in page
