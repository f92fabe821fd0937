"""Webhooks: registration with address checks, signed deliveries, retries, stops, batch
completion and isolation, against a receiver on loopback (exempted in these tests)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from webhooks.models import BatchCompletion, Webhook, WebhookDelivery
from webhooks.services import deliveries_due, delivery_send, events_dispatch

from jobs.models import Activity, Job
from jobs.services import job_fail, job_start, job_submit_batch, job_succeed
from tests.conftest import client_for
from tests.support.factories import UserFactory
from tests.support.receiver import Receiver, receiver
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

pytestmark = pytest.mark.django_db(transaction=True)  # events are sent after commit


@pytest.fixture
def hook_receiver(settings: Any) -> Iterator[Receiver]:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    with receiver() as rec:
        yield rec


def register(api: APIClient, url: str, events: list[str] | None = None) -> dict[str, Any]:
    resp = api.post("/api/webhooks/", {"url": url, "events": events or [
        "job.succeeded", "job.failed", "batch.completed"]}, format="json")
    assert resp.status_code == 201, resp.json()
    return resp.json()


def verify(secret: str, call: Any) -> bool:
    parts = dict(p.split("=", 1) for p in call.headers["Atelier-Signature"].split(","))
    mac = hmac.new(secret.encode(), f"{parts['t']}.".encode() + call.body, hashlib.sha256)
    return hmac.compare_digest(mac.hexdigest(), parts["v1"])


def send_all() -> None:
    """What the webhooks worker does: dispatch the outbox's events, then send every delivery
    that is due."""
    events_dispatch()
    for delivery in WebhookDelivery.objects.filter(status="pending"):
        delivery_send(delivery_id=delivery.pk)


def finished_batch(user: Any, outcomes: list[bool]) -> list[Job]:
    cards = [{"image_url": f"https://cdn.maison.test/polo-{i}.jpg", "target_color": "#c5b299",
              "garment_type": "polo"} for i in range(len(outcomes))]
    jobs = job_submit_batch(org=user.organization, user=user, tool=TOOLS["recolor"],
                            payloads=cards).jobs
    for job, ok in zip(jobs, outcomes, strict=True):
        lease = job_start(job_id=job.pk).lease
        if ok:
            job_succeed(job=job, lease=lease,
                        outputs=[EngineOutput(b"\x89PNG", "image/png", "recolor.png")])
        else:
            job_fail(job_id=job.pk, lease=lease, code="fetch_failed",
                     message="The image could not be fetched.")
    return jobs


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest",
    "http://[::1]/hook", "http://[::ffff:127.0.0.1]/hook", "http://2130706433/hook",
    "http://0x7f000001/hook", "ftp://hooks.maison.test/x",
])
def test_private_addresses_are_refused_at_creation(api: APIClient, url: str) -> None:
    resp = api.post("/api/webhooks/", {"url": url, "events": ["job.succeeded"]}, format="json")
    assert resp.status_code == 400
    assert "url" in resp.json()["fields"]
    assert not Webhook.objects.exists()


def test_signed_job_and_batch_events_once_each(partner: Any, api: APIClient,
                                               hook_receiver: Receiver) -> None:
    created = register(api, hook_receiver.url)
    assert created["secret"].startswith("whsec_")
    assert "secret" not in api.get("/api/webhooks/").json()[0]  # shown once

    finished_batch(partner, [True, False])
    send_all()

    events = sorted(c.json["event"] for c in hook_receiver.calls)
    assert events == ["batch.completed", "job.failed", "job.succeeded"]
    assert all(verify(created["secret"], c) for c in hook_receiver.calls)
    assert len({c.headers["Atelier-Delivery"] for c in hook_receiver.calls}) == 3
    succeeded = next(c.json for c in hook_receiver.calls if c.json["event"] == "job.succeeded")
    output_url = succeeded["data"]["job"]["outputs"][0]["url"]
    assert "/api/jobs/outputs/" in output_url
    opened = APIClient().get(urlsplit(output_url).path)
    assert opened.status_code == 200  # a signed link: no session needed
    batch = next(c.json for c in hook_receiver.calls if c.json["event"] == "batch.completed")
    summary = batch["data"]["batch"]
    assert (summary["count"], summary["succeeded"], summary["failed"]) == (2, 1, 1)
    assert summary["failures"][0]["message"] == "The image could not be fetched."
    assert BatchCompletion.objects.count() == 1

    send_all()  # nothing is sent twice
    assert len(hook_receiver.calls) == 3


def test_standard_webhooks_headers_verify_with_their_library(
        partner: Any, api: APIClient, hook_receiver: Receiver) -> None:
    """Next to our signature, every delivery carries the Standard Webhooks headers, which the
    standardwebhooks library verifies with the secret shown at creation; a retry keeps its
    webhook-id."""
    from standardwebhooks.webhooks import Webhook as StandardWebhook
    from standardwebhooks.webhooks import WebhookVerificationError

    created = register(api, hook_receiver.url, ["job.succeeded"])
    hook_receiver.answers = [500]
    finished_batch(partner, [True])
    send_all()
    WebhookDelivery.objects.update(next_attempt_at=timezone.now())
    send_all()
    first, retry = hook_receiver.calls
    signer = StandardWebhook(created["secret"])
    for call in (first, retry):
        assert signer.verify(call.body, call.headers)["event"] == "job.succeeded"
    assert first.headers["webhook-id"] == retry.headers["webhook-id"]
    with pytest.raises(WebhookVerificationError):  # a changed body does not verify
        signer.verify(first.body.replace(b"succeeded", b"failed"), first.headers)


def test_retries_after_500_and_stops_after_410(partner: Any, api: APIClient,
                                               hook_receiver: Receiver) -> None:
    register(api, hook_receiver.url, ["job.succeeded"])
    hook_receiver.answers = [500, 503]
    finished_batch(partner, [True])
    send_all()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("pending", 1, 500)
    assert delivery.next_attempt_at > timezone.now() + timedelta(seconds=20)  # backoff

    WebhookDelivery.objects.update(next_attempt_at=timezone.now())
    deliveries_due()
    send_all()
    WebhookDelivery.objects.update(next_attempt_at=timezone.now())
    send_all()
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("succeeded", 3, 200)
    ids = {c.headers["Atelier-Delivery"] for c in hook_receiver.calls}
    assert ids == {str(delivery.pk)}  # retries carry the same delivery id

    hook_receiver.answers = [410]
    finished_batch(partner, [True])
    send_all()
    gone = WebhookDelivery.objects.exclude(pk=delivery.pk).get()
    assert (gone.status, gone.attempts, gone.response_code) == ("failed", 1, 410)


def test_an_endpoint_that_keeps_failing_is_switched_off(partner: Any, api: APIClient,
                                                        hook_receiver: Receiver,
                                                        settings: Any) -> None:
    settings.WEBHOOK_DISABLE_AFTER = 2
    hook = register(api, hook_receiver.url, ["job.succeeded"])
    hook_receiver.answers = [400, 400]
    finished_batch(partner, [True, True])
    send_all()
    assert api.get(f"/api/webhooks/{hook['id']}/").json()["active"] is False
    assert Activity.objects.filter(tool="webhooks", action="Webhook switched off").exists()


def test_a_webhook_moved_to_a_private_address_is_refused_at_delivery(
    partner: Any, api: APIClient, hook_receiver: Receiver, settings: Any
) -> None:
    register(api, hook_receiver.url, ["job.succeeded"])
    settings.OUTBOUND_ALLOW = []  # the exemption is gone: loopback is private
    finished_batch(partner, [True])
    send_all()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and "private" in delivery.last_error
    assert hook_receiver.calls == []


def test_no_calls_for_another_organisations_jobs(partner: Any, api: APIClient,
                                                 hook_receiver: Receiver) -> None:
    register(api, hook_receiver.url)
    finished_batch(UserFactory(), [True])
    send_all()
    assert hook_receiver.calls == []
    outsider = client_for(UserFactory())
    hook_id = Webhook.objects.get().pk
    assert outsider.get(f"/api/webhooks/{hook_id}/deliveries/").status_code == 404


def test_delivery_log_test_event_and_redeliver(partner: Any, api: APIClient,
                                               hook_receiver: Receiver) -> None:
    hook = register(api, hook_receiver.url, ["job.succeeded"])
    sent = api.post(f"/api/webhooks/{hook['id']}/test/")
    assert sent.status_code == 202
    send_all()
    log = api.get(f"/api/webhooks/{hook['id']}/deliveries/").json()
    assert [(d["status"], d["attempts"], d["response_code"]) for d in log] == [
        ("succeeded", 1, 200)]
    again = api.post(f"/api/webhooks/{hook['id']}/deliveries/{log[0]['id']}/redeliver/")
    assert again.status_code == 202
    send_all()
    assert [c.headers["Atelier-Delivery"] for c in hook_receiver.calls] == [log[0]["id"]] * 2
