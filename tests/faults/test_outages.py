"""Partners keep working through a Redis outage and a PostgreSQL restart, against the
production web server (gunicorn) and real workers; a client that hangs up on a direct tool
still gets its result."""

from __future__ import annotations

import base64
import os
import subprocess
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import requests
from django.db import connection

from jobs.models import Job
from tests.faults.effects import new_mark
from tests.faults.harness import (
    Gunicorn,
    HttpLog,
    Partner,
    env_float,
    env_int,
    make_partners,
    ms,
    on_postgres,
    percentiles,
    report,
    tally_jobs,
    wait_final,
)
from tests.support.processes import start_beat, start_worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "garment"


class Submitters:
    """`count` partners, each submitting a short diagnostic job, then polling it, in a loop
    until stopped (bounded by `max_seconds`). Every submission carries an Idempotency-Key and
    is retried on 503 / no answer, as the API docs ask of clients."""

    def __init__(self, base_url: str, tokens: list[str], log: HttpLog, *,
                 max_seconds: float) -> None:
        self.partners = [Partner(base_url, t, log, timeout=30) for t in tokens]
        self.log = log
        self.accepted: list[str] = []
        self.marks: dict[str, str] = {}  # job id -> the mark its engine runs count under
        self.refused: list[list[int]] = []  # submissions never accepted (their statuses)
        self.stop = threading.Event()
        self.max_seconds = max_seconds
        self._lock = threading.Lock()
        self.threads = [threading.Thread(target=self._run, args=(p,), daemon=True)
                        for p in self.partners]

    def _run(self, partner: Partner) -> None:
        deadline = time.monotonic() + self.max_seconds
        while not self.stop.is_set() and time.monotonic() < deadline:
            mark = new_mark()
            job_id, seen = partner.submit({"seconds": 0.1, "mark": mark}, deadline=90)
            with self._lock:
                if job_id:
                    self.accepted.append(job_id)
                    self.marks[job_id] = mark
                else:
                    self.refused.append(seen)
            if job_id:
                partner.job(job_id)
            time.sleep(0.3)

    def __enter__(self) -> Submitters:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(120)


def test_redis_down_for_30_seconds_while_partners_submit(redis_server: Any,
                                                         procs: list[Any]) -> None:
    partners = make_partners(env_int("FAULTS_OUTAGE_PARTNERS", 8))
    web = Gunicorn().start()
    procs += [web, start_worker(concurrency=2), start_beat()]
    log = HttpLog()
    outage = env_float("FAULTS_REDIS_OUTAGE_SECONDS", 30)
    with Submitters(web.url, [t for _, t in partners], log, max_seconds=outage + 60) as load:
        time.sleep(5)
        before = len(load.accepted)
        down_at = time.monotonic()
        redis_server.stop()  # its append-only file keeps what it held
        time.sleep(outage)
        during = len(load.accepted) - before
        during_calls = [c for c in log.calls if c.method == "POST"]
        redis_server.start()
        up_at, up_wall = time.monotonic(), time.time()
        held_up = list(load.accepted)  # accepted before Redis was back
        time.sleep(5)
    outage_submits = [c.seconds for c in during_calls if c.status]
    assert wait_final(load.accepted, timeout=180), "jobs still open 3 minutes after Redis"
    tally = tally_jobs("Redis stopped 30 s", load.accepted, marks=load.marks)
    # recovery: until the last job accepted before Redis came back had ended
    last = max(Job.objects.filter(pk__in=held_up).values_list("finished_at", flat=True))
    tally.recovery_s = max(0.0, last.timestamp() - up_wall)
    tally.notes["recovery"] = "Redis back -> the last job accepted before it ended"
    tally.notes.update(
        accepted_while_down=during, refused=len(load.refused),
        statuses=dict(log.statuses()),
        submit_latency=ms(percentiles(outage_submits)),
        reenqueued=Job.objects.filter(pk__in=load.accepted, enqueue_count__gt=1).count(),
        outage_s=round(up_at - down_at, 1))
    report(tally)
    assert tally.lost == 0 and tally.doubled == 0
    assert during > 0, "the API took no work while Redis was down"
    assert not load.refused, load.refused[:5]
    assert log.server_errors() == [], log.server_errors()[:5]
    assert tally.succeeded == tally.submitted


