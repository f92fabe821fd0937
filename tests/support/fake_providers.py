"""Loopback servers that speak the generative providers' protocols, for the adapter tests.

- fake_openai(): an OpenAI-compatible image API under /v1: POST /images/generations (JSON) and
  POST /images/edits (multipart), Bearer auth, data[].b64_json or data[].url answers (the URLs
  served by the same server under /files/, without auth), OpenAI-shaped error bodies, and
  gpt-image models' refusal of response_format.
- fake_tryon(): a FASHN-style try-on API under /v1: POST /run → {id, error}, GET /status/{id}
  walking through a scripted list of statuses, Bearer auth.

Faults are queued per request: "429" (with Retry-After when given as ("429", seconds)), "500",
("error", status, message), "timeout" (answers after the server's slow_seconds), "garbage"
(a 200 that is not JSON). Every request is recorded with its headers and decoded body.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import policy
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler
from typing import Any

from PIL import Image

from tests.support.loopback import respond, serving

Fault = str | tuple[Any, ...]


def png(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "PNG")
    return buf.getvalue()


def jpeg(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, "JPEG")
    return buf.getvalue()


def output_color(i: int) -> tuple[int, int, int]:
    """The colour of the fake's i-th output image (0-based)."""
    return (40 * i % 256, 120, 200)


@dataclass
class Part:
    name: str
    filename: str | None
    content_type: str
    data: bytes


@dataclass
class Call:
    method: str
    path: str
    headers: dict[str, str]
    json: Any = None
    form: dict[str, list[str]] = field(default_factory=dict)
    files: list[Part] = field(default_factory=list)


@dataclass
class FakeServer:
    url: str = ""  # the API root, e.g. http://127.0.0.1:PORT/v1
    origin: str = ""  # http://127.0.0.1:PORT
    api_key: str = "sk-test-0123456789"
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    slow_seconds: float = 2.0
    files: dict[str, bytes] = field(default_factory=dict)

    def api_calls(self, path_suffix: str = "") -> list[Call]:
        return [c for c in self.calls
                if not c.path.startswith("/files/") and c.path.endswith(path_suffix)]


@dataclass
class FakeOpenAI(FakeServer):
    output: str = "b64"  # "b64", "url" (served here), "data_url", "not_image"


@dataclass
class FakeTryOn(FakeServer):
    # What successive polls of a job answer; the last one repeats.
    statuses: list[str] = field(default_factory=lambda: [
        "starting", "in_queue", "processing", "processing", "completed"])
    error_message: str = "The model image could not be processed: no person detected."
    output: str = "url"  # "url" or "data_url"
    outputs: int = 1
    poll_faults: list[Fault] = field(default_factory=list)
    jobs: dict[str, int] = field(default_factory=dict)  # job id → polls so far


def _parse_multipart(content_type: str, body: bytes) -> tuple[dict[str, list[str]], list[Part]]:
    msg = BytesParser(policy=policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    form: dict[str, list[str]] = {}
    files: list[Part] = []
    for part in msg.iter_parts():
        name = str(part.get_param("name", header="content-disposition") or "")
        filename = part.get_filename()
        raw = part.get_payload(decode=True)
        payload = raw if isinstance(raw, bytes) else b""
        if filename is not None:
            files.append(Part(name, filename, part.get_content_type(), payload))
        else:
            form.setdefault(name, []).append(payload.decode())
    return form, files


class _Handler(BaseHTTPRequestHandler):
    state: FakeServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    # --- plumbing --------------------------------------------------------------------------

    def _record(self) -> Call:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        call = Call(self.command, self.path, dict(self.headers.items()))
        ctype = self.headers.get("Content-Type", "")
        if ctype.startswith("application/json") and body:
            call.json = json.loads(body)
        else:
            self._record_form(call, ctype, body)
        self.state.calls.append(call)
        return call

    def _record_form(self, call: Call, ctype: str, body: bytes) -> None:
        """A body that is not JSON, onto the call: this API's uploads are multipart."""
        if ctype.startswith("multipart/form-data"):
            call.form, call.files = _parse_multipart(ctype, body)

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None,
              content_type: str = "application/json") -> None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        respond(self, status, data, content_type, headers)

    def _error(self, status: int, message: str, **extra: Any) -> None:
        self._send(status, {"error": {"message": message, "type": "invalid_request_error",
                                      **extra}})

    def _fault(self, faults: list[Fault]) -> bool:
        """Answer with the next queued fault, if any; True when one was sent."""
        if not faults:
            return False
        fault = faults.pop(0)
        kind = fault[0] if isinstance(fault, tuple) else fault
        if kind == "429":
            headers = {"Retry-After": str(fault[1])} if isinstance(fault, tuple) else {}
            self._send(429, {"error": {"message": "Rate limit reached for images per minute.",
                                       "type": "rate_limit_error"}}, headers)
        elif kind == "500":
            self._send(500, {"error": {"message": "The server had an error while processing "
                                                  "your request.", "type": "server_error"}})
        elif kind == "error":
            self._error(int(fault[1]), str(fault[2]))
        elif kind == "timeout":
            time.sleep(self.state.slow_seconds)
            try:
                self._send(500, {"error": {"message": "too late"}})
            except OSError:
                pass
        elif kind == "garbage":
            self._send(200, b"<html>Bad gateway</html>", content_type="text/html")
        else:  # pragma: no cover - a test's typo
            raise AssertionError(f"unknown fault {fault!r}")
        return True

    def _authorised(self) -> bool:
        auth = self.headers.get("Authorization", "")
        if auth == f"Bearer {self.state.api_key}":
            return True
        given = auth.removeprefix("Bearer ")
        # Like OpenAI, the answer quotes the key it was given (ours scrubs it).
        self._error(401, f"Incorrect API key provided: {given}.", code="invalid_api_key")
        return False

    def _serve_file(self) -> bool:
        name = self.path.removeprefix("/files/")
        if self.path.startswith("/files/") and name in self.state.files:
            data = self.state.files[name]
            self._send(200, data, content_type="image/png")
            return True
        return False

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        call = self._record()
        if self._serve_file():
            return
        self.handle_get(call)

    def do_POST(self) -> None:  # noqa: N802
        call = self._record()
        self.handle_post(call)

    def handle_get(self, call: Call) -> None:
        self._error(404, "Not found")

    def handle_post(self, call: Call) -> None:
        self._error(404, "Not found")

    def image_ref(self, data: bytes, mode: str) -> str:
        if mode == "data_url":
            return "data:image/png;base64," + base64.b64encode(data).decode()
        name = f"out-{len(self.state.files) + 1}.png"
        self.state.files[name] = data
        return f"{self.state.origin}/files/{name}"


