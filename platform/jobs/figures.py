"""Queue figures kept as the jobs move, so that a queue position, an ETA and the queue list
cost the same at 10 jobs of history or 100 million, and at 0 or 50,000 jobs waiting.

Per queue, in Redis:
- `queued`: a sorted set of the queued jobs, scored by when they were created. A job's
  queue position is the number of jobs queued in its queue before it, all organisations
  alike (ZCOUNT, logarithmic in the backlog);
- `meta` (job → tool) and `tools` (tool → jobs queued), so the work ahead is priced by tool;
- `running` (job → tool and start) and `progress` (job → percent), so the running jobs'
  remainders are added without a query.
Per tool, `runs`: the last RUN_WINDOW run times (LPUSH, LTRIM); the ETA takes their median.

Every change is one Lua script, run after the database commit that made it (a submit, a
retry or a requeue goes through `job_enqueue`; a run's start, progress and end through the
lifecycle services). A change lost on the way (a process killed between the commit and the
script, Redis restarted empty) is healed by `figures_heal`, which the reconcile tick runs:
it compares each queue's figures with an indexed count and rebuilds the queue's sets when
they differ, and seeds a tool's run times from its last runs when Redis has none.

When Redis does not answer, readers get None and fall back on database counts
(`jobs.selectors`), which are right but grow with the backlog.
"""

from __future__ import annotations

import contextlib
import logging
import os
import statistics
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import redis
from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from workers.queues import QUEUES

logger = logging.getLogger(__name__)

PREFIX = "atelier:fig:"
# The ETA takes the median of this many recent runs of a tool.
RUN_WINDOW = 20
# A direct call's wake-up key lives this long after the job's end (a waiter that starts
# late still finds it).
DONE_TTL_SECONDS = 600
# The rebuild reads queued jobs this many at a time.
HEAL_BATCH = 5000
# A queue whose figures differ from the database's counts by a few jobs is rebuilt when they
# differ this many ticks in a row; by more than HEAL_AT_ONCE jobs (or 1 %), at once.
HEAL_AFTER_TICKS = 3
HEAL_AT_ONCE = 5
# Exact pricing of the jobs ahead goes this deep; past it, the queue's mix prices the rest.
FRONT = 50

_EPOCH = datetime(2020, 1, 1, tzinfo=UTC)

_clients: dict[float, redis.Redis] = {}


def redis_client(*, socket_timeout: float = 2.0) -> redis.Redis:
    """The process's client of the job core's Redis (REDIS_URL) for reads that take at most
    `socket_timeout` seconds: a connection that does not answer fails fast."""
    client = _clients.get(socket_timeout)
    if client is None:
        client = _clients[socket_timeout] = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=socket_timeout)
    return client


def _redis() -> redis.Redis:
    return redis_client()


def score(created_at: datetime) -> int:
    """Microseconds since 2020: exact in a sorted set's score (below 2**53 until 2255)."""
    delta = created_at - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _k(queue: str, name: str) -> str:
    return f"{PREFIX}{queue}:{name}"


def runs_key(tool: str) -> str:
    return f"{PREFIX}runs:{tool}"


def done_key(job_id: Any) -> str:
    return f"{PREFIX}done:{job_id}"


def _queues() -> list[str]:
    return list(QUEUES)


# --- Scripts: each change is one atomic round trip ----------------------------------------

# ARGV: prefix, queue, job, score, tool, done key
_QUEUED = """
redis.call('DEL', ARGV[6])
local z, m, t = ARGV[1]..ARGV[2]..':queued', ARGV[1]..ARGV[2]..':meta', ARGV[1]..ARGV[2]..':tools'
if redis.call('ZADD', z, ARGV[4], ARGV[3]) == 1 then
  redis.call('HSET', m, ARGV[3], ARGV[5])
  redis.call('HINCRBY', t, ARGV[5], 1)
end
redis.call('HDEL', ARGV[1]..ARGV[2]..':running', ARGV[3])
redis.call('HDEL', ARGV[1]..ARGV[2]..':progress', ARGV[3])
return 1
"""

