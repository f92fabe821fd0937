"""Earfit: an earring photographed on a plain background, hung at true size on a model's ears.

Scale comes from the model's own iris (about 11.7 mm across), so a 1.5 in drop is 1.5 in on
every model whatever the framing. The earring's top (its hook or stud) goes at the estimated
lobe piercing of each visible ear; the other side gets the mirror image, as a pair is made.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import (
    Cutout,
    composite,
    cut_out_product,
    darken,
    jpeg_bytes,
    load_image,
    soft_shadow,
)
from workers.engines.imaging.face import Earlobe, Face, detect_face, earlobes, skin_probability

MIN_HEIGHT_IN = 0.5
MAX_HEIGHT_IN = 10.0
# Beyond this the product shot is only downscaled for the cut-out; earrings are small on the
# model anyway, and GrabCut at 24 MP would dominate the run time.
PRODUCT_MAX_PIXELS = 4_000_000


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    height_in = float(params.get("ring_height_in") or 0)
    if not MIN_HEIGHT_IN <= height_in <= MAX_HEIGHT_IN:
        raise EngineError("bad_height", "The ring height must be between 0.5 and 10 inches.")
    model_name = str(params.get("model_name") or "the model")
    progress(5)
    model_rgb, _ = load_image(params["model_image"])
    ring_rgb, ring_alpha = load_image(params["ring_image"])
    ring_rgb, ring_alpha = _limit(ring_rgb, ring_alpha, PRODUCT_MAX_PIXELS)
    progress(15)
    face = detect_face(model_rgb)
    lobes = [lobe for lobe in earlobes(model_rgb, face) if lobe.visible] if face else []
    if face is None or not lobes:
        raise EngineError("no_ear", f"No visible ear was found on {model_name}.")
    progress(35)
    earring = cut_out_product(ring_rgb, ring_alpha, what="earring")
    progress(60)
    out = place_earrings(model_rgb, face, lobes, earring, height_in)
    progress(95)
    slug = "".join(c if c.isalnum() else "-" for c in model_name.lower()).strip("-") or "model"
    return [EngineOutput(jpeg_bytes(out, quality=95), "image/jpeg", f"earfit-{slug}.jpg")]


def place_earrings(
    rgb: np.ndarray, face: Face, lobes: list[Earlobe], earring: Cutout, height_in: float
) -> np.ndarray:
    target_h = max(4, round(height_in * face.ppi))
    scale = target_h / earring.height
    target_w = max(2, round(earring.width * scale))
    fg, alpha = _resize_premultiplied(earring.rgb, earring.alpha, target_w, target_h)
    anchor_x = _hook_x(alpha)
    out = rgb
    for lobe in lobes:
        # The product shot shows the earring as worn on the subject's left ear seen from the
        # front, or symmetrical; the right ear wears the mirror image.
        f, a, ax = fg, alpha, anchor_x
        if lobe.side == "right":
            f, a, ax = fg[:, ::-1], alpha[:, ::-1], (target_w - 1) - anchor_x
        x = round(lobe.point[0] - ax)
        y = round(lobe.point[1])
        out = _contact_shadow(out, face, a, x, y, lobe.outward)
        out = composite(out, np.ascontiguousarray(f), np.ascontiguousarray(a), x, y)
    return out


def _hook_x(alpha: np.ndarray) -> float:
    """Horizontal position of the earring's top (its hook or stud), alpha-weighted."""
    rows = max(1, round(0.06 * alpha.shape[0]))
    top = alpha[:rows]
    if top.sum() < 1e-3:
        return (alpha.shape[1] - 1) / 2
    xs = np.arange(alpha.shape[1], dtype=np.float32)
    return float((top.sum(axis=0) * xs).sum() / top.sum())


def _contact_shadow(
    rgb: np.ndarray, face: Face, alpha: np.ndarray, x: int, y: int, outward: float
) -> np.ndarray:
    # Key light from the front-top: the drop's shadow falls slightly down and towards the neck,
    # and only skin catches it (a far backdrop would not show one).
    h = alpha.shape[0]
    blur = max(1.0, 0.05 * h)
    pad = int(3 * blur) + 1
    shade = soft_shadow(alpha, blur, pad)
    sx = round(x - pad - outward * 0.04 * h)
    sy = round(y - pad + 0.05 * h)
    H, W = rgb.shape[:2]
    x0, y0 = max(0, sx), max(0, sy)
    x1, y1 = min(W, sx + shade.shape[1]), min(H, sy + shade.shape[0])
    if x1 <= x0 or y1 <= y0:
        return rgb
    skin = skin_probability(rgb, face, (x0, y0, x1, y1))
    shade = shade.copy()
    shade[y0 - sy : y1 - sy, x0 - sx : x1 - sx] *= np.clip(skin * 1.5, 0, 1)
    shade[: y0 - sy] = 0
    shade[y1 - sy :] = 0
    shade[:, : x0 - sx] = 0
    shade[:, x1 - sx :] = 0
    return darken(rgb, shade, sx, sy, 0.35)


def _resize_premultiplied(
    rgb: np.ndarray, alpha: np.ndarray, w: int, h: int
) -> tuple[np.ndarray, np.ndarray]:
    # Resizing premultiplied colour keeps the (decontaminated) rim from bleeding dark or light.
    interp = cv2.INTER_AREA if w < rgb.shape[1] else cv2.INTER_CUBIC
    pm = rgb.astype(np.float32) * alpha[..., None]
    pm = cv2.resize(pm, (w, h), interpolation=interp)
    a = np.clip(cv2.resize(alpha, (w, h), interpolation=interp), 0, 1)
    colour = np.where(a[..., None] > 1e-3, pm / np.maximum(a[..., None], 1e-3), 0)
    return np.clip(colour, 0, 255).astype(np.uint8), a.astype(np.float32)


def _limit(
    rgb: np.ndarray, alpha: np.ndarray | None, max_pixels: int
) -> tuple[np.ndarray, np.ndarray | None]:
    h, w = rgb.shape[:2]
    if h * w <= max_pixels:
        return rgb, alpha
    s = (max_pixels / (h * w)) ** 0.5
    size = (max(1, round(w * s)), max(1, round(h * s)))
    rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    if alpha is not None:
        alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    return rgb, alpha
