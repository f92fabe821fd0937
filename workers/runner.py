"""Running one job in a worker: take it, find its engine, resolve its inputs, run the engine
with a progress callback and a heartbeat, and end it through the job lifecycle services.

The jobs app keeps the lifecycle (every transition a guarded UPDATE); this module is the
worker's side of it and is only imported by worker tasks and tests.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from typing import Any, TypedDict

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connection
from psycopg import pq

from config.metrics import JOBS_FAILED, JOBS_STARTED, JOBS_SUCCEEDED, RUN_SECONDS
from jobs.kinds import job_limits
from jobs.models import Job
from jobs.services import job_fail, job_heartbeat, job_progress, job_start, job_succeed
from workers.engines.base import Engine, EngineError

logger = logging.getLogger(__name__)


class JobAborted(Exception):
    """Raised inside a run whose job was canceled or handed to another run."""


class _Heartbeats:
    """One thread per worker process touches the rows of the jobs running in it, and tells a
    run whose job was canceled or taken over (its guarded UPDATE matched nothing)."""

    def __init__(self) -> None:
        self._runs: dict[Any, tuple[uuid.UUID, threading.Event]] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def register(self, job_id: Any, lease: uuid.UUID) -> threading.Event:
        lost = threading.Event()
        with self._lock:
            self._runs[job_id] = (lease, lost)
            # (re)start after a fork: threads do not survive into a pool child
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="job-heartbeats",
                                                daemon=True)
                self._thread.start()
        return lost

    def unregister(self, job_id: Any) -> None:
        with self._lock:
            self._runs.pop(job_id, None)

    def _loop(self) -> None:
        while True:
            time.sleep(settings.JOB_HEARTBEAT_SECONDS)
            with self._lock:
                runs = list(self._runs.items())
            for job_id, (lease, lost) in runs:
                try:
                    if not job_heartbeat(job_id=job_id, lease=lease):
                        lost.set()
                except Exception as exc:  # noqa: BLE001 - database hiccup: next beat
                    logger.warning("heartbeat of job %s failed: %s", job_id, exc)
                    close_old_connections()


_heartbeats = _Heartbeats()


class RunContext:
    """What a running job needs around its engine: the progress callback and a heartbeat."""

    def __init__(self, job_id: Any, lease: uuid.UUID) -> None:
        self.job_id = job_id
        self.lease = lease
        # The first write waits a full interval too: a job that ends within it writes no
        # progress (its end sets 100).
        self._last_write = time.monotonic()
        self._last_value = -1
        self._lost = threading.Event()

    def __enter__(self) -> RunContext:
        self._lost = _heartbeats.register(self.job_id, self.lease)
        return self

    def __exit__(self, *exc: Any) -> None:
        _heartbeats.unregister(self.job_id)

    def progress(self, percent: float, message: str | None = None) -> None:
        if self._lost.is_set():
            raise JobAborted("the job was canceled or taken over")
        value = max(0, min(100, int(percent)))
        now = time.monotonic()
        # 100 is not written: the run's end writes it, with the job's state.
        if value <= self._last_value or value >= 100 or (
            now - self._last_write < settings.JOB_PROGRESS_MIN_INTERVAL
        ):
            return
        self._last_write, self._last_value = now, value
        if not job_progress(job_id=self.job_id, lease=self.lease, percent=value):
            self._lost.set()
            raise JobAborted("the job was canceled or taken over")


def _engine_name(job: Job) -> str:
    """The job's engine as copied at submit; for rows older than that column, the tool's."""
    if job.engine_name:
        return job.engine_name
    from tools.registry import tool_get

    tool = tool_get(job.tool)
    return (tool.engine or "") if tool else ""


def engine_for_job(job: Job) -> Engine | None:
    """The callable that runs the job: its local engine, or the provider-backed one chosen
    for the organisation and tool (its own account, else ENGINE_PROVIDERS: studio.routing).
    None when neither exists."""
    from studio.routing import provider_config_for

    from tools.registry import LOCAL_ENGINES
    from workers.providers.select import engine_for

    name = _engine_name(job)
    if not name:
        return None
    try:
        config = provider_config_for(org_id=job.organization_id, tool_slug=job.tool,
                                     engine_name=name)
        return engine_for(name, {name: config} if config else {}, local=LOCAL_ENGINES)
    except KeyError:  # no local engine and no provider for it
        return None
    except EngineError as exc:  # the organisation's account cannot be used: the job says why
        return _refusing(exc)


def _refusing(exc: EngineError) -> Engine:
    def run(params: dict[str, Any], progress: Any) -> Any:
        raise exc

    return run


def url_inputs_for_job(job: Job) -> dict[str, str]:
    """Input fields of the job's tool that hold image URLs, and the engine parameters that
    get their fetched bytes."""
    from tools.registry import tool_get

    tool = tool_get(job.tool)
    return dict(tool.url_inputs) if tool else {}


def job_params(job: Job) -> dict[str, Any]:
    """The engine's parameters: the job's input with its images fetched or read from drives."""
    params = dict(job.input)
    url_inputs = url_inputs_for_job(job)
    if url_inputs or "_sources" in params:
        from workers.inputs import inputs_resolve

        params = inputs_resolve(params, url_inputs=url_inputs)
    return params


class Made(TypedDict):
    made_by: str
    tier: str


def made_by(engine: Engine, job: Job | None = None) -> Made:
    """Which engine made a run's result and its tier, read from the engine once it has run (a
    provider engine that fell back on the local one says so then): provider engines carry
    `made_by` (e.g. `fashn:tryon-v1.6`) and `tier`; a plain local engine is `local`, and its
    tier is `preview` when its tool is a generative one (a provider makes studio results)."""
    made = str(getattr(engine, "made_by", "local") or "local")
    tier = str(getattr(engine, "tier", "") or "")
    if not tier and made == "local" and job is not None and _generative(job):
        tier = "preview"
    return Made(made_by=made, tier=tier)


def _generative(job: Job) -> bool:
    from tools.registry import tool_get

    tool = tool_get(job.tool)
    return bool(tool and tool.generative)


def job_run(*, job_id: str) -> str:
    """Run one job end to end in this worker. Safe to call twice for the same job."""
    return job_execute(job_id=job_id)[0]


def job_execute(*, job_id: str) -> tuple[str, Job | None]:
    """`job_run`, with the job as it was taken (None when there was nothing to run), so the
    task can go on with it without reading it again."""
    from config.observability import job_log_context

    job_log_context(job_id=str(job_id))  # every log line of this run carries the job id
    # The take below replaces a connection a database restart broke, so the health check
    # CONN_HEALTH_CHECKS does before a task's first query (a SELECT 1) is not needed here:
    # one round trip less per job on PostgreSQL.
    connection.health_check_done = True  # type: ignore[attr-defined]  # (not in the stubs)
    try:
        job = job_start(job_id=job_id)
    except (OperationalError, InterfaceError):
        # A kept connection that a database restart broke: replace it once, here.
        connection.close()
        job = job_start(job_id=job_id)
    if job is None:
        return "skipped", None
    lease = job.lease
    assert lease is not None
    job_log_context(job_id=str(job_id), tool=job.tool, organization=str(job.organization_id),
                    attempt=job.attempts, queue=job.queue)
    JOBS_STARTED.labels(job.tool).inc()
    began = time.monotonic()
    try:
        outcome, code = _run(job_id, job, lease)
    except SoftTimeLimitExceeded:
        # The limit fired after the engine returned, outside the paths that handle it (while
        # a failure was being recorded, say): end the job under its lease (a no-op if it has
        # ended) rather than leave it running for the reconciler to run again.
        connection_after_interrupt()
        soft, _ = job_limits(job)
        job_fail(job_id=job_id, lease=lease, code="time_limit",
                 message=f"The job ran longer than its time limit of {soft} seconds.")
        outcome, code = "failed", "time_limit"
    _count_end(job.tool, outcome, code, time.monotonic() - began)
    return outcome, job


def connection_after_interrupt() -> None:
    """After a time limit's exception, which lands wherever the run is: a PostgreSQL
    connection it left in the middle of a statement (a progress write) cannot open the
    transaction that ends the job, so it is closed; the next query opens a new one."""
    raw = connection.connection
    info = getattr(raw, "info", None)  # psycopg's; SQLite's connection has none
    if connection.in_atomic_block or info is None:
        return
    if info.transaction_status != pq.TransactionStatus.IDLE:
        connection.close()


def _count_end(tool: str, outcome: str, code: str, seconds: float) -> None:
    """The run's end in the metrics (config.metrics); an aborted run (canceled, taken over)
    ends as the run that owns the job says."""
    if outcome == "succeeded":
        JOBS_SUCCEEDED.labels(tool).inc()
    elif outcome == "failed":
        JOBS_FAILED.labels(tool, code).inc()
    else:
        return
    RUN_SECONDS.labels(tool, outcome).observe(seconds)


def _run(job_id: str, job: Job, lease: uuid.UUID) -> tuple[str, str]:
    """The taken job's run: its outcome and, when it failed, the error code."""
    engine = engine_for_job(job)
    if engine is None:
        job_fail(job_id=job_id, lease=lease, code="unknown_tool",
                 message=f"No engine is installed for the tool '{job.tool}'.")
        return "failed", "unknown_tool"
    soft, _ = job_limits(job)
    with RunContext(job.pk, lease) as run:
        try:
            outputs = engine(job_params(job), run.progress)
        except JobAborted:
            return "aborted", ""
        except SoftTimeLimitExceeded:
            connection_after_interrupt()
            job_fail(job_id=job_id, lease=lease, code="time_limit",
                     message=f"The job ran longer than its time limit of {soft} seconds.",
                     **made_by(engine, job))
            return "failed", "time_limit"
        except EngineError as exc:
            job_fail(job_id=job_id, lease=lease, code=exc.code, message=exc.message,
                     **made_by(engine, job))
            return "failed", exc.code
        except Exception as exc:
            logger.exception("engine %s failed on job %s", _engine_name(job), job_id)
            job_fail(job_id=job_id, lease=lease, code="engine_error",
                     message=f"The tool failed unexpectedly ({type(exc).__name__}).",
                     **made_by(engine, job))
            return "failed", "engine_error"
    try:
        won = job_succeed(job=job, lease=lease, outputs=outputs, **made_by(engine, job))
    except SoftTimeLimitExceeded:
        # The limit fired while the outputs were being stored: job_succeed removed what it
        # had written; end the job under its lease rather than leave it running for the
        # reconciler to take for a lost worker and run again.
        connection_after_interrupt()
        job_fail(job_id=job_id, lease=lease, code="time_limit",
                 message=f"The job ran longer than its time limit of {soft} seconds while "
                         "its results were being stored; nothing was delivered.",
                 **made_by(engine, job))
        return "failed", "time_limit"
    except OSError as exc:  # storage full or refusing writes: say so, do not retry blindly
        logger.warning("storing the outputs of job %s failed: %s", job_id, exc)
        job_fail(job_id=job_id, lease=lease, code="storage_error",
                 message=f"The result could not be stored ({exc.strerror or exc}); "
                         "nothing was delivered. Retry the job once storage is available.",
                 **made_by(engine, job))
        return "failed", "storage_error"
    return ("succeeded" if won else "aborted"), ""
