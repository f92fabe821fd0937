"""The job lifecycle: queued → running → succeeded | failed | canceled, with retry and cancel.

Every transition is one guarded UPDATE (`status=expected`, and while running `lease=mine`), so
two workers, a worker and the reconciler, or a worker and a cancel can never both win.
Delivery is at least once (acks late, the reconciler requeues); effects are exactly once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import socket
import uuid
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import (
    DEFAULT_DB_ALIAS,
    IntegrityError,
    connection,
    connections,
    models,
    transaction,
)
from django.db.models import F, Q
from django.db.models.functions import Greatest
from django.db.models.sql import Query
from django.utils import timezone

from accounts.models import Organization, User
from config.errors import Conflict
from config.metrics import LEASE_TAKEOVERS, RECONCILER_ACTIONS
from jobs import figures
from jobs.kinds import JobKind, job_catalogue, job_limits, kind_delivers
from jobs.models import Activity, ActivityStatus, Job, JobEvent, JobOutput, JobStatus
from workers.engines.base import EngineOutput

logger = logging.getLogger(__name__)
# Queued jobs the reconciler reads at a time.
RECONCILE_BATCH = 500
# The Celery task that runs a job (workers.tasks.jobs), sent by name: the job core does not
# import the worker side.
RUN_TASK = "jobs.run"


@dataclass(frozen=True)
class Submitted:
    job: Job
    created: bool


def _digest(tool: str, payload: Any) -> str:
    text = json.dumps([tool, payload], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def activity_record(
    *, org_id: Any, tool: str, action: str, status: str, details: str = "", job_id: Any = None
) -> Activity:
    return Activity.objects.create(
        organization_id=org_id, tool=tool, action=action, status=status, details=details,
        job_id=job_id,
    )


def _job_activity(job_id: Any, status: str, details: str) -> None:
    """A job has one activity entry, written at submit and at a retry; once the job has ended
    the entry shows the job's outcome (Activity.shown), so ending a job does not write it."""
    Activity.objects.filter(job_id=job_id).update(status=status, details=details)


def org_capacity_check(*, org: Organization, adding: int) -> None:
    """A per-organisation cap on queued and running jobs, so one partner's flood cannot
    starve the others: 429 with Retry-After past it."""
    from rest_framework.exceptions import Throttled

    active = Job.objects.filter(organization=org, status__in=[JobStatus.QUEUED,
                                                              JobStatus.RUNNING]).count()
    if active + adding > settings.ORG_MAX_ACTIVE_JOBS:
        raise Throttled(wait=30, detail=(
            f"Your organisation already has {active} jobs waiting or running (at most "
            f"{settings.ORG_MAX_ACTIVE_JOBS}); try again when some have finished."))


def job_submit(
    *,
    org: Organization,
    user: User | None,
    tool: JobKind,
    payload: dict[str, Any],
    idempotency_key: str | None = None,
    batch_id: uuid.UUID | None = None,
    source_drive_file: str = "",
) -> Submitted:
    """Store the job and enqueue it once the row is committed. What a run needs of the tool
    (queue, engine, time limits, ETA seed) is copied onto the row.

    The same Idempotency-Key with the same request returns the first job; with another
    request it is a conflict.
    """
    digest = _digest(tool.slug, payload)
    if idempotency_key:
        existing = Job.objects.filter(organization=org, idempotency_key=idempotency_key).first()
        if existing is not None:
            return _replay(existing, digest)
    try:
        with transaction.atomic():
            soft, hard = tool.limits
            job = Job.objects.create(
                organization=org, user=user, tool=tool.slug, queue=tool.queue, input=payload,
                engine_name=tool.engine or "", soft_limit=soft, hard_limit=hard,
                expected_seconds=tool.expected_seconds,
                idempotency_key=idempotency_key or None, request_digest=digest,
                batch_id=batch_id, source_drive_file=source_drive_file,
            )
            activity_record(
                org_id=org.pk, tool=tool.slug, action=f"{tool.name} job", job_id=job.pk,
                status=ActivityStatus.PROCESSING, details="Queued: waiting for a worker.",
            )
            transaction.on_commit(lambda: job_enqueue(job=job))
    except IntegrityError:
        # Two requests with the same key raced; the other one's job stands.
        existing = Job.objects.filter(organization=org, idempotency_key=idempotency_key).first()
        if existing is None:
            raise
        return _replay(existing, digest)
    return Submitted(job=job, created=True)


