"""How an example is laid out and encoded: panels side by side, insets, crops, JPEG within
the byte budget."""

from __future__ import annotations

import io

import cv2
import numpy as np
from PIL import Image

from .common import GAP, JPEG_BUDGET, JPEG_QUALITY, LONG_SIDE


def to_height(rgb: np.ndarray, h: int) -> np.ndarray:
    s = h / rgb.shape[0]
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LANCZOS4
    return cv2.resize(rgb, (max(1, round(rgb.shape[1] * s)), h), interpolation=interp)


def pad_to(rgb: np.ndarray, w: int, h: int, colour: int = 255) -> np.ndarray:
    """rgb centred on a w x h canvas (scaled down to fit if needed)."""
    s = min(1.0, w / rgb.shape[1], h / rgb.shape[0])
    if s < 1:
        rgb = cv2.resize(rgb, (round(rgb.shape[1] * s), round(rgb.shape[0] * s)),
                         interpolation=cv2.INTER_AREA)
    out = np.full((h, w, 3), colour, np.uint8)
    y, x = (h - rgb.shape[0]) // 2, (w - rgb.shape[1]) // 2
    out[y:y + rgb.shape[0], x:x + rgb.shape[1]] = rgb
    return out


def row(*panels: np.ndarray, height: int = 720) -> np.ndarray:
    """Panels side by side at one height with a thin white gap: before | after (| ...)."""
    parts: list[np.ndarray] = []
    for i, p in enumerate(panels):
        if i:
            parts.append(np.full((height, GAP, 3), 255, np.uint8))
        parts.append(to_height(p, height))
    return np.concatenate(parts, axis=1)


def trim_white(rgb: np.ndarray, margin: float = 0.04) -> np.ndarray:
    """Drop the white rows above and below what the panels show, keeping a small margin."""
    rows = np.nonzero((rgb < 245).any(axis=(1, 2)))[0]
    if not len(rows):
        return rgb
    m = round(margin * rgb.shape[0])
    return np.ascontiguousarray(rgb[max(0, rows[0] - m):rows[-1] + m + 1])


def with_inset(rgb: np.ndarray, small: np.ndarray, *, share: float = 0.3,
               corner: str = "br") -> np.ndarray:
    """A small input (the garment, the accessory, the library model) in a corner of a panel,
    on a white card with a thin grey rule."""
    h, w = rgb.shape[:2]
    side = round(share * min(h, w))
    card = pad_to(small, side - 8, side - 8)
    card = cv2.copyMakeBorder(card, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    card = cv2.copyMakeBorder(card, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=(200, 200, 200))
    m = round(0.03 * min(h, w))
    ch, cw = card.shape[:2]
    y = h - ch - m if corner[0] == "b" else m
    x = w - cw - m if corner[1] == "r" else m
    out = rgb.copy()
    out[y:y + ch, x:x + cw] = card
    return out


def crop(rgb: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray:
    """Crop by fractions (x0, y0, x1, y1) of the width and height."""
    h, w = rgb.shape[:2]
    x0, y0, x1, y1 = box
    return np.ascontiguousarray(rgb[round(y0 * h):round(y1 * h), round(x0 * w):round(x1 * w)])


def jpeg(rgb: np.ndarray) -> bytes:
    """At most LONG_SIDE px on the long side, quality 82 (lower only to meet the budget)."""
    h, w = rgb.shape[:2]
    s = LONG_SIDE / max(h, w)
    if s < 1:
        rgb = cv2.resize(rgb, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    for quality in range(JPEG_QUALITY, 59, -4):
        buf = io.BytesIO()
        Image.fromarray(np.ascontiguousarray(rgb)).save(buf, "JPEG", quality=quality,
                                                          optimize=True, progressive=True)
        if buf.tell() <= JPEG_BUDGET:
            break
    return buf.getvalue()
