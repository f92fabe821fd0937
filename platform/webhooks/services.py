"""Webhooks: endpoints per organisation, signed deliveries with retries, batch completion."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Count, F
from django.utils import timezone
from standardwebhooks.webhooks import Webhook as StandardWebhook

from accounts.models import Organization, User
from config.metrics import WEBHOOK_DELIVERIES
from jobs.models import ActivityStatus, Job, JobEvent, JobStatus
from jobs.serializers import job_payload
from jobs.services import activity_record
from webhooks.models import (
    BatchCompletion,
    DeliveryStatus,
    JobCallback,
    Webhook,
    WebhookDelivery,
    WebhookEvent,
)
from webhooks.sending import DestinationRefused, new_destination_check, post_json

logger = logging.getLogger(__name__)

# Seconds before attempts 2..8: about a day in all, each with ±20 % jitter.
RETRY_DELAYS = (30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
SIGNATURE_HEADER = "Atelier-Signature"


def webhook_create(*, org: Organization, user: User, url: str, events: list[str],
                   active: bool = True) -> Webhook:
    new_destination_check(url)  # raises DestinationRefused
    return Webhook.objects.create(organization=org, created_by=user, url=url, events=events,
                                  active=active, secret=new_secret())


def new_secret() -> str:
    """`whsec_` and 24 random bytes in standard base64: the key of our signature and of the
    Standard Webhooks one."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_update(*, webhook: Webhook, **changes: Any) -> Webhook:
    if "url" in changes:
        new_destination_check(changes["url"])
    for name, value in changes.items():
        setattr(webhook, name, value)
    if changes.get("active"):
        webhook.consecutive_failures = 0
        webhook.disabled_reason = ""
    webhook.save()
    return webhook


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def standard_headers(secret: str, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), signed
    by the standardwebhooks library with the webhook's secret, so a receiver verifies with
    `standardwebhooks.Webhook(secret).verify(body, headers)`. The id is the delivery's: the
    same on every retry of it. A secret made before secrets were standard base64 cannot key
    them: such a webhook gets only our own signature header."""
    try:
        signer = StandardWebhook(secret)
    except (ValueError, binascii.Error):
        return {}
    sent = datetime.fromtimestamp(timestamp, tz=UTC)
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": signer.sign(message_id, sent, body.decode())}


# --- Events -------------------------------------------------------------------------------


def event_emit(*, org_id: Any, event: str,
               data: dict[str, Any] | Callable[[], dict[str, Any]],
               hooks: list[Webhook] | None = None,
               created_at: datetime | None = None) -> list[WebhookDelivery]:
    """A delivery per active webhook of the organisation that asked for this event. `data`
    may be a callable: it is built only when some webhook wants the event (most jobs have
    none, and building a job's representation costs more than the job's bookkeeping).
    `hooks` are the organisation's active webhooks when the caller read them already."""
    if hooks is None:
        hooks = list(Webhook.objects.filter(organization_id=org_id, active=True))
    hooks = [h for h in hooks if event in h.events]
    if not hooks:
        return []
    if callable(data):
        data = data()
    deliveries = []
    now = timezone.now()
    created = (created_at or now).isoformat()
    for hook in hooks:
        delivery = WebhookDelivery(webhook=hook, event=event, next_attempt_at=now, payload={})
        delivery.payload = {"id": str(delivery.id), "event": event,
                            "created_at": created, "data": data}
        deliveries.append(delivery)
    WebhookDelivery.objects.bulk_create(deliveries)
    if deliveries:
        transaction.on_commit(lambda: _enqueue([d.pk for d in deliveries]))
    return deliveries


def _enqueue(delivery_ids: list[Any]) -> None:
    from workers.tasks.webhooks import send_delivery

    for delivery_id in delivery_ids:
        try:
            send_delivery.apply_async(args=[str(delivery_id)], queue="webhooks")
        except Exception as exc:  # noqa: BLE001 - broker down: the due sweep sends it later
            logger.warning("webhook delivery %s not enqueued: %s", delivery_id, exc)


# --- Per-request webhook_url --------------------------------------------------------------


def request_signer(*, org_id: Any) -> Webhook:
    """The organisation's signer of per-request deliveries (made when first needed)."""
    hook = Webhook.objects.filter(organization_id=org_id, per_request=True).first()
    if hook is not None:
        return hook
    try:
        with transaction.atomic():
            return Webhook.objects.create(organization_id=org_id, per_request=True, url="",
                                          events=[], secret=new_secret())
    except IntegrityError:  # made by a concurrent request
        return Webhook.objects.get(organization_id=org_id, per_request=True)