@dataclass(frozen=True)
class BatchSubmitted:
    batch_id: uuid.UUID
    jobs: list[Job]
    created: bool


def job_submit_batch(
    *,
    org: Organization,
    user: User | None,
    tool: JobKind,
    payloads: list[dict[str, Any]],
    idempotency_key: str | None = None,
) -> BatchSubmitted:
    """One job per card, all in one transaction and one batch. With an Idempotency-Key the
    same request returns the first batch."""
    if idempotency_key:
        first = Job.objects.filter(organization=org,
                                   idempotency_key=f"{idempotency_key}#0").first()
        if first is not None:
            return _replay_batch(first, tool, payloads)
    batch_id = uuid.uuid4()
    try:
        with transaction.atomic():
            jobs = [
                job_submit(org=org, user=user, tool=tool, payload=payload, batch_id=batch_id,
                           idempotency_key=f"{idempotency_key}#{i}" if idempotency_key else None
                           ).job
                for i, payload in enumerate(payloads)
            ]
    except IntegrityError:
        first = Job.objects.filter(organization=org,
                                   idempotency_key=f"{idempotency_key}#0").first()
        if first is None:
            raise
        return _replay_batch(first, tool, payloads)
    return BatchSubmitted(batch_id=batch_id, jobs=jobs, created=True)


def _replay_batch(first: Job, tool: JobKind, payloads: list[dict[str, Any]]) -> BatchSubmitted:
    jobs = list(Job.objects.filter(batch_id=first.batch_id).order_by("idempotency_key"))
    jobs.sort(key=lambda j: int((j.idempotency_key or "#0").rsplit("#", 1)[1]))
    digests = [_digest(tool.slug, p) for p in payloads]
    if [j.request_digest for j in jobs] != digests:
        raise Conflict("This Idempotency-Key was already used for a different request.")
    assert first.batch_id is not None
    return BatchSubmitted(batch_id=first.batch_id, jobs=jobs, created=False)


def _replay(existing: Job, digest: str) -> Submitted:
    if existing.request_digest != digest:
        raise Conflict("This Idempotency-Key was already used for a different request.")
    return Submitted(job=existing, created=False)


def run_task_name(tool: str) -> str:
    """The task a job runs as: one per kind of job (`jobs.run.recolor`), so Flower lists,
    filters and charts runs by tool; the generic `jobs.run` for a kind the catalogue no longer
    declares (a worker registers both)."""
    return f"{RUN_TASK}.{tool}" if any(k.slug == tool for k in job_catalogue()) else RUN_TASK


def job_enqueue(*, job: Job, front: bool = False) -> bool:
    """Hand a queued job to the broker. If the broker is down the job stays queued in the
    database and the reconciler enqueues it when the broker is back. `front`: at the front
    of its queue, ahead of newer work (a job whose worker died goes next)."""
    from config.celery_app import app

    updated = Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(
        enqueued_at=timezone.now(), enqueue_count=F("enqueue_count") + 1
    )
    if not updated:
        return False
    figures.job_queued(job_id=job.pk, queue=job.queue, tool=job.tool, created_at=job.created_at)
    soft, hard = job_limits(job)
    try:
        # The task id starts with the job id: that is how the reconciler reads the broker.
        task_id = f"{job.pk}.{uuid.uuid4().hex[:8]}"
        app.send_task(
            run_task_name(job.tool), args=[str(job.pk)], queue=job.queue,
            task_id=task_id, soft_time_limit=soft, time_limit=hard, ignore_result=True,
        )
    except Exception as exc:  # noqa: BLE001 - broker unreachable: keep the job, retry later
        logger.warning("enqueue of job %s failed, the reconciler will retry: %s", job.pk, exc)
        Job.objects.filter(pk=job.pk, status=JobStatus.QUEUED).update(enqueued_at=None)
        return False
    if front:
        from workers.broker import message_to_front

        try:
            message_to_front(job.queue, task_id)
        except Exception as exc:  # noqa: BLE001 - it is queued all the same, at the back
            logger.warning("job %s could not be moved to the front of %s: %s", job.pk,
                           job.queue, exc)
    return True


