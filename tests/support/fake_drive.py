"""A Google Drive v3 server on loopback, for driving the real google-api-python-client.

It implements what ``drivesync.google.GoogleDrive`` uses, with Drive's own rules where a
client could get them wrong:

- ``GET  /drive/v3/files`` (files.list): ``q`` (``'<id>' in parents``, ``trashed = false``,
  ``mimeType``/``name`` comparisons, ``appProperties has { key='k' and value='v' }``, ``and``,
  ``or``, ``not``, parentheses), ``pageSize`` (1..1000, default 100), ``pageToken``,
  ``fields`` (partial responses: without it a file carries only kind, id, name, mimeType).
- ``GET  /drive/v3/files/<id>`` (files.get) and ``?alt=media``.
- ``POST /upload/drive/v3/files?uploadType=resumable`` (initiate: 200 with a ``Location``
  session URI), then ``PUT <session>`` chunks with ``Content-Range`` (308 Resume Incomplete
  with ``Range`` until the last, then 200 with the file), status queries
  ``Content-Range: bytes */<size>``; non-final chunks must be multiples of 256 KiB;
  re-sent bytes that were already received are ignored, as Google does.
- ``PATCH /drive/v3/files/<id>`` (files.update: ``addParents``/``removeParents``, name,
  appProperties; a file may have only one parent).
- ``DELETE /drive/v3/files/<id>`` (files.delete).

Items in a shared drive are invisible (404, or left out of lists) to requests without
``supportsAllDrives=true`` (and ``includeItemsFromAllDrives=true`` for lists), and, like a
service account, the caller has no storage of its own: creating a file outside a shared drive
fails with 403 ``storageQuotaExceeded`` unless ``my_drive_quota_bytes`` allows it.

Faults are injected per endpoint with ``inject``; every request is logged with its time in
``requests`` so tests can measure retries and backoff.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.loopback import LoopbackServer, respond

FOLDER_MIME = "application/vnd.google-apps.folder"
CHUNK_GRANULARITY = 256 * 1024

ENDPOINTS = (
    "files.list", "files.get", "files.get_media", "files.update", "files.delete",
    "upload.initiate", "upload.chunk", "upload.status",
)
FAULTS = (
    "rate_limit",          # 403 userRateLimitExceeded
    "project_rate_limit",  # 403 rateLimitExceeded
    "too_many_requests",   # 429 (with Retry-After when retry_after is given)
    "server_error",        # 500
    "unavailable",         # 503
    "drop",                # close the connection without answering
    "storage_quota",       # 403 storageQuotaExceeded
    "daily_limit",         # 403 dailyLimitExceeded
)


@dataclass
class Fault:
    kind: str
    retry_after: float | None = None
    # For "drop": process the request first (the server kept it, the answer was lost).
    keep_effect: bool = False


@dataclass
class LoggedRequest:
    at: float  # time.monotonic()
    endpoint: str
    method: str
    path: str
    status: int  # 0 for a dropped connection


@dataclass
class _UploadSession:
    metadata: dict[str, Any]
    params: dict[str, str]
    content_type: str
    total: int | None
    received: bytearray = field(default_factory=bytearray)
    file_id: str | None = None


class DriveHttpError(Exception):
    def __init__(self, status: int, reason: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message
        self.headers = headers or {}


class FakeDrive:
    def __init__(self, *, my_drive_quota_bytes: int = 0) -> None:
        self.my_drive_quota_bytes = my_drive_quota_bytes
        self._lock = threading.RLock()
        self._server: LoopbackServer | None = None
        self.base_url = ""
        self.reset()

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> str:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = LoopbackServer(handler, name="fake-drive")
        self.base_url = f"{self._server.origin}/"
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()

    def reset(self) -> None:
        with self._lock:
            self.files: dict[str, dict[str, Any]] = {}
            self.contents: dict[str, bytes] = {}
            self.shared_drives: dict[str, str] = {}
            self.sessions: dict[str, _UploadSession] = {}
            self.requests: list[LoggedRequest] = []
            self.token_grants: list[dict[str, Any]] = []
            # Service accounts whose key Google no longer takes (deleted or disabled keys).
            self.refused_accounts: set[str] = set()
            self._faults: dict[str, deque[Fault | None]] = {e: deque() for e in ENDPOINTS}
            self._version = 1000

    # -- seeding and inspection (the test's side, not HTTP) ---------------------------------

    def add_shared_drive(self, name: str = "Atelier") -> str:
        drive_id = "0A" + secrets.token_hex(8)
        with self._lock:
            self.shared_drives[drive_id] = name
        return drive_id

    def add_folder(self, name: str, parent: str | None = None, *,
                   shared_drive: bool = True) -> str:
        """A folder in ``parent``; without a parent, at the top of a new shared drive (or of
        My Drive when ``shared_drive`` is false)."""
        with self._lock:
            if parent is None:
                drive_id = self.add_shared_drive() if shared_drive else None
                parents = [drive_id] if drive_id else ["root"]
            else:
                drive_id = self._drive_of(parent)
                parents = [parent]
            return self._insert(name=name, mime=FOLDER_MIME, parents=parents,
                                drive_id=drive_id, content=None, app_properties=None)

    def add_file(self, parent: str, name: str, data: bytes, *, mime_type: str | None = None,
                 app_properties: dict[str, str] | None = None) -> str:
        with self._lock:
            return self._insert(name=name, mime=mime_type or "application/octet-stream",
                                parents=[parent], drive_id=self._drive_of(parent),
                                content=data, app_properties=app_properties)

    def replace_content(self, file_id: str, data: bytes) -> None:
        """What a user uploading a new version in the Drive UI does: same id, new revision."""
        with self._lock:
            self._set_content(self.files[file_id], data)

    def children(self, folder_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(f) for f in self.files.values()
                    if folder_id in f["parents"] and not f["trashed"]]

    def inject(self, endpoint: str, kind: str, *, times: int = 1, after: int = 0,
               retry_after: float | None = None, keep_effect: bool = False) -> None:
        """The next ``times`` requests to ``endpoint`` (after letting ``after`` through) fail
        with ``kind``."""
        if endpoint not in ENDPOINTS or kind not in FAULTS:
            raise ValueError(f"unknown endpoint or fault: {endpoint}, {kind}")
        with self._lock:
            queue = self._faults[endpoint]
            queue.extend([None] * after)
            queue.extend(Fault(kind, retry_after, keep_effect) for _ in range(times))

    def calls(self, endpoint: str) -> list[LoggedRequest]:
        with self._lock:
            return [r for r in self.requests if r.endpoint == endpoint]

    # -- model ------------------------------------------------------------------------------

    def _drive_of(self, parent: str) -> str | None:
        if parent in self.shared_drives:
            return parent
        if parent == "root":
            return None
        folder = self.files.get(parent)
        if folder is None or folder["mimeType"] != FOLDER_MIME:
            raise KeyError(parent)
        return folder.get("driveId")

    def _insert(self, *, name: str, mime: str, parents: list[str], drive_id: str | None,
                content: bytes | None, app_properties: dict[str, str] | None) -> str:
        file_id = "1" + secrets.token_urlsafe(24).replace("-", "x").replace("_", "y")
        now = _rfc3339()
        record: dict[str, Any] = {
            "kind": "drive#file", "id": file_id, "name": name, "mimeType": mime,
            "parents": list(parents), "trashed": False, "createdTime": now,
            "modifiedTime": now, "version": str(self._next_version()),
        }
        if drive_id:
            record["driveId"] = drive_id
        if app_properties:
            record["appProperties"] = dict(app_properties)
        self.files[file_id] = record
        if content is not None:
            self._set_content(record, content)
        return file_id

    def _set_content(self, record: dict[str, Any], data: bytes) -> None:
        self.contents[record["id"]] = bytes(data)
        record.update(size=str(len(data)), md5Checksum=hashlib.md5(data).hexdigest(),
                      headRevisionId="0B" + secrets.token_urlsafe(18),
                      modifiedTime=_rfc3339(), version=str(self._next_version()))

    def _next_version(self) -> int:
        self._version += 1
        return self._version

    def _visible(self, record: dict[str, Any], params: dict[str, str]) -> bool:
        return not record.get("driveId") or params.get("supportsAllDrives") == "true"

    def _get_visible(self, file_id: str, params: dict[str, str]) -> dict[str, Any]:
        record = self.files.get(file_id)
        if record is None or not self._visible(record, params):
            raise DriveHttpError(404, "notFound", f"File not found: {file_id}.")
        return record

    def _check_parent(self, parent: str, params: dict[str, str]) -> str | None:
        if parent in self.shared_drives:
            if params.get("supportsAllDrives") != "true":
                raise DriveHttpError(404, "notFound", f"File not found: {parent}.")
            return parent
        if parent == "root":
            return None
        record = self._get_visible(parent, params)
        if record["mimeType"] != FOLDER_MIME or record["trashed"]:
            raise DriveHttpError(404, "notFound", f"File not found: {parent}.")
        return record.get("driveId")

    def _my_drive_usage(self) -> int:
        return sum(len(self.contents.get(f["id"], b"")) for f in self.files.values()
                   if not f.get("driveId"))

    # -- endpoints --------------------------------------------------------------------------

    def list_files(self, params: dict[str, str]) -> dict[str, Any]:
        page_size = int(params.get("pageSize", "100"))
        if not 1 <= page_size <= 1000:
            raise DriveHttpError(400, "invalid", "Invalid value for pageSize")
        corpora = params.get("corpora", "user")
        if corpora not in ("user", "drive", "domain", "allDrives"):
            raise DriveHttpError(400, "invalid", f"Invalid value for corpora: {corpora}")
        include_shared = (params.get("includeItemsFromAllDrives") == "true"
                          and params.get("supportsAllDrives") == "true")
        query = params.get("q", "")
        predicate = parse_query(query) if query else (lambda f: True)
        matches = [f for f in self.files.values()
                   if (include_shared or not f.get("driveId")) and predicate(f)]
        offset = 0
        if token := params.get("pageToken"):
            offset = _decode_token(token, query)
        page = matches[offset:offset + page_size]
        body: dict[str, Any] = {"kind": "drive#fileList", "incompleteSearch": False,
                                "files": page}
        if offset + page_size < len(matches):
            body["nextPageToken"] = _encode_token(offset + page_size, query)
        default = "kind,nextPageToken,incompleteSearch,files(kind,id,name,mimeType)"
        return select_fields(body, params.get("fields") or default)

    def get_file(self, file_id: str, params: dict[str, str]) -> dict[str, Any]:
        record = self._get_visible(file_id, params)
        return select_fields(record, params.get("fields") or "kind,id,name,mimeType")

    def get_media(self, file_id: str, params: dict[str, str]) -> tuple[bytes, str]:
        record = self._get_visible(file_id, params)
        if record["id"] not in self.contents:
            raise DriveHttpError(403, "fileNotDownloadable",
                                 "Only files with binary content can be downloaded.")
        return self.contents[record["id"]], record["mimeType"]

    def update_file(self, file_id: str, params: dict[str, str],
                    body: dict[str, Any]) -> dict[str, Any]:
        record = self._get_visible(file_id, params)
        parents = list(record["parents"])
        for parent in filter(None, params.get("removeParents", "").split(",")):
            if parent in parents:
                parents.remove(parent)
        for parent in filter(None, params.get("addParents", "").split(",")):
            self._check_parent(parent, params)
            if parent not in parents:
                parents.append(parent)
        if len(parents) > 1:
            raise DriveHttpError(403, "cannotAddParent",
                                 "Increasing the number of parents is not allowed.")
        if not parents:
            raise DriveHttpError(400, "badRequest", "A file must have a parent.")
        record["parents"] = parents
        if "name" in body:
            record["name"] = body["name"]
        if "trashed" in body:
            record["trashed"] = bool(body["trashed"])
        for key, value in (body.get("appProperties") or {}).items():
            props = record.setdefault("appProperties", {})
            if value is None:
                props.pop(key, None)
            else:
                props[key] = value
        record["version"] = str(self._next_version())
        return select_fields(record, params.get("fields") or "kind,id,name,mimeType")

    def delete_file(self, file_id: str, params: dict[str, str]) -> None:
        self._get_visible(file_id, params)
        doomed = [file_id]
        while doomed:
            current = doomed.pop()
            self.files.pop(current, None)
            self.contents.pop(current, None)
            doomed.extend(f["id"] for f in self.files.values() if current in f["parents"])

    def initiate_upload(self, params: dict[str, str], headers: dict[str, str],
                        body: dict[str, Any]) -> str:
        if params.get("uploadType") != "resumable":
            raise DriveHttpError(400, "badRequest", "Only uploadType=resumable is served.")
        parents = body.get("parents") or ["root"]
        if len(parents) != 1:
            raise DriveHttpError(403, "cannotAddParent", "A file can only have one parent.")
        drive_id = self._check_parent(parents[0], params)
        total = headers.get("x-upload-content-length")
        size = int(total) if total is not None else None
        if drive_id is None and (self.my_drive_quota_bytes == 0 or self._my_drive_usage()
                                 + (size or 0) > self.my_drive_quota_bytes):
            raise DriveHttpError(403, "storageQuotaExceeded",
                                 "The user's Drive storage quota has been exceeded.")
        session_id = secrets.token_urlsafe(16)
        self.sessions[session_id] = _UploadSession(
            metadata=body, params=params, total=size,
            content_type=body.get("mimeType") or headers.get("x-upload-content-type")
            or "application/octet-stream")
        return (f"{self.base_url}upload/drive/v3/files?uploadType=resumable"
                f"&upload_id={session_id}")

    def upload_chunk(self, session_id: str, headers: dict[str, str],
                     data: bytes) -> tuple[int, dict[str, str], dict[str, Any] | None]:
        session = self.sessions.get(session_id)
        if session is None:
            raise DriveHttpError(404, "notFound", "No such upload session.")
        if session.file_id is not None:
            return 200, {}, self._upload_result(session)
        content_range = headers.get("content-range")
        if content_range is None:
            if data:
                raise DriveHttpError(400, "badRequest", "Content-Range is required.")
            session.total = len(session.received)
        elif m := re.fullmatch(r"bytes \*/(\d+|\*)", content_range):
            if m.group(1) != "*":
                session.total = int(m.group(1))
        elif m := re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", content_range):
            start, end = int(m.group(1)), int(m.group(2))
            if m.group(3) != "*":
                session.total = int(m.group(3))
            if len(data) != end - start + 1:
                raise DriveHttpError(400, "badRequest", "Content-Range does not match body.")
            have = len(session.received)
            if start > have:
                raise DriveHttpError(400, "badRequest",
                                     f"Chunk starts at {start}; {have} bytes received.")
            final = session.total is not None and end + 1 == session.total
            if not final and len(data) % CHUNK_GRANULARITY:
                raise DriveHttpError(400, "badRequest",
                                     "Chunk size must be a multiple of 256 KiB.")
            session.received.extend(data[have - start:])
        else:
            raise DriveHttpError(400, "badRequest", f"Bad Content-Range: {content_range}")
        if session.total is not None and len(session.received) == session.total:
            return 200, {}, self._finish_upload(session)
        extra = {"Range": f"bytes=0-{len(session.received) - 1}"} if session.received else {}
        return 308, extra, None

    def _finish_upload(self, session: _UploadSession) -> dict[str, Any]:
        meta = session.metadata
        parents = meta.get("parents") or ["root"]
        session.file_id = self._insert(
            name=meta.get("name", "Untitled"), mime=session.content_type, parents=parents,
            drive_id=self._drive_of(parents[0]), content=bytes(session.received),
            app_properties=meta.get("appProperties"))
        return self._upload_result(session)

    def _upload_result(self, session: _UploadSession) -> dict[str, Any]:
        assert session.file_id is not None
        record = self.files[session.file_id]
        return select_fields(record, session.params.get("fields") or "kind,id,name,mimeType")

    # -- dispatch ---------------------------------------------------------------------------

    def take_fault(self, endpoint: str) -> Fault | None:
        with self._lock:
            queue = self._faults[endpoint]
            return queue.popleft() if queue else None

    def log(self, endpoint: str, method: str, path: str, status: int) -> None:
        with self._lock:
            self.requests.append(LoggedRequest(time.monotonic(), endpoint, method, path, status))


def _route(method: str, path: str, headers: dict[str, str]) -> tuple[str, str | None]:
    if path == "/token" and method == "POST":
        return "oauth.token", None
    if path == "/drive/v3/files" and method == "GET":
        return "files.list", None
    if m := re.fullmatch(r"/drive/v3/files/([^/]+)", path):
        return {"GET": "files.get", "PATCH": "files.update",
                "DELETE": "files.delete"}.get(method, "unknown"), m.group(1)
    if path == "/upload/drive/v3/files":
        if method == "POST":
            return "upload.initiate", None
        if method == "PUT":
            status_query = headers.get("content-range", "").startswith("bytes */")
            return ("upload.status" if status_query else "upload.chunk"), None
    return "unknown", None


class _Handler(BaseHTTPRequestHandler):
    fake: FakeDrive
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()

    def do_PUT(self) -> None:
        self._dispatch()

    def do_PATCH(self) -> None:
        self._dispatch()

    def do_DELETE(self) -> None:
        self._dispatch()

    def _dispatch(self) -> None:
        fake = self.fake
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        headers = {k.lower(): v for k, v in self.headers.items()}
        endpoint, file_id = _route(self.command, url.path, headers)
        if endpoint == "files.get" and params.get("alt") == "media":
            endpoint = "files.get_media"

        if endpoint == "oauth.token":
            self._token(data)
            return
        if not headers.get("authorization", "").startswith("Bearer "):
            self._error(endpoint, DriveHttpError(401, "authError", "Login Required."))
            return
        fault = fake.take_fault(endpoint) if endpoint in ENDPOINTS else None
        if fault is not None and fault.kind == "drop":
            if fault.keep_effect:
                try:
                    self._handle(endpoint, file_id, params, headers, data, respond=False)
                except DriveHttpError:
                    pass
            fake.log(endpoint, self.command, self.path, 0)
            self._drop()
            return
        if fault is not None:
            self._error(endpoint, _fault_error(fault))
            return
        try:
            self._handle(endpoint, file_id, params, headers, data, respond=True)
        except DriveHttpError as exc:
            self._error(endpoint, exc)

    def _handle(self, endpoint: str, file_id: str | None, params: dict[str, str],
                headers: dict[str, str], data: bytes, *, respond: bool) -> None:
        fake = self.fake
        send: Callable[..., None] = self._send if respond else (lambda *a, **k: None)
        with fake._lock:
            if endpoint == "files.list":
                send(endpoint, 200, fake.list_files(params))
            elif endpoint == "files.get" and file_id:
                send(endpoint, 200, fake.get_file(file_id, params))
            elif endpoint == "files.get_media" and file_id:
                content, mime = fake.get_media(file_id, params)
                send(endpoint, 200, content, content_type=mime)
            elif endpoint == "files.update" and file_id:
                send(endpoint, 200, fake.update_file(file_id, params, _json(data)))
            elif endpoint == "files.delete" and file_id:
                fake.delete_file(file_id, params)
                send(endpoint, 204, None)
            elif endpoint == "upload.initiate":
                location = fake.initiate_upload(params, headers, _json(data))
                send(endpoint, 200, None, extra={"Location": location})
            elif endpoint in ("upload.chunk", "upload.status"):
                status, extra, body = fake.upload_chunk(params.get("upload_id", ""), headers,
                                                        data)
                send(endpoint, status, body, extra=extra)
            else:
                raise DriveHttpError(404, "notFound", f"No route for {self.command} "
                                     f"{self.path}")

    def _token(self, data: bytes) -> None:
        """OAuth 2.0 token endpoint for service-account JWT grants (RFC 7523): point a key's
        ``token_uri`` here. Claims are recorded unverified in ``fake.token_grants``."""
        form = {k: v[-1] for k, v in parse_qs(data.decode()).items()}
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            self._send("oauth.token", 400, {"error": "unsupported_grant_type"})
            return
        payload = form.get("assertion", "..").split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        if claims.get("iss") in self.fake.refused_accounts:
            self._send("oauth.token", 400, {"error": "invalid_grant",
                                            "error_description": "Invalid JWT Signature."})
            return
        with self.fake._lock:
            self.fake.token_grants.append(claims)
        self._send("oauth.token", 200, {"access_token": "sa-" + secrets.token_hex(8),
                                         "expires_in": 3600, "token_type": "Bearer"})

    def _send(self, endpoint: str, status: int, body: Any, *, content_type: str | None = None,
              extra: dict[str, str] | None = None) -> None:
        if isinstance(body, bytes):
            payload, ctype = body, content_type or "application/octet-stream"
        elif body is None:
            payload, ctype = b"", "text/plain"
        else:
            payload, ctype = json.dumps(body).encode(), "application/json; charset=UTF-8"
        self.fake.log(endpoint, self.command, self.path, status)
        respond(self, status, payload, ctype, extra)

    def _error(self, endpoint: str, exc: DriveHttpError) -> None:
        domain = "usageLimits" if exc.status in (403, 429) and "Limit" in exc.reason \
            else "global"
        body = {"error": {"code": exc.status, "message": exc.message,
                          "errors": [{"domain": domain, "reason": exc.reason,
                                      "message": exc.message}]}}
        self._send(endpoint, exc.status, body, extra=exc.headers)

    def _drop(self) -> None:
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _fault_error(fault: Fault) -> DriveHttpError:
    if fault.kind == "rate_limit":
        return DriveHttpError(403, "userRateLimitExceeded", "User Rate Limit Exceeded")
    if fault.kind == "project_rate_limit":
        return DriveHttpError(403, "rateLimitExceeded", "Rate Limit Exceeded")
    if fault.kind == "too_many_requests":
        headers = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
        return DriveHttpError(429, "rateLimitExceeded", "Too Many Requests", headers)
    if fault.kind == "server_error":
        return DriveHttpError(500, "backendError", "Backend Error")
    if fault.kind == "unavailable":
        return DriveHttpError(503, "backendError", "Service Unavailable")
    if fault.kind == "storage_quota":
        return DriveHttpError(403, "storageQuotaExceeded",
                              "The user's Drive storage quota has been exceeded.")
    if fault.kind == "daily_limit":
        return DriveHttpError(403, "dailyLimitExceeded", "Daily Limit Exceeded")
    raise ValueError(fault.kind)


# -- q language -------------------------------------------------------------------------------

_TOKEN = re.compile(r"""\s*(?:(?P<str>'(?:[^'\\]|\\.)*')|(?P<op>!=|<=|>=|=|<|>)
                       |(?P<punct>[(){}])|(?P<word>[A-Za-z_][A-Za-z0-9_.]*)
                       |(?P<num>-?\d+))""", re.VERBOSE)

Predicate = Callable[[dict[str, Any]], bool]


def parse_query(query: str) -> Predicate:
    """Compile the subset of Drive's search language the clients use; 400 on anything else."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(query):
        if query[pos:].strip() == "":
            break
        m = _TOKEN.match(query, pos)
        if m is None:
            raise DriveHttpError(400, "invalid", f"Invalid Value: q at {pos}")
        kind = m.lastgroup or ""
        text = m.group(kind)
        if kind == "str":
            text = re.sub(r"\\(.)", r"\1", text[1:-1])
        tokens.append((kind, text))
        pos = m.end()
    parser = _QueryParser(tokens)
    predicate = parser.parse_or()
    if parser.pos != len(tokens):
        raise DriveHttpError(400, "invalid", "Invalid Value: q has trailing tokens")
    return predicate


