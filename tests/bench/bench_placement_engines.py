"""Seconds per item on one core for Earfit, Baghold, Spinview and Remodel at catalogue size
(the 768x1024 fixtures; Spinview at its defaults, 1080 px, 6 s, 24 fps), as ratios to two
baselines measured in the same run on the call's model photo (Spinview: its first view)
(engine_timing.Baselines). What the specification quotes is printed as "spec says". Printed,
not asserted. The first call of each engine loads the mediapipe graphs and is reported apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from tests.bench.engine_timing import (
    Baselines,
    first_and_median,
    fixture_bytes,
    line,
    single_core,
)
from tests.engines.placement_support import png
from tests.engines.synthetic_products import bag_shot, earring_shot
from workers.engines import baghold, earfit, remodel, spinview

REPEAT = int(os.environ.get("BENCH_PLACEMENT_REPEAT", "3"))


@pytest.fixture(autouse=True)
def one_core() -> Iterator[None]:
    # ffmpeg and mediapipe inherit the affinity: the figures are for a single core.
    with single_core():
        yield


def _time(label: str, image: bytes, call: Callable[[], object], spec_says: str) -> None:
    first, per_item = first_and_median(call, REPEAT)
    print("\n" + line(label, per_item, Baselines(image, REPEAT), first=first,
                      spec_says=spec_says))


def bench_earfit() -> None:
    params = {
        "ring_image": png(earring_shot(600, 1200)),
        "ring_height_in": 1.5,
        "model_image": fixture_bytes("model/model_3.png"),
        "model_name": "Ana",
    }
    _time("Earfit", params["model_image"], lambda: earfit.run(params, lambda *a: None),
          "about 17 s per item")


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
    _time("Baghold", params["model_image"], lambda: baghold.run(params, lambda *a: None),
          "about 90 s per bag")


def bench_spinview() -> None:
    views = [
        fixture_bytes(f"garment/{n}")
        for n in ("00055_00.jpg", "00126_00.jpg", "00151_00.jpg", "03244_00.jpg")
    ]
    params = {"views": views, "seconds": 6, "fps": 24, "size": 1080}
    _time("Spinview", views[0], lambda: spinview.run(params, lambda *a: None),
          "110 s per video on average")


def bench_remodel() -> None:
    params = {
        "image": fixture_bytes("model/02849_00.jpg"),
        "model_face": fixture_bytes("model/model_1.png"),
        "model_name": "Mia",
    }
    _time("Remodel", params["image"], lambda: remodel.run(params, lambda *a: None),
          "about 15 s per image")