def job_cancel(*, job: Job) -> Job:
    now = timezone.now()
    with transaction.atomic():
        updated = Job.objects.filter(
            pk=job.pk, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        ).update(status=JobStatus.CANCELED, finished_at=now, lease=None)
        if not updated:
            raise Conflict(f"The job is {Job.objects.get(pk=job.pk).status}; only queued or "
                           "running jobs can be canceled.")
        _after_finish(job.pk, JobStatus.CANCELED)
    job.refresh_from_db()
    return job


@transaction.atomic
def job_retry(*, job: Job) -> Job:
    updated = Job.objects.filter(
        pk=job.pk, status__in=[JobStatus.FAILED, JobStatus.CANCELED]
    ).update(
        status=JobStatus.QUEUED, progress=0, error_code="", error_message="", attempts=0,
        lease=None, heartbeat_at=None, started_at=None, finished_at=None, enqueued_at=None,
    )
    if not updated:
        raise Conflict(f"The job is {Job.objects.get(pk=job.pk).status}; only failed or canceled "
                       "jobs can be retried.")
    _job_activity(job.pk, ActivityStatus.PROCESSING, "Retried: waiting for a worker.")
    transaction.on_commit(lambda: job_enqueue(job=job))
    job.refresh_from_db()
    return job


@transaction.atomic
def batch_retry_failed(*, org: Organization, batch_id: uuid.UUID) -> int:
    """Send the failed items of one of the organisation's batches back to the queue; the ones
    that succeeded, were canceled or still run are left alone. Returns how many went back."""
    retried = 0
    for job in Job.objects.filter(organization=org, batch_id=batch_id, status=JobStatus.FAILED):
        try:
            job_retry(job=job)
        except Conflict:  # retried by another click since it was read
            continue
        retried += 1
    return retried


# --- A run's transitions (called by the worker's runner, workers/runner.py) --------------


# This process, as a run records it on the job it takes.
RUN_HOST = socket.gethostname()[:255]


def job_start(*, job_id: str | uuid.UUID) -> Job | None:
    """Take a queued job: the job with its run's lease, or None when there is nothing to do
    (the job is done, canceled, or running in a live run: a duplicate delivery).

    One guarded `UPDATE ... RETURNING` (PostgreSQL, SQLite ≥ 3.35) takes the job and reads it
    back, and records this run's host and pid: this runs for every job, and a second round
    trip was a measured share of the cost. A job found running whose run is dead (see
    `_run_dead`) is taken over at once: that is a redelivery after a pool child was killed.
    """
    taken = _take(job_id, JobStatus.QUEUED)
    if taken is not None:
        return taken
    return _take_over(job_id)


