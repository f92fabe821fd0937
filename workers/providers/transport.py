"""An httpx transport that gives official client libraries our rules (see workers.providers.calls).

The libraries (fashn, replicate) are built on httpx and take a client or a transport; below
them this transport:

- bounds each request by the configured timeout and what is left of the job's deadline;
- retries HTTP 429 after Retry-After (ProviderCall.retry_wait), waiting with progress reports,
  so a cancel stops the wait: the libraries' own retries are turned off or never see a 429;
- turns every answer of HTTP 300 and above into a ProviderHttpError in the provider's words,
  and network failures and timeouts into provider_error / provider_timeout;
- caps the size of an answer (max_bytes).

What it raises is recorded on the ProviderCall, whose ``sdk()`` raises it as itself when the
library wraps it in its own connection error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from workers.providers.calls import ProviderCall


class ProviderTransport(httpx.BaseTransport):
    def __init__(self, call: ProviderCall) -> None:
        self.call = call
        proxy = call.config.proxy or None
        self._inner = httpx.HTTPTransport(proxy=proxy, retries=0)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return self._handle(request)
        except BaseException as exc:  # a cancel from the progress callback included
            self.call.raised_below(exc)
            raise

    def _handle(self, request: httpx.Request) -> httpx.Response:
        call = self.call
        attempt = 0
        if "authorization" in request.headers:  # one spelling on the wire, whatever the library's
            value = request.headers["authorization"]
            del request.headers["authorization"]
            request.headers["Authorization"] = value
        while True:
            connect, read = call.request_timeout()
            request.extensions["timeout"] = {"connect": connect, "read": read,
                                             "write": read, "pool": connect}
            try:
                response = self._inner.handle_request(request)
                body = self._read(response)
            except httpx.HTTPError as exc:
                raise call.unanswered(exc, isinstance(exc, httpx.TimeoutException)) from exc
            if call.retried(response.status_code, response.headers, body, attempt):
                attempt += 1
                continue
            headers = [(k, v) for k, v in response.headers.multi_items()
                       if k.lower() not in ("content-encoding", "transfer-encoding",
                                            "content-length")]
            return httpx.Response(response.status_code, headers=headers, content=body,
                                  request=request, extensions={"http_version": b"HTTP/1.1"})

    def _read(self, response: httpx.Response) -> bytes:
        call = self.call
        try:
            raw = call.read_capped(response.iter_raw(), response.status_code)
        finally:
            response.close()
        encoding = response.headers.get("content-encoding", "").lower()
        if encoding in ("gzip", "deflate", "br", "zstd"):
            decoded = httpx.Response(200, headers={"content-encoding": encoding}, content=raw)
            raw = decoded.read()
            if len(raw) > int(call.config.max_bytes):
                raise call.too_large(response.status_code)
        return raw

    def close(self) -> None:
        self._inner.close()