def request_signer_rotate(*, org_id: Any) -> Webhook:
    hook = request_signer(org_id=org_id)
    hook.secret = new_secret()
    hook.save(update_fields=["secret"])
    return hook


def job_callbacks_set(*, jobs: list[Job], url: str) -> None:
    """Remember a submit's webhook_url for its jobs (in the submit's transaction: a job that
    ends at once still finds it). A replayed submit (same Idempotency-Key) keeps the first."""
    new_destination_check(url)  # raises DestinationRefused
    if jobs:  # the signer exists before any job ends, so no ending has to make it
        request_signer(org_id=jobs[0].organization_id)
    JobCallback.objects.bulk_create([JobCallback(job=job, url=url) for job in jobs],
                                    ignore_conflicts=True)


def job_callback_emit(*, org_id: Any, url: str, event: str,
                      data: Callable[[], dict[str, Any]],
                      created_at: datetime | None = None) -> WebhookDelivery:
    """A job's event to its submit's webhook_url: one delivery, sent and retried as the
    registered webhooks' are."""
    now = timezone.now()
    delivery = WebhookDelivery(webhook=request_signer(org_id=org_id), url=url,
                               event=event, next_attempt_at=now, payload={})
    delivery.payload = {"id": str(delivery.id), "event": event,
                        "created_at": (created_at or now).isoformat(), "data": data()}
    delivery.save(force_insert=True)
    transaction.on_commit(lambda: _enqueue([delivery.pk]))
    return delivery


# --- The outbox (jobs.JobEvent) and its dispatcher -----------------------------------------

# Set while a dispatch is waiting to run: one message however many jobs end meanwhile. In
# the job core's Redis (jobs.figures), so that a job's end sets it in the same round trip as
# its queue figures (jobs.services).
DISPATCH_WAKE_KEY = "atelier:webhooks:dispatch-waiting"
DISPATCH_TASK = "webhooks.dispatch_events"
# Outbox rows one dispatch reads at a time.
DISPATCH_BATCH = 500


def events_heard_sql(*, job: str, quote: Callable[[str], str]) -> str:
    """An SQL condition on a row `job` of the jobs table (its id, organization_id and batch_id
    columns): whether an event of the job has anyone to tell at once (an active webhook of
    its organisation, its submit's webhook_url, its batch's end). Whatever it says, the
    event is in the outbox and the reconcile tick's dispatch takes it; this says whether the
    job's end wakes a dispatch now. Index lookups, made in the statement that ends the job."""
    hooks, callbacks = Webhook._meta, JobCallback._meta
    hook_org = quote(hooks.get_field("organization").column)  # type: ignore[union-attr]
    callback_job = quote(callbacks.get_field("job").column)  # type: ignore[union-attr]
    return (f"({job}.batch_id IS NOT NULL"  # noqa: S608 - identifiers from the models
            f" OR EXISTS (SELECT 1 FROM {quote(hooks.db_table)} w"
            f" WHERE w.{hook_org} = {job}.organization_id AND w.active)"
            f" OR EXISTS (SELECT 1 FROM {quote(callbacks.db_table)} c"
            f" WHERE c.{callback_job} = {job}.id))")


def events_wake_seconds() -> int:
    """How long a wake key stands for a dispatch that never ran (its message lost): past it,
    the next job's end wakes another one; the reconcile tick dispatches meanwhile."""
    return int(settings.JOB_RECONCILE_SECONDS * 6) or 1


def events_wake() -> None:
    """After a job's end is committed: make sure a dispatch will run. The key is cleared by
    the dispatch before it reads the outbox, so an event committed after that read wakes
    another one; if the wake is lost (Redis down), the reconcile tick dispatches."""
    from jobs.figures import redis_client

    if redis_client().set(DISPATCH_WAKE_KEY, 1, nx=True, ex=events_wake_seconds()):
        events_wake_send()


def events_wake_send() -> None:
    """Send the dispatch that the wake key just set stands for (events_wake, or a job's end
    that set the key itself); the key is removed again if the message cannot be sent."""
    from config.celery_app import app
    from jobs.figures import redis_client

    try:
        app.send_task(DISPATCH_TASK, queue="webhooks", ignore_result=True)
    except Exception:
        redis_client().delete(DISPATCH_WAKE_KEY)
        raise


def _job_data(job_id: Any) -> dict[str, Any]:
    return job_payload(job=Job.objects.prefetch_related("outputs").get(pk=job_id))