class _QueryParser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens, self.pos = tokens, 0

    def peek(self) -> tuple[str, str]:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", "")

    def take(self, kind: str, text: str | None = None) -> str:
        got_kind, got_text = self.peek()
        if got_kind != kind or (text is not None and got_text != text):
            raise DriveHttpError(400, "invalid", f"Invalid Value: q expected {text or kind}, "
                                 f"got {got_text!r}")
        self.pos += 1
        return got_text

    def parse_or(self) -> Predicate:
        return self._chain("or", self.parse_and, lambda a, b: lambda f: a(f) or b(f))

    def parse_and(self) -> Predicate:
        return self._chain("and", self.parse_not, lambda a, b: lambda f: a(f) and b(f))

    def _chain(self, word: str, operand: Callable[[], Predicate],
               join: Callable[[Predicate, Predicate], Predicate]) -> Predicate:
        """Operands joined left to right by ``word`` ("a or b or c")."""
        left = operand()
        while self.peek() == ("word", word):
            self.pos += 1
            left = join(left, operand())
        return left

    def parse_not(self) -> Predicate:
        if self.peek() == ("word", "not"):
            self.pos += 1
            inner = self.parse_not()
            return lambda f: not inner(f)
        if self.peek() == ("punct", "("):
            self.pos += 1
            inner = self.parse_or()
            self.take("punct", ")")
            return inner
        return self.parse_term()

    def parse_term(self) -> Predicate:
        kind, text = self.peek()
        if kind == "str":
            self.pos += 1
            self.take("word", "in")
            self.take("word", "parents")
            return lambda f, v=text: v in f["parents"]
        name = self.take("word")
        if name in ("appProperties", "properties"):
            self.take("word", "has")
            self.take("punct", "{")
            self.take("word", "key")
            self.take("op", "=")
            key = self.take("str")
            self.take("word", "and")
            self.take("word", "value")
            self.take("op", "=")
            value = self.take("str")
            self.take("punct", "}")
            return lambda f: (f.get(name) or {}).get(key) == value
        if name not in ("name", "mimeType", "trashed", "modifiedTime", "createdTime"):
            raise DriveHttpError(400, "invalid", f"Invalid Value: q field {name}")
        if self.peek() == ("word", "contains"):
            self.pos += 1
            needle = self.take("str")
            return lambda f: needle in str(f.get(name, ""))
        op = self.take("op")
        kind, raw = self.peek()
        self.pos += 1
        if kind == "word" and raw in ("true", "false"):
            value: Any = raw == "true"
        elif kind == "str":
            value = raw
        else:
            raise DriveHttpError(400, "invalid", f"Invalid Value: q value {raw!r}")
        compare = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b,
                   "<": lambda a, b: a < b, ">": lambda a, b: a > b,
                   "<=": lambda a, b: a <= b, ">=": lambda a, b: a >= b}[op]
        return lambda f: compare(f.get(name), value)


