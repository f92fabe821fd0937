"""What the engine benchmarks share: the fixture photos, one core, a call timed, and the two
baselines every engine figure is a ratio to, measured in the same run on the same input image:
decoding it and encoding it as PNG (what any job of ours does around its engine), and one plain
OpenCV op on it (a Gaussian blur, sigma 2). The specification's quoted times are printed as
"spec says", never as a ratio's baseline.

Not a benchmark itself (``make bench`` collects ``bench_*.py`` only)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

from workers.engines.imaging.decode import decode_image, encode_png

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


class Baselines:
    """Decode + PNG encode of ``image`` and one Gaussian blur of it, best of ``repeat``."""

    def __init__(self, image: bytes, repeat: int = 3) -> None:
        decoded = decode_image(image)
        rgb: np.ndarray = decoded.rgb
        self.size = f"{rgb.shape[1]}x{rgb.shape[0]}"
        self.codec = best_of(lambda: encode_png(*decode_image(image)), repeat)
        self.blur = best_of(lambda: cv2.GaussianBlur(rgb, (0, 0), 2.0), max(repeat, 5))


def line(label: str, seconds: float, base: Baselines, *, first: float | None = None,
         spec_says: str = "") -> str:
    """One engine's row: its time, its ratio to each baseline, and what the spec says."""
    text = (f"{label:<38} {seconds:7.3f} s"
            + (f" (first call {first:.2f} s)" if first is not None else "")
            + f"  = {seconds / base.codec:6.1f}x decode+encode ({base.codec * 1000:.0f} ms)"
            f"  = {seconds / base.blur:7.0f}x GaussianBlur ({base.blur * 1000:.1f} ms)"
            f"  on {base.size}")
    if spec_says:
        text += f"   spec says {spec_says}"
    return text