def pg(action: str) -> None:
    """Stop or start the suite's PostgreSQL cluster (deploy/local/faults.sh: a cluster of its
    own, so that no one else's connections go down with it)."""
    version = sorted(p.name for p in Path("/etc/postgresql").iterdir())[-1]
    cluster = os.environ.get("FAULTS_PG_CLUSTER", "main")
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, cluster, action],
                   check=True, timeout=120, capture_output=True)


@pytest.mark.skipif(not on_postgres(), reason="PostgreSQL scenario: set DATABASE_URL")
def test_postgres_restart_under_load(procs: list[Any]) -> None:
    """PostgreSQL stopped for a while, then started: the API answers 503 with Retry-After
    meanwhile (never another 5xx), and everything recovers without restarting our
    processes."""
    partners = make_partners(env_int("FAULTS_OUTAGE_PARTNERS", 8))
    web = Gunicorn().start()
    procs += [web, start_worker(concurrency=2), start_beat()]
    log = HttpLog()
    down_for = env_float("FAULTS_PG_DOWN_SECONDS", 15)
    connection.close()
    with Submitters(web.url, [t for _, t in partners], log, max_seconds=down_for + 120) as load:
        time.sleep(5)
        pg("stop")
        try:
            time.sleep(down_for)
        finally:
            pg("start")
        started_at = time.monotonic()
        mark = len(log.calls)
        # recovery: the first submission accepted after the start, without restarting us
        first_ok = wait_for(lambda: any(c.method == "POST" and c.status in (200, 202)
                                        for c in list(log.calls)[mark:]),
                            60, interval=0.2, what="recovery")
        recovered_in = time.monotonic() - started_at
        time.sleep(5)
    connection.close()  # ours died with the restart
    assert first_ok
    assert wait_final(load.accepted, timeout=180), "jobs still open 3 minutes after the restart"
    tally = tally_jobs("PostgreSQL restart", load.accepted, marks=load.marks)
    tally.recovery_s = recovered_in
    tally.notes["recovery"] = "PostgreSQL started -> a submission accepted"
    unavailable = [c for c in log.calls if c.status == 503]
    others = log.server_errors(allow_503=True)
    # every logical submission is one job: no job in the database without an accepted answer
    orgs = [u.organization_id for u, _ in partners]
    in_db = Job.objects.filter(organization_id__in=orgs).count()
    tally.notes.update(
        seen_503=len(unavailable),
        with_retry_after=sum(1 for c in unavailable if c.retry_after),
        other_5xx=len(others),
        no_answer=dict(Counter(f"{c.method} {c.error} {c.seconds:.1f}s" for c in log.calls
                               if c.status == 0)),
        refused=len(load.refused), jobs_in_db=in_db, down_s=down_for,
        recovered_after_start_s=round(recovered_in, 1),
        statuses=dict(log.statuses()))
    report(tally)
    assert tally.lost == 0 and tally.doubled == 0
    assert unavailable, "no 503 while PostgreSQL was down"
    assert all(c.retry_after for c in unavailable), "a 503 without Retry-After"
    assert others == [], others[:5]
    assert not load.refused, load.refused[:5]
    assert in_db == len(set(load.accepted)), "jobs in the database that no answer named"
    assert tally.succeeded == tally.submitted


def _image_b64() -> str:
    return base64.b64encode(sorted(FIXTURES.glob("*.jpg"))[0].read_bytes()).decode()


DIRECT_PATH = "/api/editorial-product/"


def _direct_tool_stack(procs: list[Any]) -> tuple[Any, str, Gunicorn, Partner]:
    """One staff partner, gunicorn and an interactive and a drivesync worker with beat:
    (user, token, web server, the partner, whose ``log`` has every call it makes)."""
    (user, token), = make_partners(1, staff=True)
    web = Gunicorn().start()
    procs += [web, start_worker(queues="interactive", concurrency=1),
              start_worker(queues="drivesync", concurrency=1), start_beat()]
    return user, token, web, Partner(web.url, token, HttpLog())


