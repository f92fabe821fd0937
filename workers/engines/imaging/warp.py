"""Garment keypoints on a product cut-out, and a thin-plate-spline warp onto body landmarks.

The keypoints are read from the cut-out's silhouette alone (no learned model ships for it):
the torso column is the run of garment pixels around the centre in the hem rows, which stays
clear of sleeves that hang beside the body; shoulders are where that column starts at the top;
sleeve tips are the garment pixels outside the column farthest from the shoulder. Bottoms get
waist corners, the crotch (top of the gap between the legs) and each leg's hem.

The warp is a plain TPS solved from target to source (so every output pixel looks up where it
comes from) on a coarse grid, then upsampled and applied with ``cv2.remap``: one solve of a few
dozen points and one remap, a few milliseconds on a 512 px image.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Point = tuple[float, float]

UPPER = "upper_body"
LOWER = "lower_body"
ONE_PIECE = "one_piece"
CATEGORIES = (UPPER, LOWER, ONE_PIECE)


@dataclass(frozen=True)
class GarmentShape:
    category: str
    points: dict[str, Point]  # keypoints in cut-out pixels
    width: int
    height: int


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of every run of True in a 1-D bool array."""
    padded = np.concatenate([[False], row, [False]]).astype(np.int8)
    d = np.diff(padded)
    starts = np.nonzero(d == 1)[0]
    ends = np.nonzero(d == -1)[0]
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def _clean(alpha: np.ndarray) -> np.ndarray:
    mask = (alpha > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n > 2:
        areas = stats[1:, cv2.CC_STAT_AREA]
        keep = np.zeros(n, bool)
        keep[1:] = areas >= 0.05 * areas.max()
        mask = keep[labels].astype(np.uint8)
    return mask > 0


# Where, as a share of the garment's height from its hem, its two legs must already be apart.
LEGS_FROM_HEM = 0.15


def leg_split(mask: np.ndarray) -> float:
    """Share of the garment's height (from the bottom) over which it is two separate legs.

    Legs part at the garment's centre line; the cuffs of long sleeves hanging beside a top
    also leave separate runs in the bottom rows, but with the body of the top between them.
    The legs start at the hem: a split higher up, a camisole's V neck between its straps, is
    not one (it made a crop top "trousers", dressed at the hips).
    """
    ys = np.nonzero(mask.any(axis=1))[0]
    if len(ys) == 0:
        return 0.0
    y0, y1 = int(ys[0]), int(ys[-1]) + 1
    h = y1 - y0
    top = np.nonzero(mask[y0 : y0 + max(1, h // 10)].any(axis=0))[0]
    cx = (int(top[0]) + int(top[-1])) / 2
    split = 0
    for y in range(y1 - 1 - max(1, h // 50), y0, -1):
        runs = [r for r in _runs(mask[y]) if r[1] - r[0] > 0.04 * mask.shape[1]]
        apart = len(runs) >= 2 and not any(a <= cx < b for a, b in runs)
        if apart:
            split += 1
        elif split > 0 or y1 - y > LEGS_FROM_HEM * h:
            break
    return split / max(1, h)


def classify(alpha: np.ndarray) -> str:
    """Upper body, lower body or one-piece from the silhouette of a product cut-out.

    Trousers are the only garments whose bottom third splits into two legs; between a top and a
    dress the aspect ratio decides (a dress is about twice as tall as it is wide at the shoulders,
    a top about as tall as wide), with the hem-to-shoulder width ratio as a tie-breaker (skirts
    flare, tops hang straight).
    """
    mask = _clean(alpha)
    ys, xs = np.nonzero(mask)
    if len(ys) == 0:
        return UPPER
    h = ys.max() - ys.min() + 1
    w = xs.max() - xs.min() + 1
    if leg_split(mask) > 0.25:
        return LOWER
    y0 = ys.min()
    top_row = mask[y0 + int(0.15 * h)]
    mid_row = mask[y0 + int(0.5 * h)]
    top_w = top_row.sum()
    mid_w = max(1, mid_row.sum())
    aspect = h / w
    # A straight narrow silhouette without sleeves that is much taller than wide: a dress; a
    # garment wider than tall, or with sleeves wider than its middle: a top.
    if aspect >= 1.55:
        return ONE_PIECE
    if aspect <= 1.2:
        return UPPER
    return ONE_PIECE if top_w <= 1.15 * mid_w and aspect > 1.35 else UPPER


def _torso_column(mask: np.ndarray, y0: int, y1: int) -> tuple[int, int]:
    """Left and right x of the run containing the garment's centre, in the hem rows."""
    h = y1 - y0
    cx = int(np.median(np.nonzero(mask[y0 + h // 3 : y1].any(axis=0))[0])) if h > 3 else mask.shape[1] // 2
    lefts, rights = [], []
    for y in range(y0 + int(0.78 * h), y0 + int(0.95 * h)):
        for a, b in _runs(mask[y]):
            if a <= cx < b:
                lefts.append(a)
                rights.append(b - 1)
                break
    if not lefts:
        xs = np.nonzero(mask.any(axis=0))[0]
        return int(xs[0]), int(xs[-1])
    return int(np.median(lefts)), int(np.median(rights))


def _bodice_column(mask: np.ndarray, y0: int, y1: int) -> tuple[int, int, int]:
    """Left and right x of a dress's bodice and the row of its waist.

    A skirt flares past the shoulders, so the hem rows say nothing of the body's width: the
    narrowest run through the centre between a sixth and a half of the height is the waist,
    and the bodice is a little wider than that.
    """
    h = y1 - y0
    top = np.nonzero(mask[y0 : y0 + max(1, h // 10)].any(axis=0))[0]
    cx = (int(top[0]) + int(top[-1])) // 2
    best: tuple[int, int, int] | None = None
    for y in range(y0 + h // 6, y0 + h // 2):
        run = next(((a, b) for a, b in _runs(mask[y]) if a <= cx < b), None)
        if run and (best is None or run[1] - run[0] < best[1] - best[0]):
            best = (run[0], run[1], y)
    if best is None:
        left, right = _torso_column(mask, y0, y1)
        return left, right, y0 + int(0.38 * h)
    a, b, yw = best
    grow = int(0.08 * (b - a))
    return a - grow, b - 1 + grow, yw


def _strap_top(mask: np.ndarray, x_from: int, x_to: int, y0: int) -> tuple[float, float]:
    """The outer top corner of a strap or shoulder between two columns (outer to inner)."""
    step = 1 if x_to >= x_from else -1
    xs = list(range(x_from, x_to, step))
    tops = np.array([_top_of_column(mask, x) if mask[:, x].any() else mask.shape[0] for x in xs])
    best = int(tops.min())
    reach = max(2, int(0.03 * abs(x_to - x_from)) + 2)
    i = int(np.nonzero(tops <= best + reach)[0][0])
    return float(xs[i]), float(tops[i])


class UnreadableSleeves(ValueError):
    """The silhouette does not say whether a top has sleeves: no wrong lay is better."""


# How much of the way from a strap's (or the neck's) top corner out to the side the outline
# stays in the upper three quarters of the drop to the side: an armhole is a notch cut
# straight down from the strap (0.04 to 0.16 on our sleeveless product shots), a shoulder a
# ledge that a hanging sleeve falls from (0.53 to 0.86 on the ruffled, bell-sleeved and
# long-sleeved shots whose sleeves touch the body). In between the reading is a guess.
ARMHOLE_LEDGE = 0.25
SLEEVE_LEDGE = 0.45
# And each such sleeve, from the shoulder's corner out to the side, is at least this share of
# the width across the sides (0.11 and 0.17 on the bell and ruffled sleeves; 0.005 on a
# long-sleeved dress whose rounded sleeve heads give no corner: where it is sewn on is a guess).
SLEEVE_WIDTH = 0.06


def _outline_tops(mask: np.ndarray, a: Point, b: Point) -> tuple[np.ndarray, np.ndarray]:
    x0, x1 = sorted((int(a[0]), int(b[0])))
    xs = np.arange(x0, x1 + 1)
    return xs, np.array([_top_of_column(mask, int(x)) for x in xs], np.float64)


def _shoulder_ledge(mask: np.ndarray, strap: Point, edge: Point) -> float:
    """Share of the columns between a strap's top corner and the top of the body's side whose
    top lies in the upper three quarters of the drop between them."""
    xs, tops = _outline_tops(mask, strap, edge)
    if len(xs) < 3:
        return 0.0
    return float((tops < strap[1] + 0.75 * (edge[1] - strap[1])).mean())


def _shoulder_corner(mask: np.ndarray, neck: Point, edge: Point) -> Point:
    """Where the top outline between the neck and a hanging sleeve's side turns from running
    out along the shoulder to running down the sleeve: its point farthest above the line
    from the collar's foot (the neck's corner when there is no collar) to the side."""
    xs, tops = _outline_tops(mask, neck, edge)
    if xs[0] != int(neck[0]):
        xs, tops = xs[::-1], tops[::-1]
    out = np.abs(xs - neck[0])
    # A stand-up collar or a bow drops straight down before the shoulder line starts.
    half = max(1, len(xs) // 2)
    b = int(np.argmax((tops - neck[1] - out)[:half]))
    run = max(float(out[-1] - out[b]), 1.0)
    chord = tops[b] + (out - out[b]) * (tops[-1] - tops[b]) / run
    i = b + int(np.argmax((chord - tops)[b:]))
    return float(xs[i]), float(tops[i])


def _top_of_column(mask: np.ndarray, x: int) -> int:
    col = np.nonzero(mask[:, max(0, min(mask.shape[1] - 1, x))])[0]
    return int(col[0]) if len(col) else 0


def garment_keypoints(alpha: np.ndarray, category: str) -> GarmentShape:
    """Keypoints of a front product shot's silhouette, in its own pixel coordinates."""
    mask = _clean(alpha)
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    y0, y1 = int(ys.min()), int(ys.max()) + 1
    gx0, gx1 = int(xs.min()), int(xs.max())
    gh = y1 - y0
    pts: dict[str, Point] = {}
    if category == LOWER:
        top_runs = _runs(mask[y0 + max(1, gh // 60)])
        a, b = top_runs[0][0], top_runs[-1][1] - 1
        pts["waist_l"] = (float(a), float(y0))
        pts["waist_r"] = (float(b), float(y0))
        # Crotch: the highest row where the centre between the waist corners is background,
        # below the top quarter (belt loops and bows leave gaps up there).
        cx = (a + b) // 2
        crotch_y = y0 + int(0.35 * gh)
        for y in range(y0 + gh // 6, y1):
            if not mask[y, cx]:
                crotch_y = y
                break
        pts["crotch"] = (float(cx), float(crotch_y))
        # The hips' outer edges at the crotch's height.
        hip_run = np.nonzero(mask[min(crotch_y, y1 - 1)])[0]
        if len(hip_run):
            pts["hip_l_out"] = (float(hip_run[0]), float(crotch_y))
            pts["hip_r_out"] = (float(hip_run[-1]), float(crotch_y))
        yb = y1 - 1 - max(1, gh // 80)
        runs = [r for r in _runs(mask[yb]) if r[1] - r[0] > 2]
        if len(runs) >= 2:
            (la, lb), (ra, rb) = runs[0], runs[-1]
        else:
            la, rb = (runs[0] if runs else (gx0, gx1))
            lb = ra = (la + rb) // 2
        pts["hem_l_out"] = (float(la), float(yb))
        pts["hem_l_in"] = (float(lb - 1), float(yb))
        pts["hem_r_in"] = (float(ra), float(yb))
        pts["hem_r_out"] = (float(rb - 1), float(yb))
        yk = (crotch_y + yb) // 2
        runs = [r for r in _runs(mask[yk]) if r[1] - r[0] > 2]
        if len(runs) >= 2:
            pts["knee_l_out"] = (float(runs[0][0]), float(yk))
            pts["knee_l_in"] = (float(runs[0][1] - 1), float(yk))
            pts["knee_r_in"] = (float(runs[-1][0]), float(yk))
            pts["knee_r_out"] = (float(runs[-1][1] - 1), float(yk))
        return GarmentShape(LOWER, pts, w, h)

    if category == ONE_PIECE:
        left, right, waist_y = _bodice_column(mask, y0, y1)
    else:
        left, right = _torso_column(mask, y0, y1)
    left, right = max(left, gx0), min(right, gx1)
    inset = max(1, int(0.04 * (right - left)))
    sl = (float(left + inset), float(_top_of_column(mask, left + inset)))
    sr = (float(right - inset), float(_top_of_column(mask, right - inset)))
    cx0 = (left + right) // 2
    # Sleeveless: the column's edge starts at the armhole, far below the straps; the shoulders
    # are then the straps' outer top corners and the armhole's bottom is the armpit.
    hanging = False
    if max(sl[1], sr[1]) - y0 > 0.25 * (right - left):
        straps = (_strap_top(mask, left, cx0, y0), _strap_top(mask, right, cx0, y0))
        ledge = min(_shoulder_ledge(mask, strap, edge)
                    for strap, edge in zip(straps, (sl, sr), strict=True))
        if ledge <= ARMHOLE_LEDGE:
            pts["armhole_l"], pts["armhole_r"] = sl, sr
            sl, sr = straps
        elif ledge < SLEEVE_LEDGE:
            raise UnreadableSleeves(
                f"the outline between neck and sides is neither an armhole nor a shoulder "
                f"(ledge {ledge:.2f})")
        else:
            # Sleeves hanging against the body: the hem rows' column ran out along them. The
            # shoulders are where the outline turns from the shoulder line down the sleeve,
            # and the body hangs from there.
            corners = (_shoulder_corner(mask, straps[0], sl), _shoulder_corner(mask, straps[1], sr))
            # A sleeve reads as one only where the outline turns down well inside the side; a
            # puffed sleeve head that rounds over evenly hides where the sleeve is sewn on.
            sleeve_w = min(corners[0][0] - sl[0], sr[0] - corners[1][0]) / max(1.0, sr[0] - sl[0])
            if sleeve_w < SLEEVE_WIDTH:
                raise UnreadableSleeves(f"no shoulder corner inside the sides ({sleeve_w:.2f})")
            sl, sr = corners
            left, right = int(sl[0]), int(sr[0])
            cx0 = (left + right) // 2
            hanging = True
    pts["shoulder_l"], pts["shoulder_r"] = sl, sr
    top_runs = _runs(mask[y0 + max(1, gh // 80)])
    if top_runs:
        pts["neck_l"] = (float(top_runs[0][0]), float(y0))
        pts["neck_r"] = (float(top_runs[-1][1] - 1), float(y0))
    yb = y1 - 1 - max(1, gh // 80)
    hem_runs = _runs(mask[yb])
    cx = (left + right) // 2
    hem = next(((a, b) for a, b in hem_runs if a <= cx < b), (left, right + 1))
    if hanging:
        # The sleeves' ends can touch the hem: the body's hem is not much wider than its
        # shoulders (a peplum's or an A-line top's flare, 0.1 of the shoulders each side).
        flare = int(0.1 * (right - left))
        hem = (max(hem[0], left - flare), min(hem[1], right + 1 + flare))
    pts["hem_l"] = (float(hem[0]), float(yb))
    pts["hem_r"] = (float(hem[1] - 1), float(yb))
    # Sleeves: garment pixels clearly outside the torso column, above the hem rows.
    tw = right - left
    margin = max(2, int(0.06 * tw))
    for side, sel, shoulder in (("l", xs < left - margin, sl), ("r", xs > right + margin, sr)):
        # A dress's skirt flares past the bodice below the waist: that is no sleeve.
        sel = sel & (ys < (waist_y if category == ONE_PIECE else y0 + 0.9 * gh))
        if sel.sum() < 0.004 * mask.sum():
            continue
        sx, sy = xs[sel].astype(np.float32), ys[sel].astype(np.float32)
        # The sleeve's end: the middle of its cuff, on the line from the shoulder through the
        # sleeve's centroid (its far corner would tilt the whole sleeve when it is swung).
        axis = np.array([sx.mean() - shoulder[0], sy.mean() - shoulder[1]])
        axis /= max(float(np.linalg.norm(axis)), 1e-6)
        reach = float(np.percentile((sx - shoulder[0]) * axis[0] + (sy - shoulder[1]) * axis[1], 97))
        pts[f"sleeve_{side}"] = (float(shoulder[0] + axis[0] * reach), float(shoulder[1] + axis[1] * reach))
        # The sleeve's outline, so the warp can swing the whole sleeve rather than its tip.
        sub = np.zeros(mask.shape, np.uint8)
        sub[ys[sel], xs[sel]] = 1
        cnts, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if cnts:
            hull = cv2.convexHull(max(cnts, key=cv2.contourArea))
            poly = cv2.approxPolyDP(hull, 0.08 * cv2.arcLength(hull, True), True).reshape(-1, 2)
            for i, (px, py) in enumerate(poly[:8]):
                pts[f"sleeve_{side}_h{i}"] = (float(px), float(py))
        # Armpit: where a gap opens between the sleeve's underside and the torso column. A long
        # sleeve hanging against the body leaves no gap: then at a tee's usual armhole depth.
        edge_x = left if side == "l" else right
        probe = slice(max(0, edge_x - 2 * margin), edge_x - margin) if side == "l" else slice(
            edge_x + margin + 1, min(w, edge_x + 2 * margin + 1))
        y_sh = int(shoulder[1])
        armpit_y = None
        in_sleeve = False
        for y in range(y_sh + 2, min(y1, int(y_sh + 0.9 * tw))):
            full = bool(mask[y, probe].all())
            if full:
                in_sleeve = True
            elif in_sleeve and mask[y, edge_x]:
                armpit_y = y
                break
        if armpit_y is None:
            armpit_y = int(y_sh + 0.6 * tw)
        pts[f"armpit_{side}"] = (float(edge_x), float(armpit_y))
    if "armpit_l" in pts and "armpit_r" in pts:
        # Garments are symmetric: a white print touching the outline can open a false gap on
        # one side, which only ever makes an armpit too high.
        y_pit = max(pts["armpit_l"][1], pts["armpit_r"][1])
        pts["armpit_l"] = (pts["armpit_l"][0], y_pit)
        pts["armpit_r"] = (pts["armpit_r"][0], y_pit)
    if category == ONE_PIECE:
        yw = waist_y
        runs = _runs(mask[yw])
        run = next(((a, b) for a, b in runs if a <= cx < b), None)
        if run:
            pts["waist_l"] = (float(run[0]), float(yw))
            pts["waist_r"] = (float(run[1] - 1), float(yw))
    return GarmentShape(category, pts, w, h)


# --- thin-plate spline ------------------------------------------------------------------------


def _tps_kernel(r2: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        k = r2 * np.log(r2)
    return np.nan_to_num(k)


def _tps_solve(src: np.ndarray, dst: np.ndarray, reg: float) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients of f with f(src_i) ~= dst_i (2-D, both arrays Nx2)."""
    n = len(src)
    d2 = ((src[:, None, :] - src[None, :, :]) ** 2).sum(-1)
    k = _tps_kernel(d2) + reg * np.eye(n)
    p = np.hstack([np.ones((n, 1)), src])
    a = np.zeros((n + 3, n + 3))
    a[:n, :n], a[:n, n:], a[n:, :n] = k, p, p.T
    b = np.zeros((n + 3, 2))
    b[:n] = dst
    sol = np.linalg.lstsq(a, b, rcond=None)[0]
    return sol[:n], sol[n:]


def tps_maps(
    src_pts: np.ndarray,
    dst_pts: np.ndarray,
    out_size: tuple[int, int],
    *,
    regularisation: float = 1e-3,
    grid_step: int = 8,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``cv2.remap`` maps (x, y) of the TPS taking src_pts to dst_pts, out_size (w, h).

    Solved as the inverse map (destination to source) and evaluated every ``grid_step`` pixels,
    then upsampled: a TPS is smooth, so the coarse grid loses nothing visible.
    """
    ow, oh = out_size
    src = np.asarray(src_pts, np.float64)
    dst = np.asarray(dst_pts, np.float64)
    # Normalise for conditioning: the kernel's log makes raw pixel units ill-scaled.
    scale = float(max(ow, oh))
    dn, sn = dst / scale, src / scale
    w, a = _tps_solve(dn, sn, regularisation)
    gx = np.arange(0, ow + grid_step, grid_step, dtype=np.float64)
    gy = np.arange(0, oh + grid_step, grid_step, dtype=np.float64)
    mx, my = np.meshgrid(gx, gy)
    q = np.stack([mx.ravel(), my.ravel()], 1) / scale
    d2 = ((q[:, None, :] - dn[None, :, :]) ** 2).sum(-1)
    f = a[0] + q @ a[1:] + _tps_kernel(d2) @ w
    fx = (f[:, 0] * scale).reshape(mx.shape).astype(np.float32)
    fy = (f[:, 1] * scale).reshape(mx.shape).astype(np.float32)
    full_w, full_h = len(gx) * grid_step, len(gy) * grid_step
    # resize aligns pixel centres (output x reads grid (x + 0.5) / step - 0.5), so read each
    # pixel (step - 1) / 2 further on to land grid sample i on pixel i * step.
    off = (grid_step - 1) / 2.0
    m = np.float32([[1, 0, off], [0, 1, off]])
    maps = []
    for f_ in (fx, fy):
        up = cv2.resize(f_, (full_w, full_h), interpolation=cv2.INTER_LINEAR)
        up = cv2.warpAffine(
            up, m, (full_w, full_h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        maps.append(np.ascontiguousarray(up[:oh, :ow]))
    return maps[0], maps[1]


def tps_warp(
    image: np.ndarray,
    src_pts: np.ndarray,
    dst_pts: np.ndarray,
    out_size: tuple[int, int],
    *,
    regularisation: float = 1e-3,
    grid_step: int = 8,
    border_value: float | tuple[float, ...] = 0,
) -> np.ndarray:
    """Warp ``image`` so that src_pts land on dst_pts, into an image of out_size (w, h)."""
    map_x, map_y = tps_maps(src_pts, dst_pts, out_size, regularisation=regularisation,
                            grid_step=grid_step)
    return cv2.remap(
        image, map_x, map_y, interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT, borderValue=border_value,
    )
