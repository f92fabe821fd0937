"""Garment mattes at the outline: a guided filter that snaps a soft mask to the photo's edges,
and foreground/background colour estimates that unmix the rim's mixed pixels.

A garment mask made at a working size is a pixel or two off the real outline and its rim is
a blur, not the photo's antialiasing. Editing the garment by that mask leaves a thin ring of
the old colour where the mask ends early, or half-moves rim pixels that are part background.
`refine_alpha` aligns the mask with the edges; `edge_colours` gives, at every rim pixel, the
garment's colour just inside and the backdrop's just outside, so an edit can be carried to a
rim pixel in proportion to how much garment it holds (`unmix_alpha`).
"""

from __future__ import annotations

import cv2
import numpy as np

from workers.engines.imaging.resize import on_reduced_copy


def box(img: np.ndarray, r: int) -> np.ndarray:
    return cv2.boxFilter(img, -1, (2 * r + 1, 2 * r + 1), normalize=True,
                         borderType=cv2.BORDER_REFLECT)


def guided_filter(guide: np.ndarray, src: np.ndarray, radius: int, eps: float) -> np.ndarray:
    """He et al.'s guided filter with a colour (HxWx3, float in [0, 1]) or grey guide.

    `src` (HxW float) comes out smoothed inside regions and with its edges moved onto the
    guide's edges; `eps` is how strong an edge of the guide must be to be followed.
    """
    src = src.astype(np.float32)
    guide = guide.astype(np.float32)
    if guide.ndim == 2:
        mi, ms = box(guide, radius), box(src, radius)
        cov = box(guide * src, radius) - mi * ms
        var = box(guide * guide, radius) - mi * mi
        a = cov / (var + eps)
        b = ms - a * mi
        return box(a, radius) * guide + box(b, radius)
    mean_i = box(guide, radius)
    mean_p = box(src, radius)
    cov = box(guide * src[..., None], radius) - mean_i * mean_p[..., None]
    # Per-pixel 3x3 covariance of the guide, regularised, inverted in closed form.
    v = {}
    for i in range(3):
        for j in range(i, 3):
            v[i, j] = box(guide[..., i] * guide[..., j], radius) - mean_i[..., i] * mean_i[..., j]
    a00, a01, a02 = v[0, 0] + eps, v[0, 1], v[0, 2]
    a11, a12, a22 = v[1, 1] + eps, v[1, 2], v[2, 2] + eps
    c00 = a11 * a22 - a12 * a12
    c01 = a02 * a12 - a01 * a22
    c02 = a01 * a12 - a02 * a11
    c11 = a00 * a22 - a02 * a02
    c12 = a01 * a02 - a00 * a12
    c22 = a00 * a11 - a01 * a01
    det = a00 * c00 + a01 * c01 + a02 * c02
    inv = 1.0 / np.where(np.abs(det) < 1e-12, 1e-12, det)
    p0, p1, p2 = cov[..., 0], cov[..., 1], cov[..., 2]
    a = np.stack([(c00 * p0 + c01 * p1 + c02 * p2) * inv,
                  (c01 * p0 + c11 * p1 + c12 * p2) * inv,
                  (c02 * p0 + c12 * p1 + c22 * p2) * inv], -1)
    b = mean_p - (a * mean_i).sum(-1)
    return (box(a, radius) * guide).sum(-1) + box(b, radius)


def refine_alpha(rgb: np.ndarray, mask: np.ndarray, *, radius: int | None = None,
                 eps: float = 2e-3) -> np.ndarray:
    """A soft garment mask snapped to the photo's edges, only near its rim (HxW float32).

    Deep inside and far outside the mask it is unchanged; in a band a few pixels wide around
    the rim the guided filter (guided by the photo) decides.
    """
    h, w = mask.shape
    if radius is None:
        radius = max(2, round(2.5 * max(h, w) / 512))
    m = np.clip(mask.astype(np.float32), 0.0, 1.0)
    rim = (m > 0.02) & (m < 0.98)
    if not rim.any():
        return m
    k = np.ones((2 * radius + 1, 2 * radius + 1), np.uint8)
    near = cv2.dilate(rim.astype(np.uint8), k) > 0
    # Work on the rim's bounding box only: the filter is the slow part.
    ys, xs = np.nonzero(near)
    pad = 2 * radius + 2
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    guide = rgb[y0:y1, x0:x1].astype(np.float32) / 255.0
    refined = np.clip(guided_filter(guide, m[y0:y1, x0:x1], radius, eps), 0.0, 1.0)
    # Where the photo shows no edge to snap to (a white tee on a white sweep) the filter only
    # blurs the mask over its whole window, and an edit by it would glow onto the backdrop:
    # there the mask keeps its own rim, in proportion to how faint the photo's edge is.
    mean = box(guide, radius)
    var = (box(guide * guide, radius) - mean * mean).sum(-1)
    edge = var / (var + eps)
    refined = edge * refined + (1.0 - edge) * m[y0:y1, x0:x1]
    out = m.copy()
    sub = out[y0:y1, x0:x1]
    sel = near[y0:y1, x0:x1]
    sub[sel] = refined[sel]
    return out


