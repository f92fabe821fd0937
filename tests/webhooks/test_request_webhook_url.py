"""A submit's `?webhook_url=`: the job's finished event goes there too, once per job, signed
with the organisation's per-request secret (Standard Webhooks headers verified with the
standardwebhooks library) and retried as the registered webhooks' deliveries are."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from django.utils import timezone
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook as StandardWebhook
from standardwebhooks.webhooks import WebhookVerificationError
from webhooks.models import Webhook, WebhookDelivery
from webhooks.services import delivery_send, events_dispatch

from jobs.models import Job
from jobs.services import job_fail, job_start, job_succeed
from tests.conftest import client_for
from tests.support.factories import UserFactory
from tests.support.receiver import Receiver, receiver
from workers.engines.base import EngineOutput

pytestmark = pytest.mark.django_db(transaction=True)  # deliveries are enqueued after commit

CARD = {"image_url": "https://cdn.maison.test/polo.jpg", "target_color": "#c5b299",
        "garment_type": "polo"}


@pytest.fixture
def callback(settings: Any) -> Iterator[Receiver]:
    settings.OUTBOUND_ALLOW = ["127.0.0.1"]
    with receiver() as rec:
        yield rec


def submit(api: APIClient, url: str, cards: list[dict[str, Any]]) -> Any:
    return api.post(f"/api/recoloring/recolor?webhook_url={quote(url, safe='')}", cards,
                    format="json")


def finish(job_ids: list[str], outcomes: list[bool]) -> None:
    for job_id, ok in zip(job_ids, outcomes, strict=True):
        lease = job_start(job_id=job_id).lease
        if ok:
            job_succeed(job=Job.objects.get(pk=job_id), lease=lease,
                        outputs=[EngineOutput(b"\x89PNG", "image/png", "recolor.png")])
        else:
            job_fail(job_id=job_id, lease=lease, code="fetch_failed",
                     message="The image could not be fetched.")
    events_dispatch()  # the outbox's events into deliveries, as the webhooks worker does


def send_due() -> None:
    WebhookDelivery.objects.filter(status="pending").update(next_attempt_at=timezone.now())
    for delivery in WebhookDelivery.objects.filter(status="pending"):
        delivery_send(delivery_id=delivery.pk)


def test_each_job_of_a_batch_is_announced_once_to_its_webhook_url(
        api: APIClient, callback: Receiver) -> None:
    with receiver() as registered:  # an organisation webhook gets its own deliveries as before
        hook = api.post("/api/webhooks/", {"url": registered.url, "events": [
            "job.succeeded", "job.failed"]}, format="json").json()

        resp = submit(api, callback.url, [CARD, {**CARD, "image_url": CARD["image_url"] + "?2"}])
        assert resp.status_code == 202, resp.json()
        ids = [j["id"] for j in resp.json()["jobs"]]
        finish(ids, [True, False])
        send_due()
        send_due()  # nothing is sent twice

        assert sorted(c.json["event"] for c in registered.calls) == ["job.failed",
                                                                     "job.succeeded"]
    assert len(callback.calls) == 2
    secret = api.get("/api/webhooks/request-secret/").json()["secret"]
    assert secret != hook["secret"]
    signer = StandardWebhook(secret)
    seen = {signer.verify(c.body, c.headers)["data"]["job"]["id"]: c.json["event"]
            for c in callback.calls}
    assert seen == {ids[0]: "job.succeeded", ids[1]: "job.failed"}
    assert len({c.headers["webhook-id"] for c in callback.calls}) == 2
    with pytest.raises(WebhookVerificationError):  # the registered webhook's key does not sign
        StandardWebhook(hook["secret"]).verify(callback.calls[0].body, callback.calls[0].headers)
    # The signer is no endpoint of the organisation's: not listed, not reachable by id.
    listed = api.get("/api/webhooks/").json()
    assert [h["id"] for h in listed] == [hook["id"]]
    signer_row = Webhook.objects.get(per_request=True)
    assert api.get(f"/api/webhooks/{signer_row.pk}/").status_code == 404


def test_a_failed_delivery_is_retried_with_the_same_id_and_never_switches_anything_off(
        api: APIClient, callback: Receiver, settings: Any) -> None:
    settings.WEBHOOK_DISABLE_AFTER = 1
    callback.answers = [503]
    resp = submit(api, callback.url, [CARD])
    finish([resp.json()["jobs"][0]["id"]], [True])
    send_due()
    assert WebhookDelivery.objects.get().status == "pending"  # to be retried
    send_due()

    first, retry = callback.calls
    assert first.headers["webhook-id"] == retry.headers["webhook-id"]
    (logged,) = api.get("/api/webhooks/request-deliveries/").json()  # what the URL answered
    assert (logged["url"], logged["status"], logged["attempts"]) == (callback.url, "succeeded",
                                                                     2)
    assert client_for(UserFactory()).get("/api/webhooks/request-deliveries/").json() == []
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("succeeded", 2, 200)
    assert Webhook.objects.get(per_request=True).active  # one URL's failure is not the org's

    # A rotated secret signs the next deliveries; the old one no longer verifies them.
    old = api.get("/api/webhooks/request-secret/").json()["secret"]
    new = api.post("/api/webhooks/request-secret/").json()["secret"]
    assert new != old
    resp = submit(api, callback.url, [{**CARD, "image_url": CARD["image_url"] + "?3"}])
    finish([resp.json()["jobs"][0]["id"]], [True])
    send_due()
    StandardWebhook(new).verify(callback.calls[-1].body, callback.calls[-1].headers)
    with pytest.raises(WebhookVerificationError):
        StandardWebhook(old).verify(callback.calls[-1].body, callback.calls[-1].headers)


@pytest.mark.parametrize("url", [
    "http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[::1]/hook",
    "ftp://hooks.maison.test/x", "not a url", "", "https://" + "a" * 1000 + ".test/",
])
def test_a_refused_webhook_url_is_a_400_and_no_job(api: APIClient, url: str,
                                                   settings: Any) -> None:
    settings.OUTBOUND_ALLOW = []
    resp = submit(api, url, [CARD])
    assert resp.status_code == 400, resp.json()
    assert "webhook_url" in resp.json()["fields"]
    assert not Job.objects.exists()


def test_a_direct_tool_and_a_replayed_submit_keep_one_webhook_url(
        api: APIClient, callback: Receiver) -> None:
    """A job-shaped submit takes it too; the same Idempotency-Key again gives the same job and
    still one delivery."""
    body = {"seconds": 0}
    staff = client_for(UserFactory(is_staff=True))
    for _ in range(2):
        resp = staff.post(f"/api/diagnostics/sleep?webhook_url={quote(callback.url)}", body,
                          format="json", HTTP_IDEMPOTENCY_KEY="sleep-1")
        assert resp.status_code in (200, 202), resp.json()
    finish([resp.json()["id"]], [True])
    send_due()
    assert [c.json["data"]["job"]["id"] for c in callback.calls] == [resp.json()["id"]]


def test_another_organisations_secret_does_not_sign_mine(api: APIClient,
                                                         callback: Receiver) -> None:
    other = client_for(UserFactory())
    resp = submit(api, callback.url, [CARD])
    finish([resp.json()["jobs"][0]["id"]], [True])
    send_due()
    theirs = other.get("/api/webhooks/request-secret/").json()["secret"]
    with pytest.raises(WebhookVerificationError):
        StandardWebhook(theirs).verify(callback.calls[0].body, callback.calls[0].headers)


def test_webhook_urls_must_be_https_but_for_exempted_hosts(api: APIClient, settings: Any) -> None:
    settings.OUTBOUND_ALLOW = []
    public = "93.184.215.14"  # a public address: nothing is resolved, nothing is called

    refused = submit(api, f"http://{public}/hook", [CARD])
    assert refused.status_code == 400
    assert refused.json()["fields"]["webhook_url"] == ["Webhook URLs must be https URLs."]
    assert submit(api, f"https://{public}/hook", [CARD]).status_code == 202
    events = {"events": ["job.succeeded"]}
    assert api.post("/api/webhooks/", {"url": f"http://{public}/hook", **events},
                    format="json").status_code == 400
    assert api.post("/api/webhooks/", {"url": f"https://{public}/hook", **events},
                    format="json").status_code == 201

    settings.OUTBOUND_ALLOW = [public]  # a receiver inside the network may speak http
    assert submit(api, f"http://{public}/hook", [{**CARD, "garment_type": "shirt"}]
                  ).status_code == 202
    settings.OUTBOUND_ALLOW = []
    settings.WEBHOOK_HTTPS_ONLY = False
    assert api.post("/api/webhooks/", {"url": f"http://{public}/other", **events},
                    format="json").status_code == 201
