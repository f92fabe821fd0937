"""What every gallery module shares: where the galleries go and at what size, engine calls
from a fixed random state, and image bytes in and out."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

from workers.engines.base import EngineOutput

ROOT = Path(__file__).resolve().parents[3]
OUT = ROOT / "platform" / "tools" / "static" / "tools" / "examples"
LONG_SIDE = 960
JPEG_QUALITY = 82
JPEG_BUDGET = 120_000  # bytes; quality steps down until an example fits
GAP = 8  # px of white between the before and after panels
VIDEO_SIZE = 480
VIDEO_SECONDS = 3

RGB = tuple[int, int, int]
Example = tuple[np.ndarray | bytes, str]  # the image (or MP4 bytes) and its alt text
Image.MAX_IMAGE_PIXELS = None  # our own renders only


def noop_progress(*_args: object, **_kwargs: object) -> None:
    return None


def run_engine(engine: Callable[..., list[EngineOutput]], params: dict[str, Any]
               ) -> list[EngineOutput]:
    """One engine call from a fixed OpenCV RNG state (GrabCut and k-means draw from it), so an
    example comes out the same whichever examples were made before it in the process."""
    cv2.setRNGSeed(7)
    return engine(params, noop_progress)


def upscale(rgb: np.ndarray, factor: float) -> np.ndarray:
    h, w = rgb.shape[:2]
    return cv2.resize(rgb, (round(w * factor), round(h * factor)), interpolation=cv2.INTER_LANCZOS4)


def png(rgb: np.ndarray, alpha: np.ndarray | None = None) -> bytes:
    buf = io.BytesIO()
    if alpha is None:
        Image.fromarray(np.ascontiguousarray(rgb)).save(buf, "PNG")
    else:
        Image.fromarray(np.dstack([rgb, alpha]).astype(np.uint8), "RGBA").save(buf, "PNG")
    return buf.getvalue()


def decoded(out: EngineOutput) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(out.data)).convert("RGB"))


def images(outs: list[EngineOutput]) -> list[np.ndarray]:
    return [decoded(o) for o in outs if o.content_type.startswith("image/")]
