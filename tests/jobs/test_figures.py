"""Queue figures kept as jobs move: the queries a job poll and the queue list cost whatever
the history and the backlog, one queue position for the job line and the status bar, the
counters healed by the reconcile tick, job lists that never count all history, and direct
calls that wait on the job's end notice instead of polling the database."""

from __future__ import annotations

import contextlib
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from jobs import figures, selectors
from jobs.apis import JobPagination
from jobs.models import Job, JobStatus
from jobs.selectors import QueueFigures, direct_wait_slot, job_wait, queue_position
from jobs.services import job_fail, job_start, job_submit, job_succeed
from tests.conftest import client_for
from tests.support.factories import UserFactory
from tools.registry import TOOLS
from workers.engines.base import EngineOutput

SLEEP = TOOLS["diagnostics.sleep"]
REBODY = {"image_url": "https://cdn.maison.test/looks/polo.jpg", "target_bodytype": "Curvy Fit",
          "specs": ""}


def submit(user: User, n: int = 1) -> list[Job]:
    return [job_submit(org=user.organization, user=user, tool=SLEEP,
                       payload={"seconds": 0.1}).job for _ in range(n)]


def history(user: User, n: int) -> None:
    """n finished jobs of the past, as a year of work leaves them."""
    now = timezone.now()
    Job.objects.bulk_create(
        Job(organization=user.organization, tool=SLEEP.slug, queue=SLEEP.queue,
            status=JobStatus.SUCCEEDED, started_at=now - timedelta(seconds=20),
            finished_at=now - timedelta(seconds=10)) for _ in range(n))


def queries(call: Any) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as seen:
        answer = call()
    return answer, len(seen.captured_queries)


@pytest.mark.django_db(transaction=True)
def test_a_job_poll_and_the_queue_list_cost_three_queries_whatever_the_backlog(
        staff: User) -> None:
    # given a client whose token was used a moment ago (its last use is written once a while)
    api = client_for(staff)
    api.get("/api/me/")
    costs = []
    for backlog, past in ((3, 0), (300, 2000)):
        # when the queue holds `backlog` jobs of another organisation, two of them running,
        # over `past` jobs of history, and we poll our job and the queue list
        other = UserFactory()
        history(other, past)
        ahead = submit(other, backlog)
        for job in ahead[:2]:
            job_start(job_id=job.pk)
        mine = staff_submit(api)
        body, get_cost = queries(lambda job_id=mine: api.get(f"/api/jobs/{job_id}/").json())
        rows, list_cost = queries(lambda: api.get("/api/queues/").json())
        # then the figures are right, and cost the same at both sizes
        assert body["status"] == "queued"
        assert body["queue_position"] == backlog - 2
        assert body["eta_seconds"] > 0
        (row,) = [r for r in rows if r["tool"] == SLEEP.slug]
        assert row["queue_position"] == body["queue_position"]
        assert (row["queued"], row["running"]) == (1, 0)
        costs.append((get_cost, list_cost))
        Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).update(
            status=JobStatus.CANCELED)
        figures.figures_reset()
    print(f"queries (GET job, GET queues): {costs[0]} at 3 queued and no history, "
          f"{costs[1]} at 300 queued over 2,000 jobs of history")
    assert costs[0] == costs[1]
    assert all(get <= 3 and listing <= 3 for get, listing in costs)

    # a finished job with its outputs: three queries too
    (job,) = [Job.objects.get(pk=staff_submit(api))]
    taken = job_start(job_id=job.pk)
    assert taken is not None and taken.lease is not None
    job_succeed(job=taken, lease=taken.lease, outputs=[
        EngineOutput(data=b"x", content_type="text/plain", filename="o.txt")])
    body, done_cost = queries(lambda: api.get(f"/api/jobs/{job.pk}/").json())
    assert body["status"] == "succeeded" and len(body["outputs"]) == 1
    assert body["queue_position"] is None
    assert done_cost <= 3


def staff_submit(api: APIClient) -> Any:
    resp = api.post("/api/diagnostics/sleep", {"seconds": 0.1}, format="json")
    assert resp.status_code == 202, resp.json()
    return resp.json()["id"]


@pytest.mark.django_db(transaction=True)
def test_the_status_bar_and_the_job_line_read_one_queue_position(staff: User) -> None:
    # given three jobs of another organisation ahead of two of ours
    api = client_for(staff)
    submit(UserFactory(), 3)
    first, second = staff_submit(api), staff_submit(api)
    # when the page reads the queue list and the job lines
    (row,) = [r for r in api.get("/api/queues/").json() if r["tool"] == SLEEP.slug]
    lines = [api.get(f"/api/jobs/{i}/").json()["queue_position"] for i in (first, second)]
    # then the status bar's figure is our first job's line: jobs ahead in the queue, all
    # organisations alike
    assert lines == [3, 4]
    assert row["queue_position"] == 3
    assert (row["queued"], row["running"]) == (2, 0)
    job = Job.objects.get(pk=first)
    assert queue_position(job=job) == 3
    # a running job has no place in the line
    assert queue_position(job=Job.objects.get(pk=job_start(job_id=second).pk)) is None  # type: ignore[union-attr]


