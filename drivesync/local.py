"""``LocalDrive``: folders under the storage root, the embedded default.

Layout of a folder::

    <root>/<folder>/<name>                     the files, what users see and drop
    <root>/<folder>/.<name>.<random>.tmp       a write in progress (renamed into place)
    <root>/<folder>/.atelier/keys/<sha256>.json  app_key -> name, revision (sidecar)
    <root>/<folder>/.atelier/names/<sha256>.json name -> app_key (to move/drop the sidecar)

Hidden entries (leading ".") and symlinks are never listed or read: the first are ours or
the desktop's (.DS_Store), the second could point anywhere on the machine.

A file's id is its name in the folder, exactly as on disk (a file dropped from macOS may be in
NFD; its id keeps that spelling so it stays readable). Names for *writes* go through
``safe_name``.

Revisions are the sha256 of the content, cached per (inode, size, mtime, ctime) so that a
listing of an unchanged folder reads no file. A file whose ctime is within ``racy_seconds``
of the listing is hashed every time (as git does for "racily clean" entries): a rewrite in
the same clock tick as the previous listing would otherwise keep a stale revision.
Instances are safe to share between threads; keep one per process so the cache is reused.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from drivesync.base import DriveClient, DriveFile, check_app_key, sniff_content_type
from drivesync.errors import DriveError, DriveNotFound, DriveQuotaExceeded, DriveRefused

_SIDECAR_DIR = ".atelier"
_CHUNK = 1 << 20
_SNIFF_BYTES = 32

_CacheKey = tuple[int, int, int, int]  # inode, size, mtime_ns, ctime_ns


class LocalDrive(DriveClient):
    backend = "local"

    def __init__(self, root: Path, *, racy_seconds: float = 2.0, fsync: bool = True) -> None:
        self.root = Path(root).resolve()
        self.racy_seconds = racy_seconds
        # fsync before the rename and of the folder after it: a delivered file survives a
        # power cut once write() has returned.
        self.fsync = fsync
        self._cache: dict[str, tuple[_CacheKey, str, str]] = {}

    # -- locators ---------------------------------------------------------------------------

    def folder_path(self, folder: str) -> Path:
        """The absolute directory for ``folder``; refused if it would leave the root."""
        if "\x00" in folder or os.path.isabs(folder) or folder.startswith("\\"):
            raise DriveRefused(f"folder {folder!r} is not a relative path", code="bad_folder",
                               backend=self.backend)
        parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts):
            raise DriveRefused(f"folder {folder!r} contains '..'", code="bad_folder",
                               backend=self.backend)
        path = self.root.joinpath(*parts)
        # A symlinked folder may point outside the root; resolve and check.
        resolved = path.resolve()
        if resolved != self.root and self.root not in resolved.parents:
            raise DriveRefused(f"folder {folder!r} resolves outside the storage root",
                               code="bad_folder", backend=self.backend)
        if not resolved.is_dir():
            raise DriveNotFound(f"folder {folder!r} does not exist", backend=self.backend)
        return resolved

    def _file_path(self, folder: str, file_id: str) -> Path:
        if (not isinstance(file_id, str) or file_id in ("", ".", "..") or "/" in file_id
                or "\\" in file_id or "\x00" in file_id or file_id.startswith(".")):
            raise self._not_found(folder, file_id)
        return self.folder_path(folder) / file_id

    def _regular_file(self, folder: str, file_id: str) -> Path:
        """The file's path; a symlink or anything but a regular file is not found."""
        path = self._file_path(folder, file_id)
        if path.is_symlink() or not path.is_file():
            raise self._not_found(folder, file_id)
        return path

    def _not_found(self, folder: str, file_id: str) -> DriveNotFound:
        return DriveNotFound(f"no file {file_id!r} in folder {folder!r}", backend=self.backend)

    @contextmanager
    def _file_errors(self, folder: str, file_id: str, what: str) -> Iterator[None]:
        """OS errors of one operation on a file as drive errors: a file gone meanwhile is
        not found."""
        try:
            yield
        except FileNotFoundError:
            raise self._not_found(folder, file_id) from None
        except OSError as exc:
            raise self._os_error(exc, what) from exc

    # -- reading ----------------------------------------------------------------------------

    def list(self, folder: str, page_size: int = 1000) -> Iterator[DriveFile]:
        """Files in ``folder`` by name. ``page_size`` is accepted for the protocol; a local
        directory is read in one pass."""
        directory = self.folder_path(folder)
        now = time.time()
        with os.scandir(directory) as it:
            entries = sorted((e for e in it if not e.name.startswith(".")),
                             key=lambda e: e.name)
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue  # removed while we listed
            if not stat.S_ISREG(st.st_mode):
                continue
            try:
                yield self._describe(Path(entry.path), entry.name, st, now)
            except FileNotFoundError:
                continue

    def read(self, folder: str, file_id: str) -> bytes:
        path = self._file_path(folder, file_id)
        with self._file_errors(folder, file_id, f"cannot read {file_id!r} in {folder!r}"):
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise DriveNotFound(f"{file_id!r} in folder {folder!r} is not a file",
                                    backend=self.backend)
            return fh.read()

    def find_by_key(self, folder: str, app_key: str) -> DriveFile | None:
        check_app_key(app_key)
        directory = self.folder_path(folder)
        record = _read_json(directory / _SIDECAR_DIR / "keys" / f"{_digest(app_key)}.json")
        if record is None or record.get("app_key") != app_key:
            return None
        try:
            found = self._stat_file(directory, record["name"])
        except FileNotFoundError:
            return None
        # The name may since have been overwritten with other content (a name is the
        # identity here); then the key no longer describes it.
        if found.revision != record.get("revision"):
            return None
        return found

    # -- writing ----------------------------------------------------------------------------

    def _store(self, folder: str, name: str, data: bytes, content_type: str,
               app_key: str | None) -> DriveFile:
        directory = self.folder_path(folder)
        target = directory / name
        self._atomic_write(target, data)
        found = self._stat_file(directory, name)
        if app_key is not None:
            self._record_key(directory, name, app_key, found.revision)
        else:
            self._forget_name(directory, name)
        if self.fsync:
            _fsync_dir(directory)
        return found

    def delete(self, folder: str, file_id: str) -> None:
        path = self._regular_file(folder, file_id)
        with self._file_errors(folder, file_id, f"cannot delete {file_id!r}"):
            path.unlink()
        self._forget_name(path.parent, file_id)

    def move(self, folder: str, file_id: str, to_folder: str) -> DriveFile:
        """Move keeping the name; an existing file of that name in ``to_folder`` is replaced
        (as a write of that name would)."""
        source = self._regular_file(folder, file_id)
        target_dir = self.folder_path(to_folder)
        app_key = self._key_of(source.parent, file_id)
        with self._file_errors(folder, file_id, f"cannot move {file_id!r} to {to_folder!r}"):
            os.replace(source, target_dir / file_id)
        self._forget_name(source.parent, file_id)
        found = self._stat_file(target_dir, file_id)
        if app_key is not None:
            self._record_key(target_dir, file_id, app_key, found.revision)
        else:
            self._forget_name(target_dir, file_id)
        return found

    # -- internals --------------------------------------------------------------------------

    def _stat_file(self, directory: Path, name: str) -> DriveFile:
        path = directory / name
        st = path.lstat()
        if not stat.S_ISREG(st.st_mode):
            raise FileNotFoundError(path)
        return self._describe(path, name, st, time.time())

    def _describe(self, path: Path, name: str, st: os.stat_result, now: float) -> DriveFile:
        key: _CacheKey = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        cached = self._cache.get(str(path))
        if cached is not None and cached[0] == key:
            revision, content_type = cached[1], cached[2]
        else:
            revision, content_type = _hash_file(path, name)
            if now - st.st_ctime_ns / 1e9 > self.racy_seconds:
                self._cache[str(path)] = (key, revision, content_type)
        return DriveFile(
            id=name,
            name=name,
            size=st.st_size,
            content_type=content_type,
            modified_at=datetime.fromtimestamp(st.st_mtime_ns / 1e9, tz=UTC),
            revision=revision,
            md5=None,
        )

    def _atomic_write(self, target: Path, data: bytes, *, durable: bool = True) -> None:
        tmp = target.with_name(f".{target.name[:200]}.{secrets.token_hex(6)}.tmp")
        try:
            # 0o666 through the umask: delivered files are as readable as any other file the
            # operator's processes create (mkstemp would make them 0600).
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                if durable and self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise self._os_error(exc, f"cannot write {target.name!r}") from exc

    def _sidecar(self, directory: Path, kind: str, value: str) -> Path:
        return directory / _SIDECAR_DIR / kind / f"{_digest(value)}.json"

    def _record_key(self, directory: Path, name: str, app_key: str, revision: str) -> None:
        self._forget_name(directory, name)
        self._write_json(self._sidecar(directory, "keys", app_key),
                         {"app_key": app_key, "name": name, "revision": revision})
        self._write_json(self._sidecar(directory, "names", name),
                         {"app_key": app_key, "name": name})

    def _key_of(self, directory: Path, name: str) -> str | None:
        record = _read_json(self._sidecar(directory, "names", name))
        if record is None or record.get("name") != name:
            return None
        key = record.get("app_key")
        return key if isinstance(key, str) else None

    def _forget_name(self, directory: Path, name: str) -> None:
        key = self._key_of(directory, name)
        if key is not None:
            self._sidecar(directory, "keys", key).unlink(missing_ok=True)
        self._sidecar(directory, "names", name).unlink(missing_ok=True)

    def _write_json(self, path: Path, payload: dict[str, str]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Not fsynced: a sidecar lost in a crash only makes a retried delivery write its file
        # again under the same name, which replaces it (a name is the identity here).
        self._atomic_write(path, json.dumps(payload).encode(), durable=False)

    def _os_error(self, exc: OSError, what: str) -> DriveError:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return DriveQuotaExceeded(f"{what}: {exc.strerror}", backend=self.backend)
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return DriveRefused(f"{what}: {exc.strerror}", code="forbidden",
                                backend=self.backend)
        if exc.errno in (errno.ENAMETOOLONG, errno.EINVAL, errno.ELOOP):
            return DriveRefused(f"{what}: {exc.strerror}", code="bad_name",
                                backend=self.backend)
        return DriveError(f"{what}: {exc.strerror}", code="io_error", backend=self.backend)


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _hash_file(path: Path, name: str) -> tuple[str, str]:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        head = fh.read(_SNIFF_BYTES)
        digest.update(head)
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest(), sniff_content_type(name, head)


def _read_json(path: Path) -> dict[str, str] | None:
    try:
        payload = json.loads(path.read_bytes())
    except (FileNotFoundError, NotADirectoryError, ValueError):
        return None
    return payload if isinstance(payload, dict) else None


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