def _take(job_id: str | uuid.UUID, status: str, lease: uuid.UUID | None = None) -> Job | None:
    """The guarded UPDATE that gives the job a new lease: from `status` (and, for a running
    job, from its old `lease`)."""
    now = timezone.now()
    wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's (`connection` is a proxy to it)
    meta = Job._meta

    def prep(name: str, value: Any) -> Any:
        field = meta.get_field(name)
        assert isinstance(field, models.Field)
        return field.get_db_prep_value(value, wrapper)

    sql = _statement(("take", lease is not None), lambda: _take_sql(wrapper, lease is not None))
    params = [JobStatus.RUNNING.value, prep("lease", uuid.uuid4()), prep("started_at", now),
              prep("heartbeat_at", now), RUN_HOST, os.getpid(), prep("id", uuid.UUID(str(job_id))),
              status]
    if lease is not None:
        params.append(prep("lease", lease))
    with wrapper.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    taken = _job_from_row(row)
    figures.job_started(job_id=job_id, queue=taken.queue, tool=taken.tool, started_at=now)
    return taken


_converters: weakref.WeakKeyDictionary[Any, tuple[Any, dict[int, Any]]] = (
    weakref.WeakKeyDictionary())


def _job_from_row(row: Sequence[Any]) -> Job:
    """A job from a row of all its columns (in `concrete_fields` order), through the same
    converters a query would apply; what `Job.objects.raw` does, without building a raw
    query per call (the take runs for every job)."""
    meta = Job._meta
    wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's (`connection` is a proxy to it)
    known = _converters.get(wrapper)
    if known is None:
        compiler = wrapper.ops.compiler("SQLCompiler")(Query(Job), wrapper, DEFAULT_DB_ALIAS)
        known = _converters[wrapper] = (compiler, compiler.get_converters(
            [f.get_col(meta.db_table) for f in meta.concrete_fields]))
    compiler, converters = known
    if converters:
        row = next(iter(compiler.apply_converters([row], converters)))
    return Job.from_db(DEFAULT_DB_ALIAS, [f.attname for f in meta.concrete_fields], list(row))


# The hot statements' text, built once per process and database vendor: only their values
# change from job to job.
_statements: dict[tuple[Any, ...], str] = {}


def _statement(key: tuple[Any, ...], build: Callable[[], str]) -> str:
    key = (connection.vendor, *key)
    sql = _statements.get(key)
    if sql is None:
        sql = _statements[key] = build()
    return sql


# The guard on a job's status in the statements that take and end it, compared as an
# expression no index covers, so that the row is found by its primary key and the status
# checked on it. Compared as the column, the planner may take the status index instead
# whenever its statistics say few jobs have that status (a queue that filled since the last
# ANALYZE, a fresh table), and then reads every entry of the status, the dead ones of earlier
# runs included, for each job: 335 index entries a statement on a drain of 1,000 jobs
# (pg_stat_user_indexes), O(backlog) per job.
STATUS_GUARD = "status || '' = %s"


def _take_sql(wrapper: Any, with_lease: bool) -> str:
    meta = Job._meta
    quote = wrapper.ops.quote_name
    columns = ", ".join(quote(f.column) for f in meta.concrete_fields)
    # Identifiers come from the model; every value is a bound parameter.
    return (
        f"UPDATE {quote(meta.db_table)} SET status = %s, lease = %s, "  # noqa: S608
        f"attempts = attempts + 1, started_at = %s, heartbeat_at = %s, "
        f"run_host = %s, run_pid = %s "
        f"WHERE id = %s AND {STATUS_GUARD}{' AND lease = %s' if with_lease else ''} "
        f"RETURNING {columns}"
    )


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _run_dead(job: Job, now: Any) -> bool:
    """Whether the run holding a running job is gone: its process on this host no longer
    exists, or it has not beaten for JOB_TAKEOVER_SECONDS (a run on another host)."""
    if job.run_host == RUN_HOST and job.run_pid and job.run_pid != os.getpid():
        if not _pid_alive(job.run_pid):
            return True
    quiet = settings.JOB_TAKEOVER_SECONDS
    return job.heartbeat_at is not None and job.heartbeat_at < now - timedelta(seconds=quiet)