@pytest.mark.django_db(transaction=True)
def test_a_start_sent_after_redis_closed_the_connection_is_not_lost(partner: User) -> None:
    # given two queued jobs, and this process's connection for the changes it does not wait
    # on, used once, then closed by Redis (a restart or a timeout does it to an idle one)
    first, second = submit(partner, 2)
    job_start(job_id=first.pk)
    figures.settle()
    closed = figures.redis_client().client_kill_filter(_type="normal", skipme=True)
    assert closed >= 1
    # when the next run takes the second job
    job_start(job_id=second.pk)
    figures.settle()
    # then the figures hold both as running and neither as queued
    running = figures.redis_client().hkeys(f"{figures.PREFIX}{SLEEP.queue}:running")
    assert {str(first.pk), str(second.pk)} <= {r.decode() for r in running}
    assert queue_position(job=Job.objects.get(pk=second.pk)) is None


@pytest.mark.django_db(transaction=True)
def test_a_start_written_to_a_connection_redis_reset_is_sent_again(partner: User) -> None:
    # given this process's connection for the changes it does not wait on, idle with nothing
    # unanswered, closed by Redis and already reset (a write after Redis closed it was
    # refused): the next write fails at once with a broken pipe
    first, second = submit(partner, 2)
    job_start(job_id=first.pk)
    figures.settle()
    assert figures.redis_client().client_kill_filter(_type="normal", skipme=True) >= 1
    time.sleep(0.2)
    sock = figures._unanswered._conn._sock
    with contextlib.suppress(OSError):
        sock.sendall(b"*1\r\n$4\r\nPING\r\n")  # answered by a reset
        time.sleep(0.2)
        sock.sendall(b"*1\r\n$4\r\nPING\r\n")
    # when the next run takes the second job
    job_start(job_id=second.pk)
    figures.settle()
    # then its start is in the figures: sent again on a new connection, not lost
    running = figures.redis_client().hkeys(f"{figures.PREFIX}{SLEEP.queue}:running")
    assert str(second.pk) in {r.decode() for r in running}
    assert queue_position(job=Job.objects.get(pk=second.pk)) is None


@pytest.mark.django_db(transaction=True)
def test_the_reconcile_tick_heals_counters_that_lost_a_change(partner: User) -> None:
    # given queued and running jobs whose counters Redis lost (a restart), a job that ended
    # without telling them, and past runs of 8 s
    jobs = submit(partner, 4)
    job_start(job_id=jobs[0].pk)
    now = timezone.now()
    Job.objects.filter(pk=jobs[1].pk).update(status=JobStatus.FAILED, finished_at=now)
    history(partner, 3)
    Job.objects.filter(finished_at__isnull=False, status=JobStatus.SUCCEEDED).update(
        started_at=now - timedelta(seconds=18), finished_at=now - timedelta(seconds=10))
    figures.figures_reset()
    figures.job_queued(job_id=jobs[1].pk, queue=SLEEP.queue, tool=SLEEP.slug,
                       created_at=jobs[1].created_at)  # the stale one
    assert figures.queue_state(queue=SLEEP.queue) is not None
    # when the reconcile ticks heal them: a few jobs off may be jobs moving while the tick
    # reads, so only a difference that holds for three ticks is rebuilt
    first = figures.figures_heal(tools=[SLEEP.slug])
    assert first.rebuilt == [] and first.seeded == [SLEEP.slug]
    assert figures.figures_heal(tools=[SLEEP.slug]).rebuilt == []
    report = figures.figures_heal(tools=[SLEEP.slug])
    # then the queue is rebuilt from the database and the run times seeded from history
    assert report.rebuilt == [SLEEP.queue]
    state = figures.queue_state(queue=SLEEP.queue)
    assert state is not None
    assert state.ahead == 2 and state.queued_by_tool == {SLEEP.slug: 2}
    assert [r[0] for r in state.running] == [str(jobs[0].pk)]
    assert [queue_position(job=j) for j in jobs[2:]] == [0, 1]
    assert QueueFigures().avg(SLEEP.slug) == pytest.approx(8.0)
    # and a tick with nothing drifted rebuilds nothing
    assert figures.figures_heal(tools=[SLEEP.slug]).rebuilt == []


@pytest.mark.django_db(transaction=True)
def test_figures_redis_lost_are_rebuilt_at_the_first_tick(partner: User) -> None:
    # given a backlog whose figures Redis lost all at once (restarted empty)
    jobs = submit(partner, 8)
    figures.figures_reset()
    assert queue_position(job=jobs[-1]) == 0
    # when one tick runs, then the queue is rebuilt at once
    assert figures.figures_heal().rebuilt == [SLEEP.queue]
    assert queue_position(job=jobs[-1]) == 7


