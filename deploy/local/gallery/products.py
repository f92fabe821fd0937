"""Garment product shots drawn from the parametric flat templates (workers/engines/flatdraw.py):
flat-lays on a light sweep, with folds, the cloth's relief and stitching."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from workers.engines import flatdraw

from .common import RGB

BG = 246  # the light sweep of our product shots


# The two colours of our navy-and-cream product shots.
NAVY: RGB = (30, 45, 80)
CREAM: RGB = (236, 232, 222)


def smooth_noise(shape: tuple[int, int], sigma: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), sigma)
    return n / (np.abs(n).max() + 1e-6)


def _weave(shape: tuple[int, int], texture: str, seed: int) -> np.ndarray:
    """A small lightness relief (about ±1): the cloth's structure."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    fine = smooth_noise(shape, 0.7, seed + 1)
    if texture == "knit":  # vertical rows of loops
        rel = 0.6 * np.sin(xx * 2 * np.pi / 5.0) * (0.6 + 0.4 * np.sin(yy * 2 * np.pi / 4.0))
    elif texture == "twill":  # diagonal wales
        rel = 0.8 * np.sin((xx + yy) * 2 * np.pi / 6.0)
    elif texture == "pique":
        rel = 0.5 * np.sin(xx * 2 * np.pi / 4.0) * np.sin(yy * 2 * np.pi / 4.0)
    else:  # plain weave
        rel = 0.3 * np.sin(xx * 2 * np.pi / 3.0) + 0.3 * np.sin(yy * 2 * np.pi / 3.0)
    return (0.6 * rel + 0.8 * fine).astype(np.float32)


