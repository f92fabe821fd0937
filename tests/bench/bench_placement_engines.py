"""Seconds per item on one core for Earfit, Baghold, Spinview and Remodel at catalogue size
(the 768x1024 fixtures; Spinview at its defaults, 1080 px, 6 s, 24 fps), printed beside
the times the specification quotes. Printed, not asserted. The first call of each engine loads
the mediapipe graphs and is reported apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from tests.bench.engine_timing import first_and_median, fixture_bytes, single_core
from tests.engines.placement_support import png
from tests.engines.synthetic_products import bag_shot, earring_shot
from workers.engines import baghold, earfit, remodel, spinview

REPEAT = int(os.environ.get("BENCH_PLACEMENT_REPEAT", "3"))


@pytest.fixture(autouse=True)
def one_core() -> Iterator[None]:
    # ffmpeg and mediapipe inherit the affinity: the figures are for a single core.
    with single_core():
        yield


def _time(label: str, quoted_s: float, call: Callable[[], object]) -> None:
    first, per_item = first_and_median(call, REPEAT)
    print(
        f"\n{label:<10} {per_item:7.2f} s per item (first call {first:.2f} s)   spec {quoted_s:5.0f} s   x{quoted_s / per_item:6.1f} faster"
    )


def bench_earfit() -> None:
    params = {
        "ring_image": png(earring_shot(600, 1200)),
        "ring_height_in": 1.5,
        "model_image": fixture_bytes("model/model_3.png"),
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
        "model_image": fixture_bytes("model/model_9.png"),
        "model_height_cm": 170,
    }
    _time("Baghold", 90, lambda: baghold.run(params, lambda *a: None))


def bench_spinview() -> None:
    views = [
        fixture_bytes(f"garment/{n}")
        for n in ("00055_00.jpg", "00126_00.jpg", "00151_00.jpg", "03244_00.jpg")
    ]
    params = {"views": views, "seconds": 6, "fps": 24, "size": 1080}
    _time("Spinview", 110, lambda: spinview.run(params, lambda *a: None))


def bench_remodel() -> None:
    params = {
        "image": fixture_bytes("model/02849_00.jpg"),
        "model_face": fixture_bytes("model/model_1.png"),
        "model_name": "Mia",
    }
    _time("Remodel", 15, lambda: remodel.run(params, lambda *a: None))
