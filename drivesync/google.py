"""``GoogleDrive``: Google Drive v3 through google-api-python-client, for shared drives.

Service accounts have no storage of their own: a file a service account creates outside a
shared drive fails with 403 ``storageQuotaExceeded``. Input and output folders must therefore
sit in a shared drive the service account is a member of (Content manager can create, move
and delete files; deleting permanently may need Manager, depending on the drive's settings),
or the account must impersonate a Workspace user (``subject=`` with domain-wide delegation).

Requests go through one retry loop (``RetryPolicy``): 403 ``userRateLimitExceeded`` /
``rateLimitExceeded``, 429, 5xx and dropped connections are retried with exponential backoff
and jitter, at least as long as ``Retry-After`` says, within a cap on attempts and on total
time; then ``DriveUnavailable``. Quota errors (``storageQuotaExceeded``,
``dailyLimitExceeded``, upload limits) raise ``DriveQuotaExceeded`` at once: waiting seconds
cannot fix them. The library's own retries (``num_retries``) are not used: they ignore
``Retry-After`` and do not cap total time.

Uploads are resumable and chunked; a chunk that fails is resumed from what the server says it
holds, so an interrupted upload neither restarts nor creates a second file.

An instance holds one ``httplib2.Http``, which is not thread-safe: use one instance per
thread (or per Celery task).
"""

from __future__ import annotations

import http.client
import io
import json
import logging
import random
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, TypeVar

import google.auth.credentials
import google.auth.exceptions
import google_auth_httplib2
import httplib2
from google.oauth2 import service_account
from googleapiclient import discovery_cache
from googleapiclient.discovery import build, build_from_document
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaIoBaseUpload

from drivesync.base import APP_KEY_PROPERTY, DriveClient, DriveFile, check_app_key
from drivesync.errors import (
    DriveError,
    DriveNotFound,
    DriveQuotaExceeded,
    DriveRefused,
    DriveUnavailable,
)

logger = logging.getLogger(__name__)

SCOPE = "https://www.googleapis.com/auth/drive"
FOLDER_MIME = "application/vnd.google-apps.folder"
# Native Docs/Sheets/shortcuts have no bytes to download (they need files.export).
_NATIVE_PREFIX = "application/vnd.google-apps."
_FILE_FIELDS = ("id,name,mimeType,size,modifiedTime,md5Checksum,headRevisionId,version,"
                "parents,appProperties")
_LIST_FIELDS = f"nextPageToken,incompleteSearch,files({_FILE_FIELDS})"
_UPLOAD_GRANULARITY = 256 * 1024  # Drive requires chunks in multiples of 256 KiB

_RATE_LIMIT_REASONS = frozenset({"userRateLimitExceeded", "rateLimitExceeded",
                                 "sharingRateLimitExceeded", "backendError"})
