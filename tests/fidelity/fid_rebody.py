"""Rebody: does each body type change the silhouette by what it promises, and does the backdrop
stay unbent?

- Widths: the person mask (segmentation of the output, not the engine's own mask) is measured
  at the bust, waist and hip heights read off each image's own pose, before and after; the
  change in per cent must be within 3 points of the amount the body type states in the engine.
- Straight lines: a grid of thin magenta lines is drawn into the backdrop of the photo (up to
  the person's outline, so some run right beside the body), the engine runs on that picture,
  and the Hough segments of the lines in the output are compared with the drawn lines: the
  angle of no segment may differ from its line's by 1 degree or more.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import cv2
import numpy as np
from skimage.color import deltaE_ciede2000, rgb2lab

from tests.fidelity.common import Bar, ToolReport, contact_sheet, photo
from workers.engines import rebody
from workers.engines.imaging import pose as pose_mod

# Full figure in a light dress, full figure in jeans, a man in trousers, a half-length figure.
PHOTOS = ["model/model_8.png", "model/model_9.png", "model/049205_0", "model/model_1.png"]
BANDS = ("shoulders", "bust", "waist", "hips")
WIDTH_TOLERANCE = 3.0  # percentage points
ANGLE_LIMIT = 1.0  # degrees
# Where the figure moved away, the backdrop put back: its worst 1 % of pixels may differ from
# the smooth backdrop around it by this much (a plain studio backdrop varies by far less; the
# ghost of an old leg or a block of the wrong grey shows as 8 and more).
FILL_LIMIT = 6.0  # ΔE2000
MAGENTA = (255, 0, 255)


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """(first, last) of each run of person pixels in a row, slivers under 3 px left out."""
    edges = np.diff(np.concatenate(([0], row.astype(np.int8), [0])))
    starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
    return [(int(a), int(b) - 1) for a, b in zip(starts, ends, strict=True) if b - a >= 3]


def _centre_run(runs: list[tuple[int, int]], x: float, reach: float) -> int | None:
    """Index of the run holding column ``x``, else of the nearest within ``reach``."""
    best, best_d = None, reach
    for i, (a, b) in enumerate(runs):
        d = 0.0 if a <= x <= b else min(abs(a - x), abs(b - x))
        if d <= best_d:
            best, best_d = i, d
    return best


def _count_beside(runs: list[tuple[int, int]], i: int, step: int, bridge: float,
                  wanted: int | None = None, sliver: float = -1.0) -> int:
    """How many runs beside run ``i`` (going left for step -1, right for +1) belong to the
    body: each within ``bridge`` px of the one before it; with ``wanted``, no more than that
    many, beyond any that lie within ``sliver`` px (a split, not a part)."""
    count, taken = 0, 0
    j = i
    while 0 <= j + step < len(runs):
        a, b = (runs[j], runs[j + step]) if step > 0 else (runs[j + step], runs[j])
        gap = b[0] - a[1] - 1
        if gap <= sliver:
            pass
        elif gap <= bridge and (wanted is None or taken < wanted):
            taken += 1
        else:
            break
        count += 1
        j += step
    return count


_SEEN: dict[tuple[str, bytes], object] = {}


def _once(kind: str, rgb: np.ndarray, compute):  # type: ignore[no-untyped-def]
    """``compute(rgb)``, remembered for this very picture (the photo before the change is
    measured against every body type)."""
    key = (kind, hashlib.sha1(rgb.tobytes()).digest() + bytes(str(rgb.shape), "ascii"))
    if key not in _SEEN:
        if len(_SEEN) > 64:
            _SEEN.clear()
        _SEEN[key] = compute(rgb)
    return _SEEN[key]


def person_mask(rgb: np.ndarray) -> np.ndarray:
    return _once("mask", rgb, pose_mod.person_mask)  # type: ignore[no-any-return]


def silhouette(rgb: np.ndarray) -> tuple[rebody.Body, np.ndarray]:
    """The body's landmarks and its person mask (segmentation of this very image)."""
    return _once("silhouette", rgb, _silhouette)  # type: ignore[no-any-return]


def _silhouette(rgb: np.ndarray) -> tuple[rebody.Body, np.ndarray]:
    p = pose_mod.detect_pose(rgb)
    body = rebody.body_from_pose(p) if p is not None else None
    if body is None:
        raise AssertionError("no body found to measure")
    m = (person_mask(rgb) > 0.5).astype(np.uint8)
    return body, cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)).astype(bool)


