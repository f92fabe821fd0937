"""Rebody and Reshape: seconds per image at 1024 px and 2048 px (long side) on one core,
against a plain decode + PNG encode of the same image in the same run. Printed, not asserted.

Goal: under 1 s per 1024 px image.
"""

from __future__ import annotations

import io
import os

import cv2
import numpy as np
from PIL import Image

from tests.bench.engine_timing import FIXTURES, best_of, pin_one_core
from workers.engines import rebody, reshape
from workers.engines.imaging.decode import decode_image, encode_png

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


def _baseline(data: bytes) -> float:
    def plain() -> None:
        rgb, alpha = decode_image(data)
        encode_png(rgb, alpha)

    return best_of(plain, REPEAT)


def _report(tool: str, cases: list[tuple[str, bytes, dict]], engine) -> None:  # type: ignore[no-untyped-def]
    pin_one_core()
    print()
    for label, data, extra in cases:
        engine({"image": data, **extra}, lambda *_: None)  # warm: detectors built once per process
        base = _baseline(data)
        took = best_of(lambda d=data, x=extra: engine({"image": d, **x}, lambda *_: None), REPEAT)
        print(
            f"{tool:8s} {label:34s} {took:6.3f} s   decode+encode {base:6.3f} s   "
            f"engine only {took - base:6.3f} s"
        )


def bench_rebody() -> None:
    rgb = _source("model", "model_8.png")
    cases = [
        (f"{side} px Hourglass", _jpeg_at(rgb, side), {"target_bodytype": "Hourglass"})
        for side in (1024, 2048)
    ]
    cases.append(("1024 px Petite", _jpeg_at(rgb, 1024), {"target_bodytype": "Petite"}))
    _report("rebody", cases, rebody.run)


def bench_reshape() -> None:
    dress = _source("garment", "053319_1.jpg")
    worn = _source("model", "02849_00.jpg")
    short = {
        "target_garment": "dress",
        "changes": [{"place": "length", "instruction": "shorter by 20%"}],
    }
    sleeves = {"target_garment": "top", "changes": [{"place": "sleeves", "instruction": "removed"}]}
    cases = []
    for side in (1024, 2048):
        cases.append((f"{side} px dress shorter 20%", _jpeg_at(dress, side), short))
        cases.append((f"{side} px worn top sleeves removed", _jpeg_at(worn, side), sleeves))
    _report("reshape", cases, reshape.run)
