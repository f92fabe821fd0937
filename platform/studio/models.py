from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Index, JSONField

from accounts.models import Organization
from studio.kinds import ProviderKind


class ProviderAccount(models.Model):
    """An organisation's own account at a generative model service (DESIGN §12).

    The API key is stored encrypted (studio.crypto); only its last 4 characters are kept in
    clear, for people to tell keys apart."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE,
                                     related_name="provider_accounts")
    kind = models.CharField(max_length=16, choices=ProviderKind.choices)
    label = models.CharField(max_length=100, blank=True, default="")
    # Fernet token of the API key (for Vertex AI: the service account's JSON key).
    api_key_encrypted = models.TextField(editable=False)
    key_last4 = models.CharField(max_length=4, blank=True, default="", editable=False)
    base_url = models.URLField(max_length=500)
    # On a provider failure, run the local engine (a preview) instead of failing the job.
    fallback_local = models.BooleanField(default=False)
    # The tool slugs this account serves; empty: every tool its kind can run.
    tools = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Tool slug → the provider's model id for it, e.g. {"virtual-try-on": "tryon-v1.6"};
    # a tool not named uses the adapter's default model. (Last: the name hides the module.)
    models = JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["created_at"]
        indexes = [Index(fields=["organization", "created_at"],
                                name="provider_account_org")]

    def __str__(self) -> str:
        return f"{self.organization}: {self.get_kind_display()} {self.label}".strip()