def _take_over(job_id: str | uuid.UUID) -> Job | None:
    """A running job whose run is dead, taken from its old lease (one guarded UPDATE: of two
    runs taking it over, one wins); failed as `worker_lost` past its attempts. None when
    the job is not running or its run is alive."""
    job = (Job.objects.filter(pk=job_id, status=JobStatus.RUNNING)
           .only("id", "tool", "lease", "run_host", "run_pid", "heartbeat_at", "attempts").first())
    if job is None or job.lease is None or not _run_dead(job, timezone.now()):
        return None
    if job.attempts >= settings.JOB_MAX_ATTEMPTS:
        if job_fail(job_id=job.pk, lease=job.lease, code="worker_lost",
                    message=f"The worker running this job stopped {job.attempts} times; "
                            "giving up."):
            LEASE_TAKEOVERS.labels(job.tool).inc()
        return None
    taken = _take(job.pk, JobStatus.RUNNING, lease=job.lease)
    if taken is not None:
        logger.warning("job %s: its run (pid %s on %s) is gone; taken over as attempt %s",
                       job.pk, job.run_pid, job.run_host, taken.attempts)
        LEASE_TAKEOVERS.labels(job.tool).inc()
    return taken


def _owned(job_id: Any, lease: uuid.UUID) -> Any:
    return Job.objects.filter(pk=job_id, status=JobStatus.RUNNING, lease=lease)


def _after_finish(job_id: Any, status: str, run: tuple[str, float] | None = None) -> None:
    """Inside the transaction that ends a job: its event goes to the outbox (JobEvent) with
    its state, so nothing after the commit, a time limit included, can lose it. The webhook
    dispatcher matches it with subscriptions and checks the job's batch later; the finish
    itself looks nothing up. After the commit, `_ended`."""
    JobEvent.objects.create(job_id=job_id, event=f"job.{status}")
    # robust: nothing after the commit (a soft time limit included) may undo the job's end
    transaction.on_commit(lambda: _ended(job_id, run), robust=True)


def _ended_robustly(job_id: Any, run: tuple[str, float] | None, heard: bool) -> None:
    """`_ended` once the end is committed outside a transaction: as an on_commit hook, nothing
    it raises (a soft time limit included) may undo the job's end."""
    try:
        _ended(job_id, run, heard)
    except Exception:  # noqa: BLE001 - the reconcile tick heals the figures
        logger.exception("the end of job %s was committed; what follows it failed", job_id)


def _ended(job_id: Any, run: tuple[str, float] | None = None, heard: bool = True) -> None:
    """After the commit that ended a job: its queue figures, its run time (`run`: tool and
    seconds) and the webhook dispatcher's wake key, in one Redis round trip; the dispatch
    is sent only by the end that set the key (a Redis key, no SQL). `heard` False: nobody
    is told of this job's end (no webhook, no webhook_url, no batch), so no dispatch is
    woken for it (the reconcile tick's takes its event) and the figures are sent without
    waiting for Redis's answer."""
    from webhooks.services import DISPATCH_WAKE_KEY, events_wake_seconds, events_wake_send

    if not heard:
        figures.job_ended(job_id=job_id, run=run)
        return
    if figures.job_ended(job_id=job_id, run=run, wake_key=DISPATCH_WAKE_KEY,
                         wake_seconds=events_wake_seconds()):
        try:
            events_wake_send()
        except Exception:  # noqa: BLE001 - the reconcile tick dispatches what is left
            logger.warning("waking the webhook dispatcher failed", exc_info=True)


def job_progress(*, job_id: Any, lease: uuid.UUID, percent: int) -> bool:
    """A run's progress, and its heartbeat; False when the run no longer owns the job.
    Never below what partners were already shown: a run taken over after a lost worker
    starts its engine at 0 again, and the bar holds until it passes the old figure."""
    owned = bool(_owned(job_id, lease).update(progress=Greatest(F("progress"), percent),
                                              heartbeat_at=timezone.now()))
    if owned:
        figures.job_progressed(job_id=job_id, percent=percent)
    return owned


