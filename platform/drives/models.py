from __future__ import annotations

import uuid

from django.db import models

from accounts.models import Organization


class DriveKind(models.TextChoices):
    LOCAL = "local"
    GOOGLE = "google"
    S3 = "s3"


class ConnectorKind(models.TextChoices):
    """What an organisation's admins may connect a folder to."""

    S3 = "s3"
    GOOGLE = "google"


class DriveRole(models.TextChoices):
    INPUT = "input"
    OUTPUT = "output"


class DriveFolder(models.Model):
    """An organisation's input or output folder of one batch tool."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE,
                                     related_name="drive_folders")
    tool = models.CharField(max_length=64)
    role = models.CharField(max_length=8, choices=DriveRole.choices)
    # Flats has one input per category: shoes, bottom, top, overlayer.
    category = models.CharField(max_length=32, blank=True, default="")
    kind = models.CharField(max_length=8, choices=DriveKind.choices, default=DriveKind.LOCAL)
    # local: a path under DRIVES_ROOT; google: a folder id; s3: "bucket/prefix".
    locator = models.CharField(max_length=500)
    # The link the pages show as Input Drive / Output Drive (local folders: our browser page).
    web_url = models.URLField(max_length=500, blank=True, default="")
    # Beat syncs watched input folders on its own.
    watch = models.BooleanField(default=False)
    # A connector an organisation admin added (drives.connectors): the folder's own
    # credentials, Fernet-encrypted JSON (empty: the deployment's), what identifies them to
    # people (masked), and for S3 the endpoint (empty: AWS) and region.
    credentials_encrypted = models.TextField(blank=True, default="", editable=False)
    credentials_hint = models.CharField(max_length=300, blank=True, default="", editable=False)
    endpoint_url = models.URLField(max_length=500, blank=True, default="")
    region = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tool", "role", "category"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "tool", "role", "category"],
                                    name="drive_folder_unique_per_tool_role")
        ]

    def __str__(self) -> str:
        suffix = f" {self.category}" if self.category else ""
        return f"{self.organization} {self.tool} {self.role}{suffix}"


class LedgerEntry(models.Model):
    """An input file taken in by a sync: a (file, revision) is taken once, ever."""

    folder = models.ForeignKey(DriveFolder, on_delete=models.CASCADE, related_name="ledger")
    file_id = models.CharField(max_length=500)
    revision = models.CharField(max_length=200)
    name = models.CharField(max_length=500)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL)
    taken_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["folder", "file_id", "revision"],
                                    name="ledger_file_revision_once")
        ]
