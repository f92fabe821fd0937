"""What the fault and load suites share: the production web server (gunicorn) as a real
process, workers that load fault switches, HTTP partners, and the figures every scenario
reports (submitted, succeeded, failed with a reason, lost, delivered twice).

Only loopback is ever used; every loop here is bounded in count and in time.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import requests
from django.conf import settings

from tests.support.processes import (
    LOGS,
    REPO,
    CeleryProcess,
    _env,
    port_open,
    start_worker,
    stop_group,
    wait_for,
)

TEST_ID = os.environ.get("ATELIER_TEST_ID", "")
SLEEP_URL = "/api/diagnostics/sleep"
FINAL = {"succeeded", "failed", "canceled"}


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def env_float(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def on_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


# --- processes ----------------------------------------------------------------------------


class Gunicorn:
    """The production web server, as `make run` starts it, against this run's test database
    (ATELIER_TEST_WORKER=1 in its environment, see tests/settings.py)."""

    def __init__(self, *, workers: int = 2, threads: int = 8,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.workers = workers
        self.threads = threads
        self.env = env or {}
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log = LOGS / f"gunicorn{TEST_ID}-{self.port}.log"

    def start(self) -> Gunicorn:
        env = _env(self.env)
        env.setdefault("LOG_FORMAT", "plain")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--pythonpath", "platform,.",
             "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
             "--threads", str(self.threads), "--timeout", "300", "--graceful-timeout", "5",
             "--backlog", "2048", "--error-logfile", str(self.log)],
            env=env, cwd=REPO, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

        def up() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited: see {self.log}")
            if not port_open(self.port):
                return False
            try:
                return requests.get(self.url + "/healthz", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        wait_for(up, 60, interval=0.2, what="gunicorn")
        return self

    def stop(self) -> None:
        stop_group(self.proc, grace=20)


def start_fault_worker(queues: str, *, concurrency: int = 1, name: str | None = None,
                       env: dict[str, str] | None = None) -> CeleryProcess:
    """A real Celery worker of the product's app with the fault switches of
    tests/faults/faultapp.py (storage that refuses writes, the loopback Google Drive, slow
    uploads), chosen by environment variables."""
    return start_worker(queues, concurrency=concurrency, env=env, app="tests.faults.faultapp",
                        name=name or f"fworker{TEST_ID}-{uuid.uuid4().hex[:6]}")


def pool_children(worker: CeleryProcess) -> list[int]:
    """The pids of a prefork worker's pool processes (the main process's children)."""
    assert worker.proc is not None
    pid = worker.proc.pid
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def wait_rerun(job_id: str, *, attempt: int, since: float, timeout: float = 120) -> float:
    """Seconds from `since` (time.monotonic()) until the job's attempt `attempt` has begun
    (running, or already ended), or the job ended without it: how long a fault held the job
    up."""
    from jobs.models import Job

    def again() -> bool:
        job = Job.objects.filter(pk=job_id).only("status", "attempts").first()
        return job is not None and (job.status in FINAL or (
            job.attempts >= attempt and job.status != "queued"))

    wait_for(again, timeout, interval=0.05, what=f"attempt {attempt} of job {job_id}")
    return time.monotonic() - since


def start_fault_beat(env: dict[str, str] | None = None) -> CeleryProcess:
    """Beat of the fault app (its clocks follow FAULTS_CLOCKS)."""
    name = f"fbeat{TEST_ID}-{uuid.uuid4().hex[:6]}"
    proc = CeleryProcess(["beat", "-s", str(LOGS / f"{name}-schedule")], name, env=env,
                         app="tests.faults.faultapp")
    return proc.start("beat: Starting...")


# --- partners over HTTP ---------------------------------------------------------------------


@dataclass
class Call:
    method: str
    path: str
    status: int  # 0: no answer (connection refused, reset, timed out)
    seconds: float
    retry_after: str | None = None
    error: str = ""


class HttpLog:
    """Every call every partner made, thread-safe."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def add(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)

    def statuses(self) -> Counter[int]:
        with self._lock:
            return Counter(c.status for c in self.calls)

    def server_errors(self, *, allow_503: bool = False) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.status >= 500 and not (
                allow_503 and c.status == 503)]

    def latencies(self, kind: str | None = None) -> list[float]:
        with self._lock:
            return sorted(c.seconds for c in self.calls
                          if c.status and (kind is None or _kind(c) == kind))


