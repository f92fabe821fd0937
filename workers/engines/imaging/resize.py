"""Working copies: an image brought under a pixel count or a long side, and image bytes decoded
straight to such a copy. The one place engines shrink what they are given before they work on it.

Every reduction is INTER_AREA (averaging, no aliasing) to a size rounded to the nearest pixel and
never under ``min_side``; an image already within the limit is returned as it is, not copied.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def limit_side(img: np.ndarray, side: float, *, min_side: int = 1) -> tuple[np.ndarray, float]:
    """``img`` with its long side at most ``side``, and the scale applied (1.0 when none)."""
    h, w = img.shape[:2]
    s = min(1.0, side / max(h, w))
    if s >= 1.0:
        return img, 1.0
    size = (max(min_side, round(w * s)), max(min_side, round(h * s)))
    return cv2.resize(img, size, interpolation=cv2.INTER_AREA), s


def on_reduced_copy(img: np.ndarray, factor: int,
                    op: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``op`` run on ``img`` reduced ``factor`` times, its result enlarged back to ``img``'s
    size (bilinear): for a smooth operation, a wide blur, whose cost grows with the pixels."""
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, w // factor), max(1, h // factor)),
                       interpolation=cv2.INTER_AREA)
    return cv2.resize(op(small), (w, h), interpolation=cv2.INTER_LINEAR)


def limit_pixels(
    rgb: np.ndarray, alpha: np.ndarray | None, max_pixels: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """``rgb`` and its ``alpha`` (either dtype, or None) scaled down together to at most
    ``max_pixels`` pixels, keeping the aspect ratio."""
    h, w = rgb.shape[:2]
    if h * w <= max_pixels:
        return rgb, alpha
    s = (max_pixels / (h * w)) ** 0.5
    return _resize_pair(rgb, alpha, (max(1, round(w * s)), max(1, round(h * s))))


def decode_limited(
    data: bytes, max_side: float, *, max_pixels: int | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Untrusted image bytes decoded (``decode.decode_image``, refusing more than
    ``max_pixels``, by default its own limit) to uint8 RGB and alpha (or None), long side at
    most ``max_side``."""
    from workers.engines.imaging.decode import DEFAULT_MAX_PIXELS, decode_image

    dec = decode_image(data, max_pixels=DEFAULT_MAX_PIXELS if max_pixels is None else max_pixels)
    rgb, alpha = dec.rgb, dec.alpha
    h, w = rgb.shape[:2]
    s = min(1.0, max_side / max(h, w))
    if s >= 1.0:
        return rgb, alpha
    return _resize_pair(rgb, alpha, (max(1, round(w * s)), max(1, round(h * s))))


def _resize_pair(
    rgb: np.ndarray, alpha: np.ndarray | None, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray | None]:
    rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    if alpha is not None:
        alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    return rgb, alpha
