"""Garment Integration: the try-on core on an editorial image, then the garment lit like the
scene (a soft ramp along its light direction, a small gain toward its key) without its own
colour or levels moving, PNG."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineOutput, Progress
from workers.engines.imaging.color import linear_to_srgb, srgb_to_linear
from workers.engines.imaging.decode import encode_png
from workers.engines.tryon.core import deliver, try_on


def light_direction(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """Unit vector toward which the scene gets brighter, and how strongly (0..1)."""
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    small = cv2.resize(gray, (32, 32), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 3)
    gx = float(cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3).mean())
    gy = float(cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3).mean())
    mag = float(np.hypot(gx, gy))
    if mag < 1e-6:
        return np.array([0.0, 0.0]), 0.0
    return np.array([gx, gy]) / mag, float(np.clip(mag * 4.0, 0.0, 1.0))


def match_to_scene(out: np.ndarray, scene: np.ndarray, alpha: np.ndarray, strength: float = 1.0) -> np.ndarray:
    """Light the garment like the scene without changing its colour: a gentle ramp along the
    scene's light direction, a small overall gain toward the scene's key, and a trace of its
    colour cast, all as gains on linear light (a navy stays navy, a black stays black).

    Moving the garment's own lightness toward the scene's (what statistics transfer does)
    washes a dark garment out on a bright editorial, so the garment's levels are never pulled.
    """
    sel = alpha > 0.5
    if sel.sum() < 50:
        return out
    lin = srgb_to_linear(out.astype(np.float32) / 255.0)
    scene_lin = srgb_to_linear(scene.astype(np.float32) / 255.0)
    rest = ~sel
    # The key: the scene's mean luminance against a studio's mid grey, a tenth of the way in
    # log terms and at most 12%: a bright editorial lifts the garment, never to a wash.
    y = scene_lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    key = float(np.clip((float(y[rest].mean()) / 0.18) ** 0.1, 0.9, 1.12))
    gain = np.full(alpha.shape, key, np.float32)
    direction, power = light_direction(scene)
    if power > 0:
        ys, xs = np.nonzero(sel)
        cx, cy = xs.mean(), ys.mean()
        r = max(np.ptp(xs), np.ptp(ys), 1) / 2
        yy, xx = np.mgrid[0:out.shape[0], 0:out.shape[1]].astype(np.float32)
        ramp = np.clip(((xx - cx) * direction[0] + (yy - cy) * direction[1]) / r, -1, 1)
        gain = gain * (1.0 + 0.15 * strength * power * ramp)
    # The cast: the scene's average colour over its own grey, a tenth of it.
    mean = scene_lin[rest].mean(axis=0)
    cast = np.clip((mean / max(float(mean.mean()), 1e-4)) ** (0.1 * strength), 0.97, 1.03)
    adj = np.clip(lin * gain[..., None] * cast[None, None, :], 0.0, 1.0)
    adj8 = linear_to_srgb(adj) * 255.0
    a = alpha[..., None]
    return np.clip(adj8 * a + out.astype(np.float32) * (1 - a) + 0.5, 0, 255).astype(np.uint8)


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), outfit (bytes, editorial image)."""
    out, body, _, info = try_on(params, progress, "outfit", "editorial")
    out = match_to_scene(out, body.rgb, info["alpha"])
    data = encode_png(deliver(out, body, info))
    progress(100)
    return [EngineOutput(data, "image/png", "garment-integration.png")]