_QUOTA_REASONS = frozenset({
    "storageQuotaExceeded", "quotaExceeded", "dailyLimitExceeded", "dailyLimitExceededUnreg",
    "uploadLimitExceeded", "teamDriveFileLimitExceeded", "numChildrenInNonRootLimitExceeded",
    "activeItemCreationLimitExceeded",
})
_TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    OSError,  # ConnectionError, socket.timeout, ssl.SSLError
    http.client.HTTPException,  # RemoteDisconnected, IncompleteRead
    httplib2.HttpLib2Error,
    google.auth.exceptions.TransportError,
)

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff for transient failures. Delay before retry n (1-based) is drawn from
    [d/2, d] with d = min(max_delay, base_delay * 2**(n-1)) ("equal jitter": spread out, yet
    never shorter than half the exponential step), and never shorter than Retry-After."""

    max_attempts: int = 7
    base_delay: float = 1.0
    max_delay: float = 32.0
    max_elapsed: float = 120.0

    def delay(self, retry: int, rng: random.Random) -> float:
        ceiling = min(self.max_delay, self.base_delay * 2 ** (retry - 1))
        return ceiling / 2 + rng.uniform(0, ceiling / 2)


@dataclass
class _Transient:
    what: str
    status: int | None
    reason: str
    retry_after: float | None


class _BytesUpload(MediaIoBaseUpload):
    """Chunks handed to httplib2 as bytes rather than a stream slice: httplib2 silently
    re-sends a request once when the connection was dropped, and a consumed stream would be
    re-sent empty."""

    def has_stream(self) -> bool:
        return False


class GoogleDrive(DriveClient):
    backend = "google"

    def __init__(
        self,
        credentials: google.auth.credentials.Credentials | None,
        *,
        base_url: str | None = None,
        http: httplib2.Http | None = None,
        timeout: float = 60.0,
        retry: RetryPolicy | None = None,
        chunk_size: int = 8 * 1024 * 1024,
        rng: random.Random | None = None,
    ) -> None:
        """``credentials`` authorise every request (None: ``http`` is already authorised).
        ``base_url`` points the client at another server (tests: the loopback fake).
        ``http`` is the transport (default ``httplib2.Http(timeout=timeout)``)."""
        if chunk_size <= 0 or chunk_size % _UPLOAD_GRANULARITY:
            raise ValueError("chunk_size must be a positive multiple of 256 KiB")
        transport = http or httplib2.Http(timeout=timeout)
        # Resumable uploads answer 308 "Resume Incomplete", which httplib2 would follow as a
        # redirect (googleapiclient.http.build_http does the same).
        if hasattr(transport, "redirect_codes"):
            transport.redirect_codes = set(transport.redirect_codes) - {308}
        authorized = (google_auth_httplib2.AuthorizedHttp(credentials, http=transport)
                      if credentials is not None else transport)
        self.retry = retry or RetryPolicy()
        self.chunk_size = chunk_size
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not secrets
        self._service = _build_service(authorized, base_url)
        self._files = self._service.files()

    @classmethod
    def from_service_account_info(
        cls, info: Mapping[str, Any], *, subject: str | None = None, **kwargs: Any
    ) -> GoogleDrive:
        """From the parsed JSON key of a service account. ``subject``: impersonate that
        Workspace user (needs domain-wide delegation); otherwise use shared drives."""
        credentials = service_account.Credentials.from_service_account_info(
            dict(info), scopes=[SCOPE])
        if subject:
            credentials = credentials.with_subject(subject)
        return cls(credentials, **kwargs)

    @classmethod
    def from_service_account_file(
        cls, path: str | Path, *, subject: str | None = None, **kwargs: Any
    ) -> GoogleDrive:
        info = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls.from_service_account_info(info, subject=subject, **kwargs)

    # -- protocol ---------------------------------------------------------------------------

    def list(self, folder: str, page_size: int = 1000) -> Iterator[DriveFile]:
        """Binary files directly in ``folder`` (sub-folders and native Docs left out)."""
        self._require_folder(folder)
        query = (f"'{_quote(folder)}' in parents and trashed = false "
                 f"and mimeType != '{FOLDER_MIME}'")
        yield from self._query(query, page_size=max(1, min(page_size, 1000)))

    def read(self, folder: str, file_id: str) -> bytes:
        """The file's bytes. Ids are global in Drive; ``folder`` is not checked here (the
        caller reads what it listed) to save a request per file."""
        request = self._files.get_media(fileId=file_id, supportsAllDrives=True)
        data = self._call(f"read {file_id}", request.execute)
        return bytes(data)

    def _store(self, folder: str, name: str, data: bytes, content_type: str,
               app_key: str | None) -> DriveFile:
        """A new file in ``folder`` (Drive allows several files with one name: use
        ``app_key`` and ``find_by_key``, or ``base.write_once``, to deliver at most once)."""
        metadata: dict[str, Any] = {"name": name, "parents": [folder], "mimeType": content_type}
        if app_key is not None:
            metadata["appProperties"] = {APP_KEY_PROPERTY: app_key}
        media = _BytesUpload(io.BytesIO(data), mimetype=content_type,
                             chunksize=self.chunk_size, resumable=True)
        request = self._files.create(body=metadata, media_body=media, fields=_FILE_FIELDS,
                                     supportsAllDrives=True)
        response: dict[str, Any] | None = None
        while response is None:
            # One retry budget per chunk: a long upload may meet several unrelated hiccups.
            # After a failure the library asks the session what it holds and resumes there.
            _, response = self._call(f"upload {metadata['name']!r}",
                                     lambda: request.next_chunk(num_retries=0))
        return _to_file(response)

    def find_by_key(self, folder: str, app_key: str) -> DriveFile | None:
        query = (f"appProperties has {{ key='{APP_KEY_PROPERTY}' and "
                 f"value='{_quote(check_app_key(app_key))}' }} "
                 f"and '{_quote(folder)}' in parents and trashed = false")
        return next(self._query(query, page_size=10), None)

    def delete(self, folder: str, file_id: str) -> None:
        """Deletes permanently (not to the bin): the folder is the batch team's workspace."""
        self._require_parent(folder, file_id)
        request = self._files.delete(fileId=file_id, supportsAllDrives=True)
        # A retried delete whose first attempt went through finds nothing: that is success.
        self._call(f"delete {file_id}", request.execute, gone_is_done=True)

    def move(self, folder: str, file_id: str, to_folder: str) -> DriveFile:
        self._require_parent(folder, file_id)
        self._require_folder(to_folder)
        request = self._files.update(fileId=file_id, addParents=to_folder,
                                     removeParents=folder, body={}, fields=_FILE_FIELDS,
                                     supportsAllDrives=True)
        return _to_file(self._call(f"move {file_id}", request.execute))

    # -- internals --------------------------------------------------------------------------

    def _query(self, query: str, *, page_size: int) -> Iterator[DriveFile]:
        token: str | None = None
        while True:
            request = self._files.list(
                q=query, pageSize=page_size, pageToken=token, fields=_LIST_FIELDS,
                supportsAllDrives=True, includeItemsFromAllDrives=True, corpora="allDrives")
            page = self._call("list", request.execute)
            if page.get("incompleteSearch"):
                logger.warning("Drive reported an incomplete search for %s", query)
            for record in page.get("files", []):
                if record.get("mimeType", "").startswith(_NATIVE_PREFIX):
                    continue
                yield _to_file(record)
            token = page.get("nextPageToken")
            if not token:
                return

    def _get(self, file_id: str, fields: str) -> dict[str, Any]:
        request = self._files.get(fileId=file_id, fields=fields, supportsAllDrives=True)
        result: dict[str, Any] = self._call(f"get {file_id}", request.execute)
        return result

    def _require_folder(self, folder: str) -> None:
        # Drive answers a listing of a missing folder with an empty page; ask explicitly so
        # that a mistyped folder id is an error, not "no new files".
        record = self._get(folder, "id,mimeType,trashed")
        if record.get("mimeType") != FOLDER_MIME or record.get("trashed"):
            raise DriveNotFound(f"folder {folder!r} does not exist", backend=self.backend)

    def _require_parent(self, folder: str, file_id: str) -> None:
        record = self._get(file_id, "id,parents,trashed")
        if folder not in record.get("parents", []) or record.get("trashed"):
            raise DriveNotFound(f"no file {file_id!r} in folder {folder!r}",
                                backend=self.backend)

    def _call(self, what: str, attempt: Callable[[], T], *, gone_is_done: bool = False) -> T:
        policy = self.retry
        started = time.monotonic()
        retried = False
        for attempt_no in range(1, policy.max_attempts + 1):
            try:
                return attempt()
            except HttpError as exc:
                failure = self._classify(exc, what)
                if isinstance(failure, DriveError):
                    if gone_is_done and retried and isinstance(failure, DriveNotFound):
                        return None  # type: ignore[return-value]
                    raise failure from exc
            except google.auth.exceptions.RefreshError as exc:
                raise DriveRefused(f"{what}: credentials refused: {exc}", code="unauthorized",
                                   backend=self.backend) from exc
            except _TRANSPORT_ERRORS as exc:
                failure = _Transient(what, None, f"{type(exc).__name__}: {exc}", None)
            delay = policy.delay(attempt_no, self._rng)
            if failure.retry_after is not None:
                delay = max(delay, failure.retry_after)
            elapsed = time.monotonic() - started
            if attempt_no == policy.max_attempts or elapsed + delay > policy.max_elapsed:
                raise DriveUnavailable(
                    f"{what}: gave up after {attempt_no} attempts in {elapsed:.1f}s "
                    f"({failure.reason})", backend=self.backend, status=failure.status,
                    attempts=attempt_no, retry_after=failure.retry_after)
            logger.warning("Drive %s failed (%s, HTTP %s); retry %d in %.2fs", what,
                           failure.reason, failure.status, attempt_no, delay)
            retried = True
            time.sleep(delay)
        raise AssertionError("unreachable")  # pragma: no cover

    def _classify(self, exc: HttpError, what: str) -> DriveError | _Transient:
        status = int(exc.resp.status)
        reason, message = _error_reason(exc)
        retry_after = _retry_after(exc.resp.get("retry-after"))
        detail = f"{what}: {message or reason or 'HTTP error'}"
        if reason in _QUOTA_REASONS:
            return DriveQuotaExceeded(detail, code=reason, backend=self.backend, status=status)
        if status in _TRANSIENT_STATUSES or (status == 403 and reason in _RATE_LIMIT_REASONS):
            return _Transient(what, status, reason or str(status), retry_after)
        if status == 404:
            return DriveNotFound(detail, backend=self.backend, status=status)
        if status == 401:
            return DriveRefused(detail, code="unauthorized", backend=self.backend,
                                status=status)
        if 400 <= status < 500:
            return DriveRefused(detail, code=reason or "refused", backend=self.backend,
                                status=status)
        return DriveError(detail, code=reason or "http_error", backend=self.backend,
                          status=status)