# Leaves the queued set of whichever queue holds the job. ARGV: prefix, job, queues...
_UNQUEUE = """
local function unqueue(q, job)
  local z, m, t = ARGV[1]..q..':queued', ARGV[1]..q..':meta', ARGV[1]..q..':tools'
  if redis.call('ZREM', z, job) == 1 then
    local tool = redis.call('HGET', m, job)
    redis.call('HDEL', m, job)
    if tool and redis.call('HINCRBY', t, tool, -1) <= 0 then redis.call('HDEL', t, tool) end
  end
end
"""

# ARGV: prefix, job, queue, tool|started, queues...
_STARTED = _UNQUEUE + """
for i = 5, #ARGV do unqueue(ARGV[i], ARGV[2]) end
redis.call('HSET', ARGV[1]..ARGV[3]..':running', ARGV[2], ARGV[4])
redis.call('HDEL', ARGV[1]..ARGV[3]..':progress', ARGV[2])
return 1
"""

# Never below the figure already kept, as the job row's progress. ARGV: prefix, job, percent,
# queues...
_PROGRESS = """
for i = 4, #ARGV do
  if redis.call('HEXISTS', ARGV[1]..ARGV[i]..':running', ARGV[2]) == 1 then
    local key = ARGV[1]..ARGV[i]..':progress'
    if tonumber(ARGV[3]) > tonumber(redis.call('HGET', key, ARGV[2]) or '0') then
      redis.call('HSET', key, ARGV[2], ARGV[3])
    end
    return 1
  end
end
return 0
"""

# Everything a job's end changes, in one round trip: it leaves the queue's sets, its waiters
# are woken, a successful run's time joins its tool's (when a runs key is given), and a wake
# key is set unless already there (when one is given: the webhook dispatcher's). Returns 1
# when the wake key was set by this call. ARGV: prefix, job, done key, done ttl, runs key or
# '', run seconds, run window, wake key or '', wake ttl, queues...
_ENDED = _UNQUEUE + """
for i = 10, #ARGV do
  unqueue(ARGV[i], ARGV[2])
  redis.call('HDEL', ARGV[1]..ARGV[i]..':running', ARGV[2])
  redis.call('HDEL', ARGV[1]..ARGV[i]..':progress', ARGV[2])
end
redis.call('DEL', ARGV[3])
redis.call('RPUSH', ARGV[3], '1')
redis.call('EXPIRE', ARGV[3], ARGV[4])
if ARGV[5] ~= '' then
  redis.call('LPUSH', ARGV[5], ARGV[6])
  redis.call('LTRIM', ARGV[5], 0, tonumber(ARGV[7]) - 1)
end
if ARGV[8] ~= '' and redis.call('SET', ARGV[8], '1', 'NX', 'EX', ARGV[9]) then
  return 1
end
return 0
"""

# What the ETA of one queue needs, in one round trip. ARGV: prefix, queue, score or '', front
# Returns {ahead, {tool, jobs, ...} of the front, {tools hash}, {running hash},
# {progress hash}}: the front is counted by tool in Redis, so every poll reads a few pairs
# instead of FRONT names.
_AHEAD = """
local z = ARGV[1]..ARGV[2]..':queued'
local ahead, ids = 0, {}
if ARGV[3] == '' then
  ahead = redis.call('ZCARD', z)
  ids = redis.call('ZRANGE', z, 0, tonumber(ARGV[4]) - 1)
else
  ahead = redis.call('ZCOUNT', z, '-inf', '('..ARGV[3])
  ids = redis.call('ZRANGEBYSCORE', z, '-inf', '('..ARGV[3], 'LIMIT', 0, tonumber(ARGV[4]))
end
local counts, order, front = {}, {}, {}
if #ids > 0 then
  for _, tool in ipairs(redis.call('HMGET', ARGV[1]..ARGV[2]..':meta', unpack(ids))) do
    if tool then
      if counts[tool] == nil then counts[tool] = 0; order[#order + 1] = tool end
      counts[tool] = counts[tool] + 1
    end
  end
end
for _, tool in ipairs(order) do front[#front + 1] = tool; front[#front + 1] = counts[tool] end
return {ahead, front, redis.call('HGETALL', ARGV[1]..ARGV[2]..':tools'),
        redis.call('HGETALL', ARGV[1]..ARGV[2]..':running'),
        redis.call('HGETALL', ARGV[1]..ARGV[2]..':progress')}
"""

