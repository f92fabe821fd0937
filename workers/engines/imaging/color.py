"""Colour spaces for engines: sRGB, linear light, OKLab and CIELab, hex parsing and ΔE2000.

OKLab is the working space for edits (hue-linear, cheap, lightness close to perceived);
CIELab is what ΔE2000 is defined on, so it is only used to measure.
"""

from __future__ import annotations

import re

import cv2
import numpy as np
from skimage.color import deltaE_ciede2000, rgb2lab

from workers.engines.base import EngineError

_HEX = re.compile(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")


def parse_hex(value: str) -> tuple[int, int, int]:
    """'#rrggbb' or '#rgb' (the leading # optional) to an (r, g, b) tuple of 0..255."""
    match = _HEX.match(str(value).strip()) if value is not None else None
    if not match:
        raise EngineError(
            "invalid_color", f"{value!r} is not a colour: use a hex value like #4A5D23."
        )
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return int(digits[0:2], 16), int(digits[2:4], 16), int(digits[4:6], 16)


def to_hex(rgb: tuple[int, int, int] | np.ndarray) -> str:
    r, g, b = (int(round(float(c))) for c in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def srgb_to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB in [0, 1] (float) to linear light."""
    srgb = np.asarray(srgb, dtype=np.float32)
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4).astype(
        np.float32
    )


def linear_to_srgb(lin: np.ndarray) -> np.ndarray:
    lin = np.clip(np.asarray(lin, dtype=np.float32), 0.0, 1.0)
    return np.where(
        lin <= 0.0031308, lin * 12.92, 1.055 * np.power(lin, 1.0 / 2.4) - 0.055
    ).astype(np.float32)


# Björn Ottosson's OKLab matrices (linear sRGB → LMS → OKLab).
_M1 = np.array(
    [
        [0.4122214708, 0.5363325363, 0.0514459929],
        [0.2119034982, 0.6806995451, 0.1073969566],
        [0.0883024619, 0.2817188376, 0.6299787005],
    ],
    dtype=np.float32,
)
_M2 = np.array(
    [
        [0.2104542553, 0.7936177850, -0.0040720468],
        [1.9779984951, -2.4285922050, 0.4505937099],
        [0.0259040371, 0.7827717662, -0.8086757660],
    ],
    dtype=np.float32,
)
_M1_INV = np.linalg.inv(_M1.astype(np.float64)).astype(np.float32)
_M2_INV = np.linalg.inv(_M2.astype(np.float64)).astype(np.float32)


def linear_to_oklab(lin: np.ndarray) -> np.ndarray:
    lms = np.asarray(lin, dtype=np.float32) @ _M1.T
    return (np.cbrt(np.maximum(lms, 0.0)) @ _M2.T).astype(np.float32)


def oklab_to_linear(lab: np.ndarray) -> np.ndarray:
    lms = np.asarray(lab, dtype=np.float32) @ _M2_INV.T
    return ((lms**3) @ _M1_INV.T).astype(np.float32)


def srgb8_to_oklab(rgb: np.ndarray) -> np.ndarray:
    """uint8 (..., 3) sRGB to float32 OKLab (L in 0..1, a/b about ±0.4)."""
    return linear_to_oklab(srgb_to_linear(np.asarray(rgb, dtype=np.float32) / 255.0))


def oklab_to_srgb8(lab: np.ndarray) -> np.ndarray:
    srgb = linear_to_srgb(oklab_to_linear(lab))
    return np.clip(srgb * 255.0 + 0.5, 0, 255).astype(np.uint8)


def hex_to_oklab(value: str) -> np.ndarray:
    return srgb8_to_oklab(np.array(parse_hex(value), dtype=np.uint8))


def srgb8_to_lab(rgb: np.ndarray) -> np.ndarray:
    """uint8 (..., 3) sRGB to CIELab (D65), for measuring."""
    return rgb2lab(np.asarray(rgb, dtype=np.uint8).reshape(-1, 1, 3)).reshape(
        np.shape(rgb)
    ).astype(np.float64)


def delta_e2000(rgb_a: np.ndarray, rgb_b: np.ndarray) -> np.ndarray:
    """ΔE2000 between two uint8 sRGB arrays of the same shape (..., 3)."""
    return deltaE_ciede2000(srgb8_to_lab(rgb_a), srgb8_to_lab(rgb_b))


def oklab_chroma(lab: np.ndarray) -> np.ndarray:
    return np.hypot(lab[..., 1], lab[..., 2])


def gamut_map_oklab(lab: np.ndarray, iterations: int = 7) -> np.ndarray:
    """Bring OKLab colours into sRGB by lowering chroma at constant lightness and hue.

    Clipping channels instead would change lightness, which is what carries a garment's folds.
    """
    lab = np.asarray(lab, dtype=np.float32)
    flat = lab.reshape(-1, 3).copy()
    flat[:, 0] = np.clip(flat[:, 0], 0.0, 1.0)
    lin = oklab_to_linear(flat)
    eps = 1e-4
    out = np.nonzero(((lin < -eps) | (lin > 1 + eps)).any(axis=1))[0]
    if len(out):
        sub = flat[out]
        lo = np.zeros(len(out), np.float32)
        hi = np.ones(len(out), np.float32)
        for _ in range(iterations):
            mid = (lo + hi) / 2
            trial = sub.copy()
            trial[:, 1:] *= mid[:, None]
            lin_t = oklab_to_linear(trial)
            ok = ((lin_t >= -eps) & (lin_t <= 1 + eps)).all(axis=1)
            lo = np.where(ok, mid, lo)
            hi = np.where(ok, hi, mid)
        sub[:, 1:] *= lo[:, None]
        flat[out] = sub
    return flat.reshape(lab.shape)


# Cloth colours are clustered with lightness counting less than hue and chroma: shading is not
# colour.
CLOTH_WEIGHTS = np.array([0.35, 1.0, 1.0], np.float32)


def cloth_clusters(lab: np.ndarray, k: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """k-means of OKLab pixels (N×3) weighted by ``CLOTH_WEIGHTS``, on a fixed sample of at most
    20,000 of them: (the sample, its labels as OpenCV gives them (N×1), the k centres in OKLab).
    Seeded, so the same pixels give the same clusters."""
    rng = np.random.default_rng(0)
    sample = lab if len(lab) <= 20000 else lab[rng.choice(len(lab), 20000, replace=False)]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 1e-4)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(
        (sample * CLOTH_WEIGHTS).astype(np.float32), k, None, crit, 2, cv2.KMEANS_PP_CENTERS
    )
    return sample, labels, centres / CLOTH_WEIGHTS


def hue_gap_degrees(c: np.ndarray, c0: np.ndarray) -> float:
    """The angle between two OKLab colours' hues, 0 to 180 degrees."""
    hue = np.degrees(np.arctan2(c[2], c[1]) - np.arctan2(c0[2], c0[1]))
    return float(abs((hue + 180) % 360 - 180))


# A neutral base this chromatic has a hue of its own (cream, ivory, oatmeal; a grey or a white
# has none to speak of), which its shades keep while gaining up to WARM_SHADE_CHROMA of chroma.
WARM_NEUTRAL = 0.01
WARM_SHADE_CHROMA = 0.03


# A crease's deepest shade (between a sleeve and the body) keeps this share of the lit cloth's
# OKLab lightness (0.52 on a grey sweatshirt).
DEEP_SHADE = 0.5


def neutral_shade(c: np.ndarray, c0: np.ndarray, *, deep: bool = False) -> bool:
    """Whether a garment's colour `c` is a shade of its neutral base colour `c0` (a grey, white,
    black or cream; OKLab): still neutral, its lightness within what folds do. Shadows reach
    further down than highlights reach up (a sleeve against the body, the fold under an arm); a
    print far darker or lighter stays a print, and so does a pastel one (lilac, baby blue on
    grey). `deep`: down to a crease's deepest shade too (DEEP_SHADE), for a caller that finds
    a dark print by its crisp edge instead."""
    chroma0 = float(np.hypot(c0[1], c0[2]))
    chroma = float(np.hypot(c[1], c[2]))
    darker = float(c[0]) < float(c0[0])
    limit = max(0.025, chroma0 + 0.015)
    if darker and chroma0 > WARM_NEUTRAL and hue_gap_degrees(c, c0) < 20:
        # A cream or ivory in shade takes colour from the light bounced off the skin and the
        # backdrop beside it: its own hue, more chroma (0.031-0.040 against the lit side's
        # 0.016 on a cream skirt beside the arms).
        limit = max(limit, chroma0 + WARM_SHADE_CHROMA)
    if darker and deep and float(c[0]) >= DEEP_SHADE * float(c0[0]):
        return chroma < limit
    return chroma < limit and abs(float(c[0] - c0[0])) < (0.35 if darker else 0.22)


def soft_clip(x: np.ndarray, lo: float, hi: float, *, knee: float) -> np.ndarray:
    """Clip to [lo, hi] with smooth exponential knees of width `knee`, so highlights and deep
    shadows keep some gradation instead of flattening at the limits."""
    y = x.copy()
    top = x > hi - knee
    y[top] = hi - knee * np.exp(-(x[top] - (hi - knee)) / knee)
    bottom = x < lo + knee
    y[bottom] = lo + knee * np.exp((x[bottom] - (lo + knee)) / knee)
    return y
