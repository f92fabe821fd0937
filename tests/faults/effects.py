"""Effects counted where they happen, not rows that are unique by construction:

- engine executions: the diagnostic engine leaves a line per run of a job carrying a `mark`
  in the runs file its worker is given (DIAGNOSTIC_RUNS_FILE, workers/engines/diagnostics.py);
- webhook events and deliveries: a loopback receiver keeps every request it got, by endpoint
  and Standard Webhooks id (the same id on every retry of one delivery);
- drive files: the output folder is listed, and its files counted per delivery key.

Lost is an expected effect that is missing; doubled is an effect counted more than once.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import LoopbackServer
from tests.support.processes import LOGS

TEST_ID = os.environ.get("ATELIER_TEST_ID", "")
RUNS_FILE = LOGS / f"diagnostic-runs{TEST_ID}.log"

# Workers inherit the suite's environment (tests/support/processes.py): each of them appends
# to this one file, and every mark is a fresh uuid, so scenarios never read each other's runs.
LOGS.mkdir(parents=True, exist_ok=True)
os.environ["DIAGNOSTIC_RUNS_FILE"] = str(RUNS_FILE)


def new_mark() -> str:
    return uuid.uuid4().hex


def engine_runs(marks: Iterable[str] | None = None) -> dict[str, Counter[str]]:
    """Per mark: how many runs started and how many made their outputs ("done")."""
    wanted = set(marks) if marks is not None else None
    runs: dict[str, Counter[str]] = defaultdict(Counter)
    if not RUNS_FILE.exists():
        return runs
    for line in RUNS_FILE.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 2 and (wanted is None or parts[1] in wanted):
            runs[parts[1]][parts[0]] += 1
    return runs


# --- webhooks -------------------------------------------------------------------------------


@dataclass
class Hit:
    endpoint: str
    webhook_id: str
    event: str
    job_id: str
    status: int
    at: float


@dataclass
class Receivers:
    """Webhook endpoints on one loopback server, each a path: /ok/<name> answers 200,
    /fail/<name> answers 500 after `fail_after` seconds (an endpoint that errs slowly). Every
    request is kept."""

    origin: str = ""
    fail_after: float = 0.0
    hits: list[Hit] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def url(self, name: str, *, failing: bool = False) -> str:
        return f"{self.origin}/{'fail' if failing else 'ok'}/{name}"

    def by_job(self, endpoint: str) -> dict[str, list[Hit]]:
        found: dict[str, list[Hit]] = defaultdict(list)
        with self.lock:
            for hit in self.hits:
                if hit.endpoint == endpoint:
                    found[hit.job_id].append(hit)
        return found

    def count(self) -> int:
        with self.lock:
            return len(self.hits)


@contextmanager
def webhook_receivers(*, fail_after: float = 0.0) -> Iterator[Receivers]:
    state = Receivers(fail_after=fail_after)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            failing = self.path.startswith("/fail/")
            try:
                payload = json.loads(body)
                data = payload.get("data") or {}
                job_id = str((data.get("job") or {}).get("id") or data.get("id") or "")
                event = str(payload.get("event") or "")
            except (ValueError, AttributeError):
                job_id, event = "", ""
            if failing and state.fail_after:
                time.sleep(state.fail_after)
            status = 500 if failing else 200
            with state.lock:
                state.hits.append(Hit(self.path, self.headers.get("webhook-id", ""), event,
                                      job_id, status, time.time()))
            try:
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()
            except OSError:
                pass  # the sender gave up waiting

        def log_message(self, *args: Any) -> None:
            pass

    server = LoopbackServer(Handler, name="webhook-receivers")
    state.origin = server.origin
    try:
        yield state
    finally:
        server.stop()


@dataclass
class Counted:
    lost: int = 0
    doubled: int = 0
    details: list[str] = field(default_factory=list)


def count_events(receivers: Receivers, endpoint: str,
                 expected: dict[str, str]) -> Counted:
    """`expected`: job id -> the one event its end must announce (job.succeeded or
    job.failed). Lost: no accepted delivery of it; doubled: accepted twice under one id, or
    announced by two events (two ids), or announced with the wrong event."""
    counted = Counted()
    path = endpoint.split("://", 1)[-1].split("/", 1)[-1]
    hits = receivers.by_job("/" + path)
    for job_id, event in expected.items():
        got = [h for h in hits.get(job_id, []) if h.event.startswith("job.")]
        accepted = Counter(h.webhook_id for h in got if 200 <= h.status < 300)
        ids = {h.webhook_id for h in got}
        wrong = {h.event for h in got} - {event}
        if not accepted:
            counted.lost += 1
            counted.details.append(f"{job_id}: no accepted {event}")
        counted.doubled += sum(n - 1 for n in accepted.values() if n > 1)
        counted.doubled += max(0, len(ids) - 1)
        if wrong:
            counted.doubled += 1
            counted.details.append(f"{job_id}: also {sorted(wrong)}")
    return counted


# --- drives --------------------------------------------------------------------------------


def landed_seconds(fake: Any, folder_id: str, finished: dict[str, float]) -> dict[str, float]:
    """Per delivery key (job:index) in a folder of the loopback Google Drive: seconds from its
    job's end (`finished`: job id -> epoch seconds) to the file's creation in the drive."""
    from datetime import datetime

    from drivesync.base import APP_KEY_PROPERTY

    landed: dict[str, float] = {}
    for item in fake.children(folder_id):
        key = (item.get("appProperties") or {}).get(APP_KEY_PROPERTY, "")
        job_id = key.split(":", 1)[0]
        if job_id in finished and item.get("createdTime"):
            created = datetime.fromisoformat(item["createdTime"].replace("Z", "+00:00"))
            landed[key] = min(landed.get(key, 1e18), created.timestamp() - finished[job_id])
    return landed


# --- the drivesync queue -----------------------------------------------------------------


class DeliveryQueue:
    """Samples the drivesync queue in the broker (waiting and unacked messages) and keeps,
    per job, the most delivery messages seen at once."""

    def __init__(self) -> None:
        import redis
        from django.conf import settings

        self.broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        self.most: Counter[str] = Counter()
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="delivery-queue", daemon=True)

    def _messages(self) -> list[dict[str, Any]]:
        """Waiting and unacked messages read in one transaction: a message the worker takes
        between two reads would otherwise be seen in both places."""
        with self.broker.pipeline(transaction=True) as pipe:
            waiting, unacked = pipe.lrange("drivesync", 0, -1).hvals("unacked").execute()
        found = [json.loads(raw) for raw in waiting]
        for raw in unacked:
            entry = json.loads(raw)
            found.append(entry[0] if isinstance(entry, list) else entry)
        return found

    def _run(self) -> None:
        while not self._stop.is_set():
            # distinct task ids per job: a retry is republished under the same id before the
            # failed attempt's message is acknowledged, and is one delivery
            now: dict[str, set[str]] = defaultdict(set)
            for message in self._messages():
                headers = message.get("headers") or {}
                if headers.get("task") == "drives.deliver_outputs":
                    job_id = str(headers.get("argsrepr", "")).strip("[]()',\" ")
                    now[job_id].add(str(headers.get("id", "")))
            for job_id, tasks in now.items():
                self.most[job_id] = max(self.most[job_id], len(tasks))
            self.samples += 1
            self._stop.wait(0.1)

    def __enter__(self) -> DeliveryQueue:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(5)