def events_dispatch(*, limit: int = DISPATCH_BATCH) -> int:
    """Turn the outbox's events into deliveries for the webhooks subscribed to them, and
    announce the batches they ended. Each event is taken (deleted) in the transaction that
    writes its deliveries, so two dispatchers never both send one and a dispatcher that dies
    leaves it for the next. Returns how many events were taken."""
    from jobs.figures import redis_client

    try:
        redis_client().delete(DISPATCH_WAKE_KEY)
    except Exception as exc:  # noqa: BLE001 - Redis down: the reconcile tick dispatches anyway
        logger.warning("dispatch wake key not cleared: %s", exc)
    taken = 0
    while True:
        rows = list(JobEvent.objects.order_by("id")
                    .values_list("id", "job_id", "event", "created_at",
                                 "job__organization_id", "job__batch_id")[:limit])
        if not rows:
            return taken
        orgs = {row[4] for row in rows}
        hooks: dict[Any, list[Webhook]] = {org: [] for org in orgs}
        for hook in Webhook.objects.filter(organization_id__in=orgs, active=True):
            hooks[hook.organization_id].append(hook)
        # the submits' own webhook_url, for the jobs that named one
        callbacks = dict(JobCallback.objects.filter(job_id__in={row[1] for row in rows})
                         .values_list("job_id", "url"))
        # A batch is checked once per read, at its last event here: every earlier event of
        # it is committed by then.
        last_of_batch = {row[5]: row[0] for row in rows if row[5]}
        for event_id, job_id, event, created_at, org_id, batch_id in rows:
            with transaction.atomic():
                if not JobEvent.objects.filter(pk=event_id).delete()[0]:
                    continue  # another dispatcher took it
                taken += 1
                if event in (WebhookEvent.JOB_SUCCEEDED, WebhookEvent.JOB_FAILED):
                    # built once, and only if a webhook or the job's webhook_url asks for it
                    data = functools.cache(functools.partial(_job_data, job_id))
                    event_emit(org_id=org_id, event=event, hooks=hooks[org_id],
                               created_at=created_at, data=data)
                    if callbacks.get(job_id):
                        job_callback_emit(org_id=org_id, url=callbacks[job_id], event=event,
                                          data=data, created_at=created_at)
                if batch_id and last_of_batch[batch_id] == event_id:
                    batch_check_completed(batch_id=batch_id)
        if len(rows) < limit:
            return taken


def batch_check_completed(*, batch_id: Any) -> BatchCompletion | None:
    jobs = Job.objects.filter(batch_id=batch_id)
    counts = dict(jobs.values_list("status").annotate(n=Count("pk")).values_list("status", "n"))
    if not counts or counts.get(JobStatus.QUEUED) or counts.get(JobStatus.RUNNING):
        return None
    first = jobs.select_related("user").first()
    assert first is not None
    failures = [{"job_id": str(j.pk), "code": j.error_code, "message": j.error_message}
                for j in jobs.filter(status=JobStatus.FAILED)]
    summary = {"batch_id": str(batch_id), "tool": first.tool, "count": sum(counts.values()),
               "succeeded": counts.get(JobStatus.SUCCEEDED, 0),
               "failed": counts.get(JobStatus.FAILED, 0),
               "canceled": counts.get(JobStatus.CANCELED, 0), "failures": failures}
    try:
        with transaction.atomic():
            done = BatchCompletion.objects.create(batch_id=batch_id,
                                                  organization_id=first.organization_id,
                                                  summary=summary)
            event_emit(org_id=first.organization_id, event=WebhookEvent.BATCH_COMPLETED,
                       data={"batch": summary})
    except IntegrityError:
        return None  # another job's ending announced it already
    if first.user and first.user.email and first.user.notify_batch_email:
        to = first.user.email
        transaction.on_commit(lambda: _email_summary(to, summary))
    return done


def _email_summary(to: str, summary: dict[str, Any]) -> None:
    lines = [f"{summary['succeeded']} of {summary['count']} images are ready."]
    lines += [f"Failed: {f['message']} (job {f['job_id']})" for f in summary["failures"]]
    try:
        send_mail(subject=f"Atelier: your {summary['tool']} batch is complete",
                  message="\n".join(lines), from_email=None, recipient_list=[to])
    except Exception as exc:  # noqa: BLE001 - an e-mail must never fail the batch
        logger.warning("batch summary e-mail to %s failed: %s", to, exc)


# --- Sending ------------------------------------------------------------------------------


