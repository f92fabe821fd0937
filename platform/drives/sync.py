"""The sync service: take in new files of a tool's input folders (recorded in a ledger so a
file and revision is taken once, ever), group them into jobs, and report what it did."""

from __future__ import annotations

import logging
import posixpath
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction

from accounts.models import Organization, User
from drives.grouping import Found, Group, SyncRefused, product_code
from drives.models import DriveRole, LedgerEntry
from drives.services import IMAGE_EXTENSIONS, drive_client, drive_folders_ensure, folder_locator
from drivesync.errors import DriveError
from jobs.models import ActivityStatus, Job
from jobs.services import activity_record, job_submit

if TYPE_CHECKING:
    from tools.spec import ToolSpec as Tool

__all__ = ["SyncRefused", "SyncResult", "drive_inputs_delete", "drive_sync"]
logger = logging.getLogger(__name__)


@dataclass
class SyncResult:
    batch_id: uuid.UUID | None
    jobs: list[Job] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def drive_sync(*, org: Organization, user: User | None, tool: Tool,
               options: dict[str, Any]) -> SyncResult:
    """One sync of the tool's input folders. Safe to run twice or at once: the ledger's
    unique (folder, file, revision) lets one sync take a file."""
    folders = [f for f in drive_folders_ensure(org=org)
               if f.tool == tool.slug and f.role == DriveRole.INPUT
               and (not options.get("categories") or f.category in options["categories"])]
    activity = activity_record(org_id=org.pk, tool=tool.slug, action="Sync Started",
                               status=ActivityStatus.PROCESSING, details="Looking for new files.")
    result = SyncResult(batch_id=None)
    try:
        everything: list[Found] = []
        for folder in folders:
            for file in drive_client(folder).list(folder_locator(folder)):
                if file.name.lower().endswith(IMAGE_EXTENSIONS):
                    everything.append(Found(folder, file))
                else:
                    result.skipped.append({"name": file.name, "reason": "Not an image."})
        taken = set(LedgerEntry.objects.filter(folder__in=folders).values_list(
            "folder_id", "file_id", "revision"))
        new = [f for f in everything if (f.folder.pk, f.file.id, f.file.revision) not in taken]
        assert tool.grouper is not None
        groups = tool.grouper(new, everything, options, org, result.skipped)
        batch_id = uuid.uuid4()
        recorded: set[Found] = set()  # a file worn in several looks is recorded by its first
        for group in groups:
            job = _take(org=org, user=user, tool=tool, group=group, new=new, batch_id=batch_id,
                        recorded=recorded)
            if job is not None:
                result.jobs.append(job)
        result.batch_id = batch_id if result.jobs else None
    except SyncRefused as exc:
        _activity_done(activity.pk, ActivityStatus.ERROR, str(exc))
        raise
    except DriveError as exc:  # an organisation's bucket or folder that refuses or is gone
        message = f"The input drive answered: {exc.message}"
        _activity_done(activity.pk, ActivityStatus.ERROR, message)
        raise SyncRefused(message) from exc
    except Exception as exc:
        logger.exception("sync of %s failed", tool.slug)
        _activity_done(activity.pk, ActivityStatus.ERROR, f"Sync failed: {exc}")
        raise
    done = (tool.sync_done if tool.sync_done and result.jobs else
            f"{len(result.jobs)} job(s) queued; {len(result.skipped)} file(s) skipped.")
    _activity_done(activity.pk, ActivityStatus.SUCCESS, done)
    return result


def _take(*, org: Organization, user: User | None, tool: Tool, group: Group, new: list[Found],
          batch_id: uuid.UUID, recorded: set[Found]) -> Job | None:
    """The group's job and the ledger entries of its new files, together or not at all. A file
    this sync already recorded for an earlier group is not recorded twice."""
    new_here = [f for f in group.files if f in new and f not in recorded]
    try:
        with transaction.atomic():
            job = job_submit(org=org, user=user, tool=tool,
                             payload={**group.payload, "_sources": group.sources},
                             batch_id=batch_id,
                             source_drive_file=", ".join(
                                 f.file.name for f in group.files if f in new)[:500]).job
            LedgerEntry.objects.bulk_create(
                LedgerEntry(folder=f.folder, file_id=f.file.id, revision=f.file.revision,
                            name=f.file.name[:500], job=job) for f in new_here)
    except IntegrityError:
        return None  # a concurrent sync took these files
    recorded.update(new_here)
    return job


def _activity_done(activity_id: Any, status: str, details: str) -> None:
    from jobs.models import Activity

    Activity.objects.filter(pk=activity_id).update(status=status, details=details)


def drive_inputs_delete(*, org: Organization, tool: str, codes: list[str]) -> dict[str, Any]:
    """The Clean Input step: remove the named products' files from the tool's input folder."""
    folder = next(f for f in drive_folders_ensure(org=org)
                  if f.tool == tool and f.role == DriveRole.INPUT)
    wanted = {c.strip() for c in codes if c.strip()}
    removed, found_codes = [], set()
    try:
        client = drive_client(folder)
        for file in list(client.list(folder_locator(folder))):
            code = product_code(posixpath.splitext(file.name)[0])
            if code in wanted:
                client.delete(folder_locator(folder), file.id)
                removed.append(file.name)
                found_codes.add(code)
    except DriveError as exc:
        raise SyncRefused(f"The input drive answered: {exc.message}"
                          + (f" ({len(removed)} file(s) removed before)" if removed else "")
                          ) from exc
    return {"removed": sorted(removed), "unknown_codes": sorted(wanted - found_codes)}