def job_heartbeat(*, job_id: Any, lease: uuid.UUID) -> bool:
    """A run is alive; False when it no longer owns the job (canceled or taken over)."""
    return bool(_owned(job_id, lease).update(heartbeat_at=timezone.now()))


def _made(made_by: str | None, tier: str | None) -> dict[str, str]:
    """The columns saying which engine made the result, for the update that ends a run."""
    made = {} if made_by is None else {"made_by": made_by[:128]}
    return made if tier is None else {**made, "tier": tier[:16]}


def job_fail(*, job_id: Any, lease: uuid.UUID | None, code: str, message: str,
             made_by: str | None = None, tier: str | None = None) -> bool:
    qs = (_owned(job_id, lease) if lease else
          Job.objects.filter(pk=job_id, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]))
    with transaction.atomic():
        updated = qs.update(status=JobStatus.FAILED, error_code=code, error_message=message,
                            finished_at=timezone.now(), lease=None, **_made(made_by, tier))
        if updated:
            _after_finish(job_id, JobStatus.FAILED)
    return bool(updated)


def job_succeed(*, job: Job, lease: uuid.UUID, outputs: Iterable[EngineOutput],
                made_by: str | None = None, tier: str | None = None) -> bool:
    """Store the outputs and finish the job, or discard them if this run no longer owns it.

    Files go under a folder of this run's lease, so two runs never write the same name; only
    the run that wins the guarded UPDATE records its files, in the same transaction.
    """
    saved: list[tuple[str, EngineOutput]] = []
    folder = f"jobs/{job.organization_id}/{job.pk}/{lease}"
    won, ended_here, heard = 0, False, True
    try:
        for index, out in enumerate(outputs):
            name = f"{folder}/{index}-{out.filename}"
            saved.append((default_storage.save(name, ContentFile(out.data)), out))
        now = timezone.now()
        run = ((job.tool, (now - job.started_at).total_seconds())
               if job.started_at is not None else None)
        values = {"status": JobStatus.SUCCEEDED, "progress": 100, "finished_at": now,
                  "lease": None, "output_count": len(saved), **_made(made_by, tier)}
        delivers = kind_delivers(job.tool)
        rows: list[models.Model] = [
            JobOutput(job_id=job.pk, index=i, file=stored, filename=out.filename,
                      content_type=out.content_type, size=len(out.data),
                      sha256=hashlib.sha256(out.data).hexdigest(), awaiting_delivery=delivers)
            for i, (stored, out) in enumerate(saved)
        ]
        if connection.vendor == "postgresql" and not connection.in_atomic_block:
            # One statement, so one round trip and its own transaction: the guarded UPDATE,
            # and the outputs and the outbox event only if it matched.
            rows.append(JobEvent(job_id=job.pk, event=f"job.{JobStatus.SUCCEEDED}"))
            won, heard = _finish_in_one_statement(job.pk, lease, values, rows)
            ended_here = won
        else:
            with transaction.atomic():
                won = _owned(job.pk, lease).update(**values)
                if won:
                    JobOutput.objects.bulk_create(rows)  # type: ignore[arg-type]
                    _after_finish(job.pk, JobStatus.SUCCEEDED, run)
    except BaseException:
        # Nothing was committed (a soft time limit while saving included): remove the
        # files, the half-written one too.
        _discard(saved, folder)
        raise
    if ended_here:
        _ended_robustly(job.pk, run, heard)
    if not won:
        _discard(saved, folder)
    return bool(won)