def _hang_up(web: Gunicorn, token: str, body: dict[str, Any], key: str) -> None:
    """Call the direct tool and give up after half a second: requests.Timeout when the
    server had not answered by then."""
    requests.post(web.url + DIRECT_PATH, json=body, timeout=(5, 0.5),
                  headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key})


def test_client_disconnects_while_a_direct_tool_runs(procs: list[Any]) -> None:
    """A partner calls a direct tool (it waits for the job) and hangs up before the job ends:
    the job finishes and its result stays reachable."""
    user, token, web, partner = _direct_tool_stack(procs)
    count = env_int("FAULTS_DISCONNECTS", 3)
    # a diagnostic job ahead keeps the worker busy, so the hang-ups happen mid-request
    blocker, _ = partner.submit({"seconds": 2.0})
    keys = [uuid.uuid4().hex for _ in range(count)]
    body = {"image": _image_b64(), "prompt": "studio packshot, soft light"}
    hung_up = 0
    for key in keys:
        try:
            _hang_up(web, token, body, key)
        except requests.Timeout:
            hung_up += 1  # the client gave up and closed its connection
    jobs = list(Job.objects.filter(organization=user.organization,
                                   tool="editorial-product.generate"))
    open_at_hangup = sum(1 for j in jobs if j.status in ("queued", "running"))
    ids = [str(j.pk) for j in jobs]
    assert wait_final([*ids, blocker], timeout=240)
    tally = tally_jobs("client disconnect (direct tool)", ids, accepted=count)
    reachable = 0
    for job_id in ids:
        shown = partner.job(job_id) or {}
        resp = partner.call("GET", f"/api/jobs/{job_id}/outputs/0")
        if shown.get("status") == "succeeded" and resp is not None and resp.status_code == 200 \
                and resp.content:
            reachable += 1
    listed = partner.call("GET", "/api/jobs/?tool=editorial-product.generate")
    from jobs.models import JobOutput

    per_job = Counter(str(j) for j in JobOutput.objects.filter(job_id__in=ids)
                      .values_list("job_id", flat=True))
    tally.notes["outputs_per_job"] = sorted(set(per_job.values()))
    tally.doubled += len(set(per_job.values())) > 1  # every run makes the same number
    tally.notes.update(hung_up=hung_up, open_at_hangup=open_at_hangup, results_reachable=reachable,
                       listed=len((listed.json() if listed is not None else {}).get(
                           "results", [])))
    report(tally)
    assert hung_up == count and open_at_hangup == count
    assert tally.lost == 0 and tally.doubled == 0
    assert tally.succeeded == count and reachable == count
    assert partner.log.server_errors() == []


def test_a_client_retrying_after_a_disconnect_gets_the_same_job(procs: list[Any]) -> None:
    """The client that hung up sends the same request again with the same Idempotency-Key
    (as the API docs invite): it must get the job it started, not a conflict or a second
    job."""
    user, token, web, partner = _direct_tool_stack(procs)
    blocker, _ = partner.submit({"seconds": 1.0})
    key = uuid.uuid4().hex
    body = {"image": _image_b64(), "prompt": "studio packshot, soft light"}
    with pytest.raises(requests.Timeout):
        _hang_up(web, token, body, key)
    again = partner.call("POST", DIRECT_PATH, json=body,
                         headers={"Idempotency-Key": key, "Prefer": "respond-async"})
    jobs = list(Job.objects.filter(organization=user.organization,
                                   tool="editorial-product.generate"))
    wait_final([*(str(j.pk) for j in jobs), blocker], timeout=240)
    report(f"client retry after disconnect: replay status="
           f"{again.status_code if again is not None else 0} "
           f"body={(again.json() if again is not None else {}).get('error', 'job')} "
           f"jobs_for_one_request={len(jobs)}")
    assert again is not None and again.status_code == 200, again.json() if again else None
    assert again.json()["id"] == str(jobs[0].pk) and len(jobs) == 1
