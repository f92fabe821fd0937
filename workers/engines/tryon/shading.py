"""Light and blending: the person's shading carried onto the new garment, what the old garment
leaves painted over (skin or surroundings), and soft drop shadows."""

from __future__ import annotations

import cv2
import numpy as np

from workers.engines.imaging.cutout import darken, soft_shadow, wide_blur
from workers.engines.tryon.body import Body, skin_of


def cloth_shading(body: Body, region: np.ndarray) -> np.ndarray:
    """The light on the person inside ``region`` as a multiplier around 1: folds, creases and
    the fall-off toward the sides, without the old garment's print.

    The region's colours are clustered; colours that differ only a little in lightness are one
    cloth in light and shade, colours far apart in lightness or hue are a print. Each pixel's
    luminance over its cloth's mean is the shading; the seams between cloths, and black cloth
    (too dark to read shading from, mostly noise), are left to their neighbours.
    """
    h, w = body.h, body.w
    sw = body.shoulder_width
    sel = region & (body.mask > 0.5)
    ones = np.ones((h, w), np.float32)
    if sel.sum() < 200:
        return ones
    lab, gray, grad = _shading_inputs(body)
    px = lab[sel]
    rng = np.random.default_rng(0)
    sample = px[rng.choice(len(px), size=min(len(px), 12000), replace=False)]
    k = 5
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 0.5)
    cv2.setRNGSeed(0)
    _, _, centres = cv2.kmeans(sample.astype(np.float32), k, None, crit, 1, cv2.KMEANS_PP_CENTERS)
    # Merge clusters that are one cloth: close hue, luminance within a fold's range of light
    # (a ratio: black and charcoal are two cloths, white and its shade one).
    lum = ((centres[:, 0] + 16.0) / 116.0) ** 3
    group = list(range(k))
    for i in range(k):
        for j in range(i + 1, k):
            dab = float(np.hypot(*(centres[i, 1:] - centres[j, 1:])))
            if dab < 10 and max(lum[i], lum[j]) < 1.8 * min(lum[i], lum[j]):
                gi, gj = group[i], group[j]
                group = [gi if g_ == gj else g_ for g_ in group]
    # Column by column, channel by channel: the same squared distances as a sum over an
    # (N, K, 3) array, without building it.
    d = np.empty((len(px), k), np.float32)
    for j in range(k):
        diff = px[:, 0] - centres[j, 0]
        col = diff * diff
        for i in (1, 2):
            diff = px[:, i] - centres[j, i]
            col += diff * diff
        d[:, j] = col
    labels = np.full((h, w), -1, np.int32)
    labels[sel] = np.array(group)[d.argmin(1)]
    ratio = np.ones((h, w), np.float32)
    weight = np.zeros((h, w), np.float32)
    for gid in set(group):
        m = labels == gid
        if m.sum() < 30:
            continue
        mean = float(np.median(gray[m]))
        ratio[m] = gray[m] / max(mean, 1.0)
        # Near-black cloth: its shading is buried in noise and compression.
        weight[m] = float(np.clip((mean - 12.0) / 60.0, 0.0, 1.0))
    # Seams between cloths (print edges) carry no shading.
    lab8 = (labels + 1).astype(np.uint8)
    seams = cv2.morphologyEx(lab8, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0
    seams = cv2.dilate(seams.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    weight[seams] = 0.0
    # Steps in lightness sharper than any fold are print edges too (black on white has no hue
    # to tell it from shade).
    weight *= np.clip(1.0 - grad / 12.0, 0.0, 1.0)
    sigma = max(1.0, 0.01 * sw)
    num = wide_blur(ratio * weight, sigma)
    den = wide_blur(weight, sigma)
    fine = np.where(den > 1e-3, num / np.maximum(den, 1e-3), 1.0)
    # A dense print leaves too little plain cloth between its seams to read folds from: there
    # only the broad light (the same ratios blurred wide) is kept.
    sel_f = sel.astype(np.float32)
    mid = max(2.0, 0.04 * sw)
    share = wide_blur(weight, mid) / np.maximum(wide_blur(sel_f, mid), 1e-3)
    conf = np.clip((share - 0.45) / 0.3, 0.0, 1.0)
    wide = max(3.0, 0.08 * sw)
    den_w = wide_blur(weight, wide)
    broad = wide_blur(ratio * weight, wide) / np.maximum(den_w, 1e-3)
    # Where nothing could be read (black cloth), flat.
    seen = np.clip(2.0 * den_w / np.maximum(wide_blur(sel_f, wide), 1e-3), 0.0, 1.0)
    broad = 1.0 + (broad - 1.0) * seen
    shade = conf * np.clip(fine, 0.5, 1.25) + (1.0 - conf) * np.clip(broad, 0.7, 1.15)
    shade = shade ** 0.85
    inside = wide_blur(sel.astype(np.float32), max(1.0, 0.03 * sw))
    return (shade * inside + (1.0 - inside)).astype(np.float32)


def _shading_inputs(body: Body) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What ``cloth_shading`` reads of the photo whatever the region: CIELab (L 0..100, a/b
    around 0), the grey level and its gradient. The same for every garment dressed on the
    body, so worked out once."""
    if "shading_inputs" not in body.extras:
        lab = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
        lab[..., 0] *= 100.0 / 255.0
        lab[..., 1:] -= 128.0
        gray = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
        soft = wide_blur(gray, 0.8)
        grad = np.hypot(cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3),
                        cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)) / 8.0
        body.extras["shading_inputs"] = (lab, gray, grad)
    return body.extras["shading_inputs"]


def rounding(alpha: np.ndarray, sw: float) -> np.ndarray:
    """A little shade toward the garment's outline, where cloth turns away around the body."""
    inside = (alpha > 0.5).astype(np.uint8)
    if not inside.any():
        return np.ones(alpha.shape, np.float32)
    dt = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    t = np.clip(dt / max(2.0, 0.07 * sw), 0.0, 1.0)
    return (1.0 - 0.14 * (1.0 - t) ** 2).astype(np.float32)


def _skin_colour(body: Body) -> np.ndarray | None:
    """Every pixel's nearest visible skin colour, smoothly (float32 RGB), or None when no skin
    shows: a neckline is filled from the neck above it, a forearm from its hand."""
    if "skin_colour" in body.extras:
        return body.extras["skin_colour"]
    sel = (skin_of(body) > 0.6) & (body.mask > 0.5)
    face = np.zeros_like(sel)
    if body.face_box:
        x0, y0, x1, y1 = body.face_box
        # Cheeks and chin only: no hair, brows or lips.
        face[y0 + (y1 - y0) // 2:y1, x0 + (x1 - x0) // 4:x1 - (x1 - x0) // 4] = True
    sel = (sel & ~body.head) | (sel & face)
    if sel.sum() < 50:
        sel = face & (body.mask > 0.5)
        if sel.sum() < 20:
            body.extras["skin_colour"] = None
            return None
    h, w = sel.shape
    s = min(1.0, 256.0 / max(h, w))
    size = (max(1, round(w * s)), max(1, round(h * s)))
    rgb = cv2.resize(body.rgb, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    m = cv2.resize(sel.astype(np.float32), size, interpolation=cv2.INTER_AREA)
    m = (m > 0.6).astype(np.float32)
    out = np.zeros_like(rgb)
    todo = np.ones(m.shape, bool)
    for sigma in (3.0, 8.0, 20.0, 60.0):
        den = cv2.GaussianBlur(m, (0, 0), sigma)
        num = cv2.GaussianBlur(rgb * m[..., None], (0, 0), sigma)
        ok = todo & (den > 0.05)
        out[ok] = num[ok] / den[ok][:, None]
        todo &= ~ok
    if todo.any():
        out[todo] = np.median(rgb[m > 0.5], axis=0)
    colour = cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR)
    body.extras["skin_colour"] = colour
    return colour


def _inpaint(img: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """cv2.inpaint at no more than 512 px on the long side: it fills from the hole's rim and its
    cost grows with the hole, and what it fills (background) is smooth anyway."""
    h, w = hole.shape
    s = min(1.0, 512.0 / max(h, w))
    if s >= 1.0:
        return cv2.inpaint(img, hole.astype(np.uint8), 5, cv2.INPAINT_TELEA)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    small = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    small_hole = cv2.resize(hole.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST)
    small_hole = cv2.dilate(small_hole, np.ones((3, 3), np.uint8))
    filled = cv2.inpaint(small, small_hole, 5, cv2.INPAINT_TELEA)
    return cv2.resize(filled, (w, h), interpolation=cv2.INTER_LINEAR)


def fill_uncovered(out: np.ndarray, body: Body, uncovered: np.ndarray, under: np.ndarray,
                    skin_zone: np.ndarray) -> np.ndarray:
    """Paint over what the new garment leaves of the old one: skin where skin belongs (arms,
    neck, midriff, legs), the surroundings elsewhere.

    ``under`` is everything the new garment will cover: the background is inpainted from what
    lies outside it and the old garment, so no old colour is smeared into the fill.
    """
    if uncovered.sum() == 0:
        return out
    m8 = cv2.dilate(uncovered.astype(np.uint8), np.ones((3, 3), np.uint8))
    hole = cv2.dilate(((m8 > 0) | under).astype(np.uint8), np.ones((5, 5), np.uint8))
    filled_full = _inpaint(out, hole > 0)
    tone = _skin_colour(body)
    zone_full = (m8 > 0) & skin_zone
    dt_full = None
    if tone is not None and zone_full.any():
        dt_full = cv2.distanceTransform(skin_zone.astype(np.uint8), cv2.DIST_L2, 3)
    # Only near what is painted over does anything change: the blend's weight (a blur of sigma
    # 1, 4 px of kernel each side) is exactly 0 further out, where the result is ``out``. The
    # box leaves 8 px of zeros round it, so the blur sees the same zeros as on the whole frame.
    ys, xs = np.nonzero(m8)
    h, w = m8.shape
    y0, y1 = max(0, int(ys.min()) - 8), min(h, int(ys.max()) + 9)
    x0, x1 = max(0, int(xs.min()) - 8), min(w, int(xs.max()) + 9)
    box = (slice(y0, y1), slice(x0, x1))
    filled = filled_full[box].astype(np.float32)
    zone = zone_full[box]
    if tone is not None and dt_full is not None:
        sw = body.shoulder_width
        # Round limbs: a little darker toward their outline.
        roll = 0.85 + 0.15 * np.sqrt(np.clip(dt_full[box] / max(2.0, 0.07 * sw), 0.0, 1.0))
        skin_fill = tone[box] * roll[..., None]
        filled = np.where(zone[..., None], skin_fill, filled)
    a = cv2.GaussianBlur(m8[box].astype(np.float32), (0, 0), 1.0)[..., None]
    result = out.copy()
    result[box] = np.clip(filled * a + out[box].astype(np.float32) * (1 - a) + 0.5, 0,
                          255).astype(np.uint8)
    return result


def continues_below(body: Body, old: np.ndarray, covered: np.ndarray) -> np.ndarray:
    """Below a new top's hem, the old garment when it goes on down (a dress, a long top): it is
    worn on as a skirt, not painted out. (bool; all False for an old top that ends.)"""
    h, w = old.shape
    no = np.zeros((h, w), bool)
    # The old top's mask stops where the top band ends (garment.py): reaching that row means
    # the garment itself goes on below it.
    cut = int(body.hip_mid[1] + 0.45 * (body.hip_mid[1] - body.shoulder_mid[1]))
    if not 4 <= cut <= h or old[cut - 4:cut].any(axis=0).sum() < 0.25 * body.shoulder_width:
        return no
    rows = np.arange(h)[:, None]
    has = covered.any(axis=0)
    if not has.any():
        return no
    lowest = np.where(has, h - 1 - np.argmax(covered[::-1], axis=0), -1)
    hem = float(np.median(lowest[has]))
    lowest = np.where(has, lowest, hem)
    return rows > lowest[None, :]


def drop_shadow(base: np.ndarray, alpha: np.ndarray, x: int, y: int, blur: float, strength: float) -> np.ndarray:
    """A soft shadow of ``alpha`` (its top-left at x, y) darkening a copy of ``base``."""
    pad = int(3 * blur) + 2
    return darken(base, soft_shadow(alpha, blur, pad), x - pad, y - pad, strength)
