"""Real processes the suites start and stop: a redis-server, Celery workers and beat."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "var" / "test-logs"


def wait_for(predicate, timeout: float, interval: float = 0.1, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout}s waiting for {what}")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class RedisServer:
    """A redis-server of the suites' own, with an append-only file so a restart keeps data
    (wipe() deletes it for the 'data lost' case)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dir = REPO / "var" / f"test-redis-{port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed: run `make test`, which installs it")
        if port_open(self.port):
            raise RuntimeError(f"port {self.port} is taken; set ATELIER_TEST_REDIS_PORT")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--logfile", str(self.dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for(lambda: port_open(self.port), 10, what="redis-server")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None
        wait_for(lambda: not port_open(self.port), 10, what="redis-server to stop")

    def wipe(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def flushall(self) -> None:
        import redis

        redis.Redis(port=self.port).flushall()


@contextmanager
def fresh_redis(port: int) -> Iterator[RedisServer]:
    """A suite's own redis-server on ``port`` for a with block, with no data of an earlier run
    and none left after it."""
    server = RedisServer(port)
    server.wipe()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        server.wipe()


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ) | (extra or {})
    env["DJANGO_SETTINGS_MODULE"] = "tests.settings"
    env["ATELIER_TEST_WORKER"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "platform"), str(REPO)])
    return env


class CeleryProcess:
    """A real `celery worker` or `celery beat` process in its own process group."""

    def __init__(self, args: list[str], name: str, env: dict[str, str] | None = None, *,
                 app: str = "config.celery_app") -> None:
        self.app = app
        self.name = name
        self.args = args
        self.env = env
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log = LOGS / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, ready_text: str, timeout: float = 60) -> CeleryProcess:
        self.log.write_text("")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", self.app, *self.args,
             "--logfile", str(self.log), "--loglevel", "INFO"],
            env=_env(self.env), cwd=REPO, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=open(LOGS / f"{self.name}.stderr", "w"),
        )

        def ready() -> bool:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: see {self.log}")
            return ready_text in self.log.read_text(errors="replace")

        wait_for(ready, timeout, what=f"{self.name} to be ready")
        return self

    def kill(self) -> None:
        """SIGKILL the whole process group: the worker and its pool, with no goodbye."""
        kill_group(self.proc)

    def stop(self) -> None:
        stop_group(self.proc, grace=30)


def kill_group(proc: subprocess.Popen[bytes] | None) -> None:
    """SIGKILL a process started with ``start_new_session``, and everything it started."""
    if proc and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def stop_group(proc: subprocess.Popen[bytes] | None, *, grace: float) -> None:
    """SIGTERM the process group; SIGKILL it if it is still there after ``grace`` seconds."""
    if proc and proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            kill_group(proc)


def start_worker(queues: str = "interactive,batch,video,drivesync,webhooks", concurrency: int = 2,
                 name: str | None = None, env: dict[str, str] | None = None, *,
                 app: str = "config.celery_app") -> CeleryProcess:
    """A prefork worker of ``app`` (the product's Celery app unless told) on ``queues``."""
    name = name or f"worker-{uuid.uuid4().hex[:6]}"
    proc = CeleryProcess(
        ["worker", "-Q", queues, "-c", str(concurrency), "-n", f"{name}@%h", "--pool", "prefork",
         "--without-mingle", "--without-gossip"], name, env=env, app=app,
    )
    return proc.start("ready.")


def start_beat() -> CeleryProcess:
    name = f"beat-{uuid.uuid4().hex[:6]}"
    schedule = REPO / "var" / "test-logs" / f"{name}-schedule"
    proc = CeleryProcess(["beat", "-s", str(schedule)], name)
    return proc.start("beat: Starting...")