def width_changes(before: np.ndarray, after: np.ndarray, *, same_rows: bool = True
                  ) -> dict[str, float]:
    """Per cent change of the body's width at each band (and of the figure's height).

    The body's width in a row is the run of the person mask around the body's centre line
    (the torso) together with any run beside it that is closer than a tenth of the shoulder
    width in the photo before the change (an arm or hand against the torso); an arm hanging
    clear of the torso is not the body. The same parts are measured after the change: the
    torso's run and as many runs beside it on each side, so a gap that widened or closed by a
    pixel does not change what is measured. The band heights come from the pose of the photo
    before the change, or with ``same_rows=False`` (a body type that moves the body, Petite)
    from each photo's own pose. A band outside the picture is NaN.
    """
    body_b, mask_b = silhouette(before)
    body_a, mask_a = silhouette(after)
    if same_rows:
        body_a = body_b
    bridge = 0.1 * body_b.shoulder_width
    reach = 0.15 * body_b.shoulder_width
    h = mask_b.shape[0]
    out: dict[str, float] = {}
    for band in BANDS:
        yb, ya = round(body_b.band_y(band)), round(body_a.band_y(band))
        wb, wa = [], []
        for i in range(-3, 4):
            if not (0 <= yb + i < h and 0 <= ya + i < h):
                continue
            rb = _runs(mask_b[yb + i])
            ra = _runs(mask_a[ya + i])
            ib = _centre_run(rb, float(body_b.centre_x(np.array([yb + i]))[0]), reach)
            ia = _centre_run(ra, float(body_a.centre_x(np.array([ya + i]))[0]), reach)
            if ib is None or ia is None:
                continue
            left = _count_beside(rb, ib, -1, bridge)
            right = _count_beside(rb, ib, +1, bridge)
            wb.append(rb[ib + right][1] - rb[ib - left][0] + 1)
            # After: the same number of parts beside the torso (each still close to it), and
            # any sliver the segmentation split off by a hair's breadth.
            la = _count_beside(ra, ia, -1, 1.3 * bridge, left, 0.08 * body_b.shoulder_width)
            rr = _count_beside(ra, ia, +1, 1.3 * bridge, right, 0.08 * body_b.shoulder_width)
            wa.append(ra[ia + rr][1] - ra[ia - la][0] + 1)
        out[band] = (100.0 * (float(np.median(wa)) / float(np.median(wb)) - 1.0)
                     if wb else float("nan"))
    rows_b = np.nonzero(mask_b.any(axis=1))[0]
    rows_a = np.nonzero(mask_a.any(axis=1))[0]
    out["height"] = 100.0 * ((rows_a[-1] - rows_a[0]) / (rows_b[-1] - rows_b[0]) - 1.0)
    return out


def promised(name: str) -> dict[str, float]:
    bt = rebody.BODY_TYPES[name]
    return {band: 100.0 * bt.at(band) for band in BANDS}


def width_errors(name: str, change: dict[str, float]) -> dict[str, float]:
    """|measured - promised| in percentage points per band that is in the picture."""
    want = promised(name)
    return {b: abs(change[b] - want[b]) for b in BANDS if np.isfinite(change[b])}


# --- straight lines -------------------------------------------------------------------------


def draw_lines(rgb: np.ndarray) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """The photo with a grid of 2 px magenta lines in its backdrop (not on the person).

    Vertical lines every 1/9 of the width, horizontal every 1/10 of the height and two
    diagonals; the lines stop at the person's outline, so several pass right beside the body.
    """
    h, w = rgb.shape[:2]
    lines: list[tuple[float, float, float, float]] = []
    for i in range(1, 9):
        x = w * i / 9
        lines.append((x, 0, x, h - 1))
    for j in range(1, 10):
        y = h * j / 10
        lines.append((0, y, w - 1, y))
    lines += [(0, 0.15 * h, w - 1, 0.55 * h), (0, 0.85 * h, w - 1, 0.6 * h)]
    layer = np.zeros((h, w), np.uint8)
    thick = max(2, round(max(h, w) / 256))
    for x0, y0, x1, y1 in lines:
        cv2.line(layer, (round(x0), round(y0)), (round(x1), round(y1)), 255, thick, cv2.LINE_AA)
    person = person_mask(rgb)
    a = (layer / 255.0) * (person < 0.3)
    out = rgb * (1 - a[..., None]) + np.array(MAGENTA) * a[..., None]
    return np.clip(out + 0.5, 0, 255).astype(np.uint8), lines


def _angle(x0: float, y0: float, x1: float, y1: float) -> float:
    return float(np.degrees(np.arctan2(y1 - y0, x1 - x0))) % 180.0


