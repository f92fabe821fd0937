from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from accounts.models import Organization


class WebhookEvent(models.TextChoices):
    JOB_SUCCEEDED = "job.succeeded"
    JOB_FAILED = "job.failed"
    BATCH_COMPLETED = "batch.completed"
    DRIVE_SYNC_COMPLETED = "drive.sync.completed"


class Webhook(models.Model):
    """An endpoint of a partner's that Atelier calls back when work is done."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE,
                                     related_name="webhooks")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL)
    url = models.URLField(max_length=1000)
    events = models.JSONField(default=list)
    active = models.BooleanField(default=True)
    # Signs every delivery (HMAC-SHA256); shown to the partner once, when created.
    secret = models.CharField(max_length=100)
    # Deliveries in a row that ended in failure; past WEBHOOK_DISABLE_AFTER it is switched off.
    consecutive_failures = models.PositiveIntegerField(default=0)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    # The organisation's signer of per-request `webhook_url` deliveries: one per organisation,
    # with no URL and no events of its own (each delivery carries its URL), never listed nor
    # switched off (a URL that fails is one submit's, not the organisation's).
    per_request = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["organization"], condition=models.Q(per_request=True),
                                    name="webhook_one_per_request_signer")
        ]

    def __str__(self) -> str:
        return f"{self.organization}: {self.url or 'per-request webhook_url'}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"  # waiting for its next attempt
    SENDING = "sending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"  # refused by the receiver (4xx) or out of attempts


class WebhookDelivery(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40, choices=WebhookEvent.choices)
    payload = models.JSONField()
    # A per-request webhook_url: sent there rather than to the webhook's URL.
    url = models.URLField(max_length=1000, blank=True, default="")
    status = models.CharField(max_length=10, choices=DeliveryStatus.choices,
                              default=DeliveryStatus.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    response_ms = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "webhook deliveries"
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due")]


class BatchCompletion(models.Model):
    """A batch whose end was announced: once, whichever job ended last."""

    batch_id = models.UUIDField(primary_key=True)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE)
    completed_at = models.DateTimeField(auto_now_add=True)
    summary = models.JSONField(default=dict)


class JobCallback(models.Model):
    """A submit's `webhook_url`: the job's finished event is delivered there too, signed with
    the organisation's per-request secret. Written in the transaction that creates the job."""

    job = models.OneToOneField("jobs.Job", on_delete=models.CASCADE, primary_key=True,
                               related_name="+")
    url = models.URLField(max_length=1000)
