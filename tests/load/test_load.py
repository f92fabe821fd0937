"""Load against the production web server (gunicorn) and real workers, on loopback.

1. FAULTS_PARTNERS partners (200) each submit a diagnostic job and poll it until it ends, in a
   loop, for FAULTS_SECONDS (120); now and then one asks for another organisation's job.
2. A backlog of FAULTS_BACKLOG diagnostic jobs (10,000) submitted with no worker running,
   then drained to the end.

No 5xx, no job of another organisation shown, every job finished exactly once; p50/p95/p99
latencies and throughput are printed. The generator is bounded: a fixed number of threads,
a deadline, loopback only.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from jobs.models import Job
from tests.faults.effects import new_mark
from tests.faults.harness import (
    FINAL,
    Gunicorn,
    HttpLog,
    Partner,
    env_int,
    make_partners,
    ms,
    percentiles,
    report,
    tally_jobs,
    wait_final,
)
from tests.support.processes import start_beat, start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_partners_submitting_and_polling(procs: list[Any]) -> None:
    count = env_int("FAULTS_PARTNERS", 200)
    seconds = env_int("FAULTS_SECONDS", 120)
    partners = make_partners(count, prefix="load")
    web = Gunicorn(workers=2, threads=8).start()
    procs += [web, start_worker(queues="interactive", concurrency=2),
              start_worker(queues="drivesync", concurrency=1), start_beat()]
    log = HttpLog()
    accepted: list[str] = []
    marks: dict[str, str] = {}  # job id -> the mark its engine runs count under
    leaks: list[str] = []
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def partner_loop(index: int, token: str) -> None:
        rng = random.Random(index)
        me = Partner(web.url, token, log, timeout=60)
        time.sleep(rng.uniform(0, 2))  # not all at the same instant
        while time.monotonic() < deadline:
            mark = new_mark()
            resp = me.call("POST", "/api/diagnostics/sleep", json={"seconds": 0, "mark": mark},
                           headers={"Idempotency-Key": uuid.uuid4().hex})
            if resp is None or resp.status_code != 202:
                time.sleep(1)
                continue
            job_id = resp.json()["id"]
            with lock:
                accepted.append(job_id)
                marks[job_id] = mark
                others = accepted[-50:]
            # someone else's job: it must not be shown to this organisation
            if rng.random() < 0.1 and len(others) > 1:
                other = rng.choice(others)
                if other != job_id:
                    seen = me.call("GET", f"/api/jobs/{other}/")
                    if seen is not None and seen.status_code == 200:
                        with lock:
                            leaks.append(other)
            while time.monotonic() < deadline + 30:
                time.sleep(1.0)
                body = me.job(job_id)
                if body is not None and body["status"] in FINAL:
                    break
            time.sleep(rng.uniform(0.2, 1.0))

    started = time.monotonic()
    threads = [threading.Thread(target=partner_loop, args=(i, t), daemon=True)
               for i, (_, t) in enumerate(partners)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 120)
    elapsed = time.monotonic() - started
    assert not any(t.is_alive() for t in threads), "partners still running"

    ended = wait_final(accepted, timeout=300)
    tally = tally_jobs(f"load: {count} partners x {seconds} s", accepted, marks=marks)
    statuses = log.statuses()
    submit = percentiles(log.latencies("submit"))
    poll = percentiles(log.latencies("poll"))
    total = sum(statuses.values())
    finished = Job.objects.filter(pk__in=accepted, status="succeeded")
    attempts = Counter(finished.values_list("attempts", flat=True))
    tally.notes.update(requests=total, statuses=dict(statuses),
                       req_per_s=round(total / elapsed, 1),
                       jobs_per_s=round(len(accepted) / elapsed, 2), leaks=len(leaks),
                       attempts=dict(attempts))
    report(tally)
    report(f"load latency submit: {ms(submit)}")
    report(f"load latency poll:   {ms(poll)}")
    report(f"load latency all:    {ms(percentiles(log.latencies()))}")
    assert ended, "jobs still open 5 minutes after the load"
    assert log.server_errors() == [], Counter(c.status for c in log.server_errors())
    assert statuses.get(0, 0) == 0, "requests without an answer"
    assert leaks == []
    assert tally.lost == 0 and tally.doubled == 0
    assert tally.succeeded == tally.submitted


def test_backlog_drained_to_the_end(procs: list[Any]) -> None:
    backlog = env_int("FAULTS_BACKLOG", 10_000)
    submitters = env_int("FAULTS_BACKLOG_CLIENTS", 16)
    partners = make_partners(submitters, prefix="backlog")
    web = Gunicorn(workers=2, threads=8).start()
    # beat and its reconciler run throughout, as in production; no job worker yet
    procs += [web, start_worker(queues="drivesync", concurrency=1), start_beat()]
    log = HttpLog()
    clients = [Partner(web.url, t, log, timeout=60) for _, t in partners]

    marks = [new_mark() for _ in range(backlog)]

    def submit(i: int) -> tuple[str | None, str]:
        job_id, _ = clients[i % len(clients)].submit({"seconds": 0, "mark": marks[i]},
                                                     deadline=60)
        return job_id, marks[i]

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=submitters) as pool:
        marked = {j: m for j, m in pool.map(submit, range(backlog)) if j}
    ids = list(marked)
    submit_s = time.monotonic() - started
    assert len(ids) == backlog, f"only {len(ids)} of {backlog} accepted"
    queued = Job.objects.filter(pk__in=ids, status="queued").count()

    drain_started = time.monotonic()
    procs.append(start_worker(queues="interactive", concurrency=env_int(
        "FAULTS_BACKLOG_CONCURRENCY", 2)))
    ended = wait_final(ids, timeout=env_int("FAULTS_BACKLOG_TIMEOUT", 900))
    drain_s = time.monotonic() - drain_started
    tally = tally_jobs(f"backlog of {backlog}", ids, marks=marked)
    jobs = Job.objects.filter(pk__in=ids)
    tally.notes.update(
        submit_s=round(submit_s, 1), submit_per_s=round(backlog / submit_s, 1),
        submit_latency=ms(percentiles(log.latencies("submit"))),
        queued_when_workers_started=queued, drain_s=round(drain_s, 1),
        drain_jobs_per_s=round(backlog / drain_s, 1),
        attempts=dict(Counter(jobs.values_list("attempts", flat=True))),
        enqueued_more_than_once=jobs.filter(enqueue_count__gt=1).count(),
        statuses=dict(log.statuses()))
    report(tally)
    assert ended, "the backlog was not drained in time"
    assert log.server_errors() == []
    assert tally.lost == 0 and tally.doubled == 0
    assert tally.succeeded == backlog
