"""The staff diagnostic tool: sleeps, reports progress, fails when asked."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from typing import Any

from workers.engines.base import EngineError, EngineOutput, Progress

# What the worker raises inside the task at the soft time limit (celery.exceptions), known by
# its name: an engine imports no Celery.
SOFT_LIMIT = "SoftTimeLimitExceeded"

# A file the worker is given (its environment) in which every run of a job that carries a
# `mark` leaves one line: "start <mark> <pid>" when the engine begins, "done <mark> <pid>"
# when it has made its outputs. The fault suite counts engine executions per job by it, so a
# job run twice shows as two, whatever the database says.
RUNS_FILE = "DIAGNOSTIC_RUNS_FILE"


def sleep(params: dict[str, Any], progress: Progress) -> Iterable[EngineOutput]:
    mark = str(params.get("mark") or "")
    _count(mark, "start")
    seconds = float(params.get("seconds", 1.0))
    deadline = time.monotonic() + seconds
    started = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= deadline:
            break
        try:
            time.sleep(min(0.1, deadline - now))
            if seconds:
                progress(min(99.0, 100.0 * (time.monotonic() - started) / seconds))
        except BaseException as exc:
            # the limit lands wherever the run is: in the sleep or in the progress write
            if params.get("ignore_soft_limit") and type(exc).__name__ == SOFT_LIMIT:
                continue
            raise
    if params.get("fail"):
        raise EngineError("diagnostic_failure", "The diagnostic job failed as asked.")
    report = {"slept_seconds": round(time.monotonic() - started, 3)}
    outputs = [
        EngineOutput(
            data=json.dumps(report | {"output": i}).encode(),
            content_type="application/json",
            filename=f"diagnostic-{i}.json",
        )
        for i in range(int(params.get("outputs", 1)))
    ]
    save_seconds = float(params.get("save_seconds") or 0)
    if save_seconds:
        return _slowly(outputs, save_seconds, mark)
    _count(mark, "done")
    return outputs


def _slowly(outputs: list[EngineOutput], seconds: float, mark: str) -> Iterator[EngineOutput]:
    """The outputs, each after `seconds`: produced while the worker is storing them."""
    for out in outputs:
        time.sleep(seconds)
        yield out
    _count(mark, "done")


def _count(mark: str, what: str) -> None:
    """One line in the runs file (one write, appended: lines of concurrent runs never mix)."""
    path = os.environ.get(RUNS_FILE, "")
    if not (path and mark and mark.replace("-", "").replace("_", "").isalnum()):
        return
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, f"{what} {mark} {os.getpid()}\n".encode())
    finally:
        os.close(fd)