class _OpenAIHandler(_Handler):
    state: FakeOpenAI

    def handle_post(self, call: Call) -> None:
        if call.path not in ("/v1/images/generations", "/v1/images/edits"):
            return self._error(404, f"Invalid URL (POST {call.path})")
        if not self._authorised() or self._fault(self.state.faults):
            return None
        if call.path.endswith("/generations"):
            fields = dict(call.json or {})
        else:
            fields = {k: v[-1] for k, v in call.form.items()}
            images = [p for p in call.files if p.name in ("image", "image[]")]
            if not images:
                return self._error(400, "Missing required parameter: 'image'.")
            for p in images:
                if p.content_type not in ("image/png", "image/jpeg", "image/webp"):
                    return self._error(400, f"Invalid file '{p.filename}': unsupported mimetype "
                                            f"('{p.content_type}').")
        if not str(fields.get("prompt") or "").strip():
            return self._error(400, "Missing required parameter: 'prompt'.")
        model = str(fields.get("model") or "")
        if model.startswith("gpt-image") and "response_format" in fields:
            return self._error(400, "Unknown parameter: 'response_format'.",
                               code="unknown_parameter")
        n = int(fields.get("n") or 1)
        data = []
        for i in range(n):
            image = png(output_color(i))
            if self.state.output == "b64":
                data.append({"b64_json": base64.b64encode(image).decode()})
            elif self.state.output == "not_image":
                data.append({"b64_json": base64.b64encode(b"GIF89a not really").decode()})
            else:
                data.append({"url": self.image_ref(image, self.state.output)})
        return self._send(200, {"created": int(time.time()), "data": data})


class _TryOnHandler(_Handler):
    state: FakeTryOn
    _ids = itertools.count(1)

    def handle_post(self, call: Call) -> None:
        if call.path != "/v1/run":
            return self._error(404, "Not found")
        if not self._authorised() or self._fault(self.state.faults):
            return None
        body = call.json or {}
        for key in ("model_image", "garment_image"):
            value = str(body.get(key) or "")
            if not value.startswith("data:image/") or ";base64," not in value:
                return self._send(400, {"id": None, "error": {
                    "name": "InputValidationError", "message": f"{key} must be a data URL."}})
        job_id = f"job-{next(self._ids)}"
        self.state.jobs[job_id] = 0
        return self._send(200, {"id": job_id, "error": None})

    def handle_get(self, call: Call) -> None:
        if not call.path.startswith("/v1/status/"):
            return self._error(404, "Not found")
        if not self._authorised() or self._fault(self.state.poll_faults):
            return None
        job_id = call.path.removeprefix("/v1/status/")
        if job_id not in self.state.jobs:
            return self._send(404, {"error": {"name": "NotFound",
                                              "message": f"Job {job_id} not found."}})
        polls = self.state.jobs[job_id]
        self.state.jobs[job_id] = polls + 1
        status = self.state.statuses[min(polls, len(self.state.statuses) - 1)]
        answer: dict[str, Any] = {"id": job_id, "status": status, "output": [], "error": None}
        if status == "completed":
            answer["output"] = [self.image_ref(png((0, 200, 0 + 30 * i)), self.state.output)
                                for i in range(self.state.outputs)]
        elif status == "failed":
            answer["error"] = {"name": "ImageLoadError", "message": self.state.error_message}
        return self._send(200, answer)


@contextmanager
def _serve(handler: type[_Handler], state: FakeServer) -> Iterator[Any]:
    handler_cls = type(f"Bound{handler.__name__}", (handler,), {"state": state})
    with serving(handler_cls) as server:
        state.origin = server.origin
        state.url = f"{state.origin}/v1"
        yield state


@contextmanager
def fake_openai(**kwargs: Any) -> Iterator[FakeOpenAI]:
    with _serve(_OpenAIHandler, FakeOpenAI(**kwargs)) as state:
        yield state


@contextmanager
def fake_tryon(**kwargs: Any) -> Iterator[FakeTryOn]:
    with _serve(_TryOnHandler, FakeTryOn(**kwargs)) as state:
        yield state
