"""Rebody: the same photo with the person's figure changed to a target body type.

A body type states by how much it changes the width of the body at the shoulders, bust, waist,
hips and thighs (``BODY_TYPES``; Petite also shortens the body). Those heights are read off
the pose landmarks, and the change is made, and can be measured, on the person's silhouette:

- Person segmentation gives the torso's outline per row (the run of the person mask around
  the body's centre line). Inside it each row is scaled about the centre line by exactly the
  stated factor, so the torso's width changes by the promised amount; arms and hands beside
  the torso move sideways with the torso's edge next to them, unbent. The factors are blended
  between the landmark heights with a smooth step, nothing above the neck moves and the face
  is protected.
- The backdrop is never bent: the person is warped as a layer and composited over the photo,
  and where the figure got narrower the uncovered strip is filled from a clean plate (the
  backdrop inpainted where the person was). Straight lines behind the body stay straight.
- The warp is computed at the detectors' working size and resized up, since it is smooth; the
  photo is resampled once at its own resolution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import pose as pose_mod
from workers.engines.imaging.decode import decode_image, encode_png
from workers.engines.imaging.resize import limit_side

WORK_SIDE = 512

BANDS = ("shoulders", "bust", "waist", "hips", "thighs")


@dataclass(frozen=True)
class BodyType:
    # Relative width change per band: +0.10 makes that part of the body 10 % wider.
    shoulders: float
    bust: float
    waist: float
    hips: float
    thighs: float
    height: float = 0.0  # relative change of the body's height below the neck (Petite)

    def at(self, band: str) -> float:
        return float(getattr(self, band))


# The promise of each body type: relative width change of the body at each height (+0.10 makes
# that part of the body 10 % wider), as measured on the silhouette. Changes stay within what
# reads as the same person in the same clothes: beyond about 12 % prints and seams visibly
# stretch. Catalogue models are slimmer than the average figure, so even Standard Fit fills out.
BODY_TYPES: dict[str, BodyType] = {
    "Standard Fit": BodyType(shoulders=0.02, bust=0.04, waist=0.05, hips=0.04, thighs=0.04),
    "Curvy Fit": BodyType(shoulders=0.03, bust=0.08, waist=0.04, hips=0.10, thighs=0.09),
    "Pear Silhouette": BodyType(shoulders=0.0, bust=0.02, waist=0.04, hips=0.11, thighs=0.10),
    "Slim Fit": BodyType(shoulders=-0.04, bust=-0.07, waist=-0.09, hips=-0.08, thighs=-0.08),
    "Athletic Build": BodyType(shoulders=0.06, bust=0.06, waist=-0.04, hips=0.02, thighs=0.03),
    "Petite": BodyType(
        shoulders=-0.04, bust=-0.04, waist=-0.04, hips=-0.04, thighs=-0.04, height=-0.06
    ),
    "Slim with Bust": BodyType(shoulders=-0.02, bust=0.08, waist=-0.08, hips=-0.06, thighs=-0.05),
    "Hourglass": BodyType(shoulders=0.02, bust=0.09, waist=-0.08, hips=0.10, thighs=0.06),
}


def body_type(name: Any) -> BodyType:
    key = str(name or "").strip().lower().replace("_", " ").replace("-", " ")
    for known, bt in BODY_TYPES.items():
        if known.lower() == key:
            return bt
    raise EngineError(
        "invalid_body_type",
        f"{name!r} is not a body type we know: use one of {', '.join(BODY_TYPES)}.",
    )


# --- body geometry ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Body:
    """Landmark heights and the centre line of a standing person, in working-size pixels."""

    shoulder_y: float
    hip_y: float
    knee_y: float
    ankle_y: float | None  # None when the feet are out of frame
    shoulder_width: float
    centre_knots: tuple[tuple[float, float], ...]  # (y, x) along the body, top to bottom

    @property
    def torso(self) -> float:
        return self.hip_y - self.shoulder_y

    def band_y(self, band: str) -> float:
        t = self.torso
        return {
            "neck": self.shoulder_y - 0.3 * t,
            "shoulders": self.shoulder_y,
            "bust": self.shoulder_y + 0.3 * t,
            "waist": self.shoulder_y + 0.62 * t,
            "hips": self.hip_y + 0.08 * t,
            "thighs": self.hip_y + 0.45 * (self.knee_y - self.hip_y),
            "knees": self.knee_y,
        }[band]

    def centre_x(self, ys: np.ndarray) -> np.ndarray:
        ky = np.array([k[0] for k in self.centre_knots])
        kx = np.array([k[1] for k in self.centre_knots])
        return np.interp(ys, ky, kx)


def _mid(points: dict[str, tuple[float, float]], a: str, b: str) -> tuple[float, float] | None:
    if a in points and b in points:
        return ((points[a][0] + points[b][0]) / 2, (points[a][1] + points[b][1]) / 2)
    return None


def body_from_pose(pose: pose_mod.Pose) -> Body | None:
    """Heights and centre line of the body, or None when there is no upright torso."""
    p = pose.points
    shoulders = _mid(p, "left_shoulder", "right_shoulder")
    if shoulders is None:
        return None
    sw = float(
        np.hypot(
            p["left_shoulder"][0] - p["right_shoulder"][0],
            p["left_shoulder"][1] - p["right_shoulder"][1],
        )
    )
    if sw < 0.03 * max(pose.width, pose.height):
        return None
    hips = _mid(p, "left_hip", "right_hip")
    if hips is None:
        one = next((p[k] for k in ("left_hip", "right_hip") if k in p), None)
        # A torso is about 1.5 shoulder widths long (landmark to landmark).
        hips = (one[0] if one else shoulders[0], one[1] if one else shoulders[1] + 1.5 * sw)
    if hips[1] - shoulders[1] < 0.5 * sw:
        return None  # lying down or upside down: the bands would not follow the body
    torso = hips[1] - shoulders[1]
    knees = _mid(p, "left_knee", "right_knee")
    if knees is None or knees[1] <= hips[1]:
        knees = (hips[0], hips[1] + 1.05 * torso)
    ankles = _mid(p, "left_ankle", "right_ankle")
    if ankles is not None and ankles[1] <= knees[1]:
        ankles = None
    knots = [(shoulders[1], shoulders[0]), (hips[1], hips[0]), (knees[1], knees[0])]
    if ankles is not None:
        knots.append((ankles[1], ankles[0]))
    return Body(
        shoulder_y=shoulders[1],
        hip_y=hips[1],
        knee_y=knees[1],
        ankle_y=None if ankles is None else ankles[1],
        shoulder_width=sw,
        centre_knots=tuple(knots),
    )


# --- displacement fields ----------------------------------------------------------------------


def person_weight(person: np.ndarray, reach: float) -> np.ndarray:
    """1 on and right around the person, falling off smoothly to 0 about ``reach`` px away."""
    outside = (person < 0.5).astype(np.uint8)
    dist = cv2.distanceTransform(outside, cv2.DIST_L2, 5)
    return np.exp(-((dist / max(reach, 1.0)) ** 2)).astype(np.float32)


def vertical_field(
    h: int, w: int, body: Body, top_of_head: float, change: float, smooth: float
) -> np.ndarray:
    """Backward vertical displacement that shortens the body below the neck by ``change``.

    The feet (or the bottom of the frame when they are cut off) stay where they are, the head
    moves down rigidly, and the backdrop above the head stretches to close the gap.
    """
    ys = np.arange(h, dtype=np.float64)
    bottom = (
        float(h - 1) if body.ankle_y is None else min(h - 1.0, body.ankle_y + 0.04 * body.torso)
    )
    k = _row_sizes(ys, body, bottom, change, smooth)
    k[ys >= bottom] = 1.0
    # Forward map: rows below ``bottom`` stay, each row above sits k(y) further from it.
    forward = np.empty(h)
    forward[ys >= bottom] = ys[ys >= bottom]
    above = ys < bottom
    acc = np.cumsum(k[above][::-1])[::-1]
    forward[above] = bottom - acc
    # Above the head the backdrop is stretched so that the top row stays the top row.
    top = int(np.clip(top_of_head, 1, h - 1))
    if forward[top] > 0:
        forward[:top] = forward[top] * ys[:top] / top
    src = np.interp(ys, forward, ys)
    dy = (src - ys).astype(np.float32)
    return np.repeat(dy[:, None], w, axis=1)


def vertical_field_from_top(
    h: int, w: int, body: Body, bottom: float, change: float, smooth: float
) -> np.ndarray:
    """Backward vertical displacement that shortens the body below the neck by ``change``
    with the head where it is: the feet (at ``bottom``) move up, and so does everything
    below them."""
    ys = np.arange(h, dtype=np.float64)
    neck = body.band_y("neck")
    k = _row_sizes(ys, body, bottom, change, smooth)
    k[ys < neck] = 1.0
    forward = np.concatenate(([0.0], np.cumsum(k[:-1])))
    src = np.interp(ys, forward, ys)
    dy = (src - ys).astype(np.float32)
    return np.repeat(dy[:, None], w, axis=1)


def _height_field(
    person: np.ndarray, body: Body, change: float, full_height: int
) -> np.ndarray | None:
    """Vertical displacement for a shorter figure, or None when the photo leaves no room.

    With the feet in frame the head stays and the feet move up; with the feet cut off but
    room above the head, the feet stay and the head moves down (by whole pixels of the
    photo, so the face is copied, not resampled). A figure cut at both ends keeps its height:
    moving either end would drag in what the photo never showed.
    """
    h, w = person.shape
    t = body.torso
    rows = np.nonzero((person > 0.5).any(axis=1))[0]
    if not len(rows):
        return None
    top_of_head, lowest = float(rows[0]), float(rows[-1])
    cut_at = max(2, round(0.01 * w))  # person pixels in an edge row: the figure goes on past it
    cut_top = int((person[:2] > 0.5).sum(axis=1).max()) >= cut_at
    cut_bottom = int((person[-2:] > 0.5).sum(axis=1).max()) >= cut_at
    if body.ankle_y is not None and not cut_bottom:
        bottom = min(lowest, body.ankle_y + 0.04 * t)
        return vertical_field_from_top(h, w, body, bottom, change, smooth=0.05 * t)
    dy = vertical_field(h, w, body, top_of_head, change, smooth=0.05 * t)
    head = int(np.clip(round((top_of_head + body.band_y("neck")) / 2), 0, h - 1))
    shift = float(dy[head, 0]) * full_height / h
    if abs(shift) >= 0.5:
        dy = dy * (round(shift) / shift)
    return None if cut_top else dy


def _smooth_box(
    shape: tuple[int, int], box: tuple[float, float, float, float], feather: float
) -> np.ndarray:
    h, w = shape
    m = np.zeros((h, w), np.float32)
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    m[max(0, y0) : max(0, y1), max(0, x0) : max(0, x1)] = 1.0
    if feather > 0.5:
        m = cv2.GaussianBlur(m, (0, 0), feather)
        m = np.clip(m * 2.0, 0.0, 1.0)  # full strength up to the box's edge
    return m


def protect_faces(field: np.ndarray, faces: list[tuple[int, int, int, int]]) -> np.ndarray:
    """Zero displacement on each face (padded to take in hair line and chin)."""
    for x0, y0, x1, y1 in faces:
        fw, fh = x1 - x0, y1 - y0
        box = (x0 - 0.3 * fw, y0 - 0.6 * fh, x1 + 0.3 * fw, y1 + 0.25 * fh)
        field = field * (1.0 - _smooth_box(field.shape, box, 0.15 * max(fw, fh)))
    return field


def hand_discs(pose: pose_mod.Pose, scale: float) -> list[tuple[float, float, float]]:
    """(x, y, radius) around each visible hand, from the wrist and finger landmarks."""
    discs = []
    for side in ("left", "right"):
        pts = [
            pose.points[f"{side}_{k}"]
            for k in ("wrist", "index", "pinky", "thumb")
            if f"{side}_{k}" in pose.points
        ]
        if not pts:
            continue
        arr = np.array(pts)
        c = arr.mean(axis=0)
        spread = float(np.max(np.hypot(*(arr - c).T))) if len(arr) > 1 else 0.0
        discs.append((float(c[0]), float(c[1]), 1.8 * spread + 0.12 * scale))
    return discs


def rigid_hands(field: np.ndarray, discs: list[tuple[float, float, float]]) -> np.ndarray:
    """Inside each hand disc the displacement is the disc centre's: the hand moves, unbent."""
    h, w = field.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for cx, cy, r in discs:
        ix, iy = int(np.clip(round(cx), 0, w - 1)), int(np.clip(round(cy), 0, h - 1))
        d = np.hypot(xx - cx, yy - cy)
        m = np.clip((1.6 * r - d) / (0.6 * r), 0.0, 1.0)
        field = field * (1.0 - m) + field[iy, ix] * m
    return field


