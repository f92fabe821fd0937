"""What every provider adapter shares: one job's conversation with a provider (``ProviderCall``).

A ProviderCall holds the job's deadline, its progress callback and its HTTP settings, and does
for every adapter, whichever way it speaks to its provider:

- HTTP 429: waits Retry-After (seconds or an HTTP date), else an exponential backoff, at most
  max_retries times and never past the deadline, reporting progress while it waits (so a
  cancel stops the wait); then fails with the provider's message;
- timeouts: each request is bounded by the configured timeout and by what is left of the
  deadline (provider_timeout);
- errors in the provider's words: ``message()`` reads the provider's error body (OpenAI and
  Google ``{"error": {"message"}}``, FASHN ``{"error": {"name", "message"}}``, fal and
  Replicate ``{"detail"}``, fal's validation list ``{"detail": [{"msg"}]}``, Replicate's
  ``{"title", "detail"}``), scrubs the key and caps it (provider_error);
- outputs: ``output_image()`` takes a data URL or an http(s) URL (fetched with workers.fetch's
  address checks and the allow list, never with our key), ``decode_b64()`` base64;
- polling: ``poll()`` walks a provider's queue statuses to progress (queued 10-20, running
  30→85) and tolerates max_retries transient failures in a row.

Adapters speak HTTP through ``request()`` (requests) or through an official client library
built on httpx, given ``transport()``: that transport applies the same deadline, 429 and error
rules below the library (whose own retries are turned off), and ``sdk()`` runs a library call
so that what the transport raised (or a cancel raised by the progress callback) comes out as
itself rather than wrapped in the library's connection error.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import requests

from workers.engines.base import EngineError, Progress
from workers.providers.config import ProviderConfig

USER_AGENT = "Atelier-Provider/1.0"
MAX_MESSAGE = 500
T = TypeVar("T")
_BEARER = object()

# What the provider reports a run cost ({"credits": 1}, {"seconds": 4.2}, {"images": 2},
# {"tokens": 1234}), gathered for the engine that runs the adapter (select.ProviderEngine).
RUN_USAGE: ContextVar[dict[str, float] | None] = ContextVar("provider_run_usage", default=None)


def add_usage(kind: str, amount: Any) -> None:
    """Count what the provider says a run cost, when someone is collecting it."""
    usage = RUN_USAGE.get()
    if usage is None:
        return
    try:
        value = float(amount)
    except (TypeError, ValueError):
        return
    if value >= 0:
        usage[kind] = usage.get(kind, 0.0) + value


class ProviderHttpError(EngineError):
    """A provider call that failed; status is None for network errors and timeouts."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(code, message)
        self.status = status

    @property
    def transient(self) -> bool:
        return self.status is None or self.status >= 500 or self.status == 429


