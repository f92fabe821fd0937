"""The product's own processes as a deploy starts them, for the benchmarks that time them.

The web and the workers run through the image's entrypoint (deploy/docker/entrypoint.sh) with
the production settings module (config.settings, DEBUG off), on this run's test database and
the suites' Redis, in their own process groups. Not a benchmark itself (``make bench``
collects ``bench_*.py`` only).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection

from tests.support.processes import LOGS, REPO, stop_group, wait_for

ENTRYPOINT = REPO / "deploy" / "docker" / "entrypoint.sh"


def database_url() -> str:
    """This run's test database as a DATABASE_URL (pytest-django has switched to it)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{db['NAME']}"
    if connection.vendor == "postgresql":
        auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    raise RuntimeError(f"no DATABASE_URL for {connection.vendor}")


def load() -> str:
    """The machine's load average (1, 5, 15 min): how much else ran beside a measurement."""
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def database_label() -> str:
    return {"postgresql": "PostgreSQL", "sqlite": "SQLite"}.get(connection.vendor,
                                                                connection.vendor)


def purge(queue: str) -> None:
    """Empty one of the broker's queues."""
    from config.celery_app import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge(queue)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def production_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a deploy gives web and workers: config.settings, not the suites'."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DJANGO_SETTINGS_MODULE", "ATELIER_TEST_WORKER", "DJANGO_DEBUG")}
    metrics = Path(tempfile.mkdtemp(prefix="bench-metrics-"))
    env |= {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "PYTHONPATH": os.pathsep.join([str(REPO / "platform"), str(REPO)]),
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        "PYTHONUNBUFFERED": "1",
        # as compose, Kubernetes and systemd run them
        "PROMETHEUS_MULTIPROC_DIR": str(metrics),
        "LOG_LEVEL": "INFO",
    }
    return env | (extra or {})


class Process:
    """One entrypoint role (``web``, ``worker QUEUE``) in its own process group."""

    def __init__(self, args: list[str], name: str, env: dict[str, str] | None = None) -> None:
        LOGS.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.log = LOGS / f"{name}.log"
        self.proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), *args], env=production_env(env), cwd=REPO,
            start_new_session=True, stdout=open(self.log, "w"), stderr=subprocess.STDOUT,
        )

    def running(self) -> bool:
        if self.proc.poll() is not None:
            raise RuntimeError(f"{self.name} exited: see {self.log}")
        return True

    def stop(self) -> None:
        stop_group(self.proc, grace=30)

    def __enter__(self) -> Process:
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.stop()


def start_worker(queue: str, concurrency: int, env: dict[str, str] | None = None,
                 started: Callable[[Process], None] | None = None) -> Process:
    """``entrypoint.sh worker QUEUE`` with CONCURRENCY_<QUEUE>, as a deploy runs one.
    `started` is called with it as soon as it is started, before it is ready."""
    name = f"bench-worker-{uuid.uuid4().hex[:6]}"
    logfile = LOGS / f"{name}.celery.log"
    proc = Process(["worker", queue, "--logfile", str(logfile)], name,
                   {f"CONCURRENCY_{queue.upper()}": str(concurrency), **(env or {})})
    if started is not None:
        started(proc)

    def ready() -> bool:
        return proc.running() and logfile.exists() and "ready." in logfile.read_text(
            errors="replace")

    try:
        wait_for(ready, 90, interval=0.2, what=f"{name} to be ready")
    except BaseException:
        proc.stop()
        raise
    return proc


def start_web(env: dict[str, str] | None = None) -> tuple[Process, str]:
    """``entrypoint.sh web`` (gunicorn, its flags and defaults) on a free loopback port."""
    import requests

    port = free_port()
    proc = Process(["web"], f"bench-web-{port}",
                   {"PORT": str(port), "WEB_BIND": "127.0.0.1", **(env or {})})
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        proc.running()
        try:
            return requests.get(f"{base}/healthz", timeout=1).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_for(up, 60, interval=0.2, what="gunicorn")
    except BaseException:
        proc.stop()
        raise
    return proc, base
