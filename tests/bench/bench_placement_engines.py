"""Seconds per item on one core for Earfit, Baghold, Spinview and Remodel at catalogue size
(the 768x1024 fixtures; Spinview at its defaults, 1080 px, 6 s, 24 fps), printed beside
the times the specification quotes. Printed, not asserted. The first call of each engine loads
the mediapipe graphs and is reported apart.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.engines.placement_support import png
from tests.engines.synthetic_products import bag_shot, earring_shot
from workers.engines import baghold, earfit, remodel, spinview

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"
REPEAT = int(os.environ.get("BENCH_PLACEMENT_REPEAT", "3"))


@pytest.fixture(autouse=True)
def one_core() -> object:
    # ffmpeg and mediapipe inherit the affinity: the figures are for a single core.
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    yield
    os.sched_setaffinity(0, before)


def _photo(name: str) -> bytes:
    path = FIXTURES / name
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    return path.read_bytes()


def _time(label: str, quoted_s: float, call: Callable[[], object]) -> None:
    start = time.perf_counter()
    call()
    first = time.perf_counter() - start
    runs = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        call()
        runs.append(time.perf_counter() - start)
    per_item = sorted(runs)[len(runs) // 2]
    print(
        f"\n{label:<10} {per_item:7.2f} s per item (first call {first:.2f} s)   spec {quoted_s:5.0f} s   x{quoted_s / per_item:6.1f} faster"
    )


def bench_earfit() -> None:
    params = {
        "ring_image": png(earring_shot(600, 1200)),
        "ring_height_in": 1.5,
        "model_image": _photo("model/model_3.png"),
        "model_name": "Ana",
    }
    _time("Earfit", 17, lambda: earfit.run(params, lambda *a: None))


def bench_baghold() -> None:
    image, _ = bag_shot(1400, 1400, body_w=840, body_h=600, handle_h=320)
    params = {
        "bag_image": png(image),
        "width": 32,
        "height": 24,
        "depth": 12,
        "gender": "Female",
        "model_image": _photo("model/model_9.png"),
        "model_height_cm": 170,
    }
    _time("Baghold", 90, lambda: baghold.run(params, lambda *a: None))


def bench_spinview() -> None:
    views = [
        _photo(f"garment/{n}")
        for n in ("00055_00.jpg", "00126_00.jpg", "00151_00.jpg", "03244_00.jpg")
    ]
    params = {"views": views, "seconds": 6, "fps": 24, "size": 1080}
    _time("Spinview", 110, lambda: spinview.run(params, lambda *a: None))


def bench_remodel() -> None:
    params = {
        "image": _photo("model/02849_00.jpg"),
        "model_face": _photo("model/model_1.png"),
        "model_name": "Mia",
    }
    _time("Remodel", 15, lambda: remodel.run(params, lambda *a: None))
