"""Turn a job's input references into the bytes its engine takes.

A reference is a URL (fetched with the address checks of workers.fetch, or read straight
from our drive when it is one of our signed drive links), a drive file, or a file in our
storage (library model photos). Lists of references give lists of bytes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage

from drives.models import DriveFolder
from drives.services import drive_client, drive_file_from_url, folder_locator
from drivesync.errors import DriveError
from workers.engines.base import EngineError


def _read(ref: Any) -> bytes:
    if isinstance(ref, list):
        raise EngineError("bad_input", "Nested input lists are not supported.")
    if "url" in ref:
        ours = drive_file_from_url(str(ref["url"]))
        if ours is not None:
            folder, file_id = ours
            return _drive_read(folder, file_id)
        from workers.fetch import fetch_image

        return fetch_image(str(ref["url"]), allow=settings.OUTBOUND_ALLOW).data
    if "drive" in ref:
        source = DriveFolder.objects.filter(pk=ref["drive"]["folder"]).first()
        if source is None:
            raise EngineError("input_missing", "The input drive folder no longer exists.")
        return _drive_read(source, ref["drive"]["file"])
    if "storage" in ref:
        try:
            with default_storage.open(ref["storage"], "rb") as handle:
                return bytes(handle.read())
        except FileNotFoundError as exc:
            raise EngineError("input_missing", "A library photo is missing.") from exc
    raise EngineError("bad_input", "Unknown input reference.")


def _drive_read(folder: DriveFolder, file_id: str) -> bytes:
    """A drive file's bytes; a drive that refuses (an organisation's bucket gone, its key
    revoked) fails the job with the drive's own words."""
    try:
        return bytes(drive_client(folder).read(folder_locator(folder), file_id))
    except DriveError as exc:
        raise EngineError("input_missing", f"The input could not be read from its drive: "
                                           f"{exc.message}") from exc


def _resolve(value: Any) -> Any:
    if isinstance(value, list):
        return [_resolve(v) for v in value]
    if isinstance(value, dict) and not ({"url", "drive", "storage"} & set(value)):
        return {k: _resolve(v) for k, v in value.items()}  # e.g. Flats: {category: {view: ref}}
    return _read(value)


def inputs_resolve(params: dict[str, Any], *, url_inputs: dict[str, str]) -> dict[str, Any]:
    """The engine's parameters: the job's input with every reference replaced by bytes."""
    resolved = dict(params)
    sources: dict[str, Any] = dict(resolved.pop("_sources", None) or {})
    for field, name in url_inputs.items():
        if resolved.get(field):
            sources[name] = {"url": resolved[field]}
    for name, ref in sources.items():
        resolved[name] = _resolve(ref)
    return resolved
