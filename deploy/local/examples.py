"""Render the Examples galleries of the tool pages with our own engines.

    .venv/bin/python deploy/local/examples.py            (or: make examples)
    .venv/bin/python deploy/local/examples.py recolor    (only the named tool pages)

Writes platform/tools/static/tools/examples/<slug>/<n>.jpg (Spinview: .mp4), manifest.json and
NOTICE.md. Every input is one we may redistribute:

* our own drawings: garments from the parametric flat templates (workers/engines/flatdraw.py)
  rendered as flat-lay product shots; earrings, bags, hats, a scarf, a necklace and shoes drawn
  with OpenCV; turntable views of a bag, a hat and a dress on a form rendered by a small mesh
  renderer below;
* two public-domain photographs that ship inside packages of our requirements, found through
  those packages: scikit-image's astronaut (NASA portrait of Eileen Collins) and matplotlib's
  grace_hopper.jpg (US Navy portrait of Grace Hopper).

The licensed fashion fixtures under tests/fixtures are never read here (tests/tools/
test_examples.py checks that no example is one of them). Output is deterministic: the same
packages give the same bytes.
"""

from __future__ import annotations

import io
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

# mediapipe's native logging: warnings only, not the per-graph chatter.
os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "platform"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from tests.engines.synthetic_products import earring_shot as earring_drop  # noqa: E402
from tools.portraits import astronaut  # noqa: E402
from tools.portraits import grace_hopper as hopper  # noqa: E402
from workers.engines import flatdraw  # noqa: E402
from workers.engines.base import EngineOutput  # noqa: E402

OUT = ROOT / "platform" / "tools" / "static" / "tools" / "examples"
LONG_SIDE = 960
JPEG_QUALITY = 82
JPEG_BUDGET = 120_000  # bytes; quality steps down until an example fits
GAP = 8  # px of white between the before and after panels
VIDEO_SIZE = 480
VIDEO_SECONDS = 3

RGB = tuple[int, int, int]
Image.MAX_IMAGE_PIXELS = None  # our own renders only


def noop_progress(*_args: object, **_kwargs: object) -> None:
    return None


def run_engine(engine: Callable[..., list[EngineOutput]], params: dict[str, Any]
               ) -> list[EngineOutput]:
    """One engine call from a fixed OpenCV RNG state (GrabCut and k-means draw from it), so an
    example comes out the same whichever examples were made before it in the process."""
    cv2.setRNGSeed(7)
    return engine(params, noop_progress)


# --- the two public-domain photographs ------------------------------------------------------


def upscale(rgb: np.ndarray, factor: float) -> np.ndarray:
    h, w = rgb.shape[:2]
    return cv2.resize(rgb, (round(w * factor), round(h * factor)), interpolation=cv2.INTER_LANCZOS4)


# --- bytes in and out -------------------------------------------------------------------------


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


# --- product shots drawn from the flat templates ---------------------------------------------

BG = 246  # the light sweep of our product shots


def _smooth_noise(shape: tuple[int, int], sigma: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), sigma)
    return n / (np.abs(n).max() + 1e-6)


def _weave(shape: tuple[int, int], texture: str, seed: int) -> np.ndarray:
    """A small lightness relief (about ±1): the cloth's structure."""
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    fine = _smooth_noise(shape, 0.7, seed + 1)
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
    folds = _smooth_noise((h, w), 28, seed)
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


# --- accessories drawn with OpenCV -----------------------------------------------------------


def _shade_rows(img: np.ndarray, mask: np.ndarray, top: float, bottom: float) -> np.ndarray:
    g = np.linspace(top, bottom, img.shape[0], dtype=np.float32)[:, None, None]
    out = img.astype(np.float32)
    return np.where(mask[..., None], out * g, out).clip(0, 255).astype(np.uint8)


def earring_hoop(width: int = 400, height: int = 480) -> np.ndarray:
    """A polished gold hoop with a small stud at the top."""
    img = np.full((height, width, 3), 250, np.uint8)
    cx, r = width // 2, int(0.42 * min(width, height - 40))
    cy = 30 + r + 10
    cv2.circle(img, (cx, cy), r, (140, 105, 25), 30, cv2.LINE_AA)
    cv2.circle(img, (cx, cy), r, (214, 178, 62), 24, cv2.LINE_AA)
    cv2.ellipse(img, (cx, cy), (r - 4, r - 4), 0, 200, 290, (250, 232, 160), 6, cv2.LINE_AA)
    cv2.circle(img, (cx, cy - r - 8), 14, (140, 105, 25), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy - r - 8), 10, (225, 195, 90), -1, cv2.LINE_AA)
    return img


def earring_tassel(width: int = 260, height: int = 640) -> np.ndarray:
    """A stud, a small gold cap and a silk tassel in teal."""
    img = np.full((height, width, 3), 250, np.uint8)
    cx = width // 2
    cv2.circle(img, (cx, 52), 22, (120, 90, 20), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, 52), 18, (222, 188, 80), -1, cv2.LINE_AA)
    cv2.line(img, (cx, 74), (cx, 150), (140, 105, 25), 4, cv2.LINE_AA)
    cap = np.array([[cx - 22, 150], [cx + 22, 150], [cx + 30, 200], [cx - 30, 200]], np.int32)
    cv2.fillPoly(img, [cap], (214, 178, 62), cv2.LINE_AA)
    cv2.polylines(img, [cap], True, (140, 105, 25), 2, cv2.LINE_AA)
    rng = np.random.default_rng(4)
    for _ in range(70):
        x0 = cx + rng.uniform(-26, 26)
        x1 = cx + (x0 - cx) * 2.6 + rng.uniform(-6, 6)
        y1 = height - 40 - rng.uniform(0, 18)
        shade = rng.uniform(0.7, 1.05)
        colour = tuple(int(min(255, c * shade)) for c in (20, 120, 120))
        cv2.line(img, (int(x0), 200), (int(x1), int(y1)), colour, 3, cv2.LINE_AA)
    return img