def _build_service(http: Any, base_url: str | None) -> Any:
    if base_url is None:
        return build("drive", "v3", http=http, static_discovery=True, cache_discovery=False)
    # client_options={"api_endpoint": ...} moves the API calls but not media uploads: the
    # library keeps the upload URL's scheme and path and swaps only the host, so an http://
    # endpoint would still be sent https:// uploads. Rewriting rootUrl in the bundled
    # discovery document moves both (uploads use rootUrl + "upload/drive/v3/files").
    document = json.loads(discovery_cache.get_static_doc("drive", "v3") or "{}")
    root = base_url if base_url.endswith("/") else base_url + "/"
    document["rootUrl"] = root
    document["mtlsRootUrl"] = root
    document["baseUrl"] = root + document["servicePath"]
    return build_from_document(document, http=http)


def _to_file(record: Mapping[str, Any]) -> DriveFile:
    revision = (record.get("headRevisionId") or record.get("md5Checksum")
                or f"v{record.get('version', '')}")
    return DriveFile(
        id=record["id"],
        name=record.get("name", ""),
        size=int(record.get("size") or 0),
        content_type=record.get("mimeType") or "application/octet-stream",
        modified_at=datetime.fromisoformat(record["modifiedTime"]),
        revision=revision,
        md5=record.get("md5Checksum"),
    )


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace("'", "\\'")


def _error_reason(exc: HttpError) -> tuple[str, str]:
    try:
        payload = json.loads(exc.content.decode("utf-8"))
        error = payload["error"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return "", ""
    if not isinstance(error, dict):
        return "", str(error)
    errors = error.get("errors") or [{}]
    reason = errors[0].get("reason") or error.get("status") or ""
    return str(reason), str(error.get("message", ""))


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