_scripts: dict[str, Any] = {}


def _script(source: str) -> Any:
    found = _scripts.get(source)
    if found is None:
        found = _scripts[source] = _redis().register_script(source)
    return found


def _run(source: str, args: Sequence[Any]) -> Any:
    return _script(source)(keys=[], args=list(args))


def _quietly(what: str, source: str, args: Sequence[Any]) -> None:
    """Writers never fail a transition: a lost change is healed by the next reconcile."""
    try:
        _run(source, args)
    except redis.RedisError as exc:
        logger.warning("queue figures: %s not recorded (the reconcile heals it): %s", what, exc)


class _Unanswered:
    """A worker's figure changes, sent on a connection of their own without waiting for
    Redis's answer: a run's start and the end of a job nobody waits to dispatch are written
    for every job, and each answer (Redis appends every write to its log first) was a
    measured share of a short job's time. Redis runs a change as soon as it arrives; its
    answer is read before the next change is sent, or before this process reads figures
    (`settle`), so a reader here sees its own changes. An answer that says the script was not
    loaded runs the change again, loading it; a change lost otherwise (Redis down, the
    process killed) is the reconcile's to heal, as any change lost after a commit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._conn: Any = None
        self._pending: deque[tuple[str, list[Any]]] = deque()

    def send(self, what: str, source: str, args: list[Any]) -> None:
        with self._lock:
            try:
                self._settled()
                try:
                    self._send(source, args)
                except (redis.ConnectionError, OSError):
                    # A connection that died while idle with nothing unanswered on it (Redis
                    # restarted) shows only when written to: once more, on a new one.
                    self._drop()
                    self._send(source, args)
            except (redis.RedisError, OSError) as exc:
                logger.warning("queue figures: %s not recorded (the reconcile heals it): %s",
                               what, exc)
                self._drop()

    def settle(self) -> None:
        """Read the answers of what was sent: every change sent is then in Redis."""
        if not self._pending:
            return
        with self._lock:
            try:
                self._settled()
            except (redis.RedisError, OSError) as exc:
                logger.warning("queue figures: a change may be lost (the reconcile heals it): "
                               "%s", exc)
                self._drop()

    def _settled(self) -> None:
        """Every answer read. A connection that died while idle (Redis restarted, a timeout
        closed it) shows here, when its answers are read: what was sent on it since its last
        answer is sent again on a new one. The changes set members and fields, so a change
        Redis did run before the connection went is run again to the same figures (at worst
        a run's time counts twice in its tool's median); a drift otherwise the reconcile
        heals."""
        if self._conn is None or self._pid != os.getpid():  # never a parent's socket
            self._pending.clear()
            return
        try:
            self._read_answers(self._conn)
        except (redis.ConnectionError, OSError):
            unanswered = list(self._pending)
            self._drop()
            for source, args in unanswered:
                self._send(source, args)
            self._read_answers(self._conn)

    def _send(self, source: str, args: list[Any]) -> None:
        conn = self._connection()
        conn.send_command("EVALSHA", _script(source).sha, 0, *args)
        self._pending.append((source, args))

    def _connection(self) -> Any:
        if self._conn is None or self._pid != os.getpid():  # never a parent's socket
            self._pending.clear()
            pool = _redis().connection_pool
            self._conn = pool.connection_class(**pool.connection_kwargs)
            self._pid = os.getpid()
        return self._conn

    def _read_answers(self, conn: Any) -> None:
        while self._pending:
            source, args = self._pending[0]
            try:
                conn.read_response()
            except redis.exceptions.NoScriptError:
                _run(source, args)  # loads it
            except redis.ResponseError as exc:
                logger.warning("queue figures: a change failed: %s", exc)
            self._pending.popleft()

    def _drop(self) -> None:
        self._pending.clear()
        if self._conn is not None:
            with contextlib.suppress(Exception):  # a broken connection: forget it
                self._conn.disconnect()
        self._conn = None


_unanswered = _Unanswered()


def settle() -> None:
    """Every figure change this process sent is in Redis (see _Unanswered)."""
    _unanswered.settle()


# --- Writers (called by jobs.services after the commit that made the change) --------------


def job_queued(*, job_id: Any, queue: str, tool: str, created_at: datetime) -> None:
    _quietly("queued", _QUEUED, [PREFIX, queue, str(job_id), score(created_at), tool,
                                 done_key(job_id)])


def job_started(*, job_id: Any, queue: str, tool: str, started_at: datetime | None) -> None:
    """A run took the job (sent without waiting for the answer: see _Unanswered)."""
    started = (started_at or timezone.now()).timestamp()
    _unanswered.send("started", _STARTED, [PREFIX, str(job_id), queue, f"{tool}|{started:.3f}",
                                           *_queues()])


def job_progressed(*, job_id: Any, percent: int) -> None:
    _quietly("progress", _PROGRESS, [PREFIX, str(job_id), int(percent), *_queues()])


def job_ended(*, job_id: Any, run: tuple[str, float] | None = None, wake_key: str = "",
              wake_seconds: int = 60) -> bool:
    """The job left the queue for good (succeeded, failed, canceled); wakes its waiters.
    `run`: a successful run's tool and time, for the tool's median. `wake_key`: set unless
    it is there (for `wake_seconds`); True when this call set it. One round trip: this runs
    for every job a worker ends."""
    tool, seconds = run if run is not None else ("", 0.0)
    args = [PREFIX, str(job_id), done_key(job_id), DONE_TTL_SECONDS,
            runs_key(tool) if run is not None else "", f"{max(0.0, seconds):.3f}", RUN_WINDOW,
            wake_key, int(wake_seconds), *_queues()]
    if not wake_key:  # nothing hangs on the answer
        _unanswered.send("ended", _ENDED, args)
        return False
    try:
        settle()
        return bool(_run(_ENDED, args))
    except redis.RedisError as exc:
        logger.warning("queue figures: ended not recorded (the reconcile heals it): %s", exc)
        return False


def run_recorded(*, tool: str, seconds: float) -> None:
    """A successful run's time, for the tool's median."""
    try:
        pipe = _redis().pipeline(transaction=False)
        pipe.lpush(runs_key(tool), f"{max(0.0, seconds):.3f}")
        pipe.ltrim(runs_key(tool), 0, RUN_WINDOW - 1)
        pipe.execute()
    except redis.RedisError as exc:
        logger.warning("queue figures: a run of %s not recorded: %s", tool, exc)


# --- Readers ------------------------------------------------------------------------------


@dataclass
class QueueState:
    """One queue as the ETA sees it."""

    ahead: int
    front: dict[str, int]  # the first jobs ahead (at most FRONT) counted by tool
    queued_by_tool: dict[str, int]
    running: list[tuple[str, str, float, int]] = field(default_factory=list)
    # (job id, tool, started at (epoch), progress)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _pairs(flat: Sequence[Any]) -> dict[str, str]:
    return {_text(flat[i]): _text(flat[i + 1]) for i in range(0, len(flat) - 1, 2)}


def queue_state(*, queue: str, before: datetime | None = None) -> QueueState | None:
    """The jobs queued ahead of a job created at `before` (all of them without), their
    tools, and the running jobs; None when Redis does not answer."""
    settle()
    try:
        ahead, front, tools, running, progress = _run(
            _AHEAD, [PREFIX, queue, "" if before is None else score(before), FRONT])
    except (redis.RedisError, ValueError) as exc:
        logger.warning("queue figures of %s unknown: %s", queue, exc)
        return None
    percent = {job: int(float(p)) for job, p in _pairs(progress).items()}
    runs = []
    for job, value in _pairs(running).items():
        tool, _, started = value.rpartition("|")
        try:
            runs.append((job, tool, float(started), percent.get(job, 0)))
        except ValueError:
            continue
    return QueueState(
        ahead=int(ahead), front={tool: int(n) for tool, n in _pairs(front).items()},
        queued_by_tool={tool: int(n) for tool, n in _pairs(tools).items() if int(n) > 0},
        running=runs,
    )


def queue_position(*, queue: str, created_at: datetime) -> int | None:
    """Jobs queued in `queue` before one created at `created_at`, all organisations alike."""
    settle()
    try:
        return int(_redis().zcount(_k(queue, "queued"), "-inf", f"({score(created_at)}"))
    except redis.RedisError as exc:
        logger.warning("queue position in %s unknown: %s", queue, exc)
        return None


def run_medians(tools: Iterable[str]) -> dict[str, float | None] | None:
    """Each tool's median of its recent run times (None: no runs yet); None when Redis does
    not answer."""
    names = list(dict.fromkeys(tools))
    settle()
    try:
        pipe = _redis().pipeline(transaction=False)
        for tool in names:
            pipe.lrange(runs_key(tool), 0, RUN_WINDOW - 1)
        lists = pipe.execute()
    except redis.RedisError as exc:
        logger.warning("run times unknown: %s", exc)
        return None
    answer: dict[str, float | None] = {}
    for tool, values in zip(names, lists, strict=True):
        times = []
        for value in values:
            try:
                times.append(float(_text(value)))
            except ValueError:
                continue
        # The median: one run that waited on a cold start or a slow drive must not move
        # every partner's ETA.
        answer[tool] = statistics.median(times) if times else None
    return answer


def job_end_wait(*, job_id: Any, timeout: float) -> bool:
    """Block until the job's end is announced (True) or `timeout` passes (False). Raises
    redis.RedisError when Redis does not answer."""
    settle()
    deadline = time.monotonic() + timeout
    client = redis_client(socket_timeout=10)  # above the longest pop
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        # A few seconds per pop at most, so a lost connection is noticed.
        found = client.blpop([done_key(job_id)], timeout=min(left, 5.0))
        if found is not None:
            # Put it back for any other caller waiting on the same job (an idempotent replay).
            pipe = client.pipeline(transaction=False)
            pipe.rpush(done_key(job_id), "1")
            pipe.expire(done_key(job_id), DONE_TTL_SECONDS)
            pipe.execute()
            return True



# --- Healing (the reconcile tick) ---------------------------------------------------------


@dataclass
class HealReport:
    rebuilt: list[str] = field(default_factory=list)
    seeded: list[str] = field(default_factory=list)


def figures_heal(*, tools: Iterable[str] = ()) -> HealReport:
    """Compare every queue's figures with indexed counts and rebuild a queue whose figures
    drifted (a few jobs off for HEAL_AFTER_TICKS ticks in a row, or many at once); seed the
    run times of the given tools that have none from their last runs. Costs an indexed count
    per queue and status when nothing drifted."""
    from jobs.models import Job, JobStatus

    report = HealReport()
    settle()
    client = _redis()
    counts = {
        (row["queue"], row["status"]): row["n"]
        for row in Job.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
        .values("queue", "status").annotate(n=Count("pk")).order_by()
    }
    pipe = client.pipeline(transaction=False)
    for queue in _queues():
        pipe.zcard(_k(queue, "queued"))
        pipe.hlen(_k(queue, "running"))
    held = pipe.execute()
    for i, queue in enumerate(_queues()):
        expected = (counts.get((queue, JobStatus.QUEUED), 0),
                    counts.get((queue, JobStatus.RUNNING), 0))
        off = abs(held[2 * i] - expected[0]) + abs(held[2 * i + 1] - expected[1])
        if not off:
            client.delete(_k(queue, "drift"))
            continue
        # Under load the two reads often straddle a job that moves (its figures follow a
        # moment after its commit): a small difference must hold for a few ticks in a row
        # before the queue is rebuilt; a large one (Redis restarted empty) is rebuilt at once.
        pipe = client.pipeline(transaction=False)
        pipe.incr(_k(queue, "drift"))
        pipe.expire(_k(queue, "drift"), 600)
        seen = pipe.execute()[0]
        if seen >= HEAL_AFTER_TICKS or off > max(HEAL_AT_ONCE, sum(expected) // 100):
            _rebuild(queue)
            client.delete(_k(queue, "drift"))
            report.rebuilt.append(queue)
    names = list(dict.fromkeys(tools))
    if names:
        pipe = client.pipeline(transaction=False)
        for tool in names:
            pipe.exists(runs_key(tool), f"{PREFIX}seeded:{tool}")
        missing = [tool for tool, n in zip(names, pipe.execute(), strict=True) if not n]
        for tool in missing:
            _seed_runs(tool)
            report.seeded.append(tool)
    return report


def _rebuild(queue: str) -> None:
    """The queue's sets from the database, swapped in at once (RENAME)."""
    from jobs.models import Job, JobStatus

    client = _redis()
    fresh = {name: _k(queue, f"{name}:rebuild") for name in ("queued", "meta", "tools",
                                                              "running")}
    client.delete(*fresh.values())
    tools: dict[str, int] = {}
    rows = (Job.objects.filter(status=JobStatus.QUEUED, queue=queue)
            .order_by("created_at", "id").values_list("id", "tool", "created_at"))
    last: tuple[datetime, Any] | None = None
    while True:
        page = rows
        if last is not None:
            page = page.filter(Q(created_at__gt=last[0]) | Q(created_at=last[0], id__gt=last[1]))
        batch = list(page[:HEAL_BATCH])
        if not batch:
            break
        pipe = client.pipeline(transaction=False)
        pipe.zadd(fresh["queued"], {str(pk): score(created) for pk, _, created in batch})
        pipe.hset(fresh["meta"], mapping={str(pk): tool for pk, tool, _ in batch})
        pipe.execute()
        for _, tool, _ in batch:
            tools[tool] = tools.get(tool, 0) + 1
        if len(batch) < HEAL_BATCH:
            break
        last = (batch[-1][2], batch[-1][0])
    running = {
        str(pk): f"{tool}|{(started or timezone.now()).timestamp():.3f}"
        for pk, tool, started in Job.objects.filter(status=JobStatus.RUNNING, queue=queue)
        .values_list("id", "tool", "started_at")
    }
    progress = dict(Job.objects.filter(status=JobStatus.RUNNING, queue=queue, progress__gt=0)
                    .values_list("id", "progress"))
    pipe = client.pipeline(transaction=True)
    for name in ("queued", "meta", "tools", "running", "progress"):
        pipe.delete(_k(queue, name))
    if tools:
        pipe.hset(_k(queue, "tools"), mapping=tools)  # type: ignore[arg-type]
    if running:
        pipe.hset(_k(queue, "running"), mapping=running)  # type: ignore[arg-type]
    if progress:
        pipe.hset(_k(queue, "progress"),
                  mapping={str(pk): int(p) for pk, p in progress.items()})
    pipe.execute()
    # The big sets last, by RENAME: a reader sees the old set or the new one, never half.
    for name in ("queued", "meta"):
        if client.exists(fresh[name]):
            client.rename(fresh[name], _k(queue, name))
    client.delete(*fresh.values())
    logger.info("queue figures of %s rebuilt: %s queued, %s running", queue,
                sum(tools.values()), len(running))