def _finish_in_one_statement(job_id: Any, lease: uuid.UUID, values: dict[str, Any],
                             rows: Sequence[models.Model]) -> tuple[bool, bool]:
    """PostgreSQL: the guarded UPDATE that ends a running job under `lease`, and the `rows`
    (its outputs, its outbox event: their job is the updated one) inserted only when it
    matched, in one statement (data-modifying CTEs). Whether it matched, and whether anyone
    is told of the job's end (webhooks.services.events_heard_sql). Values go through each
    field as the ORM's own UPDATE and INSERT would take them."""
    wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's (`connection` is a proxy to it)
    meta = Job._meta
    params = []
    for name, value in values.items():
        field = meta.get_field(name)
        assert isinstance(field, models.Field)
        params.append(field.get_db_prep_save(value, wrapper))
    pk, lease_field = meta.get_field("id"), meta.get_field("lease")
    assert isinstance(pk, models.Field) and isinstance(lease_field, models.Field)
    params += [pk.get_db_prep_save(uuid.UUID(str(job_id)), wrapper), JobStatus.RUNNING.value,
               lease_field.get_db_prep_save(lease, wrapper)]
    for obj in rows:
        params += [field.get_db_prep_save(field.pre_save(obj, True), wrapper)
                   for field in _inserted_fields(type(obj))]
    sql = _statement(("finish", tuple(values), tuple(type(obj) for obj in rows)),
                     lambda: _finish_sql(wrapper, list(values), [type(obj) for obj in rows]))
    with wrapper.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchone()
    return found is not None, bool(found and found[0])