def delivery_send(*, delivery_id: Any) -> str:
    """One attempt. Taken with a guarded UPDATE so two workers never send it at once."""
    now = timezone.now()
    # While sending, next_attempt_at is the attempt's deadline: past it, the sweep takes the
    # delivery back (its sender died).
    deadline = now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS * 3)
    taken = WebhookDelivery.objects.filter(
        pk=delivery_id, status=DeliveryStatus.PENDING
    ).update(status=DeliveryStatus.SENDING, attempts=F("attempts") + 1, next_attempt_at=deadline)
    if not taken:
        return "skipped"
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    hook = delivery.webhook
    if not hook.active:
        return _finish(delivery, DeliveryStatus.FAILED, error="The webhook is switched off.")
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True).encode()
    sent = int(time.time())
    headers = {"Content-Type": "application/json", "Atelier-Event": delivery.event,
               "Atelier-Delivery": str(delivery.pk),
               SIGNATURE_HEADER: signature(hook.secret, sent, body),
               **standard_headers(hook.secret, f"msg_{delivery.pk.hex}", sent, body)}
    try:
        answer = post_json(delivery.url or hook.url, body, headers,
                           timeout=settings.WEBHOOK_TIMEOUT_SECONDS)
    except DestinationRefused as exc:
        return _finish(delivery, DeliveryStatus.FAILED, error=str(exc))
    except Exception as exc:  # noqa: BLE001 - timeouts, refused connections: retried
        return _retry_or_fail(delivery, error=f"{type(exc).__name__}: {exc}"[:500])
    delivery.response_code = answer.status
    delivery.response_ms = answer.elapsed_ms
    if 200 <= answer.status < 300:
        return _finish(delivery, DeliveryStatus.SUCCEEDED)
    if answer.status == 429 or answer.status >= 500:
        return _retry_or_fail(delivery, error=f"HTTP {answer.status}")
    return _finish(delivery, DeliveryStatus.FAILED, error=f"HTTP {answer.status}: not retried")


def _retry_or_fail(delivery: WebhookDelivery, *, error: str) -> str:
    if delivery.attempts >= MAX_ATTEMPTS:
        return _finish(delivery, DeliveryStatus.FAILED, error=error)
    WEBHOOK_DELIVERIES.labels("retry").inc()
    delay = RETRY_DELAYS[delivery.attempts - 1] * random.uniform(0.8, 1.2)  # noqa: S311
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=DeliveryStatus.PENDING, last_error=error, response_code=delivery.response_code,
        response_ms=delivery.response_ms,
        next_attempt_at=timezone.now() + timedelta(seconds=delay))
    return "retry"


def _finish(delivery: WebhookDelivery, status: str, *, error: str = "") -> str:
    WEBHOOK_DELIVERIES.labels(str(status)).inc()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        status=status, last_error=error, response_code=delivery.response_code,
        response_ms=delivery.response_ms, finished_at=timezone.now(), next_attempt_at=None)
    hook = delivery.webhook
    if hook.per_request:
        return status  # one submit's URL failing says nothing of the organisation's others
    if status == DeliveryStatus.SUCCEEDED:
        Webhook.objects.filter(pk=hook.pk).update(consecutive_failures=0)
    else:
        Webhook.objects.filter(pk=hook.pk).update(
            consecutive_failures=F("consecutive_failures") + 1)
        hook.refresh_from_db()
        if hook.active and hook.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER:
            reason = (f"Switched off after {hook.consecutive_failures} failed deliveries in a "
                      f"row; last: {error}")[:300]
            Webhook.objects.filter(pk=hook.pk).update(active=False, disabled_reason=reason)
            activity_record(org_id=hook.organization_id, tool="webhooks",
                            action="Webhook switched off", status=ActivityStatus.ERROR,
                            details=f"{hook.url}: {reason}")
    return status


def delivery_redeliver(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a delivery again (same id: receivers drop repeats by it)."""
    WebhookDelivery.objects.filter(pk=delivery.pk).exclude(status=DeliveryStatus.SENDING).update(
        status=DeliveryStatus.PENDING, next_attempt_at=timezone.now(), finished_at=None)
    transaction.on_commit(lambda: _enqueue([delivery.pk]))
    delivery.refresh_from_db()
    return delivery


def deliveries_due() -> int:
    """Enqueue deliveries whose next attempt is due (beat), and take back ones whose sender
    died mid-attempt."""
    now = timezone.now()
    WebhookDelivery.objects.filter(status=DeliveryStatus.SENDING,
                                   next_attempt_at__lte=now).update(status=DeliveryStatus.PENDING)
    due = list(WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING,
                                              next_attempt_at__lte=now)
               .values_list("pk", flat=True)[:500])
    _enqueue(due)
    return len(due)
