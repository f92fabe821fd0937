"""Rebody and Reshape: seconds per image at 1024 px and 2048 px (long side) on one core, as
ratios to two baselines measured in the same run on the same image: decode + PNG encode, and
one plain OpenCV op (engine_timing.Baselines). Printed, not asserted. The specification says
about 90 s for Reshape and about 15 s for Rebody.
"""

from __future__ import annotations

import io
import os

import cv2
import numpy as np
from PIL import Image

from tests.bench.engine_timing import FIXTURES, Baselines, best_of, line, pin_one_core
from workers.engines import rebody, reshape

REPEAT = int(os.environ.get("BENCH_REPEAT", "3"))


def _source(sub: str, name: str) -> np.ndarray:
    path = FIXTURES / sub / name
    return np.asarray(Image.open(path).convert("RGB"))


def _jpeg_at(rgb: np.ndarray, side: int) -> bytes:
    h, w = rgb.shape[:2]
    s = side / max(h, w)
    im = cv2.resize(rgb, (round(w * s), round(h * s)), interpolation=cv2.INTER_CUBIC)
    buf = io.BytesIO()
    Image.fromarray(im).save(buf, format="JPEG", quality=92)
    return buf.getvalue()


def _report(tool: str, cases: list[tuple[str, bytes, dict]], engine, spec_says: str) -> None:  # type: ignore[no-untyped-def]
    pin_one_core()
    print()
    for label, data, extra in cases:
        engine({"image": data, **extra}, lambda *_: None)  # warm: detectors built once per process
        took = best_of(lambda d=data, x=extra: engine({"image": d, **x}, lambda *_: None), REPEAT)
        print(line(f"{tool} {label}", took, Baselines(data, REPEAT), spec_says=spec_says))


def bench_rebody() -> None:
    rgb = _source("model", "model_8.png")
    cases = [
        (f"{side} px Hourglass", _jpeg_at(rgb, side), {"target_bodytype": "Hourglass"})
        for side in (1024, 2048)
    ]
    cases.append(("1024 px Petite", _jpeg_at(rgb, 1024), {"target_bodytype": "Petite"}))
    _report("rebody", cases, rebody.run, "about 15 s")


def bench_reshape() -> None:
    dress = _source("garment", "053319_1.jpg")
    worn = _source("model", "049713_0.jpg")
    short = {
        "target_garment": "dress",
        "changes": [{"place": "length", "instruction": "shorter by 20%"}],
    }
    sleeves = {"target_garment": "t-shirt", "changes": [{"place": "sleeves", "instruction": "removed"}]}
    cases = []
    for side in (1024, 2048):
        cases.append((f"{side} px dress shorter 20%", _jpeg_at(dress, side), short))
        cases.append((f"{side} px worn top sleeves removed", _jpeg_at(worn, side), sleeves))
    _report("reshape", cases, reshape.run, "about 90 s")
