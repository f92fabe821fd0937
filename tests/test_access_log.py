"""Gunicorn's access log: a JSON object a line carrying the request id the response carried,
through config.gunicorn, on a real gunicorn; LOG_FORMAT=plain gives people a readable line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.support.processes import REPO, _env, port_open, wait_for


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_and_get(tmp_path: Path, paths: list[tuple[str, dict[str, str]]],
                  log_format: str) -> tuple[list[str], list[dict[str, str]]]:
    """Start gunicorn as deploy/ does, get each path, stop it: its stdout lines and the
    responses' headers."""
    port = free_port()
    out = tmp_path / "access.log"
    env = _env({"LOG_FORMAT": log_format, "XDG_RUNTIME_DIR": str(tmp_path)})
    env.pop("ATELIER_TEST_WORKER", None)
    with open(out, "w") as stdout, open(tmp_path / "error.log", "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "python:config.gunicorn", "config.wsgi",
             "--bind", f"127.0.0.1:{port}", "--workers", "1", "--access-logfile", "-"],
            env=env, cwd=REPO, stdout=stdout, stderr=stderr, start_new_session=True)
    try:
        wait_for(lambda: proc.poll() is None and port_open(port) or proc.poll() is not None,
                 30, what="gunicorn")
        assert proc.poll() is None, (tmp_path / "error.log").read_text()
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
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
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