class ProviderCall:
    """One job's conversation with a provider: a session, the deadline, 429 retries."""

    def __init__(self, config: ProviderConfig, progress: Progress, *, label: str,
                 authorization: Any = _BEARER) -> None:
        self.config = config
        self.progress = progress
        self.label = label  # "image provider", "try-on provider": for messages
        self.started = time.monotonic()
        self.end = self.started + float(config.deadline)
        self.percent = 0.0
        self.session = requests.Session()
        self.session.trust_env = False  # no environment proxies, no .netrc replacing our auth
        if config.proxy:
            self.session.proxies = {"http": config.proxy, "https": config.proxy}
        self.session.headers["User-Agent"] = USER_AGENT
        if authorization is _BEARER:
            authorization = f"Bearer {config.api_key}" if config.api_key else None
        if authorization:
            self.session.headers["Authorization"] = str(authorization)
        self._secrets = [s for s in (config.api_key, authorization) if s]
        self._raised: BaseException | None = None  # what our transport raised under a library

    def __enter__(self) -> ProviderCall:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.session.close()

    def add_secret(self, value: str) -> None:
        """One more value never to show in a message (an access token obtained on the way)."""
        if value:
            self._secrets.append(value)

    def remaining(self) -> float:
        return self.end - time.monotonic()

    def report(self, percent: float, message: str | None = None) -> None:
        """Progress, never backwards; it raises when the job must stop (cancel, take-over)."""
        self.percent = max(self.percent, percent)
        self.progress(self.percent, message)

    def timeout_error(self) -> ProviderHttpError:
        return ProviderHttpError(
            "provider_timeout",
            f"The {self.label} did not answer within {self._seconds(self.config.deadline)}.")

    def sleep(self, seconds: float, message: str | None = None) -> None:
        """Wait without outliving the deadline, reporting progress (so a cancel stops us)."""
        until = time.monotonic() + min(seconds, max(0.0, self.remaining()))
        while True:
            self.report(self.percent, message)
            left = until - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(0.25, left))

    def retry_wait(self, status: int, headers: Mapping[str, str], attempt: int) -> float | None:
        """How long to wait before retrying an answer with this status, or None for no retry:
        429 only, max_retries times, Retry-After or a jittered exponential backoff, capped at
        backoff_max, and only when the wait ends before the deadline."""
        if status != 429 or attempt >= int(self.config.max_retries):
            return None
        wait = _retry_after(headers.get("Retry-After"))
        if wait is None:
            jitter = 0.8 + 0.4 * random.random()
            wait = float(self.config.backoff) * (2 ** attempt) * jitter
        wait = min(wait, float(self.config.backoff_max))
        return wait if wait < self.remaining() else None

    def retried(self, status: int, headers: Mapping[str, str], body: bytes, attempt: int) -> bool:
        """True after waiting to ask again (see retry_wait); raises for an error status; False
        for an answer to use."""
        wait = self.retry_wait(status, headers, attempt)
        if wait is not None:
            self.sleep(wait, f"The {self.label} is busy; retrying")
            return True
        if status >= 300:
            raise ProviderHttpError("provider_error", self.message(body, status), status)
        return False

    def unanswered(self, exc: Exception, timed_out: bool) -> ProviderHttpError:
        """The error for a request that got no answer at all."""
        if timed_out:
            return ProviderHttpError("provider_timeout",
                                     f"The {self.label} did not answer in time.")
        return ProviderHttpError(
            "provider_error", f"The {self.label} could not be reached ({type(exc).__name__}).")

    def request_timeout(self) -> tuple[float, float]:
        """(connect, read) seconds for the next request: the configured timeout, within the
        deadline."""
        remaining = self.remaining()
        if remaining <= 0:
            raise self.timeout_error()
        return min(10.0, remaining), min(float(self.config.timeout), remaining)

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """Call {base_url}{path} (or an absolute URL); the decoded JSON answer. Retries HTTP 429
        within bounds."""
        url = path if path.startswith(("http://", "https://")) else self.config.root + path
        attempt = 0
        while True:
            timeout = self.request_timeout()
            try:
                resp = self.session.request(method, url, stream=True, allow_redirects=False,
                                            timeout=timeout, **kwargs)
            except requests.RequestException as exc:
                raise self.unanswered(exc, isinstance(exc, requests.Timeout)) from exc
            try:
                body = self._read(resp)
            finally:
                resp.close()
            if self.retried(resp.status_code, resp.headers, body, attempt):
                attempt += 1
                continue
            try:
                return json.loads(body)
            except (ValueError, UnicodeDecodeError) as exc:
                raise ProviderHttpError(
                    "provider_error", f"The {self.label} answered with something other than "
                                      "JSON.", resp.status_code) from exc

    def _read(self, resp: requests.Response) -> bytes:
        try:
            return self.read_capped(resp.iter_content(65536), resp.status_code)
        except requests.exceptions.ConnectionError as exc:
            # urllib3 reports a read timeout in the middle of a body this way.
            if "timed out" in str(exc).lower():
                raise ProviderHttpError("provider_timeout",
                                        f"The {self.label} did not answer in time.") from exc
            raise ProviderHttpError("provider_error",
                                    f"The {self.label}'s answer was interrupted.") from exc
        except requests.RequestException as exc:
            raise ProviderHttpError("provider_error",
                                    f"The {self.label}'s answer was interrupted.") from exc

    def read_capped(self, chunks: Iterable[bytes], status: int) -> bytes:
        """An answer's body, read within max_bytes and the deadline."""
        cap = int(self.config.max_bytes)
        read: list[bytes] = []
        total = 0
        for chunk in chunks:
            total += len(chunk)
            if total > cap:
                raise self.too_large(status)
            read.append(chunk)
            if self.remaining() <= 0:
                raise self.timeout_error()
        return b"".join(read)

    def too_large(self, status: int | None) -> ProviderHttpError:
        cap = int(self.config.max_bytes)
        return ProviderHttpError(
            "provider_error",
            f"The {self.label}'s answer is larger than {cap // (1024 * 1024)} MB.", status)

    def message(self, body: bytes, status: int) -> str:
        """The provider's own message, from its error body when it has one."""
        message = ""
        try:
            data = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict):
            err = data.get("error")
            if isinstance(err, dict):
                message = str(err.get("message") or err.get("code") or err.get("name") or "")
            elif isinstance(err, str):  # FASHN: {"error": "<name>", "message": "<text>"}
                message = data["message"] if isinstance(data.get("message"), str) else err
            if not message:
                detail = data.get("detail") or data.get("message")
                if isinstance(detail, str):
                    message = detail
                elif isinstance(detail, list):  # fal's (FastAPI's) validation errors
                    message = "; ".join(_validation_text(d) for d in detail if d)
            if not message and isinstance(data.get("title"), str):
                message = data["title"]
        elif data is None and body and len(body) < 2000:
            text = body.decode("utf-8", "replace").strip()
            if text and not text.lstrip().startswith("<"):
                message = text
        if not message:
            message = f"The {self.label} answered HTTP {status}."
        return self.scrub(message)

    def scrub(self, message: str) -> str:
        for secret in self._secrets:
            message = message.replace(str(secret), "***")
        if self.config.api_key:
            message = message.replace(self.config.api_key, "***")
        message = " ".join(message.split())
        return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"

    # --- official client libraries (httpx) ---------------------------------------------------

    def transport(self) -> Any:
        """An httpx transport applying this call's deadline, 429 and error rules."""
        from workers.providers.transport import ProviderTransport

        return ProviderTransport(self)

    def http_client(self) -> Any:
        """An httpx.Client over ``transport()``, for libraries that take one."""
        import httpx

        connect, read = (min(10.0, float(self.config.timeout)), float(self.config.timeout))
        return httpx.Client(transport=self.transport(), trust_env=False,
                            timeout=httpx.Timeout(read, connect=connect),
                            headers={"User-Agent": USER_AGENT}, follow_redirects=False)

    def raised_below(self, exc: BaseException) -> None:
        """Our transport records what it raised, so ``sdk()`` can raise it as itself."""
        self._raised = exc

    def sdk(self, fn: Callable[[], T]) -> T:
        """Run one client-library call; what our transport or the progress callback raised
        comes out as itself, anything else the library raised as a provider error."""
        self._raised = None
        try:
            return fn()
        except EngineError:
            raise
        except Exception as exc:
            below = self._raised
            self._raised = None
            if below is not None:
                raise below from None
            name = type(exc).__name__
            if "timeout" in name.lower():
                raise ProviderHttpError("provider_timeout",
                                        f"The {self.label} did not answer in time.") from exc
            text = self.scrub(str(exc)) or name
            raise ProviderHttpError("provider_error",
                                    f"The {self.label} call failed: {text}") from exc

    # --- queues --------------------------------------------------------------------------------

    def poll(self, fetch: Callable[[], T], state: Callable[[T], tuple[str, str | None]]) -> T:
        """Poll a queued prediction until it is done; its last answer.

        ``fetch()`` asks the provider; ``state(answer)`` says (kind, text) with kind one of
        "done", "failed" (text: the provider's message), "starting", "queued" (text: e.g. the
        queue position), "running". A transient failure of ``fetch`` (HTTP 429, 5xx, network,
        timeout of one request) is tolerated max_retries times in a row: the job is already
        paid for and running. The remote job is not canceled when ours is.
        """
        config = self.config
        running_polls = 0
        failures = 0
        while True:
            if self.remaining() <= 0:
                raise ProviderHttpError(
                    "provider_timeout",
                    f"The {self.label} did not finish within "
                    f"{self._seconds(float(config.deadline))}.")
            self.sleep(float(config.poll_interval), f"Waiting for the {self.label}")
            if self.remaining() <= 0:
                continue  # reported above as a timeout
            try:
                answer = fetch()
            except ProviderHttpError as exc:
                if exc.transient and failures < int(config.max_retries):
                    failures += 1
                    continue
                raise
            failures = 0
            kind, text = state(answer)
            if kind == "done":
                return answer
            if kind == "failed":
                raise ProviderHttpError(
                    "provider_error",
                    self.scrub(text or f"The {self.label} could not process the images."))
            if kind == "starting":
                self.report(10.0, f"Starting at the {self.label}")
            elif kind == "queued":
                self.report(20.0, f"Queued at the {self.label}" + (f" ({text})" if text else ""))
            else:  # running, or a state the adapter does not know: still running
                running_polls += 1
                self.report(30.0 + 55.0 * (1.0 - 0.85 ** running_polls),
                            f"The {self.label} is working")

    # --- outputs -------------------------------------------------------------------------------

    def output_images(self, urls: list[str], none_text: str) -> list[bytes]:
        """The images a job's output URLs give; ``none_text`` is the error when it gave none."""
        if not urls:
            raise ProviderHttpError("provider_error", none_text)
        self.report(90, "Downloading the result")
        return [self.output_image(u) for u in urls]

    def output_image(self, value: str) -> bytes:
        """An output given as a data URL or an http(s) URL, as bytes."""
        if value.startswith("data:"):
            header, _, payload = value.partition(",")
            if ";base64" not in header:
                raise ProviderHttpError("provider_error",
                                        f"The {self.label} returned an unreadable data URL.")
            return self.decode_b64(payload)
        from workers.fetch import fetch_image

        remaining = self.remaining()
        if remaining <= 0:
            raise self.timeout_error()
        try:
            fetched = fetch_image(value, max_bytes=int(self.config.max_bytes),
                                  deadline=min(remaining, float(self.config.timeout)),
                                  allow=self.config.fetch_allow)
        except EngineError as exc:
            code = "provider_timeout" if exc.code == "fetch_timeout" else "provider_error"
            raise ProviderHttpError(
                code, f"The {self.label}'s result could not be downloaded: {exc.message}") from exc
        return fetched.data

    def decode_b64(self, payload: str) -> bytes:
        if len(payload) > int(self.config.max_bytes) * 4 // 3 + 4:
            raise ProviderHttpError("provider_error", f"The {self.label}'s image is too large.")
        try:
            return base64.b64decode("".join(payload.split()), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ProviderHttpError(
                "provider_error", f"The {self.label} returned invalid base64 image data.") from exc

    @staticmethod
    def _seconds(value: float) -> str:
        return f"{value:g} seconds"


def _validation_text(item: Any) -> str:
    if isinstance(item, Mapping):
        loc = item.get("loc")
        where = ".".join(str(p) for p in loc if p != "body") if isinstance(loc, list) else ""
        text = str(item.get("msg") or item.get("message") or "")
        return f"{where}: {text}" if where and text else text or where
    return str(item)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def image_type(data: bytes) -> tuple[str, str] | None:
    """(content type, extension) from the bytes' signature, for the formats providers send."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png", "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg", "jpg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp", "webp"
    return None


def checked_image(data: bytes, label: str) -> tuple[bytes, str, str]:
    kind = image_type(data)
    if kind is None:
        raise ProviderHttpError("provider_error",
                                f"The {label} returned something that is not a PNG, JPEG or WebP "
                                "image.")
    return data, kind[0], kind[1]


def data_url(data: bytes) -> str:
    kind = image_type(data)
    mime = kind[0] if kind else "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def input_bytes(params: Mapping[str, Any], name: str) -> bytes | None:
    value = params.get(name)
    if isinstance(value, bytes | bytearray | memoryview) and len(value):
        return bytes(value)
    return None


def outputs_named(results: list[bytes], stem: str, label: str) -> list[Any]:
    """EngineOutputs for the provider's images: ``stem.ext``, or ``stem-1.ext``... for several."""
    from workers.engines.base import EngineOutput

    outputs = []
    for i, raw in enumerate(results, start=1):
        data, content_type, ext = checked_image(raw, label)
        name = stem if len(results) == 1 else f"{stem}-{i}"
        outputs.append(EngineOutput(data, content_type, f"{name}.{ext}"))
    return outputs