def tote_shot(width: int = 700, height: int = 700, *, leather: RGB = (165, 105, 60),
              seam: RGB = (110, 65, 35)) -> np.ndarray:
    """A leather tote with a top handle on a white sweep."""
    img = np.full((height, width, 3), 248, np.uint8)
    body_w, body_h, handle_h = 420, 300, 160
    x0 = (width - body_w) // 2
    y1 = height - 60
    y0 = y1 - body_h
    cv2.ellipse(img, (width // 2, y0), (body_w // 4, handle_h), 0, 180, 360, seam, 16,
                cv2.LINE_AA)
    cv2.ellipse(img, (width // 2, y0), (body_w // 4, handle_h), 0, 180, 360, leather, 10,
                cv2.LINE_AA)
    body = np.array([[x0 + 20, y0], [x0 + body_w - 20, y0], [x0 + body_w, y1], [x0, y1]],
                    np.int32)
    mask = np.zeros((height, width), np.uint8)
    cv2.fillPoly(mask, [body], 1, cv2.LINE_AA)
    img[mask > 0] = leather
    img = _shade_rows(img, mask > 0, 1.08, 0.8)
    cv2.polylines(img, [body], True, seam, 3, cv2.LINE_AA)
    cv2.line(img, (x0 + 30, y0 + 40), (x0 + body_w - 30, y0 + 40), seam, 2, cv2.LINE_AA)
    cv2.rectangle(img, (width // 2 - 20, y0 + 30), (width // 2 + 20, y0 + 55), (200, 180, 120),
                  -1, cv2.LINE_AA)
    return img


def crossbody_shot(width: int = 600, height: int = 520, *,
                   colour: RGB = (40, 52, 84)) -> np.ndarray:
    """A small flap bag, front on (a strap is the engine's to draw)."""
    img = np.full((height, width, 3), 248, np.uint8)
    x0, x1, y0, y1 = 110, width - 110, 150, height - 70
    mask = np.zeros((height, width), np.uint8)
    cv2.rectangle(mask, (x0, y0), (x1, y1), 1, -1)
    img[mask > 0] = colour
    img = _shade_rows(img, mask > 0, 1.15, 0.8)
    flap = np.array([[x0, y0], [x1, y0], [x1, y0 + 150], [(x0 + x1) // 2, y0 + 205],
                     [x0, y0 + 150]], np.int32)
    darker = tuple(int(c * 0.85) for c in colour)
    cv2.fillPoly(img, [flap], darker, cv2.LINE_AA)
    cv2.polylines(img, [flap], True, tuple(int(c * 0.55) for c in colour), 3, cv2.LINE_AA)
    cv2.rectangle(img, (x0, y0), (x1, y1), tuple(int(c * 0.55) for c in colour), 3, cv2.LINE_AA)
    cx = (x0 + x1) // 2
    cv2.circle(img, (cx, y0 + 180), 16, (215, 185, 95), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, y0 + 180), 16, (140, 110, 40), 2, cv2.LINE_AA)
    for x in (x0 + 8, x1 - 8):  # strap rings
        cv2.circle(img, (x, y0 - 6), 13, (200, 170, 80), 5, cv2.LINE_AA)
    return img


def hat_shot(width: int = 760, height: int = 440, *, felt: RGB = (126, 92, 62),
             band: RGB = (40, 30, 26)) -> np.ndarray:
    """A wide-brimmed felt fedora, front on."""
    img = np.full((height, width, 3), 248, np.uint8)
    cx = width // 2
    mask = np.zeros((height, width), np.uint8)
    crown = np.array([[cx - 170, 300], [cx - 150, 110], [cx - 90, 70], [cx, 95], [cx + 90, 70],
                      [cx + 150, 110], [cx + 170, 300]], np.int32)
    cv2.fillPoly(mask, [crown], 1, cv2.LINE_AA)
    cv2.ellipse(mask, (cx, 315), (350, 62), 0, 0, 360, 1, -1, cv2.LINE_AA)
    img[mask > 0] = felt
    img = _shade_rows(img, mask > 0, 1.12, 0.82)
    cv2.ellipse(img, (cx, 315), (350, 62), 0, 0, 180, tuple(int(c * 0.7) for c in felt), -1,
                cv2.LINE_AA)  # under the brim
    cv2.ellipse(img, (cx, 315), (350, 62), 0, 0, 360, tuple(int(c * 0.6) for c in felt), 2,
                cv2.LINE_AA)
    band_poly = np.array([[cx - 168, 250], [cx + 168, 250], [cx + 170, 298], [cx - 170, 298]],
                         np.int32)
    cv2.fillPoly(img, [band_poly], band, cv2.LINE_AA)
    cv2.line(img, (cx, 100), (cx, 240), tuple(int(c * 0.72) for c in felt), 3, cv2.LINE_AA)
    return img


def scarf_shot(width: int = 300, height: int = 860) -> np.ndarray:
    """A long striped wool scarf with fringes, hung straight."""
    img = np.full((height, width, 3), 248, np.uint8)
    x0, x1, y0, y1 = 70, width - 70, 30, height - 70
    colours = [(160, 40, 45), (230, 222, 205), (30, 45, 80)]
    stripe = 46
    for i, y in enumerate(range(y0, y1, stripe)):
        cv2.rectangle(img, (x0, y), (x1, min(y1, y + stripe)), colours[i % 3], -1)
    mask = np.zeros((height, width), bool)
    mask[y0:y1, x0:x1] = True
    noise = _smooth_noise((height, width), 1.0, 9)
    img = np.where(mask[..., None], img * (1 + 0.06 * noise)[..., None], img)
    img = np.clip(img, 0, 255).astype(np.uint8)
    for x in range(x0 + 4, x1 - 2, 9):
        cv2.line(img, (x, y1), (x + 2, y1 + 52), (30, 45, 80), 3, cv2.LINE_AA)
    return img


def beanie_shot(width: int = 600, height: int = 520, *, wool: RGB = (176, 48, 52)) -> np.ndarray:
    """A ribbed knit beanie with a turned-up cuff, front on."""
    img = np.full((height, width, 3), 248, np.uint8)
    cx = width // 2
    mask = np.zeros((height, width), np.uint8)
    cv2.ellipse(mask, (cx, 330), (230, 270), 0, 180, 360, 1, -1, cv2.LINE_AA)
    cv2.rectangle(mask, (cx - 238, 330), (cx + 238, 460), 1, -1)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    ribs = 0.85 + 0.15 * np.sin((xx - cx) * 2 * np.pi / 16.0) ** 2
    shade = np.where(yy >= 330, 0.92 * ribs, 1.0 - 0.18 * ((xx - cx) / 240.0) ** 2)
    shade *= 1 + 0.05 * _smooth_noise((height, width), 1.0, 12)
    col = np.array(wool, np.float32)[None, None] * shade[..., None]
    img = np.where(mask[..., None] > 0, col, img).clip(0, 255).astype(np.uint8)
    cv2.line(img, (cx - 238, 332), (cx + 238, 332), tuple(int(c * 0.6) for c in wool), 3,
             cv2.LINE_AA)
    cv2.rectangle(img, (cx - 46, 370), (cx + 46, 420), (236, 232, 222), -1, cv2.LINE_AA)
    return img


def bucket_hat_shot(width: int = 640, height: int = 420, *, straw: RGB = (214, 190, 140),
                    band: RGB = (30, 40, 70)) -> np.ndarray:
    """A woven straw bucket hat with a navy band, front on."""
    img = np.full((height, width, 3), 248, np.uint8)
    cx = width // 2
    mask = np.zeros((height, width), np.uint8)
    crown = np.array([[cx - 190, 250], [cx - 170, 90], [cx - 120, 60], [cx + 120, 60],
                      [cx + 170, 90], [cx + 190, 250]], np.int32)
    cv2.fillPoly(mask, [crown], 1, cv2.LINE_AA)
    brim = np.array([[cx - 190, 240], [cx + 190, 240], [cx + 280, 350], [cx - 280, 350]], np.int32)
    cv2.fillPoly(mask, [brim], 1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    weave = 0.9 + 0.1 * np.sign(np.sin(xx * 2 * np.pi / 10) * np.sin(yy * 2 * np.pi / 10))
    weave *= 1 + 0.05 * _smooth_noise((height, width), 1.0, 14)
    col = np.array(straw, np.float32)[None, None] * weave[..., None]
    img = np.where(mask[..., None] > 0, col, img).clip(0, 255).astype(np.uint8)
    img = _shade_rows(img, mask > 0, 1.05, 0.85)
    cv2.fillPoly(img, [np.array([[cx - 186, 200], [cx + 186, 200], [cx + 190, 245],
                                 [cx - 190, 245]], np.int32)], band, cv2.LINE_AA)
    cv2.polylines(img, [brim], True, tuple(int(c * 0.6) for c in straw), 2, cv2.LINE_AA)
    return img


def pearls_shot(width: int = 700, height: int = 520) -> np.ndarray:
    """A single strand of pearls with a gold clasp, laid as worn."""
    img = np.full((height, width, 3), 250, np.uint8)
    cx = width // 2
    t = np.linspace(math.radians(25), math.radians(155), 44)
    for a in t:
        x, y = cx + 270 * math.cos(a), 40 + 330 * math.sin(a)
        cv2.circle(img, (int(x), int(y)), 11, (200, 192, 178), -1, cv2.LINE_AA)
        cv2.circle(img, (int(x), int(y)), 10, (238, 232, 220), -1, cv2.LINE_AA)
        cv2.circle(img, (int(x) - 3, int(y) - 3), 3, (255, 255, 255), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, 40 + 330 + 24), 16, (190, 160, 70), -1, cv2.LINE_AA)
    return img


def scarf_worn_shot(width: int = 520, height: int = 760, *, wool: RGB = (190, 150, 96),
                    stripe: RGB = (120, 40, 40)) -> np.ndarray:
    """A wool scarf as worn, front on: the two sides come round the neck, cross in a loose
    knot and hang as two fringed ends."""
    img = np.full((height, width, 3), 248, np.uint8)
    cx = width // 2
    parts = [
        np.array([[cx - 150, 60], [cx - 80, 60], [cx + 40, 300], [cx - 30, 330]], np.int32),
        np.array([[cx + 80, 60], [cx + 150, 60], [cx + 30, 330], [cx - 40, 300]], np.int32),
        np.array([[cx - 60, 300], [cx + 60, 300], [cx + 50, 370], [cx - 50, 370]], np.int32),
        np.array([[cx - 55, 360], [cx + 5, 360], [cx - 40, height - 70], [cx - 120,
                  height - 85]], np.int32),
        np.array([[cx - 5, 360], [cx + 55, 360], [cx + 130, height - 130], [cx + 50,
                  height - 115]], np.int32),
    ]
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    knit = 0.9 + 0.1 * np.sin((xx + 0.3 * yy) * 2 * np.pi / 9.0) ** 2
    knit *= 1 + 0.05 * _smooth_noise((height, width), 1.0, 13)
    edge = tuple(int(c * 0.68) for c in wool)
    for k, part in enumerate(parts):
        m = np.zeros((height, width), np.uint8)
        cv2.fillPoly(m, [part], 1, cv2.LINE_AA)
        shade = 0.86 if k == 2 else 1.0  # the knot sits a little in shadow
        col = np.array(wool, np.float32)[None, None] * (knit * shade)[..., None]
        if k >= 3:
            bands = ((yy > height - 230) & (yy < height - 212)) | (
                (yy > height - 196) & (yy < height - 184))
            col[bands] = np.array(stripe, np.float32) * knit[bands][..., None]
        img = np.where(m[..., None] > 0, col, img).clip(0, 255).astype(np.uint8)
        cv2.polylines(img, [part], True, edge, 2, cv2.LINE_AA)
    for k, (x0, x1, y0, y1) in enumerate(((cx - 118, cx - 42, height - 85, height - 70),
                                          (cx + 52, cx + 128, height - 115, height - 130))):
        for x in range(x0 + 3, x1 - 1, 7):  # fringes
            y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            cv2.line(img, (x, int(y)), (x + (4 if k else -4), int(y) + 40), edge, 3, cv2.LINE_AA)
    return img


def necklace_shot(width: int = 700, height: int = 560) -> np.ndarray:
    """A fine gold chain with a teardrop emerald pendant, laid as worn."""
    img = np.full((height, width, 3), 250, np.uint8)
    cx = width // 2
    cv2.ellipse(img, (cx, 60), (280, 330), 0, 28, 152, (168, 132, 40), 5, cv2.LINE_AA)
    cv2.ellipse(img, (cx, 60), (280, 330), 0, 28, 152, (226, 192, 92), 2, cv2.LINE_AA)
    py = 60 + 330
    cv2.circle(img, (cx, py + 10), 10, (168, 132, 40), 4, cv2.LINE_AA)
    drop = np.array([[cx, py + 22], [cx + 42, py + 90], [cx, py + 140], [cx - 42, py + 90]],
                    np.int32)
    cv2.fillPoly(img, [drop], (20, 110, 70), cv2.LINE_AA)
    cv2.polylines(img, [drop], True, (190, 150, 50), 6, cv2.LINE_AA)
    cv2.line(img, (cx - 14, py + 70), (cx, py + 50), (150, 220, 180), 4, cv2.LINE_AA)
    return img


def shoe_views(colour: RGB = (235, 232, 226), accent: RGB = (30, 50, 95)) -> dict[str, np.ndarray]:
    """A pair of low-top sneakers: SIDE (one shoe in profile), FRONT (the pair from above) and
    BACK (the pair's heels)."""
    sole, ink = (250, 250, 248), (60, 60, 60)
    side = np.full((440, 760, 3), 248, np.uint8)
    upper = np.array([[72, 338], [70, 300], [88, 268], [140, 245], [250, 222], [350, 180],
                      [430, 128], [470, 112], [500, 128], [550, 146], [600, 138], [640, 112],
                      [672, 118], [690, 160], [700, 240], [706, 338]], np.int32)
    cv2.fillPoly(side, [upper], colour, cv2.LINE_AA)
    cv2.polylines(side, [upper], True, ink, 3, cv2.LINE_AA)
    toe_cap = np.array([[72, 338], [70, 300], [88, 268], [140, 250], [170, 300], [160, 338]],
                       np.int32)
    cv2.polylines(side, [toe_cap[2:5]], False, ink, 2, cv2.LINE_AA)
    swoosh = np.array([[220, 318], [420, 236], [640, 196], [450, 272], [250, 328]], np.int32)
    cv2.fillPoly(side, [swoosh], accent, cv2.LINE_AA)
    heel_tab = np.array([[640, 112], [672, 118], [690, 160], [700, 240], [706, 300], [668, 300],
                         [660, 190]], np.int32)
    cv2.fillPoly(side, [heel_tab], accent, cv2.LINE_AA)
    cv2.polylines(side, [heel_tab], True, ink, 2, cv2.LINE_AA)
    for i in range(5):
        x, y = 300 + 30 * i, 214 - 20 * i
        cv2.line(side, (x, y), (x + 30, y + 10), ink, 3, cv2.LINE_AA)
    sole_pts = np.array([[60, 336], [712, 336], [716, 372], [690, 382], [80, 382], [58, 366]],
                        np.int32)
    cv2.fillPoly(side, [sole_pts], sole, cv2.LINE_AA)
    cv2.polylines(side, [sole_pts], True, ink, 3, cv2.LINE_AA)
    cv2.line(side, (66, 364), (710, 364), (180, 180, 176), 2, cv2.LINE_AA)

    def one_from_above(w: int, h: int, mirrored: bool) -> np.ndarray:
        c = np.full((h, w, 3), 248, np.uint8)
        cx = w // 2
        cv2.ellipse(c, (cx, int(0.3 * h)), (int(0.36 * w), int(0.26 * h)), 0, 0, 360, sole, -1,
                    cv2.LINE_AA)
        cv2.ellipse(c, (cx, int(0.72 * h)), (int(0.32 * w), int(0.24 * h)), 0, 0, 360, sole, -1,
                    cv2.LINE_AA)
        cv2.rectangle(c, (cx - int(0.33 * w), int(0.3 * h)), (cx + int(0.3 * w), int(0.72 * h)),
                      sole, -1)
        inner = np.zeros((h, w), np.uint8)
        cv2.ellipse(inner, (cx, int(0.3 * h)), (int(0.3 * w), int(0.22 * h)), 0, 0, 360, 1, -1)
        cv2.ellipse(inner, (cx, int(0.72 * h)), (int(0.26 * w), int(0.2 * h)), 0, 0, 360, 1, -1)
        cv2.rectangle(inner, (cx - int(0.27 * w), int(0.3 * h)), (cx + int(0.25 * w),
                      int(0.72 * h)), 1, -1)
        c[inner > 0] = colour
        cv2.ellipse(c, (cx, int(0.74 * h)), (int(0.15 * w), int(0.13 * h)), 0, 0, 360,
                    (70, 70, 75), -1, cv2.LINE_AA)  # the opening
        for i in range(5):
            y = int((0.28 + 0.06 * i) * h)
            cv2.line(c, (cx - int(0.12 * w), y), (cx + int(0.12 * w), y), ink, 3, cv2.LINE_AA)
        outline = np.zeros((h, w), np.uint8)
        outline[(c != 248).any(axis=2)] = 255
        cnts, _ = cv2.findContours(outline, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        cv2.drawContours(c, cnts, -1, ink, 2, cv2.LINE_AA)
        return c[:, ::-1] if mirrored else c

    def pair(make: Callable[[bool], np.ndarray]) -> np.ndarray:
        a, b = make(False), make(True)
        h = a.shape[0]
        gap = np.full((h, 40, 3), 248, np.uint8)
        pad = np.full((h, 60, 3), 248, np.uint8)
        return np.concatenate([pad, a, gap, b, pad], axis=1)

    def one_heel(mirrored: bool) -> np.ndarray:
        w, h = 240, 330
        c = np.full((h, w, 3), 248, np.uint8)
        cx = w // 2
        body = np.array([[cx - 80, 270], [cx - 90, 150], [cx - 60, 60], [cx + 60, 60],
                         [cx + 90, 150], [cx + 80, 270]], np.int32)
        cv2.fillPoly(c, [body], colour, cv2.LINE_AA)
        cv2.polylines(c, [body], True, ink, 3, cv2.LINE_AA)
        cv2.rectangle(c, (cx - 22, 60), (cx + 22, 200), accent, -1, cv2.LINE_AA)
        cv2.ellipse(c, (cx, 62), (60, 18), 0, 0, 360, (70, 70, 75), -1, cv2.LINE_AA)
        cv2.rectangle(c, (cx - 88, 262), (cx + 88, 300), sole, -1, cv2.LINE_AA)
        cv2.rectangle(c, (cx - 88, 262), (cx + 88, 300), ink, 3, cv2.LINE_AA)
        return c[:, ::-1] if mirrored else c

    front = pair(lambda m: one_from_above(240, 440, m))
    back = pair(one_heel)
    return {"SIDE": side, "FRONT": front, "BACK": back}


# --- turntable views: a small mesh renderer ---------------------------------------------------
#
# Spinview takes photos of a product from several angles. Ours are renders of simple meshes
# (flat-shaded polygons, painter's order, 2x supersampled) turned about the vertical axis.


@dataclass(frozen=True)
class Poly:
    pts: np.ndarray  # Nx3, counter-clockwise seen from outside
    colour: RGB
    two_sided: bool = False


def _lathe(profile: Sequence[tuple[float, float]], segments: int,
           colour: Callable[[float, float], RGB], *, squash: float = 1.0,
           radius: Callable[[float, float, float], float] | None = None) -> list[Poly]:
    """A surface of revolution: profile (r, y) pairs from top to bottom, y up."""
    polys = []
    th = np.linspace(0, 2 * np.pi, segments + 1)
    for (r0, y0), (r1, y1) in zip(profile, profile[1:], strict=False):
        for a0, a1 in zip(th, th[1:], strict=False):
            def p(r: float, y: float, a: float) -> tuple[float, float, float]:
                rr = radius(r, y, a) if radius else r
                return (rr * math.sin(a), y, rr * math.cos(a) * squash)

            quad = np.array([p(r0, y0, a0), p(r0, y0, a1), p(r1, y1, a1), p(r1, y1, a0)])
            polys.append(Poly(quad[::-1], colour(0.5 * (a0 + a1), 0.5 * (y0 + y1)),
                              two_sided=True))
    return polys


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float, colour: RGB,
         top_inset: float = 0.0) -> list[Poly]:
    """A box (or, with top_inset, a frustum narrowing upward)."""
    b = [(x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1)]
    ti = top_inset
    t = [(x0 + ti, y1, z0 + ti / 3), (x1 - ti, y1, z0 + ti / 3), (x1 - ti, y1, z1 - ti / 3),
         (x0 + ti, y1, z1 - ti / 3)]
    faces = [
        [b[0], b[1], b[2], b[3]], [t[3], t[2], t[1], t[0]],
        [b[3], b[2], t[2], t[3]], [b[1], b[0], t[0], t[1]],
        [b[2], b[1], t[1], t[2]], [b[0], b[3], t[3], t[0]],
    ]
    return [Poly(np.array(f, np.float64), colour) for f in faces]


def _tube(path: np.ndarray, radius: float, colour: RGB, sides: int = 10) -> list[Poly]:
    """A round tube along a 3-D polyline (handles, straps)."""
    polys = []
    rings = []
    for i, c in enumerate(path):
        d = path[min(i + 1, len(path) - 1)] - path[max(i - 1, 0)]
        d /= np.linalg.norm(d) + 1e-9
        a = np.cross(d, [0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.cross(d, [1.0, 0, 0])
        a /= np.linalg.norm(a)
        b = np.cross(d, a)
        rings.append([c + radius * (math.cos(t) * a + math.sin(t) * b)
                      for t in np.linspace(0, 2 * np.pi, sides + 1)])
    for r0, r1 in zip(rings, rings[1:], strict=False):
        for k in range(sides):
            polys.append(Poly(np.array([r0[k], r0[k + 1], r1[k + 1], r1[k]]), colour,
                              two_sided=True))
    return polys


def render_view(polys: list[Poly], yaw_deg: float, *, size: int = 960, pitch_deg: float = 14,
                scale: float = 1.0, centre_y: float = 0.0,
                light: Sequence[float] = (-0.5, 0.7, 0.8),
                floor_shadow: bool = True) -> np.ndarray:
    """The meshes turned by yaw about the vertical axis, seen slightly from above, on white."""
    ss = 2
    S = size * ss
    yaw, pitch = math.radians(yaw_deg), math.radians(pitch_deg)
    ry = np.array([[math.cos(yaw), 0, math.sin(yaw)], [0, 1, 0],
                   [-math.sin(yaw), 0, math.cos(yaw)]])
    rx = np.array([[1, 0, 0], [0, math.cos(pitch), -math.sin(pitch)],
                   [0, math.sin(pitch), math.cos(pitch)]])
    rot = rx @ ry
    L = np.array(light, np.float64)
    L /= np.linalg.norm(L)
    dist = 4.0

    def project(p: np.ndarray) -> np.ndarray:
        f = dist / (dist - p[:, 2])
        return np.stack([S / 2 + p[:, 0] * f * S * 0.42 * scale,
                         S / 2 - (p[:, 1] - centre_y) * f * S * 0.42 * scale], axis=1)

    canvas = np.full((S, S, 3), 255, np.float32)
    if floor_shadow:
        lowest = min(float(p.pts[:, 1].min()) for p in polys)
        ground = np.array([[0.0, lowest, 0.0]]) @ rot.T
        c = project(ground)[0]
        shadow = np.zeros((S, S), np.float32)
        cv2.ellipse(shadow, (int(c[0]), int(c[1])), (int(0.3 * S * scale), int(0.035 * S * scale)),
                    0, 0, 360, 1.0, -1)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 0.02 * S)
        canvas *= (1 - 0.22 * shadow)[..., None]
    drawn = []
    for poly in polys:
        p = poly.pts @ rot.T
        n = np.cross(p[1] - p[0], p[2] - p[0])
        if np.linalg.norm(n) < 1e-12:
            n = np.cross(p[2] - p[0], p[3 % len(p)] - p[0])
        n = n / (np.linalg.norm(n) + 1e-12)
        if n[2] < 0:
            if not poly.two_sided:
                continue
            n = -n
        lam = max(0.0, float(n @ L))  # the light stays with the camera as the product turns
        shade = 0.42 + 0.62 * lam
        drawn.append((float(p[:, 2].mean()), project(p), np.array(poly.colour) * shade))
    drawn.sort(key=lambda d: d[0])
    for _, q, col in drawn:
        cv2.fillConvexPoly(canvas, np.round(q * 16).astype(np.int32), col.tolist(),
                           cv2.LINE_AA, shift=4)
    out = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def tote_mesh() -> list[Poly]:
    leather, seam, gold = (150, 92, 52), (95, 55, 30), (212, 178, 90)
    polys = _box(-0.42, 0.42, -0.34, 0.26, -0.15, 0.15, leather, top_inset=0.05)
    for z in (-0.135, 0.135):  # a handle on the front and one on the back
        t = np.linspace(0, np.pi, 28)
        path = np.stack([-0.19 * np.cos(t), 0.26 + 0.3 * np.sin(t), np.full_like(t, z)], axis=1)
        polys += _tube(path, 0.022, seam)
    # A brass plate and a stitched band on the front.
    polys.append(Poly(np.array([(-0.07, 0.1, 0.152), (0.07, 0.1, 0.152), (0.07, 0.16, 0.152),
                                (-0.07, 0.16, 0.152)]), gold))
    polys.append(Poly(np.array([(-0.372, 0.195, 0.151), (0.372, 0.195, 0.151),
                                (0.371, 0.205, 0.151), (-0.371, 0.205, 0.151)]), seam))
    return polys


def hat_mesh() -> list[Poly]:
    felt, band = (112, 84, 60), (36, 28, 24)
    crown = [(0.0, 0.40), (0.18, 0.40), (0.26, 0.36), (0.30, 0.25), (0.32, 0.1), (0.33, 0.0)]

    def pinch(r: float, y: float, a: float) -> float:
        # Front pinches: two dents either side of the front, only high on the crown.
        dent = math.exp(-((math.sin(a) - 0.55) / 0.18) ** 2) + math.exp(
            -((math.sin(a) + 0.55) / 0.18) ** 2)
        front = max(0.0, math.cos(a))
        return r * (1 - 0.16 * dent * front * max(0.0, y - 0.12) / 0.28)

    polys = _lathe(crown, 72, lambda a, y: band if y < 0.09 else felt, squash=0.85,
                   radius=pinch)
    brim = [(0.33, 0.0), (0.62, -0.02), (0.66, -0.04), (0.6, -0.045), (0.33, -0.03)]
    polys += _lathe(brim, 72, lambda a, y: felt, squash=0.85)
    # A small bow on the band at the wearer's left.
    bx, bz = 0.33 * math.sin(-1.9), 0.33 * math.cos(-1.9) * 0.85
    polys += _box(bx - 0.025, bx + 0.025, 0.0, 0.085, bz - 0.06, bz + 0.06, (20, 16, 14))
    return polys


def dress_form_mesh() -> list[Poly]:
    navy, cream, wood = (32, 44, 82), (238, 230, 214), (110, 74, 44)
    # Bodice and flared skirt, top to bottom, in a navy and cream stripe.
    profile = [(0.07, 0.95), (0.12, 0.93), (0.2, 0.88), (0.22, 0.78), (0.2, 0.66), (0.15, 0.52),
               (0.14, 0.46), (0.2, 0.40), (0.28, 0.25), (0.36, 0.08), (0.44, -0.10),
               (0.5, -0.26), (0.5, -0.3)]
    fine = []
    for (r0, y0), (r1, y1) in zip(profile, profile[1:], strict=False):
        n = max(1, int(abs(y1 - y0) / 0.05))
        fine += [(r0 + (r1 - r0) * k / n, y0 + (y1 - y0) * k / n) for k in range(n)]
    fine.append(profile[-1])

    def pattern(a: float, y: float) -> RGB:
        if 0.44 < y < 0.49:
            return (180, 30, 45)  # a red belt
        stripe = int(a / (2 * np.pi) * 36) % 2  # 18 pairs of stripes round the dress
        return cream if stripe else navy

    polys = _lathe(fine, 72, pattern, squash=0.7)
    polys += _lathe([(0.0, 1.05), (0.05, 1.04), (0.07, 0.95)], 24, lambda a, y: (225, 215, 195),
                    squash=0.7)
    polys += _lathe([(0.025, -0.3), (0.025, -0.6)], 12, lambda a, y: wood)
    polys += _lathe([(0.0, -0.6), (0.2, -0.62), (0.2, -0.66), (0.0, -0.66)], 36,
                    lambda a, y: wood)
    return polys


def turntable_views(mesh: list[Poly], n: int = 12, **kw: Any) -> list[np.ndarray]:
    return [render_view(mesh, 360.0 * k / n, **kw) for k in range(n)]


# --- layouts --------------------------------------------------------------------------------


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


Example = tuple[np.ndarray | bytes, str]  # the image (or MP4 bytes) and its alt text


# --- the tools ----------------------------------------------------------------------------------

NAVY: RGB = (30, 45, 80)
CREAM: RGB = (236, 232, 222)


def ex_recolor() -> list[Example]:
    from workers.engines.recolor import run

    # The spec's example cards: a polo to #C5B299, #8E8E93 and #4A5D23.
    cases = [
        ((238, 236, 230), NAVY, "#C5B299", "A white polo with navy tipping recoloured to "
         "#C5B299 stone beige; the tipping, buttons and shading are kept."),
        (NAVY, CREAM, "#8E8E93", "A navy polo recoloured to #8E8E93 mid grey, its cream "
         "tipping untouched."),
        ((168, 44, 48), CREAM, "#4A5D23", "A red polo recoloured to #4A5D23 olive green, "
         "folds and piqué texture kept."),
    ]
    out: list[Example] = []
    for i, (base, tip, target, alt) in enumerate(cases):
        shot = polo_shot(base, tipping=tip, seed=5 + i)
        res = images(run_engine(run, {"image": png(shot), "target_color": target,
                                      "garment_type": "polo"}))[0]
        out.append((row(shot, res), alt))
    return out


def ex_refabric() -> list[Example]:
    from workers.engines.refabric import run

    cases = [
        ("jacket", (70, 92, 70), "plain", "tweed", "textured", "jacket",
         "A plain cotton jacket re-made in textured tweed, its seams and folds where they were."),
        ("dress", (20, 110, 90), "plain", "silk", "glossy", "dress",
         "An emerald cotton dress re-made in glossy silk, highlights running along its folds."),
        ("skirt", (200, 190, 170), "plain", "linen", "textured", "skirt",
         "A stone cotton skirt re-made in textured linen with its irregular slub yarns."),
    ]
    out: list[Example] = []
    for i, (kind, colour, tex, fabric, finish, garment, alt) in enumerate(cases):
        shot = garment_shot(kind, colour, texture=tex, seed=11 + i)
        res = images(run_engine(run, {"image": png(shot), "re_fabric": fabric,
                                      "material_finish": finish,
                                      "target_garment": garment}))[0]
        out.append((row(shot, res), alt))
    return out


def ex_reshape() -> list[Example]:
    from workers.engines.reshape import run

    cases = [
        ("dress", (44, 84, 120), "dress", [{"place": "length", "instruction": "shorter by 30%"}],
         "A dress shortened by 30% to a mini; the stitched hem band moves up with the new hem."),
        ("jacket", (72, 74, 84), "jacket", [{"place": "length", "instruction": "longer by 30%"}],
         "A jacket lengthened by 30% into a car coat, hem and pockets carried down."),
        ("top", (182, 62, 60), "t-shirt", [{"place": "fit", "instruction": "looser by 15%"}],
         "A T-shirt given a looser fit, 15% wider through the body and sleeves."),
    ]
    out: list[Example] = []
    for i, (kind, colour, garment, changes, alt) in enumerate(cases):
        # On pure white without a drop shadow: what the edit uncovers is inpainted from the
        # sweep, and the inpainting overshoots a little toward white (TELEA's gradient term),
        # which only a white sweep hides; a shadow left standing would outline the old shape.
        shot = garment_shot(kind, colour, seed=21 + i, shadow=0.0, sweep=255)
        # Room below the garment for a longer hem.
        shot = cv2.copyMakeBorder(shot, 0, 150, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        res = images(run_engine(run, {"image": png(shot), "target_garment": garment,
                                      "changes": changes}))[0]
        out.append((trim_white(row(shot, res)), alt))
    return out


def ex_rebody() -> list[Example]:
    from workers.engines.rebody import run

    cases = [
        (astronaut(), "Slim Fit", "A portrait re-proportioned to the Slim Fit body type: "
         "narrower shoulders, waist and hips, the face untouched."),
        (astronaut(), "Curvy Fit", "The same portrait re-proportioned to the Curvy Fit body "
         "type, fuller through bust and waist."),
        (hopper(), "Athletic Build", "A portrait re-proportioned to the Athletic Build body "
         "type, with broader shoulders."),
    ]
    out: list[Example] = []
    for photo, body, alt in cases:
        res = images(run_engine(run, {"image": png(photo), "target_bodytype": body}))[0]
        out.append((row(photo, res), alt))
    return out


def _before_after_with(engine: Callable[..., list[EngineOutput]], params: dict[str, Any],
                       person: np.ndarray, product: np.ndarray, *,
                       share: float = 0.34) -> np.ndarray:
    """Run a two-input engine; the photo with the product inset | the result."""
    res = images(run_engine(engine, params))[0]
    return row(with_inset(person, product, share=share), res)


def ex_restyle() -> list[Example]:
    from workers.engines.tryon import restyle

    cases = [
        (astronaut(), polo_shot(NAVY, tipping=CREAM, seed=31),
         "A navy polo product shot restyled onto an astronaut's portrait over her flight suit."),
        (hopper(), garment_shot("jacket", (150, 112, 78), texture="twill", seed=32),
         "A camel jacket product shot restyled onto Grace Hopper's portrait in place of her "
         "uniform jacket."),
        (astronaut(), garment_shot("shirt", (128, 158, 196), seed=33),
         "A chambray shirt product shot restyled onto the astronaut portrait."),
    ]
    return [(_before_after_with(restyle, {"outfit": png(p), "garment": png(g)}, p, g), alt)
            for p, g, alt in cases]


def ex_virtual_try_on() -> list[Example]:
    from workers.engines.tryon import virtual_try_on

    cases = [
        (hopper(), garment_shot("top", (178, 40, 52), texture="knit", seed=41),
         "A red knit T-shirt tried on Grace Hopper's portrait, fitted to her shoulders."),
        (astronaut(), garment_shot("jacket", (70, 92, 70), texture="twill", seed=42),
         "An olive twill jacket tried on the astronaut portrait."),
        (hopper(), polo_shot(CREAM, tipping=NAVY, seed=43),
         "A cream polo with navy tipping tried on Grace Hopper's portrait."),
    ]
    return [(_before_after_with(virtual_try_on, {"model": png(p), "garment": png(g)}, p, g), alt)
            for p, g, alt in cases]


def ex_garment_integration() -> list[Example]:
    from workers.engines.tryon import garment_integration

    cases = [
        (editorial_render("astronaut-beach"), garment_shot("top", CREAM, texture="knit", seed=51),
         "A cream knit T-shirt integrated into a beach editorial of the astronaut portrait, "
         "matched to the scene's warm light."),
        (editorial_render("hopper-wall"), garment_shot("jacket", (120, 46, 56), texture="twill",
                                                       seed=52),
         "A burgundy jacket integrated into a pink-wall editorial of Grace Hopper's "
         "portrait."),
        (editorial_render("astronaut-studio"), polo_shot((64, 96, 150), tipping=CREAM, seed=53),
         "A blue polo integrated into a studio editorial of the astronaut portrait."),
    ]
    return [(_before_after_with(garment_integration, {"outfit": png(p), "garment": png(g)}, p, g),
             alt) for p, g, alt in cases]


def ex_ecommerce_asset() -> list[Example]:
    from workers.engines.tryon import ecommerce_asset

    cases = [
        (astronaut(), beanie_shot(), "hat",
         "A red ribbed beanie placed on the astronaut's head, sized from her face."),
        (hopper(), pearls_shot(), "jewellery",
         "A pearl necklace placed at Grace Hopper's collar, scaled to her shoulders."),
        (hopper(), necklace_shot(), "jewellery",
         "A gold chain with an emerald pendant placed on Grace Hopper's portrait."),
    ]
    return [(_before_after_with(ecommerce_asset, {"outfit": png(p), "garment": png(a), "kind": k},
                                p, a), alt) for p, a, k, alt in cases]


def _head_box(rgb: np.ndarray) -> tuple[int, int, int, int]:
    """A portrait crop around the head and both ears (x0, y0, x1, y1)."""
    from workers.engines.imaging.face import detect_face

    face = detect_face(rgb)
    assert face is not None, "the portrait has a face"
    pts = face.points
    h, w = rgb.shape[:2]
    cx, cy = float(pts[:, 0].mean()), float(pts[:, 1].mean())
    side = 2.3 * face.face_width
    x0 = int(np.clip(cx - side / 2, 0, w - side))
    y0 = int(np.clip(cy - 0.42 * side, 0, h - side))
    return x0, y0, x0 + int(side), y0 + int(side)


def ex_earfit() -> list[Example]:
    from workers.engines.earfit import run

    cases = [
        (astronaut(), earring_drop(), 1.5, "Pearl and gold drop earrings, 1.5 in tall, hung at "
         "true size on the astronaut's ear lobes."),
        (hopper(), earring_hoop(), 1.2, "Gold hoop earrings, 1.2 in across, on Grace Hopper's "
         "ears, scaled from her iris."),
        (astronaut(), earring_tassel(), 2.5, "Teal silk tassel earrings, 2.5 in long, on the "
         "astronaut portrait."),
    ]
    out: list[Example] = []
    for photo, ring, inches, alt in cases:
        # Twice the size first: the earrings are small on the face, and their drawing stays sharp.
        big = upscale(photo, 2.0)
        res = images(run_engine(run, {"model_image": png(big), "ring_image": png(ring),
                                      "ring_height_in": inches}))[0]
        x0, y0, x1, y1 = _head_box(big)
        before = big[y0:y1, x0:x1]
        out.append((row(with_inset(before, ring, share=0.3), res[y0:y1, x0:x1]), alt))
    return out


def ex_baghold() -> list[Example]:
    from workers.engines.baghold import run

    # Both portraits end at the chest, so every bag hangs from the shoulder on a short strap
    # (there is no hand in frame to hold one).
    cases = [
        (crossbody_shot(), 20, 15, "A navy flap bag, 20 cm wide, worn on a short strap at the "
         "astronaut's shoulder at true scale."),
        (crossbody_shot(colour=(128, 30, 44)), 24, 20, "A burgundy shoulder bag, 24 cm wide, "
         "hung on a 20 cm strap."),
        (crossbody_shot(colour=(176, 128, 80)), 16, 25, "A small tan bag, 16 cm wide, on a "
         "25 cm strap, sized from the body's proportions."),
    ]
    photo = astronaut()
    out: list[Example] = []
    for bag, width, strap, alt in cases:
        res = images(run_engine(run, {"model_image": png(photo), "bag_image": png(bag),
                                      "width": width, "height": round(width * 0.7, 1),
                                      "depth": 6, "strap": strap, "gender": "Female"}))[0]
        out.append((row(with_inset(photo, bag, share=0.3, corner="tr"), res), alt))
    return out


def _swap(target: np.ndarray, face_photo: np.ndarray) -> np.ndarray:
    from workers.engines.remodel import run

    return images(run_engine(run, {"image": png(target), "model_face": png(face_photo),
                                   "model_name": "library model"}))[0]


def _face_crop(rgb: np.ndarray) -> np.ndarray:
    x0, y0, x1, y1 = _head_box(rgb)
    return rgb[y0:y1, x0:x1]


def ex_model_swap() -> list[Example]:
    cases = [
        (astronaut(), hopper(), "The astronaut portrait re-cast with Grace Hopper as the "
         "library model: her features on the same pose, light and outfit."),
        (hopper(), astronaut(), "Grace Hopper's portrait re-cast with the astronaut as the "
         "library model, the uniform and cap untouched."),
        (editorial_render("astronaut-studio"), hopper(), "A studio editorial re-cast with "
         "another library model, the garment and backdrop kept."),
    ]
    return [(row(with_inset(t, _face_crop(f), share=0.3, corner="tr"), _swap(t, f)), alt)
            for t, f, alt in cases]


def ex_remodel() -> list[Example]:
    cases = [
        (tryon_render("hopper-tee"), astronaut(), "A catalogue shot of a red T-shirt re-cast "
         "with a library model's face; the garment is untouched."),
        (tryon_render("astronaut-shirt"), hopper(), "A chambray shirt catalogue shot re-cast "
         "with another library model."),
        (editorial_render("hopper-wall"), astronaut(), "An editorial catalogue image re-cast "
         "with a library model, background and styling kept."),
    ]
    return [(row(with_inset(t, _face_crop(f), share=0.3, corner="tr"), _swap(t, f)), alt)
            for t, f, alt in cases]


# Intermediate renders several galleries start from (made once per run).
_RENDERS: dict[str, np.ndarray] = {}

EDITORIAL_CASES: dict[str, tuple[Callable[[], np.ndarray], dict[str, str], int]] = {
    "astronaut-beach": (astronaut, {
        "scene_composition": "sandy beach by the sea, wide frame, rule of thirds",
        "lighting": "golden hour, rim light from the right",
        "color_style": "warm, muted",
        "camera_details": "Warm 70s Film Look"}, 0),
    "hopper-wall": (hopper, {
        "scene_composition": "dusty pink painted wall, centred, half body",
        "lighting": "soft window light from the left",
        "color_style": "natural skin tones, gentle contrast",
        "camera_details": "Clean & Natural Color Film"}, 1),
    "astronaut-studio": (astronaut, {
        "scene_composition": "light grey seamless studio backdrop, centred",
        "lighting": "studio softbox from camera left, fill",
        "color_style": "neutral, crisp",
        "camera_details": "Sharp & Vivid Color Film"}, 1),
    "hopper-night": (hopper, {
        "scene_composition": "city street at night, neon lights",
        "lighting": "tungsten, rim light from behind",
        "color_style": "teal and orange, deep blacks",
        "camera_details": "Night Film with Red Halos"}, 0),
}


def editorial_render(name: str) -> np.ndarray:
    from workers.engines.editorial.generate import run
    from workers.engines.editorial.looks import CAMERA_TEMPLATES

    key = f"editorial:{name}"
    if key not in _RENDERS:
        photo, texts, pick = EDITORIAL_CASES[name]
        params = dict(texts)
        camera = {t["title"]: t["camera_details"] for t in CAMERA_TEMPLATES}
        params["camera_details"] = camera.get(texts["camera_details"], texts["camera_details"])
        _RENDERS[key] = images(run_engine(run, {"image": png(photo()), **params}))[pick]
    return _RENDERS[key]


def tryon_render(name: str) -> np.ndarray:
    from workers.engines.tryon import virtual_try_on

    key = f"tryon:{name}"
    if key not in _RENDERS:
        person, garment = {
            "hopper-tee": (hopper, lambda: garment_shot("top", (178, 40, 52), texture="knit",
                                                        seed=41)),
            "astronaut-shirt": (astronaut, lambda: garment_shot("shirt", (128, 158, 196),
                                                                seed=33)),
        }[name]
        _RENDERS[key] = images(run_engine(virtual_try_on, {"model": png(person()),
                                                           "garment": png(garment())}))[0]
    return _RENDERS[key]


def ex_editorial() -> list[Example]:
    return [
        (editorial_render("astronaut-beach"), "The astronaut portrait staged on a beach at "
         "golden hour with a rim light and the Warm 70s Film Look."),
        (editorial_render("hopper-wall"), "Grace Hopper's portrait staged against a dusty pink "
         "wall in soft window light, Clean & Natural Color Film."),
        (editorial_render("hopper-night"), "Grace Hopper's portrait staged on a night street "
         "with tungsten light and the Night Film with Red Halos look."),
    ]


def ex_tonelab() -> list[Example]:
    from workers.engines.editorial.looks import CAMERA_TEMPLATES
    from workers.engines.editorial.tonelab import run

    camera = {t["title"]: t["camera_details"] for t in CAMERA_TEMPLATES}
    cases = [
        (hopper(), None, {"lighting": "", "color_style": "black and white, hard contrast",
                          "camera_details": camera["Grainy High-Contrast B&W"]},
         "Grace Hopper's portrait graded to Grainy High-Contrast B&W."),
        (astronaut(), None, {"lighting": "warm sunlight from the left",
                             "color_style": "warm, faded",
                             "camera_details": camera["Warm 70s Film Look"]},
         "The astronaut portrait relit with warm light from the left in the Warm 70s Film "
         "Look."),
        (hopper(), editorial_render("astronaut-beach"),
         {"lighting": "", "color_style": "", "camera_details": camera["Soft Pastel Portraits"]},
         "Grace Hopper's portrait graded to the tones of a reference image (inset), with Soft "
         "Pastel Portraits."),
    ]
    out: list[Example] = []
    for base, reference, texts, alt in cases:
        params: dict[str, Any] = {"image": png(base), **texts}
        if reference is not None:
            params["reference"] = png(reference)
        res = images(run_engine(run, params))[-1]  # the full-strength grade
        before = base if reference is None else with_inset(base, reference, share=0.32)
        out.append((row(before, res), alt))
    return out


def _canvas(size: tuple[int, int], items: list[tuple[np.ndarray, float, float, float]]
            ) -> tuple[np.ndarray, np.ndarray]:
    """A layout like the Editorial Product canvas: cut-outs placed at (cx, cy) fractions with a
    width fraction, on transparency. Returns (rgb on white, alpha)."""
    from workers.engines.imaging.cutout import cut_out_product

    W, H = size
    rgb = np.full((H, W, 3), 255, np.float32)
    alpha = np.zeros((H, W), np.float32)
    for shot, cx, cy, wf in items:
        cut = cut_out_product(shot)
        w = max(2, int(wf * W))
        h = max(2, int(w * cut.height / cut.width))
        fg = cv2.resize(cut.rgb, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        a = cv2.resize(cut.alpha, (w, h), interpolation=cv2.INTER_AREA)
        x, y = int(cx * W - w / 2), int(cy * H - h / 2)
        assert 0 <= x and x + w <= W and 0 <= y and y + h <= H, "the item fits the canvas"
        region = (slice(y, y + h), slice(x, x + w))
        rgb[region] = fg * a[..., None] + rgb[region] * (1 - a[..., None])
        alpha[region] = np.maximum(alpha[region], a)
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8), (alpha * 255).astype(np.uint8)


def ex_editorial_product() -> list[Example]:
    from workers.engines.product import PHOTO_PRESETS, run

    sentence = {p["title"]: p["sentence"] for p in PHOTO_PRESETS}
    cases = [
        ((1200, 1200), [(tote_shot(), 0.36, 0.6, 0.42), (pearls_shot(), 0.72, 0.7, 0.3),
                        (earring_drop(), 0.74, 0.36, 0.08)],
         "Luxury Fashion", "A tote, a pearl strand and a drop earring laid out on the canvas, "
         "staged as a Luxury Fashion shot on a dark plinth."),
        ((1200, 1600), [(garment_shot("shirt", (128, 158, 196), seed=61), 0.5, 0.27, 0.62),
                        (garment_shot("trousers", (170, 150, 115), seed=62), 0.5, 0.72, 0.3)],
         "Lifestyle Editorial", "A shirt and chinos arranged as an outfit, staged in the "
         "Lifestyle Editorial preset on linen and plaster."),
        ((1200, 1200), [(hat_shot(), 0.5, 0.3, 0.6), (shoe_views()["SIDE"], 0.5, 0.72, 0.6)],
         "Minimalist White", "A felt fedora and a sneaker staged as a Minimalist White "
         "catalogue shot."),
    ]
    out: list[Example] = []
    for size, items, preset, alt in cases:
        rgb, alpha = _canvas(size, items)
        res = images(run_engine(run, {"image": png(rgb, alpha), "prompt": sentence[preset],
                                      "preset": preset}))[0]
        out.append((row(rgb, res), alt))
    return out


def ex_open_lab() -> list[Example]:
    from workers.engines.openlab import TEMPLATES, run

    jacket = garment_shot("jacket", (150, 112, 78), texture="twill", seed=71)
    sketch = flatdraw.flat_from_template("dress", size=(600, 750), margin=0.08).rgb
    tote = tote_shot()
    to_flat = TEMPLATES["Image to Flat"].replace(
        "[REQUIRED: attach the garment image]", "").replace(
        "[Optional: garment type, e.g. t-shirt, dress, trousers]", "jacket")
    to_photo = TEMPLATES["Sketch to Photo"].replace(
        "[REQUIRED: colour, e.g. navy or #1c2541]", "burgundy").replace(
        "[Optional: fabric, e.g. denim, silk, linen]", "silk")
    flat_front, flat_back = images(run_engine(run, {"prompt": to_flat, "image": png(jacket)}))
    _, photo = images(run_engine(run, {"prompt": to_photo, "image": png(sketch)}))
    _, sage = images(run_engine(run, {"prompt": "put it on a sage background",
                                      "image": png(tote)}))
    return [
        (row(jacket, flat_front, flat_back), "Image to Flat: a jacket product shot turned into "
         "front and back technical flats."),
        (row(sketch, photo), "Sketch to Photo: a dress sketch rendered as a burgundy silk "
         "photograph."),
        (row(tote, sage), "A prompt to put a tote bag on a sage background, answered with a "
         "sage sweep and a contact shadow."),
    ]


def ex_tech_pack() -> list[Example]:
    from workers.engines.adapters import techpack_process
    from workers.engines.techpack import describe_run

    cases = [
        ("Relaxed-fit cotton piqué polo shirt, 220 gsm, three-button placket, knitted collar "
         "with contrast tipping, short sleeves with ribbed cuffs.", polo_shot(NAVY, tipping=CREAM),
         "A tech pack sheet for a piqué polo: flats, measurements graded XS–XL, bill of "
         "materials and colourways."),
        ("Single-breasted wool tweed jacket with notch lapels, two flap pockets, a chest welt "
         "pocket and a centre back vent; fully lined.",
         garment_shot("jacket", (92, 96, 78), texture="twill", seed=81),
         "A tech pack sheet for a tweed jacket drawn from its product shot."),
        ("Sleeveless A-line dress in viscose crepe, round neck, fitted waist seam with darts, "
         "concealed centre back zip, knee length.", None,
         "A tech pack sheet for an A-line dress written from a description alone."),
    ]
    out: list[Example] = []
    for description, photo, alt in cases:
        params: dict[str, Any] = {"description": description}
        if photo is not None:
            params["image"] = png(photo)
        md = run_engine(describe_run, params)[0].data.decode()
        step2: dict[str, Any] = {"tech_pack": md}
        if photo is not None:
            step2["image"] = png(photo)
        out.append((images(run_engine(techpack_process, step2))[0], alt))
    return out


def _outfit(views: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, bytes]]:
    return {cat: {v: png(img) for v, img in vv.items()} for cat, vv in views.items()}


def ex_flats() -> list[Example]:
    from workers.engines.flats import run

    shoes = shoe_views()
    outfit_a = {
        "shoes": shoes,
        "bottom": {v.upper(): garment_shot("trousers", (170, 150, 115), view=v, seed=91)
                   for v in ("front", "back")},
        "top": {v.upper(): garment_shot("shirt", (128, 158, 196), view=v, seed=92)
                for v in ("front", "back")},
        "overlayer": {v.upper(): garment_shot("jacket", (44, 58, 92), view=v, texture="twill",
                                              seed=93) for v in ("front", "back")},
    }
    outfit_b = {
        "shoes": shoe_views(colour=(30, 30, 34), accent=(200, 200, 196)),
        "bottom": {v.upper(): garment_shot("skirt", (120, 28, 48), view=v, seed=94)
                   for v in ("front", "back")},
        "top": {v.upper(): garment_shot("top", CREAM, view=v, texture="knit", seed=95)
                for v in ("front", "back")},
    }
    lay_front, lay_back = images(run_engine(run, _outfit(outfit_a)))
    on_model = images(run_engine(run, {**_outfit(outfit_a), "model": png(hopper())}))
    lay_b = images(run_engine(run, _outfit(outfit_b)))[0]
    return [
        (lay_front, "Front flat-lay composed from the _FRONT flats of a navy jacket, chambray "
         "shirt, chinos and sneakers."),
        (lay_back, "The same outfit's back flat-lay, from the _BACK files."),
        (on_model[0], "The outfit's shirt and jacket dressed on Grace Hopper's portrait from "
         "the flats."),
        (lay_b, "A second outfit, a cream T-shirt, burgundy skirt and black sneakers, composed "
         "as a flat-lay."),
    ]


def ex_spinview() -> list[Example]:
    from workers.engines.spinview import run

    cases = [
        (turntable_views(tote_mesh(), scale=1.7), "A tan leather tote turning on a turntable, "
         "morphed from twelve rendered views."),
        (turntable_views(hat_mesh(), scale=1.45, centre_y=0.12), "A felt fedora with a band and "
         "bow turning through twelve views."),
        (turntable_views(dress_form_mesh(), scale=1.35, centre_y=0.2), "A striped dress on a "
         "dress form turning through twelve views."),
    ]
    out: list[Example] = []
    for views, alt in cases:
        outs = run_engine(run, {"views": [png(v) for v in views], "seconds": VIDEO_SECONDS,
                                "fps": 24, "size": VIDEO_SIZE})
        video = next(o for o in outs if o.content_type == "video/mp4")
        out.append((video.data, alt))
    return out


# --- the generator ------------------------------------------------------------------------------

TOOLS: dict[str, Callable[[], list[Example]]] = {
    "recolor": ex_recolor,
    "refabric": ex_refabric,
    "reshape": ex_reshape,
    "rebody": ex_rebody,
    "restyle": ex_restyle,
    "virtual-try-on": ex_virtual_try_on,
    "ecommerce-asset": ex_ecommerce_asset,
    "garment-integration": ex_garment_integration,
    "model-swap": ex_model_swap,
    "earfit": ex_earfit,
    "baghold": ex_baghold,
    "spinview": ex_spinview,
    "flats": ex_flats,
    "remodel": ex_remodel,
    "editorial": ex_editorial,
    "tonelab": ex_tonelab,
    "editorial-product": ex_editorial_product,
    "open-lab": ex_open_lab,
    "tech-pack": ex_tech_pack,
}

EXPECTED = {slug: 4 if slug == "flats" else 3 for slug in TOOLS}

NOTICE = """\
# Examples gallery assets

The images and videos in this folder are the fixed Examples galleries of the tool pages
(`manifest.json` lists them per tool page with their alt texts). Each one is a render of
Atelier's own engines (`workers/engines/`), made by `deploy/local/examples.py`:

- edit tools show the input (left) and the engine's result (right) on one canvas; where a tool
  takes a second input (the garment, accessory, earring, bag, reference image or library
  model) it is inset in a corner of the input;
- generation tools (Editorial, Flats Ecommerce, Tech Pack Lab) show the result itself;
- Spinview's examples are the engine's own MP4 turntables (H.264, yuv420p, 480x480, 3 s).

## Sources

Only material we may redistribute goes in:

1. **Our own drawings**, made in `deploy/local/examples.py`: garments rendered as flat-lay
   product shots from the parametric flat templates of `workers/engines/flatdraw.py` (T-shirt,
   polo, shirt, dress, skirt, trousers, jacket); earrings, bags, hats, a scarf, necklaces and
   sneakers drawn with OpenCV; turntable views of a tote, a fedora and a dress on a form
   rendered by the script's small mesh renderer.
2. **Two public-domain photographs** that ship inside packages of our requirements and are
   read through those packages:
   - *Astronaut Eileen Collins*, NASA portrait (a work of the US government, public domain),
     distributed with scikit-image as `skimage/data/astronaut.png`
     (`skimage.data.astronaut()`);
   - *Rear Admiral Grace Hopper*, US Navy portrait (a work of the US government, public
     domain), distributed with matplotlib as `mpl-data/sample_data/grace_hopper.jpg`
     (`matplotlib.cbook.get_sample_data("grace_hopper.jpg")`).

The licensed fashion photographs under `tests/fixtures/` are never used, not even as an input;
`tests/tools/test_examples.py` checks that no example matches any of them.

Both portraits are half-length, so the tools that work on a full figure (Rebody's hips and
thighs, Baghold's hand-held bags, Flats' shoes and bottoms on the model) can only show the
upper body here.

## Rebuilding

    make examples

(or `.venv/bin/python deploy/local/examples.py [slug ...]` for some tool pages only). The
output is deterministic for a given set of installed packages; rebuild after changing an
engine and look at the results before committing them.
"""


def write_tool(slug: str) -> list[dict[str, str]]:
    examples = TOOLS[slug]()
    if len(examples) != EXPECTED[slug]:
        raise SystemExit(f"{slug}: {len(examples)} examples, expected {EXPECTED[slug]}")
    folder = OUT / slug
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    entries = []
    for n, (media, alt) in enumerate(examples, start=1):
        if isinstance(media, bytes):
            name, data = f"{n}.mp4", media
        else:
            name, data = f"{n}.jpg", jpeg(media)
        (folder / name).write_bytes(data)
        entries.append({"file": f"{slug}/{name}", "alt": alt})
    return entries


def main(argv: list[str]) -> None:
    # One OpenCV thread: GrabCut and k-means draw from per-thread random states, so with a
    # thread pool the cut-outs (and the try-on renders built on them) vary from run to run.
    cv2.setNumThreads(1)
    unknown = [a for a in argv if a not in TOOLS]
    if unknown:
        raise SystemExit(f"Unknown tool page(s): {', '.join(unknown)}. Known: {', '.join(TOOLS)}")
    manifest_path = OUT / "manifest.json"
    manifest: dict[str, list[dict[str, str]]] = {}
    if argv and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    OUT.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    for slug in argv or list(TOOLS):
        t0 = time.monotonic()
        manifest[slug] = write_tool(slug)
        size = sum((OUT / e["file"]).stat().st_size for e in manifest[slug])
        print(f"{slug:20s} {len(manifest[slug])} examples  {size / 1024:6.0f} KB  "
              f"{time.monotonic() - t0:5.1f} s", flush=True)
    ordered = {slug: manifest[slug] for slug in TOOLS if slug in manifest}
    manifest_path.write_text(json.dumps(ordered, indent=2, ensure_ascii=False) + "\n")
    (OUT / "NOTICE.md").write_text(NOTICE)
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"{len(ordered)} tool pages, {total / 1e6:.1f} MB in {OUT.relative_to(ROOT)}, "
          f"{time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