def working_copy(rgb: np.ndarray, side: int = WORK_SIDE) -> np.ndarray:
    return limit_side(rgb, side)[0]


# --- silhouette-anchored warp ------------------------------------------------------------------


def width_profile(h: int, knots: list[tuple[float, float]]) -> np.ndarray:
    """Relative width change per row: a smooth step between consecutive knots (y, change).

    Exact and flat at each knot, so a band's row gets exactly its stated change; the first
    knot's value holds above it and the last's below it.
    """
    order = sorted(knots)
    ky, kv = [order[0][0]], [order[0][1]]
    for y, v in order[1:]:
        if y - ky[-1] >= 1.0:
            ky.append(y)
            kv.append(v)
    ys = np.arange(h, dtype=np.float64)
    prof = np.full(h, kv[0], np.float64)
    for i in range(len(ky) - 1):
        sel = (ys >= ky[i]) & (ys < ky[i + 1])
        t = (ys[sel] - ky[i]) / (ky[i + 1] - ky[i])
        prof[sel] = kv[i] + (kv[i + 1] - kv[i]) * t * t * (3.0 - 2.0 * t)
    prof[ys >= ky[-1]] = kv[-1]
    return prof.astype(np.float32)


def _run_around(row: np.ndarray, x: int, reach: int) -> tuple[int, int] | None:
    """(first, last) column of the run of True in ``row`` that holds ``x`` (or the nearest
    True within ``reach``), or None."""
    w = len(row)
    if not row[x]:
        near = np.nonzero(row[max(0, x - reach) : min(w, x + reach + 1)])[0]
        if not len(near):
            return None
        x = int(max(0, x - reach) + near[np.argmin(np.abs(near + max(0, x - reach) - x))])
    off_left = np.nonzero(~row[:x])[0]
    off_right = np.nonzero(~row[x:])[0]
    first = int(off_left[-1] + 1) if len(off_left) else 0
    last = int(x + off_right[0] - 1) if len(off_right) else w - 1
    return first, last


