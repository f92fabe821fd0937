"""Scenarios counted by their effects (tests/faults/effects.py): engine runs per job, webhook
events per job and endpoint, drive files per output.

- a pool child SIGKILLed in the middle of a job (the worker's main process lives on), on an
  idle queue and with jobs waiting behind it;
- jobs ending right at their soft time limit, with a webhook subscribed;
- the same job killed three times;
- outputs reaching the drive within seconds while 20 webhook endpoints fail and retry.

The kill scenarios run on the product's clocks (heartbeat, staleness, reconcile tick:
FAULTS_CLOCKS=production), so their recovery time is the one production would see.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import statistics
import time
from collections import Counter
from typing import Any

import pytest
from django.conf import settings

import config.settings as product
from jobs.models import Job
from jobs.services import job_submit
from tests.faults.effects import (
    DeliveryQueue,
    Receivers,
    count_events,
    engine_runs,
    landed_seconds,
    new_mark,
    webhook_receivers,
)
from tests.faults.harness import (
    FINAL,
    Tally,
    env_int,
    make_partners,
    pool_children,
    report,
    start_fault_beat,
    start_fault_worker,
    tally_jobs,
    wait_final,
    wait_rerun,
)
from tests.support.processes import CeleryProcess, start_beat, start_worker, wait_for
from tools.registry import TOOLS

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SLEEP = TOOLS["diagnostics.sleep"]
PRODUCTION = {"FAULTS_CLOCKS": "production", "OUTBOUND_ALLOW": "127.0.0.1"}
# With the product's clocks, the product's time limits too: the reconciler takes a run that
# went silent within two heartbeats of its hard limit for one that reached it.
SLEEP_PRODUCTION = dataclasses.replace(SLEEP, soft_limit=product.DIAGNOSTICS_SOFT_LIMIT,
                                       hard_limit=product.DIAGNOSTICS_HARD_LIMIT)
CLOCKS = (f"production (heartbeat stale after {product.JOB_HEARTBEAT_STALE_SECONDS:g} s, "
          f"reconcile every {product.JOB_RECONCILE_SECONDS:g} s)")
EVENTS = {"succeeded": "job.succeeded", "failed": "job.failed"}


def subscribe(org: Any, receivers: Receivers, name: str, *, failing: bool = False,
              events: tuple[str, ...] = ("job.succeeded", "job.failed")) -> str:
    from webhooks.models import Webhook
    from webhooks.services import new_secret

    url = receivers.url(name, failing=failing)
    Webhook.objects.create(organization=org, url=url, events=list(events), secret=new_secret())
    return url


def submit_marked(user: Any, count: int, *, tool: Any = SLEEP,
                  **payload: Any) -> dict[str, str]:
    """`count` diagnostic jobs, each with a mark of its own: job id -> mark."""
    marks = {}
    for _ in range(count):
        mark = new_mark()
        job = job_submit(org=user.organization, user=user, tool=tool,
                         payload={**payload, "mark": mark}).job
        marks[str(job.pk)] = mark
    return marks


def job_stack(procs: list[Any], queue: str = "interactive", *, env: dict[str, str],
              concurrency: int = 1) -> CeleryProcess:
    """A worker for the jobs, and the drivesync (reconciler) and webhooks workers and beat,
    all of the fault app: the jobs' worker, whose pool children are killed."""
    worker = start_fault_worker(queue, concurrency=concurrency, env=env)
    procs += [worker, start_fault_worker("drivesync", concurrency=1, env=env),
              start_fault_worker("webhooks", concurrency=2, env=env), start_fault_beat(env)]
    return worker


def kill_pool_child(worker: CeleryProcess) -> float:
    """SIGKILL the pool process of a worker of concurrency 1: time.monotonic() of the kill."""
    children = pool_children(worker)
    assert len(children) == 1, f"pool processes: {children}"
    os.kill(children[0], signal.SIGKILL)
    return time.monotonic()


def ended_(job_id: str) -> bool:
    return Job.objects.filter(pk=job_id, status__in=list(FINAL)).exists()


def started_runs(mark: str) -> int:
    return engine_runs([mark]).get(mark, Counter())["start"]


def add_events(tally: Tally, receivers: Receivers, endpoint: str, ids: list[str],
               *, wait: float = 60) -> None:
    """The job events each ended job must have announced, once, at `endpoint`."""
    def expected() -> dict[str, str]:
        ended = Job.objects.filter(pk__in=ids, status__in=list(EVENTS))
        return {str(j.pk): EVENTS[j.status] for j in ended.only("id", "status")}

    # deliveries are sent by the webhooks worker after the jobs end: let them arrive
    try:
        wait_for(lambda: count_events(receivers, endpoint, expected()).lost == 0, wait,
                 interval=0.2, what="every job event delivered")
    except TimeoutError:
        pass  # counted as lost below
    time.sleep(1)  # a second copy in flight would land now
    counted = count_events(receivers, endpoint, expected())
    tally.lost += counted.lost
    tally.doubled += counted.doubled
    tally.notes["events_received"] = len(receivers.hits)
    if counted.details:
        tally.notes["event_issues"] = counted.details[:5]


