"""Drive folders per organisation, the drive clients behind them, signed file links and the
delivery of job outputs to output folders."""

from __future__ import annotations

import functools
import logging
import mimetypes
import posixpath
from collections.abc import Iterator, Mapping
from datetime import timedelta
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Organization
from drives.connectors import connector_client, folder_locator
from drives.models import DriveFolder, DriveKind, DriveRole
from jobs.models import Job, JobOutput, JobStatus
from jobs.selectors import job_source

logger = logging.getLogger(__name__)



class _DriveTools(Mapping[str, tuple[str, ...]]):
    """The tools fed by and delivering to drive folders → their input folders' categories
    (("",) for one input folder), as the tools' specs declare them (read when first needed:
    the tool specs import the drive models)."""

    @cached_property  # the catalogue is fixed once imported
    def _specs(self) -> dict[str, tuple[str, ...]]:
        from tools.registry import TOOLS

        return {t.slug: t.drive_categories for t in TOOLS.values()
                if t.drive_categories is not None}

    def __getitem__(self, tool: str) -> tuple[str, ...]:
        return self._specs[tool]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


DRIVE_TOOLS: Mapping[str, tuple[str, ...]] = _DriveTools()
# What a drive sync and Get URLs take: the photos the engines decode.
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".heic", ".heif", ".avif",
                    ".tif", ".tiff")
SIGNED_PATH = "/api/drives/files/"
_SALT = "atelier.drive-file"


def drive_folders_ensure(*, org: Organization) -> list[DriveFolder]:
    """Every drive tool's folders for the organisation; missing ones are created as local
    folders (the embedded default), so a partner can feed batch tools with no cloud account."""
    existing = {(f.tool, f.role, f.category): f for f in DriveFolder.objects.filter(
        organization=org)}
    for tool, categories in DRIVE_TOOLS.items():
        wanted = [(DriveRole.INPUT, c) for c in categories] + [(DriveRole.OUTPUT, "")]
        for role, category in wanted:
            if (tool, role, category) in existing:
                continue
            parts = [str(org.pk), tool, role, *([category] if category else [])]
            try:
                with transaction.atomic():
                    folder = DriveFolder.objects.create(
                        organization=org, tool=tool, role=role, category=category,
                        kind=DriveKind.LOCAL, locator="/".join(parts))
            except IntegrityError:  # created by a concurrent request
                folder = DriveFolder.objects.get(organization=org, tool=tool, role=role,
                                                 category=category)
            existing[(tool, role, category)] = folder
    for folder in existing.values():
        if folder.kind == DriveKind.LOCAL:
            (Path(settings.DRIVES_ROOT) / folder.locator).mkdir(parents=True, exist_ok=True)
    return sorted(existing.values(), key=lambda f: (f.tool, f.role, f.category))


def drive_client(folder: DriveFolder, *, quick: bool = False) -> Any:
    """The client that speaks to the folder's drive: with the folder's own credentials when
    an admin connected it (``quick``: for a connection test), else the deployment's."""
    if folder.kind == DriveKind.LOCAL:
        return _local_drive(str(settings.DRIVES_ROOT))
    if folder.credentials_encrypted:
        return connector_client(folder, quick=quick)
    if folder.kind == DriveKind.GOOGLE:
        from drivesync.google import GoogleDrive

        return GoogleDrive.from_service_account_file(
            settings.GOOGLE_SERVICE_ACCOUNT_FILE, base_url=settings.GOOGLE_DRIVE_API_URL or None)
    import boto3

    from drivesync.s3 import S3Drive

    bucket, _, prefix = folder.locator.partition("/")
    client = boto3.client("s3", endpoint_url=settings.AWS_S3_ENDPOINT_URL or None)
    return S3Drive(bucket, prefix, client=client)


@functools.lru_cache(maxsize=4)
def _local_drive(root: str) -> Any:
    """One LocalDrive per process and root: it caches file revisions (hashes) in memory."""
    from drivesync.local import LocalDrive

    return LocalDrive(Path(root))


def drive_file_token(*, folder: DriveFolder, file_id: str) -> str:
    return signing.dumps({"f": str(folder.pk), "i": file_id}, salt=_SALT, compress=True)


def drive_file_signed_path(*, folder: DriveFolder, file_id: str, name: str = "") -> str:
    """The link ends with the file's name, so it reads as the image it is (card pages accept
    only URLs whose path ends in an image extension)."""
    tail = f"/{quote(name)}" if name else ""
    return f"{SIGNED_PATH}{drive_file_token(folder=folder, file_id=file_id)}{tail}"


