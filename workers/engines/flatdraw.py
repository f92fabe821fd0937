"""Technical flat drawings: black line art on white, front and back, as a tech pack shows them.

Two sources:

* ``flat_from_mask``: a garment mask (a product shot's silhouette). The outline is made
  symmetric about the garment's vertical axis (the mask is averaged with its mirror image, so a
  sleeve lying a little crooked does not end up in the drawing), smoothed, and drawn as a 3 px
  black outline. Stitch lines follow the outline as dashed offsets where a hem, a cuff, a
  neckband or a waistband sits, found from the outline's outward normal: hem and leg openings
  face down, cuffs face outward at the ends of the sleeves, necklines face up near the axis.
  The back view raises the neckline to a shallow back neck (a quarter of the front drop).
* ``flat_from_template``: parametric templates per garment type (t-shirt/top, shirt, dress,
  skirt, trousers, jacket), drawn from their size M points of measure in centimetres, so the
  flat keeps the proportions of the size chart the tech pack grades.

Both return the drawing and the filled silhouette it outlines (what tests and callers use to
check that the drawing matches the garment).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

GARMENT_TYPES = ("top", "shirt", "dress", "skirt", "trousers", "jacket")
TYPE_ALIASES = {"t-shirt": "top", "tshirt": "top", "tee": "top", "pants": "trousers"}

INK = (0, 0, 0)
WHITE = (255, 255, 255)

Point = tuple[float, float]


@dataclass(frozen=True)
class Flat:
    rgb: np.ndarray  # uint8 HxWx3: black line art on white
    fill: np.ndarray  # bool HxW: the silhouette the outline encloses


def normalise_type(garment_type: str | None) -> str:
    key = str(garment_type or "top").strip().lower()
    key = TYPE_ALIASES.get(key, key)
    return key if key in GARMENT_TYPES else "top"


# --- from a mask ------------------------------------------------------------------------------


def symmetric_mask(mask: np.ndarray) -> np.ndarray:
    """The mask averaged with its mirror about the vertical axis through its centroid,
    smoothed: a bool mask of the same size."""
    m = (np.asarray(mask, np.float32) > 0.5).astype(np.float32)
    h, w = m.shape
    mom = cv2.moments(m, binaryImage=True)
    if mom["m00"] < 1:
        return m > 0.5
    xc = mom["m10"] / mom["m00"]
    mirror = cv2.warpAffine(
        m,
        np.float32([[-1, 0, 2 * xc], [0, 1, 0]]),
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderValue=0,
    )
    avg = 0.5 * (m + mirror)
    sigma = max(1.0, 0.006 * max(h, w))
    avg = cv2.GaussianBlur(avg, (0, 0), sigma)
    out = avg >= 0.5
    return _largest(out)


def _largest(mask: np.ndarray) -> np.ndarray:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), 8)
    if n <= 2:
        return mask.astype(bool)
    keep = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return labels == keep


def classify_silhouette(mask: np.ndarray) -> str:
    """A garment type from a product-shot silhouette (one of GARMENT_TYPES, best effort).

    Trousers show two legs (a background gap on the axis in the lower third); dresses are tall
    (height over width above 1.55); tops with short sleeves are wider across the sleeves than
    at the waist; skirts widen from a narrow, flat waist to the hem. Shirts and jackets cannot be
    told from a top by the outline alone, so those come from the description.
    """
    m = np.asarray(mask) > 0.5
    ys, xs = np.nonzero(m)
    if len(ys) < 50:
        return "top"
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    crop = m[y0:y1, x0:x1]
    h, w = crop.shape
    xc = int(round(xs.mean())) - x0

    def width(frac: float) -> int:
        row = crop[min(h - 1, int(frac * h))]
        idx = np.nonzero(row)[0]
        return int(idx.ptp() + 1) if len(idx) else 0

    gap_rows = 0
    for frac in np.linspace(0.75, 0.97, 8):
        row = crop[min(h - 1, int(frac * h)), max(0, xc - 2) : xc + 3]
        if not row.any():
            gap_rows += 1
    if gap_rows >= 5:
        return "trousers"
    ratio = h / max(w, 1)
    if ratio > 1.55:
        return "dress"
    if width(0.25) > 1.2 * max(width(0.65), 1):
        return "top"
    if width(0.95) > 1.3 * max(width(0.05), 1) and ratio < 1.45:
        # A skirt's waist is a flat top edge; a sleeveless top's shoulders are not.
        top_row = np.nonzero(crop[: max(2, h // 25)].any(axis=0))[0]
        if len(top_row) > 0.6 * width(0.05):
            return "skirt"
    return "top"


def _contour(mask: np.ndarray) -> np.ndarray:
    cnts, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return np.zeros((0, 2), np.float32)
    c = max(cnts, key=cv2.contourArea)[:, 0, :].astype(np.float32)
    return c


def _normals(c: np.ndarray, mask: np.ndarray, span: int) -> np.ndarray:
    """Outward unit normals along a closed contour."""
    n = len(c)
    fwd = np.roll(c, -span, axis=0) - np.roll(c, span, axis=0)
    t = fwd / np.maximum(np.linalg.norm(fwd, axis=1, keepdims=True), 1e-6)
    nrm = np.stack([t[:, 1], -t[:, 0]], axis=1)
    # Orientation: the normal must point out of the mask for most of the contour.
    h, w = mask.shape
    probe = np.clip(np.round(c + 4 * nrm).astype(int), 0, [w - 1, h - 1])
    inside = mask[probe[:, 1], probe[:, 0]].mean()
    if inside > 0.5:
        nrm = -nrm
    del n
    return nrm


def _runs(sel: np.ndarray) -> list[np.ndarray]:
    """Index runs where sel is true along a closed contour (wrapping)."""
    n = len(sel)
    if n == 0 or not sel.any():
        return []
    if sel.all():
        return [np.arange(n)]
    start = int(np.argmin(sel))  # a False index: runs never wrap past it
    order = (np.arange(n) + start) % n
    s = sel[order]
    runs, cur = [], []
    for i, flag in zip(order, s):
        if flag:
            cur.append(i)
        elif cur:
            runs.append(np.array(cur))
            cur = []
    if cur:
        runs.append(np.array(cur))
    return runs


def dashed(
    img: np.ndarray,
    pts: np.ndarray,
    *,
    dash: float = 9,
    gap: float = 6,
    thickness: int = 2,
    color: tuple[int, int, int] = INK,
) -> None:
    """A dashed polyline (by arc length) drawn in place."""
    pts = np.asarray(pts, np.float64)
    if len(pts) < 2:
        return
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    s = np.concatenate([[0], np.cumsum(seg)])
    total = s[-1]
    pos = 0.0
    while pos < total:
        end = min(total, pos + dash)
        ts = np.linspace(pos, end, max(2, int((end - pos) / 2) + 2))
        xs = np.interp(ts, s, pts[:, 0])
        ys = np.interp(ts, s, pts[:, 1])
        poly = np.round(np.stack([xs, ys], 1) * 16).astype(np.int32)
        cv2.polylines(img, [poly], False, color, thickness, cv2.LINE_AA, shift=4)
        pos = end + gap


def _poly(
    img: np.ndarray,
    pts: np.ndarray,
    closed: bool,
    thickness: int,
    color: tuple[int, int, int] = INK,
) -> None:
    p = np.round(np.asarray(pts, np.float64) * 16).astype(np.int32)
    cv2.polylines(img, [p], closed, color, thickness, cv2.LINE_AA, shift=4)


def _fit_mask(mask: np.ndarray, size: tuple[int, int], margin: float) -> np.ndarray:
    """The mask's bounding box scaled into a (w, h) canvas, centred."""
    W, H = size
    ys, xs = np.nonzero(mask)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    crop = mask[y0:y1, x0:x1].astype(np.float32)
    s = min(W * (1 - 2 * margin) / crop.shape[1], H * (1 - 2 * margin) / crop.shape[0])
    nw, nh = max(1, round(crop.shape[1] * s)), max(1, round(crop.shape[0] * s))
    small = cv2.resize(crop, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    out = np.zeros((H, W), np.float32)
    ox, oy = (W - nw) // 2, (H - nh) // 2
    out[oy : oy + nh, ox : ox + nw] = small
    return out > 0.5


def _back_neck(mask: np.ndarray) -> np.ndarray:
    """Raise a top's front neckline to a back neck a quarter as deep."""
    m = mask.copy()
    ys, xs = np.nonzero(m)
    x0, x1, y0 = xs.min(), xs.max() + 1, ys.min()
    w = x1 - x0
    xc = int(round(xs.mean()))
    band = range(max(x0, xc - int(0.3 * w)), min(x1, xc + int(0.3 * w)))
    top = {x: (int(np.argmax(m[:, x])) if m[:, x].any() else None) for x in band}
    left = [x for x in band if x < xc and top[x] is not None]
    right = [x for x in band if x > xc and top[x] is not None]
    if not left or not right or top.get(xc) is None:
        return m
    xl = min(left, key=lambda x: (top[x], -x))
    xr = min(right, key=lambda x: (top[x], x))
    hi = (top[xl] + top[xr]) / 2
    depth = top[xc] - hi
    if depth < 0.02 * (ys.max() - y0):
        return m
    for x in range(xl, xr + 1):
        t = (x - xc) / max(1, (xr - xl) / 2)
        new_top = int(round(hi + 0.25 * depth * (1 - t * t)))
        old = top.get(x)
        if old is not None and new_top < old:
            m[new_top:old, x] = True
    return m


def flat_from_mask(
    mask: np.ndarray,
    *,
    view: str = "front",
    garment_type: str | None = None,
    size: tuple[int, int] | None = None,
    margin: float = 0.06,
    stroke: int = 3,
) -> Flat:
    """A flat drawn from a garment mask. Without ``size`` the drawing keeps the mask's frame
    (same size, same place) so it can be laid over the photo; with ``size`` (w, h) it is fitted
    and centred in that canvas."""
    sym = symmetric_mask(mask)
    if not sym.any():
        raise ValueError("empty garment mask")
    kind = normalise_type(garment_type) if garment_type else classify_silhouette(sym)
    if size is not None:
        sym = _fit_mask(sym, size, margin)
    if view == "back" and kind in ("top", "shirt", "dress", "jacket"):
        sym = _back_neck(sym)
    h, w = sym.shape
    img = np.full((h, w, 3), 255, np.uint8)
    c = _contour(sym)
    if len(c) < 8:
        raise ValueError("garment mask too small to draw")
    # Smooth the contour along its length (the mask is already smooth; this removes staircase).
    k = max(3, len(c) // 400 * 2 + 3)
    cs = np.stack(
        [
            np.convolve(np.concatenate([c[-k:, i], c[:, i], c[:k, i]]), np.ones(k) / k, "same")[
                k:-k
            ]
            for i in range(2)
        ],
        1,
    )
    ys, xs = np.nonzero(sym)
    bw, bh = xs.ptp() + 1, ys.ptp() + 1
    y0, xc = ys.min(), xs.mean()
    nrm = _normals(cs, sym, span=max(2, len(cs) // 150))
    off = max(5.0, 0.018 * max(bw, bh))
    rel_y = (cs[:, 1] - y0) / bh
    side = np.sign(cs[:, 0] - xc)
    far = np.abs(cs[:, 0] - xc) / bw
    hem = (nrm[:, 1] > 0.8) & (rel_y > 0.7)
    cuff = (nrm[:, 0] * side > 0.35) & (nrm[:, 1] > 0.15) & (far > 0.3) & (rel_y < 0.75)
    neck = (nrm[:, 1] < -0.5) & (far < 0.16) & (rel_y < 0.2)
    waist = (nrm[:, 1] < -0.8) & (rel_y < 0.08)
    dash_len = max(6.0, 0.012 * max(bw, bh))
    thin = max(1, stroke - 1)
    min_run = max(6, int(0.03 * bw))
    for sel, rows in ((hem, (1.0, 1.8)), (cuff, (1.0, 1.8))):
        for run in _runs(sel):
            if len(run) < min_run:
                continue
            for r in rows:
                dashed(
                    img,
                    cs[run] - nrm[run] * off * r,
                    dash=dash_len,
                    gap=dash_len * 0.6,
                    thickness=thin,
                )
    if kind in ("trousers", "skirt"):
        for run in _runs(waist):
            if len(run) >= min_run:
                # Waistband: a solid seam line and a dashed topstitch just under it.
                _poly(img, cs[run] - nrm[run] * off * 2.6, False, thin)
                dashed(
                    img,
                    cs[run] - nrm[run] * off * 0.9,
                    dash=dash_len,
                    gap=dash_len * 0.6,
                    thickness=thin,
                )
    else:
        for run in _runs(neck):
            if len(run) >= min_run // 2:
                _poly(img, cs[run] - nrm[run] * off * 1.4, False, thin)
                dashed(
                    img,
                    cs[run] - nrm[run] * off * 0.7,
                    dash=dash_len * 0.8,
                    gap=dash_len * 0.5,
                    thickness=thin,
                )
    if kind == "trousers" and view == "back":
        _back_pockets(img, xs, ys, bw, bh, thin)
    if kind == "trousers" and view == "front":
        # Centre front seam down to the crotch (the top of the gap between the legs) and the
        # fly's J-stitch beside it.
        col = sym[:, int(round(xc))]
        gap = np.nonzero(~col[y0:])[0]
        crotch = y0 + (int(gap[0]) if len(gap) else int(0.3 * bh))
        wb = y0 + 0.07 * bh
        _poly(img, np.array([[xc, wb], [xc, crotch]]), False, thin)
        j = [(xc, wb)] + _q(
            (xc - 0.09 * bw, wb), (xc - 0.09 * bw, crotch - 0.04 * bh), (xc, crotch - 0.02 * bh)
        )
        dashed(img, np.array(j), dash=dash_len, gap=dash_len * 0.6, thickness=thin)
    if view == "back" and kind in ("top", "shirt", "dress", "jacket"):
        # Centre back: the garment's axis, dashed thin, so a front and a back never look alike.
        yb = int(y0 + 0.02 * bh)
        col = sym[:, int(round(xc))]
        yy = np.nonzero(col)[0]
        if len(yy):
            dashed(
                img,
                np.array([[xc, yy.min() + off], [xc, yy.max() - 2.5 * off]]),
                dash=dash_len * 1.6,
                gap=dash_len,
                thickness=1,
                color=(110, 110, 110),
            )
        del yb
    _poly(img, cs, True, stroke)
    return Flat(rgb=img, fill=sym)


def _back_pockets(
    img: np.ndarray, xs: np.ndarray, ys: np.ndarray, bw: int, bh: int, thin: int
) -> None:
    xc, y0 = xs.mean(), ys.min()
    for sgn in (-1, 1):
        x_a, x_b = xc + sgn * 0.12 * bw, xc + sgn * 0.34 * bw
        y = y0 + 0.14 * bh
        _poly(img, np.array([[x_a, y], [x_b, y]]), False, thin)
        _poly(img, np.array([[x_a, y + 0.012 * bh], [x_b, y + 0.012 * bh]]), False, 1)


# --- parametric templates ---------------------------------------------------------------------


def _q(p0: Point, c: Point, p1: Point, n: int = 10) -> list[Point]:
    t = np.linspace(0, 1, n)[:, None]
    a, b, d = np.array(p0), np.array(c), np.array(p1)
    pts = (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t * t * d
    return [tuple(p) for p in pts]


def _mirror(pts: Sequence[Point]) -> list[Point]:
    return [(-x, y) for x, y in pts]


def _both(pts: Sequence[Point]) -> list[list[Point]]:
    return [list(pts), _mirror(pts)]


@dataclass
class _Spec:
    half: list[Point]  # right half outline from the top of the axis to the bottom of the axis
    lines: list[list[Point]]
    dashes: list[list[Point]]
    buttons: list[tuple[float, float, float]]


def _tee(view: str) -> _Spec:
    neck = 9.0 if view == "front" else 2.0
    half = (
        [(0, neck)]
        + _q((0, neck), (7.5, neck), (9, 0))[1:]
        + [(23, 4), (41.2, 14.5), (32.7, 29.2), (26, 24), (26, 70), (0, 70)]
    )
    band = _q((0, neck + 2.2), (8.2, neck + 2.2), (9.6, 1.8))
    lines = _both(band)
    hem = [(-25.4, 67.5), (25.4, 67.5)]
    cuff = [(39.6, 17.3), (31.4, 26.8)]
    dashes = (
        [hem, [(-25.4, 66.5), (25.4, 66.5)]] + _both(cuff) + _both([(x, y + 1.0) for x, y in band])
    )
    return _Spec(half, lines, dashes, [])


def _shirt(view: str) -> _Spec:
    neck = 8.0 if view == "front" else 2.0
    half = (
        [(0, neck)]
        + _q((0, neck), (7, neck), (8.5, 0))[1:]
        + [(23, 4), (47.5, 60.5), (38.5, 64.0), (27.5, 26), (27.5, 70)]
        + _q((27.5, 70), (22, 77), (0, 77))[1:]
    )
    cuff = [(45.1, 54.6), (36.1, 58.1)]
    lines = _both(cuff)
    dashes: list[list[Point]] = _both(
        [(p[0] - 0.6, p[1] + 2.2) for p in _q((27.0, 70), (22, 76.3), (0, 76.3))]
    )
    buttons: list[tuple[float, float, float]] = []
    if view == "front":
        collar = [(0, neck), (3.5, neck + 4.5), (10.5, 6.5), (8.5, 0)]
        lines += _both(collar)
        lines += [[(-1.8, neck + 3), (-1.8, 76.3)], [(1.8, neck + 3), (1.8, 76.3)]]
        buttons = [(0, neck + 4 + i * 9.4, 0.55) for i in range(7)]
        buttons += [(41.5, 58.2, 0.45), (-41.5, 58.2, 0.45)]
        lines += [[(12, 24), (21, 24), (21, 35), (16.5, 37), (12, 35), (12, 24)]]  # chest pocket
    else:
        lines += [_q((-23, 12), (0, 13.5), (23, 12))]  # yoke
        lines += [[(-2.5, 12.6), (-2.5, 22)], [(2.5, 12.6), (2.5, 22)]]  # box pleat
        lines += [[(0, 0), (0, 2)]]
        dashes += [[(x, 11.2) for x in np.linspace(-22.5, 22.5, 8)]]
    return _Spec(half, lines, dashes, buttons)


def _dress(view: str) -> _Spec:
    neck = 11.0 if view == "front" else 3.0
    half = (
        [(0, neck)]
        + _q((0, neck), (7, neck), (8, 0))[1:]
        + [(17, 3)]
        + _q((17, 3), (17, 17), (23, 20))[1:]
        + [(21, 30), (19, 40), (23, 55), (31, 96)]
        + _q((31, 96), (16, 98), (0, 98))[1:]
    )
    lines = [[(-19, 40), (19, 40)]]
    dashes = [[(p[0], p[1] - 3) for p in _q((-30.6, 96), (0, 98), (30.6, 96))]]
    dashes += _both(_q((8.6, 1.2), (8.4, neck + 1.4), (0.2, neck + 1.4)))
    dashes += _both([(p[0] - 1.2, p[1] + 0.6) for p in _q((17, 3), (17, 17), (23, 20))])
    if view == "front":
        lines += _both([(9, 40), (9.8, 30)]) + _both([(9, 40), (10.2, 52)])  # darts
    else:
        dashes += [[(0, neck + 1), (0, 58)]]  # invisible zip on the centre back
        lines += [[(-0.8, 58), (0.8, 58)]]
        lines += _both([(9, 40), (9.8, 28)]) + _both([(9, 40), (10.2, 54)])
    return _Spec(half, lines, dashes, [])


def _skirt(view: str) -> _Spec:
    half = [(0, 0), (18, 0), (18.3, 4), (25, 20), (31, 64)] + _q((31, 64), (16, 66), (0, 66))[1:]
    lines = [[(-18.3, 4), (18.3, 4)]]
    dashes = [[(-17.9, 1.2), (17.9, 1.2)], [(-18.1, 3.0), (18.1, 3.0)]]
    dashes += [[(p[0], p[1] - 2.8) for p in _q((-30.6, 64), (0, 66), (30.6, 64))]]
    buttons: list[tuple[float, float, float]] = []
    if view == "front":
        lines += _both([(9, 4), (9.5, 14)])
    else:
        dashes += [[(0, 4), (0, 23)]]
        lines += _both([(9, 4), (9.5, 15)])
        buttons = [(0, 2, 0.5)]
    return _Spec(half, lines, dashes, buttons)


def _trousers(view: str) -> _Spec:
    half = [(0, 0), (19.5, 0), (25.5, 20), (24.5, 104), (4.5, 104), (1.2, 34)] + _q(
        (1.2, 34), (0.8, 28), (0, 27)
    )[1:]
    lines = [[(-20.1, 4), (20.1, 4)]]
    dashes = [[(-19.7, 1.2), (19.7, 1.2)], [(-20.0, 3.0), (20.0, 3.0)]]
    dashes += _both([(24.4, 101.5), (4.6, 101.5)])
    buttons: list[tuple[float, float, float]] = []
    for x in (-16, -6.5, 6.5, 16):
        lines.append([(x - 0.6, -0.3), (x - 0.6, 5), (x + 0.6, 5), (x + 0.6, -0.3)])
    if view == "front":
        dashes += [[(0, 4)] + _q((-4, 4), (-4, 21), (0, 23))]  # fly J-stitch
        lines += [[(0, 4), (0, 26)]]
        lines += _both([(13.5, 4), (22.5, 17)])  # slant pockets
        dashes += _both([(14.5, 103), (14.5, 30)])  # pressed creases
        buttons = [(0, 2, 0.55)]
    else:
        lines += [[(0, 4), (0, 27)]]
        lines += _both([(6, 13), (17, 12.5)]) + _both([(6, 14), (17, 13.5)])  # welt pockets
        lines += _both([(0, 9), (22.5, 12)])  # yoke
    return _Spec(half, lines, dashes, buttons)


def _jacket(view: str) -> _Spec:
    half = (
        [(0, 9 if view == "front" else 2)]
        + _q((0, 9 if view == "front" else 2), (6, 7 if view == "front" else 2), (8.5, 0))[1:]
        + [(23, 3.5), (48, 60), (39, 63.5), (28, 26), (28.5, 74), (0, 74)]
    )
    lines: list[list[Point]] = []
    dashes: list[list[Point]] = _both([(45.9, 56.0), (37.4, 59.3)])
    buttons: list[tuple[float, float, float]] = []
    if view == "front":
        # Notched lapel, break at the top button; fronts overlap 2 cm.
        lines += [[(8.5, 0), (11, 7), (15, 10), (12.5, 13), (2, 40)]]
        lines += [[(-8.5, 0), (-11, 7), (-15, 10), (-12.5, 13), (0, 42), (0, 74)]]
        lines += [[(8.5, 0), (4, 12)], [(-8.5, 0), (-4, 12)]]
        buttons = [(-2, 44, 0.9), (-2, 55, 0.9)]
        for s in (1, -1):
            lines.append(
                [(s * 9, 52), (s * 23, 51.5), (s * 23.2, 57), (s * 9.2, 57.4), (s * 9, 52)]
            )
        lines.append([(-20, 24), (-11, 23.4), (-11, 25.2), (-20, 25.8), (-20, 24)])  # welt
        buttons += [(44.5, 55.8, 0.4), (43.2, 56.4, 0.4), (-44.5, 55.8, 0.4), (-43.2, 56.4, 0.4)]
        dashes += _both([(27.8, 71.5), (1.0, 71.5)])
    else:
        lines += [_q((-8.5, 0), (0, 1.2), (8.5, 0))]
        lines += [[(0, 2), (0, 74)], [(0, 55), (0, 74)]]
        lines += [[(-1.5, 55), (-1.5, 74)]]  # centre back vent
        dashes += _both([(28.3, 71.5), (0.4, 71.5)])
    return _Spec(half, lines, dashes, buttons)


_TEMPLATES = {
    "top": _tee,
    "shirt": _shirt,
    "dress": _dress,
    "skirt": _skirt,
    "trousers": _trousers,
    "jacket": _jacket,
}


def template_outline(garment_type: str, view: str = "front") -> np.ndarray:
    """The full closed outline of a template in centimetres (x about the axis, y down)."""
    spec = _TEMPLATES[normalise_type(garment_type)](view)
    right = spec.half
    left = _mirror(right[::-1])[1:-1]
    return np.array(right + left, np.float64)


def flat_from_template(
    garment_type: str,
    *,
    view: str = "front",
    size: tuple[int, int] = (800, 1000),
    margin: float = 0.06,
    stroke: int = 3,
) -> Flat:
    """A parametric flat for the garment type at size (w, h), centred."""
    kind = normalise_type(garment_type)
    spec = _TEMPLATES[kind](view)
    outline = template_outline(kind, view)
    W, H = size
    x0, y0 = outline.min(0)
    x1, y1 = outline.max(0)
    s = min(W * (1 - 2 * margin) / (x1 - x0), H * (1 - 2 * margin) / (y1 - y0))
    ox = W / 2 - s * (x0 + x1) / 2
    oy = H / 2 - s * (y0 + y1) / 2

    def tr(pts: Sequence[Point]) -> np.ndarray:
        return np.array([(ox + s * x, oy + s * y) for x, y in pts], np.float64)

    img = np.full((H, W, 3), 255, np.uint8)
    fill = np.zeros((H, W), np.uint8)
    cv2.fillPoly(fill, [np.round(tr(outline)).astype(np.int32)], 1)
    thin = max(1, stroke - 1)
    dash = max(5.0, 0.012 * max(W, H))
    for d in spec.dashes:
        dashed(img, tr(d), dash=dash, gap=dash * 0.6, thickness=thin)
    for ln in spec.lines:
        _poly(img, tr(ln), False, thin)
    for bx, by, r in spec.buttons:
        c = tr([(bx, by)])[0]
        rad = max(3, int(round(r * s)))
        cv2.circle(img, (int(round(c[0])), int(round(c[1]))), rad, INK, 1, cv2.LINE_AA)
        cv2.circle(
            img, (int(round(c[0])), int(round(c[1]))), max(1, rad // 3), INK, -1, cv2.LINE_AA
        )
    # Lines never spill outside the garment (collar points and loops sit on the edge).
    img[fill == 0] = 255
    _poly(img, tr(outline), True, stroke)
    return Flat(rgb=img, fill=fill.astype(bool))
