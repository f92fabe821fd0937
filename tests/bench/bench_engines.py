"""Recolor and Refabric per image on one core, as ratios to two baselines measured in the same
run on the same image: decode + PNG encode, and one plain OpenCV op (engine_timing.Baselines).
Printed, not asserted. The specification says about 90 seconds for both.

Run: make bench, or
  .venv/bin/pytest tests/bench/bench_engines.py -s -q -o python_files='bench_*.py' \
      -o python_functions='bench_*'
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
from PIL import Image

from tests.bench.engine_timing import FIXTURES, Baselines, best_of, line, pin_one_core
from workers.engines.imaging.decode import encode_jpeg
from workers.engines.recolor import run as recolor_run
from workers.engines.refabric import run as refabric_run

REPEAT = int(os.environ.get("BENCH_ENGINE_REPEAT", "3"))
SIDES = (1024, 2048)


def _jpeg_at(name: str, side: int) -> bytes:
    im = Image.open(FIXTURES / f"{name}.jpg").convert("RGB")
    w, h = im.size
    scale = side / max(w, h)
    return encode_jpeg(np.asarray(im.resize((round(w * scale), round(h * scale)),
                                            Image.LANCZOS)))


def _best(fn: Callable[[], object]) -> float:
    fn()  # warm up: mediapipe graphs, imports
    return best_of(fn, REPEAT)


def bench_decode_encode() -> None:
    pin_one_core()
    for side in SIDES:
        base = Baselines(_jpeg_at("model/049205_0", side), REPEAT)
        print(f"{'decode JPEG + encode PNG':<38} {base.codec:7.3f} s   GaussianBlur "
              f"{base.blur * 1000:.1f} ms   on {base.size}")


def bench_recolor() -> None:
    pin_one_core()
    for name, garment in (("garment/00055_00", "polo"), ("model/049205_0", "trousers")):
        for side in SIDES:
            data = _jpeg_at(name, side)
            params = {"image": data, "target_color": "#4A5D23", "garment_type": garment}
            engine = _best(lambda p=params: recolor_run(p, lambda *a, **k: None))
            print(line(f"recolor {name} {garment}", engine, Baselines(data, REPEAT),
                       spec_says="about 90 s"))


def bench_refabric() -> None:
    pin_one_core()
    for name, garment, fabric, finish in (
        ("garment/051988_1", "trousers", "denim", "textured"),
        ("model/049205_0", "tshirt", "tulle", "sheer"),
    ):
        for side in SIDES:
            data = _jpeg_at(name, side)
            params = {"image": data, "re_fabric": fabric, "material_finish": finish,
                      "target_garment": garment}
            engine = _best(lambda p=params: refabric_run(p, lambda *a, **k: None))
            print(line(f"refabric {name} {fabric}/{finish}", engine, Baselines(data, REPEAT),
                       spec_says="about 90 s"))
