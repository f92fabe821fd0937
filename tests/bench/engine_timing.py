"""What the engine benchmarks share: the fixture photos, one core, and a call timed.

Not a benchmark itself (``make bench`` collects ``bench_*.py`` only)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"


def fixture_bytes(name: str, base: Path = FIXTURES) -> bytes:
    """A fixture file's bytes ("model/051918_0.jpg"); the benchmark is skipped without it."""
    path = base / name
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    return path.read_bytes()


@contextmanager
def single_core(*, opencv_threads: int | None = None) -> Iterator[None]:
    """This process (and what it starts: ffmpeg, mediapipe) on one core, then back."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    if opencv_threads is not None:
        cv2.setNumThreads(opencv_threads)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def pin_one_core() -> None:
    """One core and one OpenCV thread for the rest of the run: the worker runs one engine per
    process with prefork concurrency = cores, so that is what is measured."""
    cv2.setNumThreads(1)
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    except (AttributeError, OSError):
        pass


def first_and_median(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Seconds of the first call (graph loading, imports) and the median of ``repeat`` more."""
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    return first, sorted(runs)[len(runs) // 2]


def best_of(call: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)