@pytest.mark.parametrize("busy", [False, True], ids=["idle", "busy"])
def test_pool_child_sigkilled_mid_job(busy: bool, procs: list[Any]) -> None:
    """The pool process running a job is SIGKILLed; the worker's main process lives on and
    forks a new child. The job must run again soon (ahead of the jobs behind it on a busy
    queue), once to the end, and announce its end once."""
    (user, _), = make_partners(1)
    with webhook_receivers() as hooks:
        endpoint = subscribe(user.organization, hooks, "pool")
        worker = job_stack(procs, env=PRODUCTION)
        victim_marks = submit_marked(user, 1, tool=SLEEP_PRODUCTION, seconds=3.0, outputs=2)
        victim, mark = next(iter(victim_marks.items()))
        behind = submit_marked(user, env_int("FAULTS_BUSY_JOBS", 8) if busy else 0,
                               tool=SLEEP_PRODUCTION, seconds=1.0)
        wait_for(lambda: started_runs(mark) >= 1, 60, interval=0.05, what="the run to start")
        time.sleep(1.0)  # in the middle of the engine's work
        killed = kill_pool_child(worker)
        recovery = wait_rerun(victim, attempt=2, since=killed, timeout=240)
        marks = victim_marks | behind
        ended = wait_final(marks, timeout=240)
        tally = tally_jobs(f"pool child SIGKILL ({'busy' if busy else 'idle'} queue)",
                           list(marks), marks=marks)
        tally.recovery_s = recovery
        tally.notes["recovery"] = "kill -> the job running again"
        tally.notes["clocks"] = CLOCKS
        add_events(tally, hooks, endpoint, list(marks))
    job = Job.objects.get(pk=victim)
    tally.notes["attempts"] = job.attempts
    if busy:
        # newer jobs that started before the killed one ran again
        tally.notes["newer_jobs_first"] = Job.objects.filter(
            pk__in=list(behind), started_at__lt=job.started_at).count()
    report(tally)
    assert ended, "jobs still open 4 minutes after the kill"
    assert tally.lost == 0 and tally.doubled == 0, tally.notes
    assert tally.succeeded == len(marks), tally.failed
    assert started_runs(mark) == 2  # the killed run and the one that finished


def test_jobs_ending_exactly_at_their_soft_limit(procs: list[Any]) -> None:
    """Jobs whose work ends within a few hundredths of a second of their soft time limit,
    before, at and after it, with a webhook subscribed: each ends once (succeeded, or failed
    with time_limit), is never run a second time, and its one event arrives once."""
    soft, _ = SLEEP.limits
    count = env_int("FAULTS_SOFT_LIMIT_JOBS", 12)
    (user, _), = make_partners(1)
    with webhook_receivers() as hooks:
        endpoint = subscribe(user.organization, hooks, "soft")
        # the suites' quick clocks: a job left running would be taken for lost in seconds
        job_stack(procs, env={"OUTBOUND_ALLOW": "127.0.0.1"}, concurrency=2)
        marks: dict[str, str] = {}
        for i in range(count):
            marks |= submit_marked(user, 1, seconds=soft - 0.25 + 0.03 * i, outputs=2)
        ended = wait_final(marks, timeout=60 + 4 * soft * count)
        tally = tally_jobs("jobs ending at their soft limit (webhook subscribed)", list(marks),
                           marks=marks)
        runs = engine_runs(marks.values())
        reruns = sum(max(0, runs[m]["start"] - 1) for m in marks.values())
        tally.doubled += reruns  # nothing killed these runs: a second start is a second run
        add_events(tally, hooks, endpoint, list(marks))
    jobs = list(Job.objects.filter(pk__in=list(marks)))
    late = [(j.finished_at - j.started_at).total_seconds() - soft for j in jobs
            if j.finished_at and j.started_at]
    tally.recovery_s = max(0.0, max(late, default=0.0))
    tally.notes["recovery"] = "soft limit -> the job ended (the latest)"
    tally.notes.update(reruns=reruns, attempts=dict(Counter(j.attempts for j in jobs)),
                       still_running=sum(j.status == "running" for j in jobs))
    report(tally)
    assert ended, "jobs left open past their limits"
    assert tally.lost == 0 and tally.doubled == 0, tally.notes
    assert set(tally.failed) <= {"time_limit"}, tally.failed


