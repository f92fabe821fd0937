from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractUser
from django.db import models


class Organization(models.Model):
    """A partner company. Every job, output and activity row belongs to one."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=200, unique=True)
    # Users signing in through the identity provider with an e-mail in one of these domains
    # join this organisation when the provider sends no organisation claim.
    email_domains = models.JSONField(default=list, blank=True)
    # Locked and private tools (by slug) that staff enabled for this organisation.
    enabled_tools = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class User(AbstractUser):
    """A partner (belongs to one organisation) or a staff member."""

    email = models.EmailField(unique=True)
    organization = models.ForeignKey(
        Organization, null=True, blank=True, on_delete=models.PROTECT, related_name="users"
    )
    # The identity provider's subject: users are matched on it, never on their e-mail.
    oidc_sub = models.CharField(max_length=255, null=True, blank=True, unique=True)
    # Opt-in: an e-mail with the summary when a batch this partner started completes.
    notify_batch_email = models.BooleanField(default=False)
    # Manages the organisation's settings (its provider accounts); staff always may.
    is_org_admin = models.BooleanField(
        default=False, verbose_name="organisation admin",
        help_text="May manage the organisation's settings, such as its provider accounts.")


class ApiToken(models.Model):
    """A partner API token. Only its SHA-256 is stored; the token is shown once."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True, default="")
    # The first characters, to tell tokens apart in lists without revealing them.
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user.email})"