@pytest.mark.django_db(transaction=True)
def test_run_times_are_the_median_of_the_last_runs_seeded_by_the_declared_time(
        partner: User) -> None:
    assert QueueFigures().avg(SLEEP.slug) == pytest.approx(SLEEP.expected_seconds)
    for seconds in (2.0, 2.2, 60.0):  # one run waited on a cold start
        figures.run_recorded(tool=SLEEP.slug, seconds=seconds)
    assert QueueFigures().avg(SLEEP.slug) == pytest.approx(2.2)
    for _ in range(figures.RUN_WINDOW):
        figures.run_recorded(tool=SLEEP.slug, seconds=3.0)
    assert QueueFigures().avg(SLEEP.slug) == pytest.approx(3.0)  # only the last N count


@pytest.mark.django_db(transaction=True)
def test_a_waiting_call_wakes_on_the_end_notice_without_polling(partner: User) -> None:
    # given a queued job that another process fails a moment later
    (job,) = submit(partner)

    def end_it() -> None:
        time.sleep(1.0)
        taken = job_start(job_id=job.pk)
        assert taken is not None
        job_fail(job_id=job.pk, lease=taken.lease, code="engine_error", message="No.")

    ender = threading.Thread(target=end_it)
    ender.start()
    # when a request waits for it
    ended, cost = queries(lambda: job_wait(job_id=job.pk, timeout=30))
    ender.join()
    # then it has the job's end, read once before and once after the wait: no poll
    assert ended.status == JobStatus.FAILED
    assert cost == 2


@pytest.mark.django_db(transaction=True)
def test_a_waiting_call_reads_the_job_again_when_its_end_notice_is_lost(
        partner: User, monkeypatch: Any) -> None:
    # given a job that ends without its notice (Redis lost it)
    monkeypatch.setattr(selectors, "WAIT_RECHECK_SECONDS", 0.5)
    (job,) = submit(partner)

    def end_it() -> None:
        time.sleep(1.0)
        Job.objects.filter(pk=job.pk).update(status=JobStatus.FAILED)

    ender = threading.Thread(target=end_it)
    ender.start()
    # when a request waits for it, then it reads the job again now and then and sees the end
    ended, cost = queries(lambda: job_wait(job_id=job.pk, timeout=5))
    ender.join()
    assert ended.status == JobStatus.FAILED
    assert cost >= 3  # the first read, the rechecks, not only the read at the deadline


@pytest.mark.django_db(transaction=True)
def test_a_direct_call_answers_202_with_the_job_past_its_wait(api: APIClient,
                                                               settings: Any) -> None:
    # no worker runs: the job outlasts the wait
    settings.DIRECT_WAIT_SECONDS = 0.3
    resp = api.post("/api/rebody/process", REBODY, format="json")
    assert resp.status_code == 202, resp.json()
    body = resp.json()
    assert body["status"] == "queued" and body["tool"] == "rebody"
    assert resp["Location"] == f"/api/jobs/{body['id']}/"


@pytest.mark.django_db(transaction=True)
def test_a_direct_call_does_not_wait_when_every_waiting_slot_is_taken(
        api: APIClient, settings: Any) -> None:
    # given a process whose one waiting slot is held by another request
    settings.DIRECT_WAIT_SLOTS = 1
    settings.DIRECT_WAIT_SECONDS = 120  # were it to wait, the test would hang for minutes
    with direct_wait_slot() as held:
        assert held
        with direct_wait_slot() as second:
            assert not second
        # when a direct call comes: the job at once, to poll
        resp = api.post("/api/rebody/process", REBODY, format="json")
    assert resp.status_code == 202, resp.json()
    assert resp.json()["status"] == "queued"
    with direct_wait_slot() as again:  # the slot is free again
        assert again


@pytest.mark.django_db(transaction=True)
def test_job_pages_do_not_count_the_whole_history(api: APIClient, partner: User,
                                                  monkeypatch: Any) -> None:
    history(partner, 30)
    monkeypatch.setattr(JobPagination, "MAX_COUNT", 20)
    # a page that is not the last: next, and a count bounded by MAX_COUNT
    page = api.get("/api/jobs/?limit=10").json()
    assert set(page) == {"count", "next", "previous", "results"}
    assert len(page["results"]) == 10 and page["next"] and page["previous"] is None
    assert page["count"] == 20
    # the last page: an exact count, no next
    last = api.get("/api/jobs/?limit=10&offset=25").json()
    assert len(last["results"]) == 5 and last["next"] is None and last["count"] == 30
    # past the end
    assert api.get("/api/jobs/?limit=10&offset=40").json()["results"] == []
    # a short list counts itself: no count query
    few = api.get("/api/jobs/?limit=50&status=queued").json()
    assert few == {"count": 0, "next": None, "previous": None, "results": []}
