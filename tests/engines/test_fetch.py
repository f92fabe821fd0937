"""Safe fetch against a real HTTP server on loopback: every spelling of an internal address is
refused, allow-listed hosts are served, and oversize or dripping responses are cut."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from workers.engines.base import EngineError
from workers.fetch import fetch_image

PAYLOAD = b"\x89PNG\r\n\x1a\n" + b"x" * 2000


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *_args: object) -> None:
        return None

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlsplit(self.path)
        query = parse_qs(path.query)
        if path.path == "/img":
            self._send(PAYLOAD)
        elif path.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query["to"][0])
            self.end_headers()
        elif path.path == "/big-declared":
            self.send_response(200)
            self.send_header("Content-Length", str(50_000))
            self.end_headers()
            self.wfile.write(b"x" * 50_000)
        elif path.path == "/big-undeclared":
            self.send_response(200)
            self.end_headers()  # no Content-Length: the body ends when the socket closes
            for _ in range(50):
                self.wfile.write(b"x" * 1000)
            self.close_connection = True
        elif path.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.05)  # never idle long enough for a per-read timeout
            except OSError:
                pass
        else:
            self.send_error(404)

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


SPELLINGS = [
    "http://127.0.0.1:{port}/img",
    "http://localhost:{port}/img",
    "http://2130706433:{port}/img",  # 127.0.0.1 as one integer
    "http://0x7f000001:{port}/img",  # ... in hex
    "http://0177.0.0.1:{port}/img",  # ... in octal
    "http://127.1:{port}/img",  # ... shortened
    "http://[::ffff:127.0.0.1]:{port}/img",  # IPv4-mapped IPv6
    "http://[::1]:{port}/img",
    "http://169.254.169.254/latest/meta-data/",  # cloud metadata
    "http://10.0.0.1/img",
    "http://192.168.1.1/img",
    "http://172.16.0.1/img",
    "http://100.64.0.1/img",  # CGNAT
    "http://[fd00::1]/img",  # IPv6 unique local
    "http://[fe80::1]/img",  # IPv6 link local
    "http://0.0.0.0:{port}/img",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_internal_addresses_are_refused_in_every_spelling(port: int, spelling: str) -> None:
    with pytest.raises(EngineError) as err:
        fetch_image(spelling.format(port=port), deadline=5)
    assert err.value.code == "fetch_refused"


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/a.png",
                                 "gopher://127.0.0.1/", "http://user:pw@example.com/a.png"])
def test_other_schemes_and_credentials_are_refused(url: str) -> None:
    with pytest.raises(EngineError) as err:
        fetch_image(url)
    assert err.value.code == "fetch_refused"


def test_an_allowed_host_is_served(port: int) -> None:
    fetched = fetch_image(f"http://localhost:{port}/img", allow=["localhost"])
    assert fetched.data == PAYLOAD
    assert fetched.content_type == "image/png"


def test_an_allowed_network_is_served(port: int) -> None:
    assert fetch_image(f"http://127.0.0.1:{port}/img", allow=["127.0.0.0/8"]).data == PAYLOAD


@pytest.mark.parametrize(
    "target",
    ["http://127.0.0.1:{port}/img", "http://2130706433:{port}/img",
     "http://[::ffff:127.0.0.1]:{port}/img", "http://169.254.169.254/latest/meta-data/"],
)
def test_a_redirect_from_an_allowed_host_to_an_internal_one_is_refused(
    port: int, target: str
) -> None:
    url = f"http://localhost:{port}/redirect?to=" + target.format(port=port)
    with pytest.raises(EngineError) as err:
        fetch_image(url, allow=["localhost"])
    assert err.value.code == "fetch_refused"


def test_a_redirect_within_the_allowed_host_is_followed(port: int) -> None:
    url = f"http://localhost:{port}/redirect?to=/img"
    assert fetch_image(url, allow=["localhost"]).data == PAYLOAD


def test_a_redirect_loop_stops(port: int) -> None:
    url = f"http://localhost:{port}/redirect?to=/redirect%3Fto%3D/redirect"
    with pytest.raises(EngineError) as err:
        fetch_image(url, allow=["localhost"])
    assert err.value.code == "fetch_failed"


@pytest.mark.parametrize("path", ["/big-declared", "/big-undeclared"])
def test_oversize_responses_are_cut(port: int, path: str) -> None:
    with pytest.raises(EngineError) as err:
        fetch_image(f"http://localhost:{port}{path}", allow=["localhost"], max_bytes=10_000)
    assert err.value.code == "fetch_too_large"


def test_a_slow_drip_is_cut_at_the_overall_deadline(port: int) -> None:
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        fetch_image(f"http://localhost:{port}/drip", allow=["localhost"], deadline=1.0)
    elapsed = time.monotonic() - started
    assert err.value.code == "fetch_timeout"
    assert elapsed < 1.6


def test_proxies_from_the_environment_are_ignored(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy that does not exist: honouring it would fail the fetch.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    assert fetch_image(f"http://localhost:{port}/img", allow=["localhost"]).data == PAYLOAD
