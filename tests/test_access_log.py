"""Gunicorn's access log: a JSON object a line carrying the request id the response carried,
through config.gunicorn, on a real gunicorn; LOG_FORMAT=plain gives people a readable line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.support.processes import REPO, _env, port_open, wait_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def gunicorn_running(tmp_path: Path, log_format: str = "json",
                     extra: tuple[str, ...] = ()) -> Iterator[tuple[int, Path]]:
    """Gunicorn started as deploy/ starts it: (its port, its stdout file); stopped after."""
    port = free_port()
    out = tmp_path / "access.log"
    env = _env({"LOG_FORMAT": log_format, "XDG_RUNTIME_DIR": str(tmp_path)})
    env.pop("ATELIER_TEST_WORKER", None)
    with open(out, "w") as stdout, open(tmp_path / "error.log", "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn", "config.wsgi",
             "--bind", f"127.0.0.1:{port}", "--workers", "1", "--access-logfile", "-",
             *extra],
            env=env, cwd=REPO, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is None and port_open(port) or proc.poll() is not None,
                 30, what="gunicorn")
        assert proc.poll() is None, (tmp_path / "error.log").read_text()
        yield port, out
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)


def serve_and_get(tmp_path: Path, paths: list[tuple[str, dict[str, str]]],
                  log_format: str) -> tuple[list[str], list[dict[str, str]]]:
    """Start gunicorn as deploy/ does, get each path, stop it: its stdout lines and the
    responses' headers."""
    with gunicorn_running(tmp_path, log_format) as (port, out):
        answers = []
        for path, headers in paths:
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=30) as resp:
                    answers.append(dict(resp.headers))
            except urllib.error.HTTPError as exc:  # any status: the line is what is checked
                answers.append(dict(exc.headers))
        wait_for(lambda: len(out.read_text().splitlines()) >= len(paths), 10,
                 what="the access lines")
    return out.read_text().splitlines(), answers


def test_access_lines_are_json_with_the_request_id(tmp_path: Path) -> None:
    lines, answers = serve_and_get(tmp_path, [
        ("/healthz?brand=%22Maison%22&q=a\"b", {"X-Request-ID": "partner-rid-1",
                                                "User-Agent": 'curl "quoted"'}),
        ("/healthz", {}),
    ], "json")
    records = [json.loads(line) for line in lines]  # every line is a JSON object
    access = [r for r in records if r["name"] == "gunicorn.access"]
    assert len(access) == 2, lines
    first, second = access
    assert first["request_id"] == answers[0]["X-Request-ID"] == "partner-rid-1"
    assert second["request_id"] == answers[1]["X-Request-ID"] and len(second["request_id"]) == 32
    assert first["query"] == 'brand=%22Maison%22&q=a"b'
    assert first["user_agent"] == 'curl "quoted"'
    for record in access:
        assert (record["method"], record["path"]) == ("GET", "/healthz")
        assert isinstance(record["status"], int) and isinstance(record["bytes"], int)
        assert record["duration_ms"] >= 0 and record["remote_addr"] == "127.0.0.1"
        assert record["time"] and record["level"] == "INFO"


def test_plain_access_lines_for_people(tmp_path: Path) -> None:
    lines, answers = serve_and_get(tmp_path, [("/healthz?x=1", {"X-Request-ID": "rid-plain"})],
                                   "plain")
    (line,) = [x for x in lines if "gunicorn.access" in x]
    assert not line.startswith("{")
    assert '[rid-plain] "GET /healthz?x=1"' in line and answers[0]["X-Request-ID"] == "rid-plain"


def _raw(port: int, request: bytes) -> tuple[str, dict[str, str], bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return status, {k.lower(): v for k, v in headers.items()}, body


def test_gunicorn_refusals_answer_our_json_envelope(tmp_path: Path) -> None:
    """A request line or headers past gunicorn's limits, or a malformed request, are answered
    by gunicorn before Django: with our error envelope, not an HTML page."""
    with gunicorn_running(tmp_path) as (port, _):
        long_line = b"GET /api/jobs/?q=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
        big_header = (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000
                      + b"\r\n\r\n")
        garbage = b"NOT A REQUEST\r\n\r\n"
        answers = [_raw(port, r) for r in (long_line, big_header, garbage)]
    expected = [("414", "uri_too_long"), ("431", "headers_too_large"), ("400", "bad_request")]
    for (status, headers, body), (code, error) in zip(answers, expected, strict=True):
        assert status.split()[1] == code, status
        assert headers["content-type"] == "application/json"
        answer = json.loads(body)
        assert answer["error"] == error and answer["message"] and answer["fields"] == {}


def test_a_worker_freezes_the_loaded_application_out_of_the_collectors_sight() -> None:
    """post_worker_init (gunicorn calls it once the worker loaded the app) imports every view
    and freezes what is alive, so no full collection walks the application mid-request."""
    import gc
    import logging
    from types import SimpleNamespace

    from config.gunicorn import post_worker_init

    gc.unfreeze()
    try:
        post_worker_init(SimpleNamespace(log=logging.getLogger("gunicorn.error")))
        assert "jobs.apis" in sys.modules and "tools.apis" in sys.modules
        frozen = gc.get_freeze_count()
        assert frozen > 10_000
        # what is allocated afterwards is collected as before
        garbage: list[object] = []
        garbage.append(garbage)
        del garbage
        assert gc.collect() >= 1
        # (a frozen object freed by its last reference leaves the count, so it may shrink)
        assert gc.get_freeze_count() <= frozen
    finally:
        gc.unfreeze()


def test_connections_that_send_nothing_yet_do_not_hold_the_threads(tmp_path: Path) -> None:
    """gthread as deployed, with more idle new connections than threads: a request on another
    connection is answered at once. (A thread used to wait 5 s on each idle connection, so
    this request waited behind them, past the 3 s it is given here.)"""
    with gunicorn_running(tmp_path, extra=("--worker-class", "gthread", "--threads", "2")) \
            as (port, _):
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=3) as resp:
                assert resp.status == 200
            # and an idle connection is still served when its request comes
            idle[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            idle[0].settimeout(10)
            assert idle[0].recv(100).startswith(b"HTTP/1.1 200")
        finally:
            for conn in idle:
                conn.close()
