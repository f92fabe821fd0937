"""Synthetic product shots drawn with OpenCV on a white sweep: the fashion fixtures hold no
earrings or bags. Sizes are known exactly, which is what the placement tests measure against."""

from __future__ import annotations

import cv2
import numpy as np


def kite(cx: int, top: int, bottom: int, half_width: int, rise: int) -> np.ndarray:
    """An earring's drop: a kite from ``top`` to ``bottom`` on the column ``cx``, widest
    (``half_width`` each side) ``rise`` px above its bottom point."""
    return np.array([[cx, top], [cx + half_width, bottom - rise], [cx, bottom],
                     [cx - half_width, bottom - rise]], np.int32)


def earring_shot(width: int = 300, height: int = 600) -> np.ndarray:
    """A gold hook, a short chain and a pearl-and-gold drop, drawn top to bottom of a white
    canvas with a 40 px margin (RGB)."""
    img = np.full((height, width, 3), 250, np.uint8)
    cx = width // 2
    top, bottom = 40, height - 40
    gold, dark_gold = (212, 175, 55), (150, 115, 30)
    span = bottom - top
    cv2.ellipse(img, (cx + 18, top + 30), (18, 30), 0, 180, 360, dark_gold, 5, cv2.LINE_AA)
    cv2.line(img, (cx, top + 30), (cx, top + int(0.35 * span)), dark_gold, 4, cv2.LINE_AA)
    r_pearl = int(0.09 * span)
    cy_pearl = top + int(0.35 * span) + r_pearl
    cv2.circle(img, (cx, cy_pearl), r_pearl, (235, 228, 215), -1, cv2.LINE_AA)
    cv2.circle(
        img,
        (cx - r_pearl // 3, cy_pearl - r_pearl // 3),
        r_pearl // 3,
        (255, 255, 252),
        -1,
        cv2.LINE_AA,
    )
    cv2.circle(img, (cx, cy_pearl), r_pearl, (190, 180, 165), 2, cv2.LINE_AA)
    drop_top = cy_pearl + r_pearl
    pts = kite(cx, drop_top, bottom, int(0.18 * span), int(0.25 * span))
    cv2.fillPoly(img, [pts], gold, cv2.LINE_AA)
    cv2.polylines(img, [pts], True, dark_gold, 3, cv2.LINE_AA)
    inner = ((pts - [cx, (drop_top + bottom) // 2]) * 0.5 + [cx, (drop_top + bottom) // 2]).astype(
        np.int32
    )
    cv2.fillPoly(img, [inner], (120, 20, 40), cv2.LINE_AA)
    return img


def bag_shot(
    width: int = 700,
    height: int = 700,
    *,
    body_w: int = 420,
    body_h: int = 300,
    handle_h: int = 160,
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A tan leather tote with a top handle on a white sweep (RGB), and the body's box
    (x0, y0, x1, y1). The handle rises handle_h above the body."""
    img = np.full((height, width, 3), 248, np.uint8)
    x0 = (width - body_w) // 2
    y1 = height - 60
    y0 = y1 - body_h
    leather, seam, shadow = (165, 105, 60), (110, 65, 35), (130, 80, 45)
    # The handle: a thick arc rising from the top edge.
    cv2.ellipse(img, (width // 2, y0), (body_w // 4, handle_h), 0, 180, 360, seam, 16, cv2.LINE_AA)
    cv2.ellipse(
        img, (width // 2, y0), (body_w // 4, handle_h), 0, 180, 360, leather, 10, cv2.LINE_AA
    )
    body = np.array([[x0 + 20, y0], [x0 + body_w - 20, y0], [x0 + body_w, y1], [x0, y1]], np.int32)
    cv2.fillPoly(img, [body], leather, cv2.LINE_AA)
    cv2.polylines(img, [body], True, seam, 3, cv2.LINE_AA)
    cv2.line(img, (x0 + 30, y0 + 40), (x0 + body_w - 30, y0 + 40), seam, 2, cv2.LINE_AA)
    cv2.rectangle(
        img,
        (width // 2 - 20, y0 + 30),
        (width // 2 + 20, y0 + 55),
        (200, 180, 120),
        -1,
        cv2.LINE_AA,
    )
    # A little shading so the bag is not a flat sticker.
    grad = np.linspace(0.0, 0.25, body_h)[:, None, None]
    region = img[y0:y1, x0 : x0 + body_w].astype(np.float32)
    mask = np.all(img[y0:y1, x0 : x0 + body_w] == leather, axis=2)[..., None]
    img[y0:y1, x0 : x0 + body_w] = np.where(mask, region * (1 - grad), region).astype(np.uint8)
    del shadow
    return img, (x0, y0 - handle_h - 8, x0 + body_w, y1)