def render_shot(
    fill: np.ndarray,
    lines: np.ndarray,
    colour: RGB,
    *,
    texture: str = "plain",
    shadow: float = 0.05,
    seed: int = 3,
    trims: list[tuple[np.ndarray, RGB]] | None = None,
    sweep: int = BG,
) -> np.ndarray:
    """A garment silhouette (bool HxW) with its line art (uint8 HxW, 255 = ink) rendered as a
    flat-lay product shot on a light sweep: folds as low-frequency shading, the cloth's relief,
    seams and stitching pressed in, a faint drop shadow."""
    m = fill.astype(np.float32)
    h, w = m.shape
    folds = smooth_noise((h, w), 28, seed)
    yy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    shade = 1 + 0.12 * folds - 0.05 * yy
    shade *= 0.86 + 0.14 * cv2.GaussianBlur(m, (0, 0), 7)  # edges fall off a little
    shade *= 1 + 0.035 * _weave((h, w), texture, seed)
    col = np.empty((h, w, 3), np.float32)
    col[:] = np.array(colour, np.float32)
    for trim_mask, trim_colour in trims or []:
        col[trim_mask] = np.array(trim_colour, np.float32)
    col *= shade[..., None]
    ink = cv2.GaussianBlur(lines.astype(np.float32) / 255.0, (0, 0), 0.8)
    col *= (1 - 0.38 * ink)[..., None]
    bg = np.full((h, w, 3), sweep, np.float32)
    # The shadow stays faint: a dark halo would be taken for part of the garment by a cut-out.
    sh = cv2.GaussianBlur(np.roll(m, (10, 6), (0, 1)), (0, 0), 14)
    bg *= (1 - shadow * sh)[..., None]
    if sweep < 255:  # a grey sweep darkens a little toward the front
        bg *= (1 - 0.03 * np.linspace(0, 1, h, dtype=np.float32))[:, None, None]
    am = cv2.GaussianBlur(m, (0, 0), 0.7)[..., None]
    return np.clip(bg * (1 - am) + col * am + 0.5, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class Frame:
    """The centimetre-to-pixel map flat_from_template uses, to draw extras onto its flats."""

    s: float
    ox: float
    oy: float

    @classmethod
    def of(cls, kind: str, view: str, size: tuple[int, int], margin: float) -> Frame:
        outline = flatdraw.template_outline(kind, view)
        W, H = size
        x0, y0 = outline.min(0)
        x1, y1 = outline.max(0)
        s = min(W * (1 - 2 * margin) / (x1 - x0), H * (1 - 2 * margin) / (y1 - y0))
        return cls(s, W / 2 - s * (x0 + x1) / 2, H / 2 - s * (y0 + y1) / 2)

    def pts(self, cm: Sequence[tuple[float, float]]) -> np.ndarray:
        return np.round([(self.ox + self.s * x, self.oy + self.s * y) for x, y in cm]).astype(
            np.int32
        )

    def px(self, cm: float) -> int:
        return max(1, round(self.s * cm))


def garment_shot(
    kind: str,
    colour: RGB,
    *,
    view: str = "front",
    size: tuple[int, int] = (600, 750),
    texture: str = "plain",
    seed: int = 3,
    shadow: float = 0.05,
    sweep: int = BG,
) -> np.ndarray:
    margin = 0.08
    flat = flatdraw.flat_from_template(kind, view=view, size=size, margin=margin)
    lines = (255 - flat.rgb.min(axis=2)).astype(np.uint8)
    return render_shot(flat.fill, lines, colour, texture=texture, seed=seed, shadow=shadow,
                       sweep=sweep)


def polo_shot(colour: RGB, *, tipping: RGB = (236, 232, 222), seed: int = 5,
              size: tuple[int, int] = (600, 700)) -> np.ndarray:
    """A short-sleeved piqué polo: the tee template with a knit collar, a three-button placket
    and tipped collar and cuffs."""
    margin = 0.08
    flat = flatdraw.flat_from_template("top", size=size, margin=margin)
    f = Frame.of("top", "front", size, margin)
    fill = flat.fill.copy().astype(np.uint8)
    lines = (255 - flat.rgb.min(axis=2)).astype(np.uint8)
    lines[flat.fill] = 0  # the tee's crew neckband gives way to the collar
    outline = np.zeros_like(lines)
    cv2.polylines(outline, [f.pts(flatdraw.template_outline("top"))], True, 255, 3, cv2.LINE_AA)
    lines = np.maximum(lines, outline)
    # Hem and cuff stitching back (they were inside the fill).
    for seg in ([(-25.4, 67.5), (25.4, 67.5)], [(39.6, 17.3), (31.4, 26.8)],
                [(-39.6, 17.3), (-31.4, 26.8)]):
        cv2.polylines(lines, [f.pts(seg)], False, 200, 2, cv2.LINE_AA)
    trims = np.zeros_like(lines)
    inside = np.zeros_like(lines)
    # The inside of the back neck shows above the collar's fold lines.
    stand = f.pts([(-8.8, -0.3), (-4.5, 1.4), (0, 1.9), (4.5, 1.4), (8.8, -0.3), (4.6, 3.6),
                   (0.4, 6.6), (0, 9.6), (-0.4, 6.6), (-4.6, 3.6)])
    cv2.fillPoly(fill, [stand], 1, cv2.LINE_AA)
    cv2.fillPoly(inside, [stand], 255, cv2.LINE_AA)
    cv2.polylines(lines, [stand], True, 255, 2, cv2.LINE_AA)
    # Placket and buttons.
    placket = f.pts([(-2.2, 7), (2.2, 7), (2.2, 21), (-2.2, 21)])
    cv2.polylines(lines, [placket], True, 220, 2, cv2.LINE_AA)
    for y in (10.5, 14.5, 18.5):
        c = tuple(f.pts([(0, y)])[0])
        cv2.circle(lines, c, f.px(0.75), 255, 2, cv2.LINE_AA)
    # Collar leaves: the fold line from the shoulder seam to the centre front, the point
    # falling out and down.
    for s in (1, -1):
        leaf = f.pts([(s * 8.8, -0.3), (s * 4.6, 3.6), (s * 0.4, 6.6), (s * 0.4, 8.6),
                      (s * 9.2, 12.2), (s * 11.0, 4.4)])
        cv2.fillPoly(fill, [leaf], 1, cv2.LINE_AA)
        tip = np.zeros_like(lines)
        cv2.fillPoly(tip, [leaf], 255, cv2.LINE_AA)
        lines[tip > 0] = 0
        inside[tip > 0] = 0
        cv2.polylines(lines, [leaf], True, 255, 2, cv2.LINE_AA)
        edge = f.pts([(s * 10.0, 4.7), (s * 8.6, 11.0), (s * 1.3, 8.1)])
        cv2.polylines(trims, [edge], False, 255, f.px(0.5), cv2.LINE_AA)
        cuff = f.pts([(s * 39.25, 14.3), (s * 31.55, 27.6)])
        cv2.polylines(trims, [cuff], False, 255, f.px(0.6), cv2.LINE_AA)
    trims[fill == 0] = 0
    shade = tuple(int(0.55 * c) for c in colour)
    return render_shot(fill > 0, lines, colour, texture="pique", seed=seed,
                       trims=[(inside > 127, shade), (trims > 127, tipping)])
