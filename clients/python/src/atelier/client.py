"""The SDK: one ``Atelier`` client, with ``tools``, ``drives``, ``jobs`` and ``batches``."""

from __future__ import annotations

import builtins
import os
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from atelier.config import load_config
from atelier.schema import ToolCall, tool_call

FINAL = ("succeeded", "failed", "canceled")
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp")
# One upload request carries at most this many files and bytes (under the server's body limit).
UPLOAD_CHUNK_FILES = 25
UPLOAD_CHUNK_BYTES = 20 * 1024 * 1024


class AtelierError(Exception):
    """An answer of 4xx or 5xx, with the server's error envelope."""

    def __init__(self, status: int, code: str, message: str,
                 fields: dict[str, Any] | None = None, body: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields or {}
        self.body = body


@dataclass
class Update:
    """What a subscription reports: one job, or a batch's jobs summed up."""

    id: str
    status: str  # queued, running, succeeded, failed, canceled
    queue_position: int | None
    progress: float | None  # 0..1 (a batch: the mean of its jobs')
    eta_seconds: float | None
    total: int = 1
    done: int = 0  # succeeded
    failed: int = 0  # failed or canceled
    running: int = 0
    queued: int = 0
    jobs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.done + self.failed >= self.total


def summarise(ident: str, jobs: list[dict[str, Any]]) -> Update:
    """A batch's jobs as one update: counts, mean progress, the nearest queue position and
    the farthest ETA."""
    counts = {s: 0 for s in ("queued", "running", "succeeded", "failed", "canceled")}
    for job in jobs:
        counts[job["status"]] = counts.get(job["status"], 0) + 1
    positions = [j["queue_position"] for j in jobs
                 if j["status"] == "queued" and j.get("queue_position") is not None]
    etas = [j["eta_seconds"] for j in jobs
            if j["status"] not in FINAL and j.get("eta_seconds") is not None]
    progress = [1.0 if j["status"] in FINAL else _fraction(j.get("progress")) for j in jobs]
    failed = counts["failed"] + counts["canceled"]
    if counts["running"]:
        status = "running"
    elif counts["queued"]:
        status = "queued"
    elif failed and not counts["succeeded"]:
        status = "failed"
    else:
        status = "succeeded" if jobs else "queued"
    return Update(id=ident, status=status, queue_position=min(positions) if positions else None,
                  progress=sum(progress) / len(progress) if progress else None,
                  eta_seconds=max(etas) if etas else None, total=len(jobs),
                  done=counts["succeeded"], failed=failed, running=counts["running"],
                  queued=counts["queued"], jobs=jobs)


def _fraction(percent: Any) -> float:
    """A job's progress (0..100 in the API) as 0..1."""
    return min(max(float(percent or 0) / 100.0, 0.0), 1.0)


def job_update(job: dict[str, Any]) -> Update:
    status = job["status"]
    return Update(id=str(job["id"]), status=status, queue_position=job.get("queue_position"),
                  progress=1.0 if status in FINAL else _fraction(job.get("progress")),
                  eta_seconds=job.get("eta_seconds"), total=1,
                  done=int(status == "succeeded"), failed=int(status in ("failed", "canceled")),
                  running=int(status == "running"), queued=int(status == "queued"), jobs=[job])


class Atelier:
    """A client of one Atelier stack.

    ``base_url`` and ``token`` default to ``ATELIER_URL`` / ``ATELIER_TOKEN``, then to what
    ``atelier login`` stored."""

    def __init__(self, base_url: str | None = None, token: str | None = None, *,
                 timeout: float = 120.0, retries: int = 4,
                 transport: httpx.BaseTransport | None = None) -> None:
        stored = load_config()
        self.base_url = (base_url or os.environ.get("ATELIER_URL") or stored.get("url")
                         or "http://127.0.0.1:8000").rstrip("/")
        self.token = token or os.environ.get("ATELIER_TOKEN") or stored.get("token") or ""
        self.retries = retries
        headers = {"User-Agent": "atelier-python/0.1", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self.http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout,
                                 transport=transport, follow_redirects=True)
        self.tools = Tools(self)
        self.drives = Drives(self)
        self.jobs = Jobs(self)
        self.batches = Batches(self)
        self._schema: dict[str, Any] | None = None
        self._catalogue: list[dict[str, Any]] | None = None

    def __enter__(self) -> Atelier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One call; 429 and 503 are retried after the server's Retry-After, connection
        errors with a short backoff. Any other 4xx/5xx raises ``AtelierError``."""
        for attempt in range(self.retries + 1):
            try:
                resp = self.http.request(method, path, **kwargs)
            except httpx.TransportError:
                if attempt == self.retries:
                    raise
                time.sleep(min(2 ** attempt, 10))
                continue
            if resp.status_code in (429, 503) and attempt < self.retries:
                try:
                    wait = float(resp.headers.get("Retry-After", "1"))
                except ValueError:
                    wait = 1.0
                time.sleep(min(max(wait, 0.5), 60))
                continue
            break
        if resp.status_code >= 400:
            raise error_from(resp)
        return resp

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        return self.request(method, path, **kwargs).json()

    def me(self) -> dict[str, Any]:
        return dict(self.json("GET", "/api/me/"))

    def schema(self) -> dict[str, Any]:
        """The stack's OpenAPI document (read once per client)."""
        if self._schema is None:
            self._schema = dict(self.json("GET", "/api/schema/", params={"format": "json"}))
        return self._schema

    def catalogue(self) -> list[dict[str, Any]]:
        if self._catalogue is None:
            self._catalogue = list(self.json("GET", "/api/tools/"))
        return self._catalogue


def error_from(resp: httpx.Response) -> AtelierError:
    try:
        body = resp.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and "error" in body:
        return AtelierError(resp.status_code, str(body["error"]), str(body.get("message", "")),
                            body.get("fields") or {}, body)
    return AtelierError(resp.status_code, "http_error", resp.text[:300] or resp.reason_phrase,
                        None, body)


class Tools:
    def __init__(self, client: Atelier) -> None:
        self.client = client

    def list(self) -> builtins.list[dict[str, Any]]:
        """The catalogue (GET /api/tools/)."""
        return self.client.catalogue()

    def call(self, slug: str) -> ToolCall:
        """How a tool is called: its path, whether it takes cards, and its input fields, read
        from the stack's OpenAPI schema."""
        return tool_call(self.client.schema(), self.client.catalogue(), slug)

    def run(self, slug: str, cards: builtins.list[dict[str, Any]] | None = None,
            inputs: dict[str, Any] | None = None, *, wait: bool = True,
            on_update: Callable[[Update], None] | None = None,
            idempotency_key: str | None = None,
            webhook_url: str | None = None) -> dict[str, Any]:
        """Run a tool. A card tool takes ``cards`` and answers with the batch
        (``{batch_id, count, jobs, skipped?}``); a direct tool takes ``inputs``, is submitted
        with ``Prefer: respond-async`` and, with ``wait``, answers with the finished job.
        ``webhook_url``: each job's finished event is also POSTed there, signed with the
        organisation's per-request secret (``GET /api/webhooks/request-secret/``)."""
        call = self.call(slug)
        headers = {"Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        params = {"webhook_url": webhook_url} if webhook_url else {}
        if call.cards:
            if cards is None:
                raise ValueError(f"{call.name} takes cards: pass cards=[{{...}}, ...]")
            return dict(self.client.json("POST", call.path, json=cards, headers=headers,
                                         params=params))
        if inputs is None:
            raise ValueError(f"{call.name} takes inputs: pass inputs={{...}}")
        headers["Prefer"] = "respond-async"
        job = dict(self.client.json("POST", call.path, json=inputs, headers=headers,
                                    params=params))
        if not wait or "id" not in job:
            return job
        return self.client.jobs.wait(str(job["id"]), on_update=on_update)

    def urls(self, slug: str) -> builtins.list[str]:
        """The signed links of the images in the tool's input folder (the Get URLs call)."""
        call = self.call(slug)
        if call.urls_path:
            return [row["img_url"] for row in self.client.json("GET", call.urls_path)]
        folder = self.client.drives.folder(slug)
        return [f["url"] for f in self.client.drives.files(folder)
                if f["name"].lower().endswith(IMAGE_SUFFIXES)]


@dataclass
class UploadResult:
    uploaded: builtins.list[dict[str, Any]] = field(default_factory=list)
    # not taken by the server, with its reasons
    skipped: builtins.list[dict[str, str]] = field(default_factory=list)
    existing: builtins.list[str] = field(default_factory=list)  # already there: not sent


class Drives:
    def __init__(self, client: Atelier) -> None:
        self.client = client

    def list(self) -> builtins.list[dict[str, Any]]:
        """The organisation's drive folders (GET /api/drives/)."""
        return list(self.client.json("GET", "/api/drives/"))

    def folder(self, tool: str, role: str = "input", category: str | None = None) -> str:
        """The id of a tool's drive folder (a folder id is returned as it is)."""
        rows = self.list()
        for row in rows:
            if str(row["folder"]) == tool:
                return tool
        for row in rows:
            if row["tool"] == tool and row["role"] == role and row["category"] == category:
                return str(row["folder"])
        tools = sorted({r["tool"] for r in rows})
        raise ValueError(f"No {role} folder for {tool!r}"
                         + (f" ({category})" if category else "")
                         + f"; tools with drive folders: {', '.join(tools)}")

    def files(self, folder: str) -> builtins.list[dict[str, Any]]:
        return list(self.client.json("GET", f"/api/drives/{folder}/files"))

    def upload(self, folder: str, paths: Iterable[str | Path], parallel: int = 4,
               on_progress: Callable[[int, int], None] | None = None) -> UploadResult:
        """Upload files (and zips, which the server expands) into a folder: a folder id, or a
        tool's slug for its input folder. Files already there by name and size are not sent
        again, so an interrupted upload resumes where it stopped."""
        folder = self.folder(folder)
        have = {(f["name"], int(f["size"])) for f in self.files(folder)}
        result = UploadResult()
        todo: builtins.list[Path] = []
        for raw in paths:
            path = Path(raw)
            if (path.name, path.stat().st_size) in have:
                result.existing.append(path.name)
            else:
                todo.append(path)
        chunks = list(_chunks(todo))
        sent = 0
        if on_progress:
            on_progress(0, len(todo))
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            futures = {pool.submit(self._send, folder, chunk): chunk for chunk in chunks}
            for future in as_completed(futures):
                body = future.result()
                result.uploaded.extend(body.get("uploaded", []))
                result.skipped.extend(body.get("skipped", []))
                sent += len(futures[future])
                if on_progress:
                    on_progress(sent, len(todo))
        result.uploaded.sort(key=lambda f: f["name"].lower())
        return result

    def _send(self, folder: str, chunk: builtins.list[Path]) -> dict[str, Any]:
        handles = [path.open("rb") for path in chunk]
        try:
            files = [("files", (path.name, handle, _content_type(path)))
                     for path, handle in zip(chunk, handles, strict=True)]
            try:
                return dict(self.client.json("POST", f"/api/drives/{folder}/files", files=files))
            except AtelierError as exc:
                if exc.status == 400 and isinstance(exc.body, dict) and "skipped" in exc.body:
                    return {"uploaded": [], "skipped": exc.body["skipped"]}
                raise
        finally:
            for handle in handles:
                handle.close()


def _content_type(path: Path) -> str:
    import mimetypes

    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def _source_stem(payload: dict[str, Any]) -> str:
    """The name of the photo a job was made from (its first image link's file name)."""
    for value in payload.values():
        if isinstance(value, str) and value.startswith(("http://", "https://")):
            last = value.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
            stem, dot, ext = last.rpartition(".")
            if dot and "." + ext.lower() in IMAGE_SUFFIXES and stem:
                return "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)[:80]
    return ""


def _chunks(paths: builtins.list[Path]) -> Iterator[builtins.list[Path]]:
    chunk: builtins.list[Path] = []
    size = 0
    for path in paths:
        length = path.stat().st_size
        if chunk and (len(chunk) >= UPLOAD_CHUNK_FILES or size + length > UPLOAD_CHUNK_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(path)
        size += length
    if chunk:
        yield chunk


class Jobs:
    def __init__(self, client: Atelier) -> None:
        self.client = client

    def get(self, job_id: str) -> dict[str, Any]:
        return dict(self.client.json("GET", f"/api/jobs/{job_id}/"))

    def list(self, batch: str | None = None, *, status: str | None = None,
             tool: str | None = None, limit: int | None = None) -> builtins.list[dict[str, Any]]:
        """Jobs, newest first; every page of them unless ``limit`` is given."""
        params: dict[str, Any] = {k: v for k, v in (("batch", batch), ("status", status),
                                                      ("tool", tool)) if v}
        page_size = min(limit or 500, 500)
        found: builtins.list[dict[str, Any]] = []
        offset = 0
        while True:
            body = self.client.json("GET", "/api/jobs/",
                                    params={**params, "limit": page_size, "offset": offset})
            if isinstance(body, list):  # an unpaginated answer
                return body[:limit] if limit else body
            rows = body.get("results", [])
            found.extend(rows)
            offset += len(rows)
            if not body.get("next") or not rows or (limit and len(found) >= limit):
                return found[:limit] if limit else found

    def subscribe(self, job_or_batch: str | dict[str, Any],
                  on_update: Callable[[Update], None] | None = None, *,
                  interval: float = 0.5, max_interval: float = 5.0,
                  timeout: float | None = None) -> Update:
        """Follow a job or a batch until it is finished, polling with backoff (faster again
        whenever something changed). ``on_update`` is called with each change: status, queue
        position, progress, ETA (and, for a batch, done / failed counts)."""
        ident, is_batch = self._ident(job_or_batch)
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = interval
        last: tuple[Any, ...] | None = None
        while True:
            if is_batch:
                update = summarise(ident, self.list(batch=ident))
            else:
                update = job_update(self.get(ident))
            key = (update.status, update.queue_position, update.progress, update.done,
                   update.failed, update.running, update.eta_seconds)
            if key != last:
                last = key
                delay = interval
                if on_update:
                    on_update(update)
            else:
                delay = min(delay * 1.5, max_interval)
            if is_batch and not update.total:
                raise AtelierError(404, "not_found", f"No job or batch {ident}.")
            if update.finished:
                return update
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"{ident} is not finished after {timeout} s")
            time.sleep(delay if deadline is None else
                       max(0.0, min(delay, deadline - time.monotonic())))

    def wait(self, job_id: str, on_update: Callable[[Update], None] | None = None,
             timeout: float | None = None) -> dict[str, Any]:
        """The job once finished."""
        return self.subscribe(job_id, on_update, timeout=timeout).jobs[0]

    def _ident(self, job_or_batch: str | dict[str, Any]) -> tuple[str, bool]:
        if isinstance(job_or_batch, dict):
            if "batch_id" in job_or_batch and "jobs" in job_or_batch:
                return str(job_or_batch["batch_id"]), True
            return str(job_or_batch["id"]), False
        ident = str(job_or_batch)
        try:
            self.get(ident)
            return ident, False
        except AtelierError as exc:
            if exc.status == 404:
                return ident, True
            raise


class Batches:
    def __init__(self, client: Atelier) -> None:
        self.client = client

    def wait(self, batch_id: str, on_update: Callable[[Update], None] | None = None,
             timeout: float | None = None) -> Update:
        """The batch once every job is finished (succeeded, failed or canceled)."""
        return self.client.jobs.subscribe({"batch_id": batch_id, "jobs": []}, on_update,
                                          timeout=timeout)

    def download(self, batch_id: str, directory: str | Path, *,
                 on_file: Callable[[Path], None] | None = None) -> builtins.list[Path]:
        """Every output of the batch's succeeded jobs into ``directory``. A file already there
        with the output's size is kept (a download resumes)."""
        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        written: builtins.list[Path] = []
        seen: set[str] = set()
        for job in sorted(self.client.jobs.list(batch=batch_id), key=lambda j: j["created_at"]):
            if job["status"] != "succeeded":
                continue
            stem = _source_stem(job.get("input") or {}) or str(job["id"])[:8]
            for output in job.get("outputs", []):
                name = f"{stem}-{Path(str(output['filename'])).name or output['index']}"
                if name in seen:  # two cards of one photo
                    name = f"{str(job['id'])[:8]}-{name}"
                seen.add(name)
                path = target / name
                if not (path.exists() and path.stat().st_size == output.get("size")):
                    resp = self.client.request("GET", output["url"])
                    tmp = path.with_name(path.name + ".part")
                    tmp.write_bytes(resp.content)
                    tmp.replace(path)
                written.append(path)
                if on_file:
                    on_file(path)
        return written

    def report(self, batch_id: str) -> str:
        """The batch's CSV report."""
        return self.client.request("GET", f"/api/batches/{batch_id}/report.csv").text

    def retry_failed(self, batch_id: str) -> dict[str, Any]:
        return dict(self.client.json("POST", f"/api/batches/{batch_id}/retry-failed/"))