# -- fields (partial response) ----------------------------------------------------------------

def parse_fields(spec: str) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    pos = 0

    def parse_level(end: str | None) -> dict[str, Any]:
        nonlocal pos
        level: dict[str, Any] = {}
        while pos < len(spec):
            m = re.compile(r"\s*([A-Za-z_*][A-Za-z0-9_/]*)\s*").match(spec, pos)
            if m is None:
                raise DriveHttpError(400, "invalidParameter", f"Invalid field selection {spec}")
            name, pos = m.group(1), m.end()
            sub: dict[str, Any] | None = None
            if pos < len(spec) and spec[pos] == "(":
                pos += 1
                sub = parse_level(")")
            level[name] = sub
            while pos < len(spec) and spec[pos] == " ":
                pos += 1
            if pos < len(spec) and spec[pos] == ",":
                pos += 1
                continue
            if end is not None and pos < len(spec) and spec[pos] == end:
                pos += 1
                return level
        if end is not None:
            raise DriveHttpError(400, "invalidParameter", f"Invalid field selection {spec}")
        return level

    tree = parse_level(None)
    return tree


def select_fields(resource: Any, spec: str | dict[str, Any] | None) -> Any:
    tree = parse_fields(spec) if isinstance(spec, str) else spec
    if tree is None or "*" in tree:
        return json.loads(json.dumps(resource))
    if isinstance(resource, list):
        return [select_fields(item, tree) for item in resource]
    out: dict[str, Any] = {}
    for name, sub in tree.items():
        if name in resource:
            out[name] = select_fields(resource[name], sub) if sub is not None \
                else json.loads(json.dumps(resource[name]))
    return out


def _encode_token(offset: int, query: str) -> str:
    raw = json.dumps({"o": offset, "q": hashlib.sha1(query.encode()).hexdigest()[:12]})
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_token(token: str, query: str) -> int:
    try:
        raw = json.loads(base64.urlsafe_b64decode(token.encode()))
        if raw["q"] != hashlib.sha1(query.encode()).hexdigest()[:12]:
            raise ValueError
        return int(raw["o"])
    except (ValueError, KeyError, TypeError):
        raise DriveHttpError(400, "invalid", "Invalid Value: pageToken") from None


def _json(data: bytes) -> dict[str, Any]:
    if not data:
        return {}
    try:
        value = json.loads(data)
    except ValueError:
        raise DriveHttpError(400, "parseError", "Parse Error") from None
    return value if isinstance(value, dict) else {}


def _rfc3339() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