def drive_file_from_token(token: str) -> tuple[DriveFolder, str] | None:
    """The folder and file a signed link names, if it is genuine and not expired."""
    try:
        data = signing.loads(token, salt=_SALT,
                             max_age=timedelta(seconds=settings.DRIVE_LINK_SECONDS))
    except signing.BadSignature:
        return None
    folder = DriveFolder.objects.filter(pk=data.get("f")).first()
    return (folder, str(data.get("i"))) if folder else None


def drive_file_from_url(url: str) -> tuple[DriveFolder, str] | None:
    """A signed link of ours, whatever host it was written with: read from the drive, not
    over HTTP."""
    path = urlsplit(url).path
    if not path.startswith(SIGNED_PATH):
        return None
    return drive_file_from_token(path[len(SIGNED_PATH):].strip("/").split("/", 1)[0])


def output_name(job: Job, output: JobOutput) -> str:
    """Stable per (job, index): the input's name (and the library model wearing it), the tool,
    the job and the output index."""
    source = job_source(job=job) or job.tool
    stem = posixpath.splitext(posixpath.basename(urlsplit(source).path))[0][:60] or job.tool
    # A Spinview product or a Flats outfit is named by its code, not by the list of its files.
    from tools.registry import tool_get

    spec = tool_get(job.tool)
    group = job.input.get(spec.group_key) if spec and spec.group_key else None
    if group:
        stem = str(group)[:60]
    # The library model wearing it (Earfit, Baghold, Flats, Remodel).
    model = job.input.get("model")
    if isinstance(model, str) and model:
        stem = f"{stem}_{model[:40]}"
    extension = posixpath.splitext(output.filename)[1] or (
        mimetypes.guess_extension(output.content_type) or "")
    return f"{stem}_{job.tool}_{str(job.pk)[:8]}_{output.index}{extension}"


def job_outputs_deliver(*, job_id: Any) -> int:
    """Write a succeeded job's outputs to its tool's output folder, once.

    Each upload carries the key (job, index); before uploading, the folder is asked for it,
    so a delivery retried after a crash or a drive outage never makes a second file."""
    job = Job.objects.filter(pk=job_id, status=JobStatus.SUCCEEDED).first()
    if job is None:
        return 0
    folder = DriveFolder.objects.filter(organization_id=job.organization_id, tool=job.tool,
                                        role=DriveRole.OUTPUT).first()
    if folder is None:
        return 0
    # One delivery of a job at a time: the check-then-upload below is only safe alone.
    now = timezone.now()
    owned = Job.objects.filter(pk=job.pk).filter(
        Q(delivering_until__isnull=True) | Q(delivering_until__lt=now)
    ).update(delivering_until=now + timedelta(seconds=settings.DELIVERY_LEASE_SECONDS))
    if not owned:
        return 0  # another delivery is at work; the reconciler looks again later
    try:
        return _deliver(job, folder)
    finally:
        Job.objects.filter(pk=job.pk).update(delivering_until=None)


def _deliver(job: Job, folder: DriveFolder) -> int:
    client = drive_client(folder)
    delivered = 0
    for output in job.outputs.filter(drive_file_id="").order_by("index"):
        key = f"{job.pk}:{output.index}"
        found = client.find_by_key(folder_locator(folder), key)
        if found is None:
            with output.file.open("rb") as handle:
                data = handle.read()
            found = client.write(folder_locator(folder), output_name(job, output), data,
                                 output.content_type, app_key=key)
            delivered += 1
        JobOutput.objects.filter(pk=output.pk).update(drive_folder=folder,
                                                      drive_file_id=found.id,
                                                      awaiting_delivery=False)
    return delivered


def deliveries_pending(*, older_than_seconds: float) -> list[Any]:
    """Succeeded drive-tool jobs with outputs not yet delivered (a delivery was lost).

    Starts from the outputs awaiting delivery (a partial index holds only those), then looks
    their jobs up by key: it costs the same however many jobs and outputs the history holds,
    whatever plan the database would have picked for one joined query."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=older_than_seconds)
    waiting = set(JobOutput.objects.filter(awaiting_delivery=True).order_by()
                  .values_list("job_id", flat=True))
    ids = list(waiting)
    pending: list[Any] = []
    for start in range(0, len(ids), 500):  # a database caps the parameters of one query
        pending += (
            Job.objects.filter(pk__in=ids[start:start + 500], status=JobStatus.SUCCEEDED,
                               tool__in=list(DRIVE_TOOLS), finished_at__lt=cutoff)
            .filter(Q(delivering_until__isnull=True) | Q(delivering_until__lt=now))
            .order_by().values_list("pk", flat=True)
        )
    return pending