def _ink(rgb: np.ndarray, lines: list[tuple[float, float, float, float]],
         person: np.ndarray) -> np.ndarray:
    """Magenta line pixels of the backdrop (a mask), without the crossings of two drawn lines
    (there the ink of one would tilt the fit of the other)."""
    h, w = rgb.shape[:2]
    px = rgb.astype(np.int16)
    ink = (px[..., 0] > 170) & (px[..., 2] > 170) & (px[..., 1] < 110)
    ink &= ~person
    count = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in lines:
        corridor = np.zeros((h, w), np.uint8)
        cv2.line(corridor, (round(x0), round(y0)), (round(x1), round(y1)), 1, 7)
        count += corridor
    ink &= count < 2
    return ink


def _fit_angle(pts: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> float | None:
    """Sub-pixel angle (degrees, 0..180) of the ink within 2.5 px of the segment, or None."""
    length = float(np.hypot(x1 - x0, y1 - y0))
    u = np.array([x1 - x0, y1 - y0]) / length
    rel = pts - (x0, y0)
    along = rel @ u
    across = np.abs(rel @ np.array([-u[1], u[0]]))
    near = pts[(across <= 2.5) & (along >= 0) & (along <= length)]
    if len(near) < 0.5 * length:
        return None
    vx, vy, _, _ = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return float(np.degrees(np.arctan2(vy, vx))) % 180.0


def line_angle_changes(
    before: np.ndarray, after: np.ndarray, lines: list[tuple[float, float, float, float]]
) -> tuple[float, int]:
    """(largest angle change in degrees of a backdrop line, Hough segments seen in ``after``).

    Each Hough segment of the magenta lines in ``after`` is refitted to its own ink, and to
    the ink of ``before`` along the same stretch; the angle change is the difference. A segment
    with no line under it in ``before`` is compared with the drawn line it lies along, and one
    that lies along no drawn line (a line bent or torn apart) counts as 90 degrees.
    """
    h, w = after.shape[:2]
    # Only the backdrop, and the same stretch of it in both: where the person's outline (before
    # or after) cuts a line, its end is not its course.
    person = (person_mask(before) > 0.05) | (person_mask(after) > 0.05)
    person = cv2.dilate(person.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool)
    ink_after = _ink(after, lines, person)
    ink_before = _ink(before, lines, person)
    min_len = max(20, round(0.055 * max(h, w)))
    segs = cv2.HoughLinesP(ink_after.astype(np.uint8) * 255, 1, np.pi / 720,
                           threshold=min_len, minLineLength=min_len, maxLineGap=2)
    if segs is None:
        return float("nan"), 0
    pts_a = np.stack(np.nonzero(ink_after)[::-1], axis=1).astype(np.float64)
    pts_b = np.stack(np.nonzero(ink_before)[::-1], axis=1).astype(np.float64)
    worst = 0.0
    for x0, y0, x1, y1 in segs[:, 0, :].astype(float):
        angle = _fit_angle(pts_a, x0, y0, x1, y1)
        if angle is None:
            continue
        reference = _fit_angle(pts_b, x0, y0, x1, y1)
        if reference is None:
            for lx0, ly0, lx1, ly1 in lines:
                d = np.array([lx1 - lx0, ly1 - ly0])
                n = np.array([-d[1], d[0]]) / np.hypot(*d)
                off = max(abs(np.dot([x0 - lx0, y0 - ly0], n)),
                          abs(np.dot([x1 - lx0, y1 - ly0], n)))
                if off <= 4.0:
                    reference = _angle(lx0, ly0, lx1, ly1)
        diff = 90.0
        if reference is not None:
            diff = abs(angle - reference)
            diff = min(diff, 180.0 - diff)
        worst = max(worst, diff)
    return worst, len(segs)


def stray_ink(after: np.ndarray, lines: list[tuple[float, float, float, float]]) -> int:
    """Magenta pixels of ``after`` more than 3 px from every drawn line: a line smeared or
    dragged where the backdrop was filled in. The lines' own continuation does not count."""
    h, w = after.shape[:2]
    px = after.astype(np.int16)
    ink = (px[..., 0] > 170) & (px[..., 2] > 170) & (px[..., 1] < 110)
    corridor = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1 in lines:
        cv2.line(corridor, (round(x0), round(y0)), (round(x1), round(y1)), 1, 7)
    return int((ink & (corridor == 0)).sum())


def fill_ghost(rgb: np.ndarray, out: np.ndarray, before: np.ndarray) -> float:
    """The 99th percentile ΔE2000, over the backdrop the engine put back (backdrop after, 1 %
    of the long side off the figure, where the segmentation is sure, and changed from the
    input), between the output and the plain backdrop
    around it smoothed (a normalised blur, 4 % of the long side): an old outline, a smear or
    a block of another grey in the fill stands out against it."""
    h, w = before.shape
    after = person_mask(out) > 0.5
    r = max(2, round(0.01 * max(h, w)))
    ring = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    changed = np.abs(out.astype(np.int16) - rgb.astype(np.int16)).max(axis=-1) > 6
    put_back = changed & ~cv2.dilate(after.astype(np.uint8), ring).astype(bool)
    k = max(5, round(0.02 * max(h, w)) | 1)
    near = cv2.dilate(((before > 0.5) | after).astype(np.uint8),
                      cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0
    plain = (~near).astype(np.float32)
    sigma = 0.04 * max(h, w)
    den = cv2.GaussianBlur(plain, (0, 0), sigma)
    num = cv2.GaussianBlur(out.astype(np.float32) * plain[..., None], (0, 0), sigma)
    around = num / np.maximum(den, 1e-6)[..., None]
    sure = put_back & (den > 0.05)
    if sure.sum() < 20:
        return 0.0
    lab_out = rgb2lab(out[sure][None].astype(np.float32) / 255.0)
    lab_around = rgb2lab(np.clip(around[sure], 0, 255)[None] / 255.0)
    return float(np.percentile(deltaE_ciede2000(lab_out, lab_around), 99))


def outline(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``rgb`` with the outline of ``mask`` drawn in cyan (the silhouette before the change)."""
    contours, _ = cv2.findContours((mask > 0.5).astype(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_NONE)
    out = rgb.copy()
    cv2.drawContours(out, contours, -1, (0, 220, 255), 1)
    return out


def measure(out_dir: Path) -> ToolReport:
    report = ToolReport("rebody")
    sheet_rows: list[tuple[str, list[np.ndarray]]] = []
    worst_width, worst_angle, worst_fill = 0.0, 0.0, 0.0
    for name in PHOTOS:
        rgb = photo(name)
        lined, lines = draw_lines(rgb)
        before_angle, _ = line_angle_changes(lined, lined, lines)
        mask = person_mask(rgb)
        outs, lined_outs = [], []
        for bt_name, bt in rebody.BODY_TYPES.items():
            out, _ = rebody.rebody(rgb, bt)
            change = width_changes(rgb, out, same_rows=not bt.height)
            errs = width_errors(bt_name, change)
            lined_out, _ = rebody.rebody(lined, bt)
            angle, _ = line_angle_changes(lined, lined_out, lines)
            worst_width = max([worst_width, *errs.values()])
            ghost = fill_ghost(rgb, out, mask)
            worst_fill = max(worst_fill, ghost)
            worst_angle = max(worst_angle, angle if np.isfinite(angle) else 90.0)
            want = promised(bt_name)
            row: dict[str, object] = {"photo": name.split("/")[-1], "body type": bt_name}
            for band in BANDS:
                row[band] = (
                    f"{change[band]:+.1f}% ({want[band]:+.0f})" if np.isfinite(change[band])
                    else "out of frame"
                )
            row["height"] = f"{change['height']:+.1f}%"
            row["worst width error (pt)"] = round(max(errs.values()), 2)
            row["line angle change (deg)"] = round(angle, 2)
            row["stray line px"] = stray_ink(lined_out, lines)
            row["fill vs backdrop p99 (ΔE)"] = round(ghost, 2)
            row["mean change (/255)"] = round(float(np.abs(out.astype(int) - rgb).mean()), 1)
            report.rows.append(row)
            outs.append(out)
            lined_outs.append(outline(lined_out, mask))
        short = name.split("/")[-1]
        sheet_rows.append((f"{short}: original | " + " | ".join(rebody.BODY_TYPES),
                           [rgb, *outs]))
        sheet_rows.append((f"{short} with backdrop lines (input against itself "
                           f"{before_angle:.2f} deg); cyan = silhouette before",
                           [lined, *lined_outs]))
    report.bars.append(Bar("worst silhouette width error vs the stated change", worst_width,
                           WIDTH_TOLERANCE, unit=" pt"))
    report.bars.append(Bar("worst backdrop line angle change", worst_angle, ANGLE_LIMIT - 1e-9,
                           unit=" deg"))
    report.bars.append(Bar("worst backdrop put back where the figure moved away, p99 ΔE2000 "
                           "to the backdrop around it", worst_fill, FILL_LIMIT))
    report.notes.append(
        "Widths are person-mask widths at the bust, waist and hip heights of each image's own "
        "pose; the stated change is in brackets. Shoulders are measured at the shoulder joints."
    )
    report.sheet = contact_sheet(out_dir / "rebody.png", sheet_rows, height=240)
    return report
