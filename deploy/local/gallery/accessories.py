"""Accessories drawn with OpenCV: earrings, bags, hats, scarves, necklaces and a pair of
sneakers, each front on over a light sweep."""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np

from .common import RGB
from .products import smooth_noise


def _sweep_and_mask(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The light sweep a product is drawn on, and an empty mask to draw its shape in."""
    return np.full((height, width, 3), 248, np.uint8), np.zeros((height, width), np.uint8)


def _paint(img: np.ndarray, mask: np.ndarray, colour: RGB, shade: np.ndarray) -> np.ndarray:
    """``colour`` times ``shade`` (the material's relief) inside ``mask``."""
    col = np.array(colour, np.float32)[None, None] * shade[..., None]
    return np.where(mask[..., None] > 0, col, img).clip(0, 255).astype(np.uint8)


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
    img, mask = _sweep_and_mask(width, height)
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
    img, mask = _sweep_and_mask(width, height)
    x0, x1, y0, y1 = 110, width - 110, 150, height - 70
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
    img, mask = _sweep_and_mask(width, height)
    cx = width // 2
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
    noise = smooth_noise((height, width), 1.0, 9)
    img = np.where(mask[..., None], img * (1 + 0.06 * noise)[..., None], img)
    img = np.clip(img, 0, 255).astype(np.uint8)
    for x in range(x0 + 4, x1 - 2, 9):
        cv2.line(img, (x, y1), (x + 2, y1 + 52), (30, 45, 80), 3, cv2.LINE_AA)
    return img


def beanie_shot(width: int = 600, height: int = 520, *, wool: RGB = (176, 48, 52)) -> np.ndarray:
    """A ribbed knit beanie with a turned-up cuff, front on."""
    img, mask = _sweep_and_mask(width, height)
    cx = width // 2
    cv2.ellipse(mask, (cx, 330), (230, 270), 0, 180, 360, 1, -1, cv2.LINE_AA)
    cv2.rectangle(mask, (cx - 238, 330), (cx + 238, 460), 1, -1)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    ribs = 0.85 + 0.15 * np.sin((xx - cx) * 2 * np.pi / 16.0) ** 2
    shade = np.where(yy >= 330, 0.92 * ribs, 1.0 - 0.18 * ((xx - cx) / 240.0) ** 2)
    shade *= 1 + 0.05 * smooth_noise((height, width), 1.0, 12)
    img = _paint(img, mask, wool, shade)
    cv2.line(img, (cx - 238, 332), (cx + 238, 332), tuple(int(c * 0.6) for c in wool), 3,
             cv2.LINE_AA)
    cv2.rectangle(img, (cx - 46, 370), (cx + 46, 420), (236, 232, 222), -1, cv2.LINE_AA)
    return img


def bucket_hat_shot(width: int = 640, height: int = 420, *, straw: RGB = (214, 190, 140),
                    band: RGB = (30, 40, 70)) -> np.ndarray:
    """A woven straw bucket hat with a navy band, front on."""
    img, mask = _sweep_and_mask(width, height)
    cx = width // 2
    crown = np.array([[cx - 190, 250], [cx - 170, 90], [cx - 120, 60], [cx + 120, 60],
                      [cx + 170, 90], [cx + 190, 250]], np.int32)
    cv2.fillPoly(mask, [crown], 1, cv2.LINE_AA)
    brim = np.array([[cx - 190, 240], [cx + 190, 240], [cx + 280, 350], [cx - 280, 350]], np.int32)
    cv2.fillPoly(mask, [brim], 1, cv2.LINE_AA)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    weave = 0.9 + 0.1 * np.sign(np.sin(xx * 2 * np.pi / 10) * np.sin(yy * 2 * np.pi / 10))
    weave *= 1 + 0.05 * smooth_noise((height, width), 1.0, 14)
    img = _paint(img, mask, straw, weave)
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
    knit *= 1 + 0.05 * smooth_noise((height, width), 1.0, 13)
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