@functools.cache
def _inserted_fields(model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The fields of a row `_finish_sql` inserts that take a value: not its serial id, nor
    its job (the updated one's)."""
    return [field for field in model._meta.concrete_fields
            if not (field.primary_key and getattr(field, "db_returning", False))
            and field.attname != "job_id"]


def _finish_sql(wrapper: Any, names: list[str], models_: list[type[models.Model]]) -> str:
    from webhooks.services import events_heard_sql

    quote = wrapper.ops.quote_name
    meta = Job._meta
    sets = [f"{quote(meta.get_field(name).column)} = %s" for name in names]  # type: ignore[union-attr]
    # Identifiers and types come from the models; every value is a bound parameter.
    parts = [f"WITH done AS (UPDATE {quote(meta.db_table)} SET {', '.join(sets)} "  # noqa: S608
             f"WHERE id = %s AND {STATUS_GUARD} AND lease = %s "
             f"RETURNING id, organization_id, batch_id)"]
    for n, model in enumerate(models_):
        columns, selected = [quote("job_id")], ["done.id"]
        for field in _inserted_fields(model):
            columns.append(quote(field.column))
            db_type = field.db_type(wrapper) or ""
            # a text literal takes its column's type (and length check) on assignment
            selected.append("%s" if db_type.startswith(("varchar", "text")) else
                            f"CAST(%s AS {db_type})")
        parts.append(f", row{n} AS (INSERT INTO {quote(model._meta.db_table)} "  # noqa: S608
                     f"({', '.join(columns)}) SELECT {', '.join(selected)} FROM done)")
    parts.append(f" SELECT {events_heard_sql(job='done', quote=quote)} FROM done")  # noqa: S608
    return "".join(parts)


def _discard(saved: list[tuple[str, EngineOutput]], folder: str | None = None) -> None:
    """Delete a run's files, the half-written one included (a failed save leaves it behind
    and it is not in `saved`): everything under the run's own lease folder."""
    names = [stored for stored, _ in saved]
    if folder:
        try:
            names += [f"{folder}/{name}" for name in default_storage.listdir(folder)[1]]
        except (OSError, NotImplementedError):
            pass  # no folder: nothing was written
    for name in dict.fromkeys(names):
        try:
            default_storage.delete(name)
        except Exception:  # noqa: BLE001 - best effort
            logger.warning("could not delete discarded output %s", name)


# --- Housekeeping (beat) ------------------------------------------------------------------


@dataclass
class ReconcileReport:
    requeued_stale: int = 0
    failed_stale: int = 0
    reenqueued: int = 0
    queued_scanned: int = 0


def jobs_reconcile(*, broker_job_ids: set[str] | None = None) -> ReconcileReport:
    """Requeue or fail running jobs whose worker stopped heartbeating; re-enqueue queued jobs
    that the broker does not hold (broker restarted with its data wiped, publish failed)."""
    from workers.broker import broker_job_ids as read_broker_ids

    report = ReconcileReport()
    now = timezone.now()
    stale_before = now - timedelta(seconds=settings.JOB_HEARTBEAT_STALE_SECONDS)
    for job in Job.objects.filter(status=JobStatus.RUNNING, heartbeat_at__lt=stale_before):
        _, hard = job_limits(job)
        # How long it ran before it went silent. A run killed at its hard limit (normally
        # failed by the task's on_failure already) beat last less than two beats before it.
        ran = ((job.heartbeat_at - job.started_at).total_seconds()
               if job.started_at and job.heartbeat_at else 0.0)
        if hard and ran >= hard - 2 * settings.JOB_HEARTBEAT_SECONDS:
            message = f"The job ran longer than its time limit of {hard} seconds and was stopped."
            code = "time_limit"
        elif job.attempts >= settings.JOB_MAX_ATTEMPTS:
            message = f"The worker running this job stopped {job.attempts} times; giving up."
            code = "worker_lost"
        else:
            requeued = Job.objects.filter(
                pk=job.pk, status=JobStatus.RUNNING, lease=job.lease
            ).update(status=JobStatus.QUEUED, lease=None, enqueued_at=None)
            if requeued:
                logger.warning("job %s lost its worker; requeued after attempt %s", job.pk,
                               job.attempts)
                report.requeued_stale += 1
                LEASE_TAKEOVERS.labels(job.tool).inc()
                RECONCILER_ACTIONS.labels("requeued").inc()
                job_enqueue(job=job, front=True)
            continue
        if job_fail(job_id=job.pk, lease=job.lease, code=code, message=message):
            report.failed_stale += 1
            LEASE_TAKEOVERS.labels(job.tool).inc()
            RECONCILER_ACTIONS.labels(f"failed_{code}").inc()

    grace_before = now - timedelta(seconds=settings.JOB_ENQUEUE_GRACE_SECONDS)
    waiting = Job.objects.filter(
        Q(enqueued_at__lt=grace_before)
        # never enqueued (the broker was down at submit): after a moment for on_commit
        | Q(enqueued_at__isnull=True, created_at__lt=now - timedelta(seconds=2)),
        status=JobStatus.QUEUED,
    ).only("id", "tool", "queue", "created_at").order_by("created_at", "id")
    batch_size = getattr(settings, "JOB_RECONCILE_BATCH", RECONCILE_BATCH)
    held = broker_job_ids
    cursor: tuple[Any, Any] | None = None
    # Bounded batches along (created_at, id), so a long backlog is never held in memory at once.
    while True:
        page = waiting
        if cursor is not None:
            page = page.filter(Q(created_at__gt=cursor[0])
                               | Q(created_at=cursor[0], id__gt=cursor[1]))
        batch = list(page[:batch_size])
        if not batch:
            break
        if held is None:
            held = read_broker_ids()
        for job in batch:
            if str(job.pk) not in held and job_enqueue(job=job):
                report.reenqueued += 1
                RECONCILER_ACTIONS.labels("reenqueued").inc()
        report.queued_scanned += len(batch)
        if len(batch) < batch_size:
            break
        cursor = (batch[-1].created_at, batch[-1].pk)
    return report


def outputs_cleanup(*, older_than_days: int | None = None) -> int:
    """Delete outputs (files and rows) of jobs that finished longer ago than the retention."""
    days = settings.OUTPUT_RETENTION_DAYS if older_than_days is None else older_than_days
    cutoff = timezone.now() - timedelta(days=days)
    removed = 0
    for output in JobOutput.objects.filter(job__finished_at__lt=cutoff).iterator():
        try:
            output.file.delete(save=False)
        except Exception as exc:  # noqa: BLE001 - keep going; the row stays for the next run
            logger.warning("could not delete output %s: %s", output.file.name, exc)
            continue
        output.delete()
        removed += 1
    return removed
