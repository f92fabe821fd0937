"""The one ``Drive`` protocol and the types shared by its clients.

A *folder* is an opaque locator string whose meaning belongs to the client: a path relative
to the storage root (``LocalDrive``), a folder id (``GoogleDrive``), a key prefix
(``S3Drive``). A *file id* is only meaningful together with the folder it was listed in.

Name identity differs by backend and callers must not rely on either behaviour: on local
storage and S3 a name *is* the identity (writing an existing name replaces that file), on
Google Drive two files may share a name (writing again creates a second file). That is why
every write can carry an ``app_key``: a caller that delivers with a key and checks
``find_by_key`` first (see ``write_once``) never creates a duplicate on any backend.
"""

from __future__ import annotations

import mimetypes
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

from drivesync.errors import DriveRefused

# The appProperties / metadata key that holds a write's idempotency key.
APP_KEY_PROPERTY = "atelier_key"

# Bidirectional overrides and isolates let a name display differently from what it is
# ("photo\u202egnp.exe" shows as "photoexe.png"); a delivered name never needs them.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
MAX_NAME_BYTES = 255  # the common file-system limit (ext4, APFS, NTFS in UTF-16 units)
# Drive allows 124 bytes per appProperty, key and value together; "atelier_key" takes 11.
# One limit for every backend, so that a key that works on one works on all.
MAX_APP_KEY_BYTES = 100


@dataclass(frozen=True, slots=True)
class DriveFile:
    id: str
    name: str
    size: int
    content_type: str
    modified_at: datetime
    # Changes whenever the content changes: a revision id or a checksum. Together with
    # ``id`` it is the sync ledger's key.
    revision: str
    md5: str | None = None


@runtime_checkable
class Drive(Protocol):
    """What the sync service needs from a storage backend."""

    backend: str

    def list(self, folder: str, page_size: int = 1000) -> Iterator[DriveFile]:
        """The files directly in ``folder`` (no sub-folders), fetched page by page."""
        ...

    def read(self, folder: str, file_id: str) -> bytes: ...

    def write(
        self,
        folder: str,
        name: str,
        data: bytes,
        content_type: str,
        *,
        app_key: str | None = None,
    ) -> DriveFile:
        """Store ``data`` as ``safe_name(name)`` in ``folder``; ``app_key`` is kept with it."""
        ...

    def find_by_key(self, folder: str, app_key: str) -> DriveFile | None: ...

    def delete(self, folder: str, file_id: str) -> None: ...

    def move(self, folder: str, file_id: str, to_folder: str) -> DriveFile: ...


def write_once(
    drive: Drive,
    folder: str,
    name: str,
    data: bytes,
    content_type: str,
    *,
    app_key: str,
) -> tuple[DriveFile, bool]:
    """Deliver a file at most once per ``app_key``: returns (file, created).

    A retried delivery (the task died after the upload but before recording it) finds the
    first upload instead of creating a second file. Two *concurrent* deliveries with one key
    can still both upload; the sync service serialises deliveries per job to exclude that.
    """
    existing = drive.find_by_key(folder, app_key)
    if existing is not None:
        return existing, False
    return drive.write(folder, name, data, content_type, app_key=app_key), True


def check_app_key(app_key: str) -> str:
    """Refuse keys some backend could not store: empty, over 100 bytes, control characters.

    Callers with longer natural keys pass a digest (e.g. sha256 hex: 64 bytes).
    """
    if not isinstance(app_key, str) or not app_key:
        raise DriveRefused("app_key must be a non-empty string", code="bad_app_key")
    if len(app_key.encode("utf-8")) > MAX_APP_KEY_BYTES:
        raise DriveRefused(f"app_key is longer than {MAX_APP_KEY_BYTES} bytes; pass a digest",
                           code="bad_app_key")
    if any(unicodedata.category(ch) == "Cc" for ch in app_key):
        raise DriveRefused("app_key contains control characters", code="bad_app_key")
    return app_key


def safe_name(name: str) -> str:
    """The name a write stores: one that can never leave its folder or disguise itself.

    NFC-normalised (so that "é" typed on macOS and on Windows is one name), path separators
    and leading dots replaced by "_" ("../x.png" -> "___x.png"), surrounding whitespace
    stripped. Names that no recognisable substitution makes safe (control characters, bidi
    overrides, empty, "." or "..", over 255 bytes) are refused rather than guessed at.
    """
    if not isinstance(name, str):
        raise DriveRefused(f"file name must be a string, not {type(name).__name__}",
                           code="bad_name")
    cleaned = unicodedata.normalize("NFC", name).replace("/", "_").replace("\\", "_").strip()
    for ch in cleaned:
        if unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS:
            raise DriveRefused(f"file name {name!r} contains control character "
                               f"U+{ord(ch):04X}", code="bad_name")
    if cleaned in ("", ".", ".."):
        raise DriveRefused(f"file name {name!r} is empty or a directory reference",
                           code="bad_name")
    if cleaned.startswith("."):
        # Hidden names are where clients keep temporary files and sidecars, and a delivered
        # file must be visible to the people collecting it: leading dots become "_".
        stripped = cleaned.lstrip(".")
        cleaned = "_" * (len(cleaned) - len(stripped)) + stripped
    if len(cleaned.encode("utf-8")) > MAX_NAME_BYTES:
        raise DriveRefused(f"file name {name[:40]!r}... is longer than {MAX_NAME_BYTES} bytes",
                           code="bad_name")
    return cleaned


class DriveClient(ABC):
    """What every client's ``write`` shares: the name made safe and the key checked the same
    way on every backend, before anything is stored. ``_store`` is the backend's part."""

    backend: str

    def write(self, folder: str, name: str, data: bytes, content_type: str, *,
              app_key: str | None = None) -> DriveFile:
        name = safe_name(name)
        if app_key is not None:
            check_app_key(app_key)
        return self._store(folder, name, data, content_type, app_key)

    @abstractmethod
    def _store(self, folder: str, name: str, data: bytes, content_type: str,
               app_key: str | None) -> DriveFile:
        """Store ``data`` as ``name`` (already safe) in ``folder``; ``app_key`` (already
        checked) is kept with it."""


_MAGIC: tuple[tuple[bytes, int, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image/png"),
    (b"\xff\xd8\xff", 0, "image/jpeg"),
    (b"GIF87a", 0, "image/gif"),
    (b"GIF89a", 0, "image/gif"),
    (b"II*\x00", 0, "image/tiff"),
    (b"MM\x00*", 0, "image/tiff"),
    (b"%PDF-", 0, "application/pdf"),
    (b"PK\x03\x04", 0, "application/zip"),
)


def sniff_content_type(name: str, head: bytes = b"") -> str:
    """The content type from the first bytes when they are recognisable, else from the name.

    The bytes win: a PNG saved as "look.jpg" is still a PNG to every decoder.
    """
    for magic, offset, ctype in _MAGIC:
        if head[offset:offset + len(magic)] == magic:
            return ctype
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"heic", b"heix", b"hevc", b"heim", b"heis", b"mif1"):
            return "image/heic"
        if brand in (b"avif", b"avis"):
            return "image/avif"
    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed or "application/octet-stream"