def test_the_same_job_killed_three_times(procs: list[Any]) -> None:
    """The pool process running one job is SIGKILLed on each of its first three runs. With
    JOB_MAX_ATTEMPTS runs allowed (3 by default) it fails `worker_lost` once its attempts are
    spent, announced once and with no output; with more, the fourth run succeeds."""
    max_attempts = settings.JOB_MAX_ATTEMPTS
    (user, _), = make_partners(1)
    with webhook_receivers() as hooks:
        endpoint = subscribe(user.organization, hooks, "thrice")
        worker = job_stack(procs, env=PRODUCTION)
        marks = submit_marked(user, 1, tool=SLEEP_PRODUCTION, seconds=3.0)
        job_id, mark = next(iter(marks.items()))
        recoveries = []
        killed = time.monotonic()
        for kill in range(1, 4):
            wait_for(lambda k=kill: started_runs(mark) >= k or ended_(job_id), 240,
                     interval=0.05, what=f"run {kill} to start")
            if ended_(job_id):
                break  # it ended without that run: the figures below say how
            time.sleep(0.8)
            killed = kill_pool_child(worker)
            if kill < max_attempts:
                recoveries.append(wait_rerun(job_id, attempt=kill + 1, since=killed,
                                             timeout=240))
        ended = wait_final([job_id], timeout=240)
        settled = time.monotonic() - killed  # the third kill to the job's end
        tally = tally_jobs("same job killed three times", [job_id], marks=marks)
        add_events(tally, hooks, endpoint, [job_id])
    job = Job.objects.get(pk=job_id)
    tally.recovery_s = max(recoveries, default=settled)
    tally.notes["recovery"] = "kill -> the job running again (the longest)"
    tally.notes["clocks"] = CLOCKS
    tally.notes.update(max_attempts=max_attempts, attempts=job.attempts,
                       runs_started=started_runs(mark), status=job.status,
                       error=job.error_code, recoveries_s=[round(r, 1) for r in recoveries],
                       ended_after_third_kill_s=round(settled, 1),
                       outputs=job.outputs.count())
    report(tally)
    assert ended, "the job never ended"
    assert tally.lost == 0 and tally.doubled == 0, tally.notes
    if max_attempts <= 3:
        assert (job.status, job.error_code) == ("failed", "worker_lost")
        assert job.outputs.count() == 0
    else:
        assert job.status == "succeeded"


def test_outputs_reach_the_drive_within_seconds_while_webhooks_fail(
        procs: list[Any], fake_google: Any) -> None:
    """Recolor jobs succeed in waves; their organisation has 20 webhook endpoints that answer
    500 after a second, so every event is retried. Each job's files must be in its output
    folder (the loopback Google Drive) within 10 s of its end, once, and the drivesync queue
    never holds two deliveries of one job."""
    from tests.faults.drives import delivered_keys, google_output_folder, succeeded_recolors
    from workers.tasks.drives import deliver_outputs_enqueue

    (user, _), = make_partners(1, staff=False)
    folder_id = google_output_folder(fake_google, user.organization)
    waves, per_wave, outputs = env_int("FAULTS_DRIVE_WAVES", 5), 4, 2
    with webhook_receivers(fail_after=1.0) as hooks:
        for i in range(env_int("FAULTS_FAILING_ENDPOINTS", 20)):
            subscribe(user.organization, hooks, f"down{i}", failing=True,
                      events=("job.succeeded",))
        procs += [start_fault_worker("drivesync", concurrency=1,
                                     env={"FAULTS_GOOGLE_URL": fake_google.base_url}),
                  start_worker(queues="webhooks", concurrency=2,
                               env={"OUTBOUND_ALLOW": "127.0.0.1"}),
                  start_beat()]
        jobs = []
        with DeliveryQueue() as queue:
            for _ in range(waves):
                wave = succeeded_recolors(user, count=per_wave, outputs=outputs)
                for job in wave:  # what the job task does once a run succeeded
                    deliver_outputs_enqueue(job_id=str(job.pk), tool="recolor")
                jobs += wave
                time.sleep(2)
            expected = {f"{j.pk}:{i}" for j in jobs for i in range(outputs)}
            try:
                wait_for(lambda: expected <= set(delivered_keys(fake_google, folder_id)), 60,
                         interval=0.2, what="every output in the drive")
            except TimeoutError:
                pass  # counted as lost below
            time.sleep(3)  # a second delivery in flight would land now
        webhook_attempts = hooks.count()
    keys = delivered_keys(fake_google, folder_id)
    finished = {str(j.pk): j.finished_at.timestamp()
                for j in Job.objects.filter(pk__in=[j.pk for j in jobs])}
    landed = landed_seconds(fake_google, folder_id, finished)
    tally = Tally("outputs to the drive while 20 webhook endpoints fail",
                  submitted=len(expected))
    tally.succeeded = len(expected & set(keys))
    tally.lost = len(expected - set(keys))
    tally.doubled = sum(n - 1 for n in keys.values() if n > 1)
    delays = sorted(landed.values())
    tally.notes.update(
        landed_p50_s=round(statistics.median(delays), 2) if delays else None,
        landed_max_s=round(max(delays), 2) if delays else None,
        most_deliveries_queued_per_job=max(queue.most.values(), default=0),
        queue_samples=queue.samples, webhook_attempts=webhook_attempts)
    report(tally)
    assert tally.lost == 0 and tally.doubled == 0, dict(keys)
    assert delays and max(delays) <= 10.0, delays
    assert max(queue.most.values(), default=0) <= 1, dict(queue.most)
