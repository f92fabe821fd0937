"""Which workers are consuming each queue right now, across hosts and pods.

Every worker announces itself (its node name and process count per queue) in one Redis hash
per queue, again every few seconds, each entry with its own expiry. The ETA divides the work
ahead by the processes that really consume the queue, not by a local setting: once an
autoscaler adds pods, or a host goes down, the figure follows within seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

import redis
from django.conf import settings

from jobs.figures import redis_client

logger = logging.getLogger(__name__)

ANNOUNCE_SECONDS = 10.0
# An entry not renewed for this long is a worker that died without saying goodbye.
EXPIRES_SECONDS = 3 * ANNOUNCE_SECONDS
# Readers keep an answer this long: every job poll asks.
READ_CACHE_SECONDS = 2.0

_read_cache: dict[str, tuple[float, int | None]] = {}


def _redis() -> redis.Redis:
    return redis_client(socket_timeout=1)


def _key(queue: str) -> str:
    return f"atelier:workers:{queue}"


def workers_announce(*, node: str, queues: Iterable[str], processes: int) -> None:
    expires = time.time() + EXPIRES_SECONDS
    pipe = _redis().pipeline()
    for queue in queues:
        pipe.hset(_key(queue), node, f"{expires:.0f}:{processes}")
    pipe.execute()


def workers_withdraw(*, node: str, queues: Iterable[str]) -> None:
    pipe = _redis().pipeline()
    for queue in queues:
        pipe.hdel(_key(queue), node)
    pipe.execute()


def live_processes(*, queue: str) -> int | None:
    """Worker processes consuming the queue now, or None when that cannot be known (no worker
    has announced itself, or Redis does not answer)."""
    now = time.monotonic()
    cached = _read_cache.get(queue)
    if cached and now - cached[0] < READ_CACHE_SECONDS:
        return cached[1]
    try:
        entries = _redis().hgetall(_key(queue))
        total, stale, wall = 0, [], time.time()
        for node, value in entries.items():
            text = value.decode() if isinstance(value, bytes) else str(value)
            expires, _, processes = text.partition(":")
            if float(expires) < wall:
                stale.append(node)
            else:
                total += int(processes)
        if stale:
            _redis().hdel(_key(queue), *stale)
        answer = total or None
    except (redis.RedisError, ValueError) as exc:
        logger.warning("live workers of queue %s unknown: %s", queue, exc)
        answer = None
    _read_cache[queue] = (now, answer)
    return answer


def queue_processes(*, queue: str) -> int:
    """What the ETA divides by: the live count, else the configured concurrency."""
    return live_processes(queue=queue) or max(1, settings.QUEUE_CONCURRENCY.get(queue, 1))


class Announcer:
    """Runs in a worker's main process: announces it until it shuts down."""

    def __init__(self, *, node: str, queues: list[str], processes: int) -> None:
        self.node, self.queues, self.processes = node, queues, processes
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="worker-presence", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        try:
            workers_withdraw(node=self.node, queues=self.queues)
        except redis.RedisError as exc:
            logger.warning("withdrawing worker %s failed: %s", self.node, exc)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                workers_announce(node=self.node, queues=self.queues, processes=self.processes)
            except redis.RedisError as exc:  # Redis away: the entry expires, the ETA falls back
                logger.warning("announcing worker %s failed: %s", self.node, exc)
            self._stop.wait(ANNOUNCE_SECONDS)