def _leg_x(pose: pose_mod.Pose, body: Body, side: str, y: float) -> float | None:
    p = pose.points
    hip, knee = p.get(f"{side}_hip"), p.get(f"{side}_knee")
    if hip is None:
        return None
    if knee is None or knee[1] <= hip[1]:
        return hip[0]
    t = float(np.clip((y - hip[1]) / (knee[1] - hip[1]), 0.0, 1.5))
    return hip[0] + t * (knee[0] - hip[0])


def body_edges(
    person: np.ndarray, pose: pose_mod.Pose, body: Body, rows: range
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the body's centre x and the raw distances from it to the body's left and right
    outline (NaN where the row holds no body).

    Above the hips the body is the run of the person mask around the centre line (an arm
    hanging clear of the torso is not part of it; one against it is); below, the runs
    around both legs.
    """
    h, w = person.shape
    # An arm or hand nearer the torso than about a seventh of the shoulder width moves with it
    # as part of the body; one farther out keeps its shape and follows the torso's edge.
    bridge = np.ones((1, max(3, round(0.15 * body.shoulder_width))), np.uint8)
    m = cv2.morphologyEx((person > 0.5).astype(np.uint8), cv2.MORPH_CLOSE, bridge)
    mb = m.astype(bool)
    centre = body.centre_x(np.arange(h, dtype=np.float64))
    left = np.full(h, np.nan)
    right = np.full(h, np.nan)
    reach = max(2, int(0.15 * body.shoulder_width))
    for y in rows:
        anchors = [centre[y]]
        if y > body.hip_y:
            anchors += [x for x in (_leg_x(pose, body, s, y) for s in ("left", "right")) if x]
        runs = [
            r for x in anchors if (r := _run_around(mb[y], int(np.clip(round(x), 0, w - 1)),
                                                   reach)) is not None
        ]
        if runs:
            left[y] = centre[y] - min(r[0] for r in runs)
            right[y] = max(r[1] for r in runs) - centre[y]
    return centre, left, right


def _smooth_extent(raw: np.ndarray, rows: range, fallback: float, sigma: float) -> np.ndarray:
    """Distances to the outline made smooth along the body and never short of the outline
    near each row (so the outline itself is always scaled, never just shifted)."""
    h = len(raw)
    ys = np.arange(h)
    ok = ~np.isnan(raw)
    if not ok.any():
        return np.full(h, fallback, np.float32)
    ext = np.interp(ys, ys[ok], raw[ok]).astype(np.float32)
    k = max(3, int(2 * sigma) | 1)
    ext = cv2.dilate(ext[:, None], np.ones((k, 1), np.uint8))[:, 0]
    ext = cv2.GaussianBlur(ext[:, None], (1, 0), sigmaX=0.1, sigmaY=max(sigma, 0.5),
                           borderType=cv2.BORDER_REPLICATE)[:, 0]
    return ext + 2.0


def torso_field(
    w: int, centre: np.ndarray, left: np.ndarray, right: np.ndarray, change: np.ndarray
) -> np.ndarray:
    """Backward horizontal displacement: inside the body's outline each row is scaled about
    the centre by (1 + change); beyond it (arms, hands, backdrop) the row is shifted by as
    much as the outline moved. Continuous at the outline."""
    x = np.arange(w, dtype=np.float32)[None, :]
    c = centre.astype(np.float32)[:, None]
    s = (1.0 + change).astype(np.float32)[:, None]
    d = x - c
    el, er = left.astype(np.float32)[:, None], right.astype(np.float32)[:, None]
    inside_r = (d >= 0) & (d <= s * er)
    inside_l = (d < 0) & (-d <= s * el)
    dx = np.where(d >= 0, -(s - 1.0) * er, (s - 1.0) * el)
    dx = np.where(inside_r | inside_l, d / s - d, dx)
    return dx.astype(np.float32)


def _maps(dx_small: np.ndarray, dy_small: np.ndarray | None, h: int, w: int) -> tuple[
    np.ndarray, np.ndarray
]:
    sh, sw = dx_small.shape
    dx = cv2.resize(dx_small, (w, h), interpolation=cv2.INTER_LINEAR) * (w / sw)
    map_x = dx + np.arange(w, dtype=np.float32)[None, :]
    if dy_small is None:
        map_y = np.repeat(np.arange(h, dtype=np.float32)[:, None], w, axis=1)
    else:
        dy = cv2.resize(dy_small, (w, h), interpolation=cv2.INTER_LINEAR) * (h / sh)
        map_y = dy + np.arange(h, dtype=np.float32)[:, None]
    return map_x, map_y


def _margin(w: int, h: int) -> np.ndarray:
    """Round kernel about 2 % of the picture's long side: how far past the segmentation's
    outline the person may still show (a white top against a pale backdrop, loose hair)."""
    k = max(5, round(0.02 * max(w, h)) | 1)
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def clean_plate(small: np.ndarray, person: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the backdrop with the person taken out, the region taken out), at working size.

    Each row of the region is filled from the backdrop beside it in the same row: a robust
    (median) sample just left and just right of the region, blended linearly across it. A
    line of the backdrop that runs behind the person carries straight on through the fill,
    nothing is smeared along the outline, and a plain studio backdrop keeps its gradient.
    """
    h, w = person.shape
    region = cv2.dilate((person > 0.05).astype(np.uint8), _margin(w, h))
    inside = region.astype(bool)
    src = small.astype(np.float32)
    plate = src.copy()
    span = max(6, w // 24)  # wide enough that a thin upright line never holds the median
    gap = 2
    missing = np.zeros((h, w), np.uint8)

    def sample(y: int, x0: int, x1: int) -> np.ndarray | None:
        x0, x1 = max(0, x0), min(w, x1)
        if x1 <= x0:
            return None
        px = src[y, x0:x1][~inside[y, x0:x1]]
        return np.median(px, axis=0) if len(px) >= 3 else None

    # Runs are taken over slits of backdrop narrower than a sample (between the legs, under
    # an arm): a sample from such a slit is mostly the person's own edge, and the runs beside
    # it would be filled from it, darker or bluer than the backdrop and in blocks that change
    # from row to row. The slits themselves keep their pixels.
    spans = cv2.morphologyEx(region, cv2.MORPH_CLOSE, np.ones((1, span + 2 * gap), np.uint8))
    for y in np.nonzero(inside.any(axis=1))[0]:
        row = spans[y].astype(bool)
        row_inside = inside[y]
        edges = np.diff(np.concatenate(([0], row.astype(np.int8), [0])))
        for a, b in zip(np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0], strict=True):
            lc = sample(y, a - gap - span, a - gap)
            rc = sample(y, b + gap, b + gap + span)
            if lc is None and rc is None:
                missing[y, a:b] = 1
                continue
            lc = rc if lc is None else lc
            rc = lc if rc is None else rc
            t = (np.arange(a, b, dtype=np.float32) - (a - 1)) / float(b - a + 1)
            fill = lc[None, :] * (1.0 - t[:, None]) + rc[None, :] * t[:, None]
            keep = row_inside[a:b]
            plate[y, a:b][keep] = fill[keep]
    # Neighbouring rows sample slightly different backdrop: even them out along the column
    # (a median, then a light blur) so the fill shows no streaks.
    padded = np.pad(plate, ((2, 2), (0, 0), (0, 0)), mode="edge")
    even = np.median(np.stack([padded[i : i + h] for i in range(5)]), axis=0)
    even = cv2.GaussianBlur(even, (1, 0), sigmaX=0.1, sigmaY=1.5)
    plate[inside] = even[inside]
    if missing.any():  # a row with no backdrop beside the person: fill it from around
        filled = cv2.inpaint(np.clip(plate + 0.5, 0, 255).astype(np.uint8), missing, 3,
                             cv2.INPAINT_TELEA)
        plate[missing.astype(bool)] = filled[missing.astype(bool)]
    return np.clip(plate + 0.5, 0, 255).astype(np.uint8), region


def composite_layers(
    rgb: np.ndarray,
    alpha: np.ndarray | None,
    small: np.ndarray,
    person: np.ndarray,
    dx: np.ndarray,
    dy: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The person warped as a layer over the backdrop: unchanged where the person still
    covers it or never was, the clean plate where the figure moved away."""
    h, w = rgb.shape[:2]
    sh, sw = small.shape[:2]
    plate_small, region = clean_plate(small, person)
    # The layer is opaque wherever the segmentation leans to "person" (it is unsure on dark
    # sleeves and pale tops): a half-transparent arm would show the plate through it.
    faint = person > 0.05
    t = np.clip((person - 0.15) / 0.3, 0.0, 1.0)
    person = (t * t * (3.0 - 2.0 * t)).astype(np.float32)
    # Small holes inside the figure are the segmentation's misses, not backdrop.
    n, labels, stats, _ = cv2.connectedComponentsWithStats((person < 0.5).astype(np.uint8), 4)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        inner = x > 0 and y > 0 and x + bw < sw and y + bh < sh
        if inner and area < 0.002 * sh * sw:
            person[labels == i] = 1.0
    # Where the person was, even faintly, and the moved layer does not cover (working size).
    smx, smy = _maps(dx, dy, sh, sw)
    moved = cv2.remap(person, smx, smy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # ... near where the figure moved away (a faint trace elsewhere is backdrop to keep).
    away = cv2.dilate(((person - moved) > 0.05).astype(np.uint8), _margin(sw, sh)) > 0
    vacated = (faint & away & (moved < 0.95)).astype(np.uint8)
    vacated = cv2.dilate(vacated, np.ones((5, 5), np.uint8))
    vac = cv2.GaussianBlur(vacated.astype(np.float32), (0, 0), 1.0)
    vac = np.clip(2.0 * vac, 0.0, 1.0)

    map_x, map_y = _maps(dx, dy, h, w)
    m1, m2 = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
    warped = cv2.remap(rgb, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    person_full = cv2.resize(person, (w, h), interpolation=cv2.INTER_LINEAR)
    layer = cv2.remap(person_full, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    vac_full = cv2.resize(vac, (w, h), interpolation=cv2.INTER_LINEAR)
    plate = cv2.resize(plate_small, (w, h), interpolation=cv2.INTER_LINEAR)

    # Blends in 8 bits with float weights: no float copies of a large photo.
    rgb_c = np.ascontiguousarray(rgb)
    base = cv2.blendLinear(plate, rgb_c, vac_full, np.float32(1.0) - vac_full)
    out_u8 = cv2.blendLinear(warped, base, layer, np.float32(1.0) - layer)
    out_alpha = None
    if alpha is not None:
        a_small = cv2.resize(alpha, (sw, sh), interpolation=cv2.INTER_AREA)
        a_plate = cv2.resize(cv2.inpaint(a_small, region, 3, cv2.INPAINT_TELEA), (w, h),
                             interpolation=cv2.INTER_LINEAR).astype(np.float32)
        a_warped = cv2.remap(alpha, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a_base = alpha.astype(np.float32) * (1.0 - vac_full) + a_plate * vac_full
        a_out = a_base * (1.0 - layer) + a_warped.astype(np.float32) * layer
        out_alpha = np.clip(a_out + 0.5, 0, 255).astype(np.uint8)
    return out_u8, out_alpha


def hold_frame_edges(dx: np.ndarray, person: np.ndarray) -> np.ndarray:
    """No sideways move at a side of the frame the person runs out of (an elbow or hand cut
    by the edge): the part stays attached to the edge, eased over a tenth of the width."""
    h, w = dx.shape
    ramp = np.ones(w, np.float32)
    x = np.arange(w, dtype=np.float32)
    reach = max(2.0, 0.1 * w)
    cut = max(2, round(0.01 * h))
    if int((person[:, :2] > 0.5).sum(axis=0).max()) >= cut:
        t = np.clip(x / reach, 0.0, 1.0)
        ramp *= t * t * (3.0 - 2.0 * t)
    if int((person[:, -2:] > 0.5).sum(axis=0).max()) >= cut:
        t = np.clip((w - 1 - x) / reach, 0.0, 1.0)
        ramp *= t * t * (3.0 - 2.0 * t)
    return dx * ramp[None, :]


def drop_faint_islands(person: np.ndarray) -> np.ndarray:
    """The person mask without islands the segmentation is never sure of (no pixel past 0.5):
    a crossing of backdrop lines or a shadow it half-took for a person. Left in, such an
    island far out in the backdrop moved with the row's sideways shift and was filled around,
    and the lines through it came out broken and tilted."""
    n, labels = cv2.connectedComponents((person > 0.05).astype(np.uint8), connectivity=8)
    if n <= 2:
        return person
    peak = np.zeros(n, np.float32)
    np.maximum.at(peak, labels.ravel(), person.ravel().astype(np.float32))
    keep = peak > 0.5
    keep[0] = True  # the backdrop's own faint values stay as they are
    return np.where(keep[labels], person, 0.0).astype(person.dtype)


def solid_arms(person: np.ndarray, pose: pose_mod.Pose, body: Body) -> np.ndarray:
    """The person mask made sure along each arm the pose sees: within a forearm's half
    width of the shoulder-elbow-wrist line, any pixel the segmentation leans even slightly
    to "person" on is person. It is unsure on sheer and dark sleeves (0.3 to 0.6 on a black
    mesh one); the layer was half transparent there, and the backdrop's clean plate showed
    through as a pale patch in the sleeve."""
    h, w = person.shape
    reach = max(2, round(0.09 * body.shoulder_width))
    bones = np.zeros((h, w), np.uint8)
    for side in ("left", "right"):
        pts = [pose.points.get(f"{side}_{k}") for k in ("shoulder", "elbow", "wrist")]
        for a, b in zip(pts, pts[1:], strict=False):
            if a is not None and b is not None:
                cv2.line(bones, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), 1,
                         thickness=2 * reach + 1)
    sure = (bones > 0) & (person > 0.15)
    if not sure.any():
        return person
    return np.where(sure, 1.0, person).astype(person.dtype)


def second_figure(person: np.ndarray, body: Body) -> bool:
    """Whether the person mask holds another figure beside the one the pose found: a part
    of it apart from the posed body and at least a third of its size. Each row would be
    scaled about the wrong centre line on that one."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((person > 0.5).astype(np.uint8), 8)
    if n <= 2:
        return False
    h, w = person.shape
    y = int(np.clip(round((body.shoulder_y + body.hip_y) / 2), 0, h - 1))
    x = int(np.clip(round(float(body.centre_x(np.array([y]))[0])), 0, w - 1))
    main = labels[y, x]
    if main == 0:
        main = int(np.argmax(stats[1:, cv2.CC_STAT_AREA])) + 1
    main_area = stats[main, cv2.CC_STAT_AREA]
    others = [stats[i, cv2.CC_STAT_AREA] for i in range(1, n) if i != main]
    return bool(others) and max(others) >= main_area / 3


# --- the engine -------------------------------------------------------------------------------


def rebody(
    rgb: np.ndarray,
    target: BodyType,
    alpha: np.ndarray | None = None,
    progress: Progress | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The photo with the person reshaped to ``target``."""

    def tick(p: int) -> None:
        if progress is not None:
            progress(p)

    small = working_copy(rgb)
    h, w = small.shape[:2]
    pose = pose_mod.detect_pose(small)
    body = body_from_pose(pose) if pose is not None else None
    person = pose_mod.person_mask(small) if pose is not None else None
    if pose is None or person is None or (person > 0.5).sum() < 0.01 * h * w:
        raise EngineError("no_person", "No person was found in the image.")
    person = drop_faint_islands(person)
    if body is None:
        raise EngineError(
            "pose_unreadable",
            "The model's shoulders and hips could not be read: Rebody needs an upright figure "
            "facing the camera, shoulders to hips in frame.",
        )
    if second_figure(person, body):
        raise EngineError(
            "two_people",
            "This photo shows more than one person. Rebody reshapes one figure: crop the "
            "photo to the one model and run it again.",
        )
    tick(30)
    faces = pose_mod.face_boxes(small)
    tick(40)

    t = body.torso
    knots = [(body.band_y("neck"), 0.0)]
    for band in BANDS:
        knots.append((body.band_y(band), target.at(band)))
    knots.append((body.band_y("knees"), 0.3 * target.thighs))
    if body.ankle_y is not None:
        knots.append((body.ankle_y, 0.0))
    change = width_profile(h, knots)
    top = int(np.clip(body.band_y("neck"), 0, h - 1))
    rows = range(top, h)
    centre, left, right = body_edges(person, pose, body, rows)
    fallback = 0.6 * body.shoulder_width
    sigma = 0.03 * t
    dx = torso_field(
        w,
        centre,
        _smooth_extent(left, rows, fallback, sigma),
        _smooth_extent(right, rows, fallback, sigma),
        change,
    )
    dx = protect_faces(dx, faces)
    dx = hold_frame_edges(dx, person)

    dy = None
    if target.height:
        dy = _height_field(person, body, target.height, rgb.shape[0])
    tick(60)
    out, out_alpha = composite_layers(rgb, alpha, small, solid_arms(person, pose, body), dx, dy)
    tick(85)
    return out, out_alpha


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: image (bytes), target_bodytype (one of BODY_TYPES), specs (free text, unused)."""
    target = body_type(params.get("target_bodytype"))
    progress(5)
    rgb, alpha = decode_image(params["image"])
    progress(10)
    out, out_alpha = rebody(rgb, target, alpha, progress)
    data = encode_png(out, out_alpha)
    progress(100)
    slug = str(params.get("target_bodytype", "")).strip().lower().replace(" ", "-")
    return [EngineOutput(data=data, content_type="image/png", filename=f"rebody-{slug}.png")]


def _row_sizes(ys: np.ndarray, body: Body, bottom: float, change: float,
               smooth: float) -> np.ndarray:
    """Local size of each source row in the output: the torso a little, the legs (hips to
    ``bottom``) a little more, smoothed over ``smooth`` rows."""
    neck = body.band_y("neck")
    k = np.ones(len(ys))
    k[(ys >= neck) & (ys < body.hip_y)] = 1.0 + 0.6 * change
    k[(ys >= body.hip_y) & (ys < bottom)] = 1.0 + 1.2 * change
    if smooth > 0:
        k = cv2.GaussianBlur(
            k[:, None], (1, 0), sigmaX=0.1, sigmaY=smooth, borderType=cv2.BORDER_REPLICATE
        )[:, 0]
    return k
