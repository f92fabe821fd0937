"""What the suites' loopback servers share (the Drive fake, the provider fakes, the webhook
receiver): a threaded HTTP server on 127.0.0.1 and one way to send an answer."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """``handler`` served on an ephemeral port of 127.0.0.1 from a daemon thread."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, name: str | None = None) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self.httpd.server_port}"
        # A short poll interval: stop() waits for the serving loop to notice.
        self._thread = threading.Thread(target=self.httpd.serve_forever, name=name,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(5)


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[LoopbackServer]:
    server = LoopbackServer(handler)
    try:
        yield server
    finally:
        server.stop()


def respond(handler: BaseHTTPRequestHandler, status: int, payload: bytes, content_type: str,
            headers: Mapping[str, str] | None = None) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(payload)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    if payload:
        handler.wfile.write(payload)
