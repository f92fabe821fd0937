"""``S3Drive``: a bucket and a key prefix, through boto3 (AWS S3 or any S3-compatible store).

A folder is a key prefix under the drive's ``prefix`` (``"inputs/shoes"`` is the keys
``<prefix>/inputs/shoes/<name>``); a file id is its name within that folder. Only direct
children are listed (``Delimiter="/"``); keys ending in "/" (console "folder" markers) and
hidden names are skipped. S3 has no folders, so a folder that was never written to lists as
empty rather than "not found".

The revision is the ETag (the MD5 of the content for single-part uploads, an MD5 of part MD5s
for multipart ones: it changes whenever the content does). It is used rather than VersionId
because listings do not carry VersionId and the sync ledger compares listed revisions with
written ones; on a versioned bucket the VersionId is still what ``head_object`` shows.

``app_key`` is stored as user metadata (``x-amz-meta-atelier-key``). S3 cannot search
metadata, so ``find_by_key`` lists the folder and HEADs each object: fine for output folders
of a few hundred files, linear beyond that.

Retries of throttling (503 SlowDown), 5xx and dropped connections are botocore's: configure
the client with ``Config(retries={"mode": "standard", "max_attempts": ...})``; what remains
after them is raised as ``DriveUnavailable``.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, unquote

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    NoCredentialsError,
    ParamValidationError,
)

from drivesync.base import DriveClient, DriveFile, check_app_key
from drivesync.errors import (
    DriveError,
    DriveNotFound,
    DriveQuotaExceeded,
    DriveRefused,
    DriveUnavailable,
)

_META_KEY = "atelier-key"
_NOT_FOUND = frozenset({"NoSuchKey", "NoSuchBucket", "404", "NotFound"})
_THROTTLED = frozenset({"SlowDown", "Throttling", "ThrottlingException", "RequestTimeout",
                        "ServiceUnavailable", "InternalError", "503", "500"})
_QUOTA = frozenset({"QuotaExceeded", "XMinioStorageFull", "StorageFull"})
_REFUSED = frozenset({"AccessDenied", "InvalidObjectName", "KeyTooLongError",
                      "EntityTooLarge", "InvalidArgument", "InvalidRequest"})


class S3Drive(DriveClient):
    backend = "s3"

    def __init__(self, bucket: str, prefix: str = "", *, client: Any) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self._s3 = client

    # -- locators ---------------------------------------------------------------------------

    def folder_prefix(self, folder: str) -> str:
        parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
        if any(p == ".." for p in parts) or "\x00" in folder:
            raise DriveRefused(f"folder {folder!r} contains '..' or NUL", code="bad_folder",
                               backend=self.backend)
        return "".join(f"{p}/" for p in [self.prefix, *parts] if p)

    def _key(self, folder: str, file_id: str) -> str:
        if (not file_id or file_id in (".", "..") or "/" in file_id or "\x00" in file_id
                or file_id.startswith(".")):
            raise DriveNotFound(f"no file {file_id!r} in folder {folder!r}",
                                backend=self.backend)
        return self.folder_prefix(folder) + file_id

    # -- protocol ---------------------------------------------------------------------------

    def list(self, folder: str, page_size: int = 1000) -> Iterator[DriveFile]:
        """Objects directly under the folder's prefix; content types are guessed from names
        (a listing does not carry them; ``write`` and ``find_by_key`` return stored ones)."""
        prefix = self.folder_prefix(folder)
        paginator = self._s3.get_paginator("list_objects_v2")
        pages = paginator.paginate(Bucket=self.bucket, Prefix=prefix, Delimiter="/",
                                   PaginationConfig={"PageSize": max(1, min(page_size, 1000))})
        try:
            for page in pages:
                for obj in page.get("Contents", []):
                    name = obj["Key"][len(prefix):]
                    if not name or name.startswith(".") or name.endswith("/"):
                        continue
                    etag = obj["ETag"].strip('"')
                    yield DriveFile(
                        id=name, name=name, size=int(obj["Size"]),
                        content_type=mimetypes.guess_type(name, strict=False)[0]
                        or "application/octet-stream",
                        modified_at=obj["LastModified"], revision=etag,
                        md5=etag if "-" not in etag else None)
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"list {folder!r}") from exc

    def read(self, folder: str, file_id: str) -> bytes:
        key = self._key(folder, file_id)
        try:
            response = self._s3.get_object(Bucket=self.bucket, Key=key)
            data: bytes = response["Body"].read()
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"read {file_id!r} in {folder!r}") from exc
        return data

    def _store(self, folder: str, name: str, data: bytes, content_type: str,
               app_key: str | None) -> DriveFile:
        """Put ``data`` under the name; an object of that name is replaced (S3 keys are
        unique), so a retried delivery under a stable name never duplicates."""
        key = self.folder_prefix(folder) + name
        metadata = {}
        if app_key is not None:
            # Metadata travels as HTTP headers: ASCII only, hence the percent-encoding.
            metadata[_META_KEY] = quote(app_key, safe="")
        try:
            self._s3.put_object(Bucket=self.bucket, Key=key, Body=data,
                                ContentType=content_type, Metadata=metadata)
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"write {name!r} in {folder!r}") from exc
        return self._head(folder, name)[0]

    def find_by_key(self, folder: str, app_key: str) -> DriveFile | None:
        check_app_key(app_key)
        for listed in self.list(folder):
            try:
                found, stored_key = self._head(folder, listed.id)
            except DriveNotFound:
                continue  # deleted since the listing
            if stored_key == app_key:
                return found
        return None

    def delete(self, folder: str, file_id: str) -> None:
        # DELETE answers 204 for a missing key too; HEAD first so that deleting something
        # that is not there is reported, as on the other backends.
        self._head(folder, file_id)
        try:
            self._s3.delete_object(Bucket=self.bucket, Key=self._key(folder, file_id))
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"delete {file_id!r} in {folder!r}") from exc

    def move(self, folder: str, file_id: str, to_folder: str) -> DriveFile:
        """Copy then delete (S3 has no rename), keeping metadata and content type. An object
        of that name under ``to_folder`` is replaced. Single-request copy: up to 5 GB."""
        source = self._key(folder, file_id)
        target = self.folder_prefix(to_folder) + file_id
        try:
            self._s3.copy_object(Bucket=self.bucket, Key=target, MetadataDirective="COPY",
                                 CopySource={"Bucket": self.bucket, "Key": source})
            self._s3.delete_object(Bucket=self.bucket, Key=source)
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"move {file_id!r} to {to_folder!r}") from exc
        return self._head(to_folder, file_id)[0]

    # -- internals --------------------------------------------------------------------------

    def _head(self, folder: str, name: str) -> tuple[DriveFile, str | None]:
        key = self._key(folder, name)
        try:
            head = self._s3.head_object(Bucket=self.bucket, Key=key)
        except (ClientError, BotoCoreError) as exc:
            raise self._error(exc, f"{name!r} in {folder!r}") from exc
        etag = head["ETag"].strip('"')
        stored = head.get("Metadata", {}).get(_META_KEY)
        found = DriveFile(
            id=name, name=name, size=int(head["ContentLength"]),
            content_type=head.get("ContentType") or "application/octet-stream",
            modified_at=head["LastModified"], revision=etag,
            md5=etag if "-" not in etag else None)
        return found, unquote(stored) if stored is not None else None

    def _error(self, exc: Exception, what: str) -> DriveError:
        if isinstance(exc, ClientError):
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            message = f"{what}: {error.get('Message') or code}"
            if code in _NOT_FOUND or status == 404:
                return DriveNotFound(message, backend=self.backend, status=status)
            if code in _QUOTA:
                return DriveQuotaExceeded(message, code=code, backend=self.backend,
                                          status=status)
            if code in _THROTTLED or (status is not None and status >= 500):
                return DriveUnavailable(message, code=code or "unavailable",
                                        backend=self.backend, status=status)
            if code in _REFUSED or (status is not None and 400 <= status < 500):
                return DriveRefused(message, code=code or "refused", backend=self.backend,
                                    status=status)
            return DriveError(message, code=code or "s3_error", backend=self.backend,
                              status=status)
        if isinstance(exc, (ParamValidationError, NoCredentialsError)):
            return DriveRefused(f"{what}: {exc}", code="bad_request", backend=self.backend)
        # Other BotoCoreErrors: connection refused or dropped, timeouts, after botocore's
        # own retries.
        return DriveUnavailable(f"{what}: {exc}", backend=self.backend)
