"""Pictures into and out of the try-on engines: decoded, checked, worked on no longer than
``MAX_SIDE``, and the result carried back onto the photo at its own resolution.

The engines find the pose, cut and warp on a working copy (``MAX_SIDE`` on its long side: the
detectors see 640 px, and masks and warps cost per pixel). What they deliver keeps the person
photo's size, up to the ``MAX_PIXELS`` every engine decodes at most (``imaging.decode``): the
photo's own pixels wherever the working copy did not change, the edit upscaled where it did."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging.decode import DEFAULT_MAX_PIXELS, decode_image
from workers.engines.imaging.inputs import MIN_SIDE, require_min_side

# Work on at most this long side: a catalogue shot at 1024 px keeps folds and prints sharp, and
# pose, masks and warp all scale with pixels.
MAX_SIDE = 1024
# Pixels we agree to decode at all, the decoder's own cap (a 24 MP camera frame passes); the
# output keeps the photo's size up to it.
MAX_PIXELS = DEFAULT_MAX_PIXELS
# Rows blended at a time when the edit is carried onto a large photo (bounded float memory).
_STRIP = 512


def decode_full(data: Any, what: str, min_side: int | None = MIN_SIDE) -> tuple[np.ndarray, np.ndarray | None]:
    """The picture at its own size: RGB uint8 and alpha uint8 (None without one). ``what``
    names the input in the errors: missing, or shorter than ``min_side`` (None: no minimum)."""
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_input", f"The {what} image is missing.")
    img = decode_image(bytes(data), max_pixels=MAX_PIXELS)
    if min_side:
        require_min_side(img.rgb, f"{what} image", min_side)
    return img.rgb, img.alpha


def working_copy(rgb: np.ndarray, alpha: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """RGB at most ``MAX_SIDE`` long and alpha as float32 [0, 1] (None without one)."""
    h, w = rgb.shape[:2]
    s = min(1.0, MAX_SIDE / max(h, w))
    if s < 1.0:
        size = (max(1, round(w * s)), max(1, round(h * s)))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        if alpha is not None:
            alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    a = None if alpha is None else alpha.astype(np.float32) / (255.0 if alpha.dtype == np.uint8 else 1.0)
    return np.ascontiguousarray(rgb), a


def load_image(data: Any, what: str, min_side: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """RGB uint8 at most ``MAX_SIDE`` long and alpha as float32 [0, 1] (None without one);
    ``what`` names the input in the error when it is missing (or under ``min_side``)."""
    rgb, alpha = decode_full(data, what, min_side)
    return working_copy(rgb, alpha)


def onto_full(full: np.ndarray, before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The edit the working copy ``before`` -> ``after`` carried onto ``full``, the photo at its
    own size: its pixels where the working copy did not change, the edit (upscaled) where it did,
    feathered by a pixel of the working copy."""
    fh, fw = full.shape[:2]
    if (fh, fw) == after.shape[:2]:
        return after
    diff = np.abs(after.astype(np.int16) - before.astype(np.int16)).max(axis=2).astype(np.float32)
    weight = np.clip((diff - 1.0) / 4.0, 0.0, 1.0)
    weight = cv2.dilate(weight, np.ones((3, 3), np.uint8))
    weight = cv2.GaussianBlur(weight, (0, 0), 0.7)
    up = cv2.resize(after, (fw, fh), interpolation=cv2.INTER_CUBIC)
    wup = cv2.resize(weight, (fw, fh), interpolation=cv2.INTER_LINEAR)
    out = np.empty_like(full)
    for y in range(0, fh, _STRIP):
        sl = slice(y, min(fh, y + _STRIP))
        a = wup[sl][..., None]
        out[sl] = np.clip(up[sl].astype(np.float32) * a + full[sl].astype(np.float32) * (1.0 - a) + 0.5,
                          0, 255).astype(np.uint8)
    return out
