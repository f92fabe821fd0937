"""HTTP latency under load against the production server (gunicorn): GET /api/jobs/{id}/ and
a creating POST, beside /healthz (a bare Django JSON view) measured in the same run."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests

from accounts.services import api_token_create
from tests.support.factories import UserFactory
from tests.support.processes import REPO, _env, wait_for

SECONDS = float(os.environ.get("BENCH_HTTP_SECONDS", "8"))
CLIENTS = int(os.environ.get("BENCH_HTTP_CLIENTS", "16"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def hammer(url: str, method: str, headers: dict[str, str], body: Any = None) -> dict[str, Any]:
    latencies: list[float] = []
    errors = [0]
    end = time.monotonic() + SECONDS
    lock = threading.Lock()

    def client() -> None:
        session = requests.Session()
        while time.monotonic() < end:
            start = time.perf_counter()
            resp = session.request(method, url, headers=headers, json=body, timeout=30)
            took = time.perf_counter() - start
            with lock:
                latencies.append(took)
                if resp.status_code >= 500:
                    errors[0] += 1

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    latencies.sort()
    return {"rps": len(latencies) / SECONDS, "p50": statistics.median(latencies),
            "p99": latencies[int(0.99 * (len(latencies) - 1))], "n": len(latencies),
            "5xx": errors[0]}


@pytest.mark.django_db(transaction=True)
def bench_http_latency_under_load(capsys: Any) -> None:
    staff = UserFactory(is_staff=True, is_superuser=True)
    token = api_token_create(user=staff)[1]
    port = free_port()
    log = Path(REPO / "var" / "test-logs" / "bench-gunicorn.log")
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", "2", "--threads", "8", "--log-level", "warning"],
        env=_env({"THROTTLE_PARTNER_RATE": "1000000/min", "ORG_MAX_ACTIVE_JOBS": "10000000",
                  "LOG_LEVEL": "WARNING"}), cwd=REPO, stdout=open(log, "w"),
        stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _up(base), 30, what="gunicorn")
        auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        job = requests.post(f"{base}/api/diagnostics/sleep", json={"seconds": 0},
                            headers=auth, timeout=10).json()
        bare = hammer(f"{base}/healthz", "GET", {})
        detail = hammer(f"{base}/api/jobs/{job['id']}/", "GET", auth)
        create = hammer(f"{base}/api/diagnostics/sleep", "POST", auth, {"seconds": 0})
    finally:
        server.terminate()
        server.wait(10)
    with capsys.disabled():
        print(f"\n[bench] gunicorn 2 workers x 8 threads, {CLIENTS} clients, {SECONDS:.0f} s each")
        print(f"[bench] {'':28} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'5xx':>5} "
              f"{'req/s vs bare':>14}")
        for label, row in (("GET /healthz (bare view)", bare),
                           ("GET /api/jobs/{id}/", detail),
                           ("POST /api/diagnostics/sleep", create)):
            print(f"[bench] {label:28} {row['rps']:8.0f} {row['p50'] * 1000:8.1f} "
                  f"{row['p99'] * 1000:8.1f} {row['5xx']:5d} {row['rps'] / bare['rps']:14.2f}")


def _up(base: str) -> bool:
    try:
        return requests.get(f"{base}/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False
