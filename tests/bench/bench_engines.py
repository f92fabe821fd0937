"""Image engines per image, on one core, against plain decode + encode of the same image in the
same run. Printed, not asserted. Goal: recolor and refabric under 1 s per 1024 px image.

Run: make bench, or
  .venv/bin/pytest tests/bench/bench_engines.py -s -q -o python_files='bench_*.py' \
      -o python_functions='bench_*'
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
from PIL import Image

from tests.bench.engine_timing import FIXTURES, best_of, pin_one_core
from workers.engines.imaging.decode import decode_image, encode_jpeg, encode_png
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


def _baseline(data: bytes) -> Callable[[], object]:
    def go() -> object:
        decoded = decode_image(data)
        return encode_png(decoded.rgb, decoded.alpha)

    return go


def _print(label: str, side: int, base: float, engine: float) -> None:
    print(f"{label:<38} {side:>5}px  engine {engine:6.3f} s  decode+encode {base:6.3f} s  "
          f"ratio {engine / base:5.1f}x  {'OK' if side > 1024 or engine < 1.0 else 'SLOW'}")


def bench_decode_encode() -> None:
    pin_one_core()
    for side in SIDES:
        data = _jpeg_at("model/049205_0", side)
        t = _best(_baseline(data))
        print(f"{'decode JPEG + encode PNG':<38} {side:>5}px  {t:6.3f} s")


def bench_recolor() -> None:
    pin_one_core()
    for name, garment in (("garment/00055_00", "polo"), ("model/049205_0", "trousers")):
        for side in SIDES:
            data = _jpeg_at(name, side)
            base = _best(_baseline(data))
            params = {"image": data, "target_color": "#4A5D23", "garment_type": garment}
            engine = _best(lambda p=params: recolor_run(p, lambda *a, **k: None))
            _print(f"recolor {name} {garment}", side, base, engine)


def bench_refabric() -> None:
    pin_one_core()
    for name, garment, fabric, finish in (
        ("garment/051988_1", "trousers", "denim", "textured"),
        ("model/049205_0", "tshirt", "tulle", "sheer"),
    ):
        for side in SIDES:
            data = _jpeg_at(name, side)
            base = _best(_baseline(data))
            params = {"image": data, "re_fabric": fabric, "material_finish": finish,
                      "target_garment": garment}
            engine = _best(lambda p=params: refabric_run(p, lambda *a, **k: None))
            _print(f"refabric {name} {fabric}/{finish}", side, base, engine)