def _kind(call: Call) -> str:
    return "submit" if call.method == "POST" else "poll"


class Partner:
    """One partner's HTTP session (its own token, its own connection pool)."""

    def __init__(self, base_url: str, token: str, log: HttpLog, *,
                 timeout: float = 30.0) -> None:
        self.base = base_url
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=2,
                                                max_retries=0)
        self.session.mount("http://", adapter)
        self.session.headers["Authorization"] = f"Bearer {token}"
        self.log = log
        self.timeout = timeout

    def call(self, method: str, path: str, **kwargs: Any) -> requests.Response | None:
        started = time.monotonic()
        try:
            resp = self.session.request(method, self.base + path, timeout=self.timeout,
                                        **kwargs)
        except requests.RequestException as exc:
            self.log.add(Call(method, path, 0, time.monotonic() - started,
                              error=type(exc).__name__))
            return None
        self.log.add(Call(method, path, resp.status_code, time.monotonic() - started,
                          resp.headers.get("Retry-After")))
        return resp

    def submit(self, payload: dict[str, Any], *, key: str | None = None,
               path: str = SLEEP_URL, deadline: float = 120.0,
               headers: dict[str, str] | None = None) -> tuple[str | None, list[int]]:
        """POST with an Idempotency-Key, retried on 503 / no answer as a careful client does
        (honouring Retry-After, capped): the job id once accepted, and every status seen."""
        key = key or uuid.uuid4().hex
        seen: list[int] = []
        stop = time.monotonic() + deadline
        while time.monotonic() < stop:
            resp = self.call("POST", path, json=payload,
                             headers={"Idempotency-Key": key, **(headers or {})})
            seen.append(resp.status_code if resp is not None else 0)
            if resp is not None and resp.status_code in (200, 202):
                return str(resp.json()["id"]), seen
            if resp is not None and resp.status_code not in (502, 503, 504, 429):
                return None, seen
            wait = 1.0
            if resp is not None and resp.headers.get("Retry-After", "").isdigit():
                wait = min(float(resp.headers["Retry-After"]), 2.0)
            time.sleep(wait)
        return None, seen

    def job(self, job_id: str) -> dict[str, Any] | None:
        resp = self.call("GET", f"/api/jobs/{job_id}/")
        return resp.json() if resp is not None and resp.status_code == 200 else None


def make_partners(count: int, *, staff: bool = True, prefix: str = "p") -> list[tuple[Any, str]]:
    """`count` partners, each in an organisation of its own: (user, raw token)."""
    from accounts.models import Organization, User
    from accounts.services import api_token_create

    run = uuid.uuid4().hex[:6]
    made = []
    for i in range(count):
        org = Organization.objects.create(name=f"Faults {prefix}{i} {run}")
        email = f"{prefix}{i}-{run}@faults.test"
        user = User.objects.create_user(username=email, email=email, password="x" * 12,
                                        organization=org, is_staff=staff)
        _, raw = api_token_create(user=user, name="faults")
        made.append((user, raw))
    return made


# --- figures ------------------------------------------------------------------------------


@dataclass
class Tally:
    """A scenario's figures. Lost: an expected effect missing (a job that never ended, a run
    that made nothing, an event or a file that never arrived); doubled: an effect counted
    twice (an engine run, an event, a file). Recovery: seconds from the fault to the work
    going on again, when the scenario has one."""

    scenario: str
    submitted: int = 0
    succeeded: int = 0
    failed: dict[str, int] = field(default_factory=dict)  # reason (error_code) -> count
    lost: int = 0
    doubled: int = 0
    recovery_s: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    database: str = field(default_factory=lambda: "postgresql" if on_postgres() else "sqlite")

    @property
    def failed_total(self) -> int:
        return sum(self.failed.values())

    def line(self) -> str:
        failed = ", ".join(f"{k}={v}" for k, v in sorted(self.failed.items())) or "-"
        notes = " ".join(f"{k}={v}" for k, v in self.notes.items())
        recovery = "" if self.recovery_s is None else f" recovery_s={self.recovery_s:.1f}"
        return (f"{self.scenario}: submitted={self.submitted} succeeded={self.succeeded} "
                f"failed={self.failed_total} ({failed}) lost={self.lost} "
                f"doubled={self.doubled}{recovery} {notes}").rstrip()