# A local mean wider than this (sigma, px) is taken on a copy reduced until its sigma is about
# SPREAD_REDUCED_SIGMA px: a wide Gaussian's kernel grows with sigma, and the mean it gives
# changes over sigma's distance, so the reduced copy's bilinear lookups follow it closely (on
# a photo, within 0.003 OKLab on average of the exact mean, tests/engines/test_matte.py). The
# worn masks' skin-beside-the-garment test (sigma 10-20 px at 1024 px) costs a fifth as much.
SPREAD_EXACT_SIGMA = 6.0
SPREAD_REDUCED_SIGMA = 3.0


def _local_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur to 2.5 sigma (plenty for a local mean); a wide one on a reduced copy."""
    f = int(sigma / SPREAD_REDUCED_SIGMA) if sigma > SPREAD_EXACT_SIGMA else 1
    if f > 1 and min(img.shape[:2]) >= 4 * f:
        return on_reduced_copy(img, f, lambda small: _local_blur(small, sigma / f))
    k = 2 * int(np.ceil(2.5 * sigma)) + 1
    return cv2.GaussianBlur(img, (k, k), sigma)


def spread(values: np.ndarray, weight: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Weighted local mean of `values` (HxW or HxWxC) where `weight` > 0, carried into nearby
    pixels (normalised Gaussian); also returns the local weight (how much support there was)."""
    wt = weight.astype(np.float32)
    den = _local_blur(wt, sigma)
    v = values.astype(np.float32)
    num = _local_blur(v * (wt[..., None] if v.ndim == 3 else wt), sigma)
    safe = np.maximum(den, 1e-6)
    return (num / (safe[..., None] if v.ndim == 3 else safe)), den


def edge_colours(rgb: np.ndarray, alpha: np.ndarray, *, sigma: float | None = None,
                 inside: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """At every pixel, the local garment colour (from pixels fully inside, or from `inside`
    when given) and the local backdrop colour (pixels fully outside), float sRGB in [0, 1]."""
    h, w = alpha.shape
    if sigma is None:
        sigma = max(1.5, 2.0 * max(h, w) / 512)
    img = rgb.astype(np.float32) / 255.0
    core = cv2.erode((alpha > 0.97).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if inside is not None:
        core = core & inside
    out = cv2.erode((alpha < 0.03).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    fg, _ = spread(img, core, sigma)
    bg, _ = spread(img, out, sigma)
    return fg, bg


def unmix_alpha(rgb: np.ndarray, fg: np.ndarray, bg: np.ndarray, prior: np.ndarray,
                *, min_contrast: float = 0.08) -> np.ndarray:
    """How much garment each pixel holds, from its colour between the local garment colour
    and the local backdrop colour; where those two are too alike to tell, `prior` decides."""
    img = rgb.astype(np.float32) / 255.0
    d = fg - bg
    n2 = (d * d).sum(-1)
    a = ((img - bg) * d).sum(-1) / np.maximum(n2, 1e-6)
    a = np.clip(a, 0.0, 1.0)
    trust = np.clip((np.sqrt(n2) - min_contrast) / min_contrast, 0.0, 1.0)
    return (trust * a + (1 - trust) * prior).astype(np.float32)


def weak_outline_share(rgb: np.ndarray, alpha: np.ndarray, *, contrast: float = 0.02) -> float:
    """Share of a matte's outline along which the colour inside and the colour outside are
    the same (OKLab distance under `contrast`): where a product shot's mask cut through the
    fabric itself (a white garment on a white sweep), rather than following its edge."""
    from workers.engines.imaging.color import srgb8_to_oklab

    h, w = alpha.shape
    scale = max(h, w) / 512.0
    lab = srgb8_to_oklab(cv2.GaussianBlur(rgb, (0, 0), scale))
    k = np.ones((3, 3), np.uint8)
    it = max(2, round(2 * scale))
    solid = (alpha > 0.5).astype(np.uint8)
    inside = cv2.erode(solid, k, iterations=it) > 0
    outside = cv2.erode(1 - solid, k, iterations=it) > 0
    edge = (solid > 0) & (cv2.erode(solid, k) == 0)
    if not edge.any() or not inside.any() or not outside.any():
        return 0.0
    fg, _ = spread(lab, inside, 3.0 * scale)
    bg, _ = spread(lab, outside, 3.0 * scale)
    gap = np.linalg.norm((fg - bg)[edge], axis=-1)
    return float((gap < contrast).mean())
