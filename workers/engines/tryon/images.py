"""Pictures into the try-on engines: decoded, no longer than ``MAX_SIDE``, alpha as float32."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging.decode import decode_image

# Work on at most this long side: a catalogue shot at 1024 px keeps folds and prints sharp, and
# pose, masks and warp all scale with pixels.
MAX_SIDE = 1024
# Pixels we agree to decode at all (a 24 MP camera frame passes).
MAX_PIXELS = 40_000_000


def load_image(data: Any, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    """RGB uint8 at most ``MAX_SIDE`` long and alpha as float32 [0, 1] (None without one);
    ``what`` names the input in the error when it is missing."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_input", f"The {what} image is missing.")
    img = decode_image(bytes(data), max_pixels=MAX_PIXELS)
    rgb, alpha = img.rgb, img.alpha
    h, w = rgb.shape[:2]
    s = min(1.0, MAX_SIDE / max(h, w))
    if s < 1.0:
        size = (max(1, round(w * s)), max(1, round(h * s)))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        if alpha is not None:
            alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    a = None if alpha is None else alpha.astype(np.float32) / 255.0
    return np.ascontiguousarray(rgb), a