def tally_jobs(scenario: str, job_ids: Iterable[str], *, marks: dict[str, str] | None = None,
               accepted: int | None = None) -> Tally:
    """Figures of the jobs' ends (the database) and of their engine runs (the diagnostic
    engine's runs file, by each job's mark). A job is lost if it is missing or never ended,
    or if it succeeded without a run that made its outputs; doubled for every run beyond
    the one that made them."""
    from jobs.models import Job
    from tests.faults.effects import engine_runs

    ids = [str(j) for j in job_ids]
    tally = Tally(scenario, submitted=accepted if accepted is not None else len(ids))
    jobs = {str(j.pk): j for j in Job.objects.filter(pk__in=ids)}
    runs = engine_runs(marks.values()) if marks else {}
    for job_id in ids:
        job = jobs.get(job_id)
        if job is None or job.status not in FINAL:
            tally.lost += 1
            continue
        done = runs.get(marks[job_id], Counter())["done"] if marks and job_id in marks else None
        if job.status == "succeeded":
            tally.succeeded += 1
            if done == 0:
                tally.lost += 1
        else:
            reason = job.error_code or job.status
            tally.failed[reason] = tally.failed.get(reason, 0) + 1
        if done is not None and done > 1:
            tally.doubled += done - 1
    if marks:
        tally.notes["engine_runs"] = sum(runs.get(m, Counter())["done"] for m in marks.values())
    if accepted is not None and accepted > len(ids):
        tally.lost += accepted - len(ids)
    return tally


def wait_final(job_ids: Iterable[str], timeout: float) -> bool:
    """Wait until every job ended (or the timeout): True when all did."""
    from django.db import close_old_connections

    from jobs.models import Job

    ids = [str(j) for j in job_ids]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            open_ = Job.objects.filter(pk__in=ids).exclude(status__in=FINAL).count()
        except Exception:  # noqa: BLE001 - the database may be restarting
            close_old_connections()
            time.sleep(1)
            continue
        if open_ == 0:
            return True
        time.sleep(0.5)
    return False


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    ordered = sorted(values)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "max": ordered[-1]}


def ms(stats: dict[str, float]) -> str:
    return " ".join(f"{k}={v * 1000:.0f}ms" for k, v in stats.items())


# --- the report -----------------------------------------------------------------------------

REPORT: list[str] = []


def report_path() -> Path:
    """This run's figures, one JSON line per scenario (deploy/local/faults.sh runs the suite
    once per database and writes RESULTS.md from these files: tests/faults/results.py)."""
    return LOGS / f"faults-report{TEST_ID}-{'postgresql' if on_postgres() else 'sqlite'}.jsonl"


def report(tally: Tally | str) -> None:
    """Print a scenario's figures now (pytest -s) and keep them for the session summary and
    var/test-logs/faults-report<id>.jsonl."""
    line = tally.line() if isinstance(tally, Tally) else tally
    REPORT.append(line)
    print(f"\n[faults] {line}", flush=True)
    LOGS.mkdir(parents=True, exist_ok=True)
    with open(report_path(), "a") as fh:
        record = asdict(tally) if isinstance(tally, Tally) else {"line": line}
        fh.write(json.dumps(record | {"at": time.time()}, default=str) + "\n")


_printed = False


def print_summary(terminalreporter: Any) -> None:
    global _printed
    if _printed or not REPORT:
        return
    _printed = True
    terminalreporter.section("reliability figures")
    for line in REPORT:
        terminalreporter.write_line(line)
