"""The sync service: take in new files of a tool's input folders (recorded in a ledger so a
file and revision is taken once, ever), group them into jobs, and report what it did."""

from __future__ import annotations

import logging
import posixpath
import re
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import IntegrityError, transaction

from accounts.models import Organization, User
from drives.looks import FlatFile, group_looks
from drives.models import DriveFolder, DriveRole, LedgerEntry
from drives.services import IMAGE_EXTENSIONS, drive_client, drive_folders_ensure, folder_locator
from jobs.models import ActivityStatus, Job
from jobs.services import activity_record, job_submit
from tools.models import LibraryModel
from tools.registry import Tool

logger = logging.getLogger(__name__)

PRODUCT_VIEW = re.compile(r"^(?P<code>.+?)[_-](?P<view>[0-9]{1,3}|[a-z]{1,6})$", re.IGNORECASE)
SPINVIEW_DONE = "Your video queue is been processed. Average completion time: 110s per video."


class SyncRefused(Exception):
    """Nothing can be synced (no library model, an unknown model id...): a 400 for the page."""


@dataclass
class SyncResult:
    batch_id: uuid.UUID | None
    jobs: list[Job] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Found:
    folder: DriveFolder
    file: Any  # drivesync.base.DriveFile

    @property
    def stem(self) -> str:
        return posixpath.splitext(self.file.name)[0]

    def ref(self) -> dict[str, Any]:
        return {"drive": {"folder": str(self.folder.pk), "file": self.file.id}}


@dataclass
class Group:
    payload: dict[str, Any]
    sources: dict[str, Any]
    files: list[Found]


def _library_model(org: Organization, code: str | None = None) -> LibraryModel:
    models = LibraryModel.objects.filter(organization=org)
    model = models.filter(code=code).first() if code else models.first()
    if model is None:
        raise SyncRefused(f"No model '{code}' in your model library." if code else
                          "Your model library is empty: ask Atelier to add your models.")
    return model


def _storage_ref(model: LibraryModel) -> dict[str, Any]:
    return {"storage": model.photo.name}


def _spinview_groups(new: list[Found], everything: list[Found], options: dict[str, Any],
                     org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    def code_of(found: Found) -> str:
        match = PRODUCT_VIEW.match(found.stem)
        return match.group("code") if match else found.stem

    by_code: dict[str, list[Found]] = defaultdict(list)
    for found in everything:
        by_code[code_of(found)].append(found)
    groups = []
    for code in sorted({code_of(f) for f in new}):
        views = sorted(by_code[code], key=lambda f: f.file.name)
        if len(views) < 2:
            skipped.append({"name": views[0].file.name,
                            "reason": "A turntable needs at least two views of the product."})
            continue
        groups.append(Group(payload={"code": code, "seconds": 6, "fps": 24, "size": 1080},
                            sources={"views": [v.ref() for v in views]}, files=views))
    return groups


def _flats_groups(new: list[Found], everything: list[Found], options: dict[str, Any],
                  org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    """One job per look: a look wears one product of each category (drives.looks says which
    files make a look), so a top and shoes synced together become one outfit."""
    fresh = set(new)
    files = [FlatFile(category=f.folder.category or "", stem=f.stem, new=f in fresh, key=f)
             for f in everything]
    looks, refused = group_looks(files)
    skipped += [{"name": _found(f).file.name, "reason": reason} for f, reason in refused]
    # The first model Flats can dress; a look of shoes alone needs one whose feet are in frame
    # (the engine refuses it otherwise: no_feet), so such a look is skipped with the reason.
    from tools.library import library_model_fit

    models = list(LibraryModel.objects.filter(organization=org))
    fits = [(m, library_model_fit(model=m, tool="flats")) for m in models]
    usable = [(m, f) for m, f in fits if f["ok"]]
    if models and not usable:
        raise SyncRefused(f"No model of your library can be dressed by Flats: {models[0].name}: "
                          f"{fits[0][1]['reason']}")
    model, fit = usable[0] if usable else (None, None)
    groups = []
    for look in looks:
        if fit is not None and set(look.items) == {"shoes"} and not fit.get("shoes_alone"):
            skipped += [{"name": _found(f).file.name, "model": model.code if model else "",
                         "reason": f"A look of shoes alone is worn at the feet, and the photo of "
                                   f"{model.name if model else 'the model'} does not show them: "
                                   "sync the shoes with a garment of the look."}
                        for f in look.files]
            continue
        sources: dict[str, Any] = {cat: {view: _found(f).ref() for view, f in views.items()}
                                   for cat, views in look.items.items()}
        if model is not None:
            sources["model"] = _storage_ref(model)
        groups.append(Group(payload={"outfit": look.name, "model": model.code if model else None},
                            sources=sources, files=[_found(f) for f in look.files]))
    return groups


def _found(file: FlatFile) -> Found:
    """The drive file a look's entry was made from (drives.looks keeps it as an opaque key)."""
    return cast(Found, file.key)


def _remodel_groups(new: list[Found], everything: list[Found], options: dict[str, Any],
                    org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    code = options.get("modelId")
    if options.get("modelPicture") and not LibraryModel.objects.filter(
            organization=org, code=code).exists():
        # not in the library: the picture the page sent is the model
        from tools.uploads import stash_base64

        face = stash_base64(org_id=org.pk, field="modelPicture", value=options["modelPicture"])
        name = str(code)
    else:
        model = _library_model(org, code)
        from tools.library import library_model_fit

        fit = library_model_fit(model=model, tool="remodel")
        if not fit["ok"]:  # every job would be refused for the same reason
            raise SyncRefused(f"{model.name}: {fit['reason']}")
        face, code, name = _storage_ref(model), model.code, model.name
    return [Group(payload={"model": code, "model_name": name, "source": f.file.name},
                  sources={"image": f.ref(), "model_face": face}, files=[f])
            for f in sorted(new, key=lambda f: f.file.name)]


GROUPERS = {"spinview": _spinview_groups, "flats": _flats_groups, "remodel": _remodel_groups}


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
        groups = GROUPERS[tool.slug](new, everything, options, org, result.skipped)
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
    except Exception as exc:
        logger.exception("sync of %s failed", tool.slug)
        _activity_done(activity.pk, ActivityStatus.ERROR, f"Sync failed: {exc}")
        raise
    done = (SPINVIEW_DONE if tool.slug == "spinview" and result.jobs else
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
    client = drive_client(folder)
    wanted = {c.strip() for c in codes if c.strip()}
    removed, found_codes = [], set()
    for file in list(client.list(folder_locator(folder))):
        stem = posixpath.splitext(file.name)[0]
        match = PRODUCT_VIEW.match(stem)
        code = match.group("code") if match else stem
        if code in wanted:
            client.delete(folder_locator(folder), file.id)
            removed.append(file.name)
            found_codes.add(code)
    return {"removed": sorted(removed), "unknown_codes": sorted(wanted - found_codes)}
