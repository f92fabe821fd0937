"""How many direct-tool calls the default web server (gunicorn, gthread, 2 workers x 8
threads) lets wait at once before other requests slow down.

No worker consumes the interactive queue, so every direct call waits its whole
DIRECT_WAIT_SECONDS. With N such calls in flight, one client polls GET /api/jobs/{id}/
back to back; its p50 and p99, and the polls that got no answer within 5 s, are printed for
the default waiting slots (half the threads) and with the slots lifted (every thread may
wait, as before the slots), each against N = 0 in the same run.
"""

from __future__ import annotations

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
from tests.bench.production import free_port
from tests.support.factories import UserFactory
from tests.support.processes import REPO, _env, wait_for

WAIT_SECONDS = 8
PROBE_SECONDS = 4.0
LEVELS = (0, 4, 8, 12, 16, 20, 24)
REBODY = {"image_url": "https://cdn.maison.test/looks/polo.jpg", "target_bodytype": "Curvy Fit",
          "specs": ""}


def _up(base: str) -> bool:
    try:
        return requests.get(f"{base}/healthz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def probe(url: str, headers: dict[str, str]) -> dict[str, Any]:
    latencies: list[float] = []
    stalled = 0
    end = time.monotonic() + PROBE_SECONDS
    session = requests.Session()
    while time.monotonic() < end:
        start = time.perf_counter()
        try:
            session.get(url, headers=headers, timeout=5)
            latencies.append(time.perf_counter() - start)
        except requests.RequestException:
            stalled += 1
    latencies.sort()
    return {"n": len(latencies), "stalled": stalled,
            "p50": statistics.median(latencies) if latencies else float("nan"),
            "p99": latencies[int(0.99 * (len(latencies) - 1))] if latencies else float("nan")}


def level(base: str, auth: dict[str, str], job_url: str, waiting: int) -> dict[str, Any]:
    answers: list[int] = []
    lock = threading.Lock()

    def direct_call() -> None:
        try:
            status = requests.post(f"{base}/api/rebody/process", json=REBODY, headers=auth,
                                   timeout=WAIT_SECONDS + 30).status_code
        except requests.RequestException:
            status = 0
        with lock:
            answers.append(status)

    callers = [threading.Thread(target=direct_call) for _ in range(waiting)]
    for t in callers:
        t.start()
    time.sleep(1.5)  # they are in and waiting (or answered at once)
    early = len(answers)
    row = probe(job_url, auth)
    for t in callers:
        t.join()
    return row | {"answered_at_once": early, "statuses": sorted(set(answers))}


def run_server(slots: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    log = Path(REPO / "var" / "test-logs" / f"bench-direct-{slots}.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    env = {"THROTTLE_PARTNER_RATE": "1000000/min", "ORG_MAX_ACTIVE_JOBS": "10000000",
           "LOG_LEVEL": "WARNING", "WEB_THREADS": "8",
           "DIRECT_WAIT_SECONDS": str(WAIT_SECONDS)}
    if slots:
        env["DIRECT_WAIT_SLOTS"] = str(slots)
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
         "--worker-class", "gthread", "--workers", "2", "--threads", "8",
         "--timeout", "300", "--log-level", "warning"],
        env=_env(env), cwd=REPO, stdout=open(log, "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_for(lambda: _up(base), 30, what="gunicorn")
    return server, base


@pytest.mark.django_db(transaction=True)
def bench_direct_calls_waiting_at_once(capsys: Any) -> None:
    partner = UserFactory()
    token = api_token_create(user=partner)[1]
    auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    results: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for label, slots in (("default slots (4 a process)", 0), ("slots lifted (64)", 64)):
        server, base = run_server(slots)
        try:
            job = requests.post(f"{base}/api/rebody/process", json=REBODY,
                                headers=auth | {"Prefer": "respond-async"}, timeout=10).json()
            job_url = f"{base}/api/jobs/{job['id']}/"
            results[label] = [(n, level(base, auth, job_url, n)) for n in LEVELS]
        finally:
            server.terminate()
            server.wait(10)
    with capsys.disabled():
        print(f"\n[bench] direct calls waiting (no worker, wait {WAIT_SECONDS} s) while one "
              f"client polls GET /api/jobs/{{id}}/; gunicorn gthread 2 workers x 8 threads")
        print(f"[bench] {'':28} {'waiting':>7} {'202 at once':>11} {'polls':>6} "
              f"{'p50 ms':>8} {'p99 ms':>8} {'stalled':>7} {'p99 vs 0':>9}")
        for label, rows in results.items():
            base_p99 = rows[0][1]["p99"]
            for n, row in rows:
                print(f"[bench] {label:28} {n:7d} {row['answered_at_once']:11d} "
                      f"{row['n']:6d} {row['p50'] * 1000:8.1f} {row['p99'] * 1000:8.1f} "
                      f"{row['stalled']:7d} {row['p99'] / base_p99:9.1f}")