def _seed_runs(tool: str) -> None:
    """A tool's run times from its last successful runs (an indexed read of RUN_WINDOW rows),
    when Redis holds none (new, or restarted empty). A marker keeps a tool that has never
    run from being looked up on every tick."""
    from jobs.models import Job, JobStatus

    recent = (Job.objects.filter(tool=tool, status=JobStatus.SUCCEEDED,
                                 finished_at__isnull=False, started_at__isnull=False)
              .order_by("-finished_at").values_list("started_at", "finished_at")[:RUN_WINDOW])
    times = [f"{(done - began).total_seconds():.3f}" for began, done in recent if began and done]
    pipe = _redis().pipeline(transaction=False)
    if times:
        pipe.rpush(runs_key(tool), *times)
        pipe.ltrim(runs_key(tool), 0, RUN_WINDOW - 1)
    pipe.set(f"{PREFIX}seeded:{tool}", "1", ex=3600)
    pipe.execute()


def figures_reset() -> None:
    """Forget every figure (tests, and ops after moving databases): the next heal rebuilds."""
    settle()
    client = _redis()
    keys = list(client.scan_iter(f"{PREFIX}*", count=1000))
    if keys:
        client.delete(*keys)


def since(epoch: float) -> float:
    """Seconds since a start kept as epoch seconds."""
    return max(0.0, time.time() - epoch)

