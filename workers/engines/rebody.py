"""Rebody: the same photo with the person's figure changed to a target body type.

A body type is a set of horizontal scale factors at five heights of the body (shoulders, bust,
waist, hips, thighs), read off the pose landmarks, plus a vertical scale for Petite. The factors
are interpolated along the body into one smooth displacement field, which scales each row about
the body's centre line and is applied to the photo with one ``cv2.remap``:

- the field is full strength on the person and falls off with the distance to the person mask,
  so the backdrop near the body gives way smoothly and the rest of the picture is untouched
  (no cut-out, no seam, nothing smeared);
- it is zero on the face and rigid on the hands (a hand moves with its arm, undeformed);
- it is computed at the detectors' working size and resized up, since it is smooth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import pose as pose_mod
from workers.engines.imaging.decode import decode_image, encode_png

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


# Changes stay within what reads as the same person in the same clothes: beyond about 15 %
# prints and seams visibly stretch.
BODY_TYPES: dict[str, BodyType] = {
    "Standard Fit": BodyType(shoulders=0.01, bust=0.02, waist=-0.02, hips=0.02, thighs=0.01),
    "Curvy Fit": BodyType(shoulders=0.03, bust=0.10, waist=0.07, hips=0.13, thighs=0.11),
    "Pear Silhouette": BodyType(shoulders=0.0, bust=0.01, waist=0.03, hips=0.14, thighs=0.12),
    "Slim Fit": BodyType(shoulders=-0.06, bust=-0.07, waist=-0.10, hips=-0.09, thighs=-0.09),
    "Athletic Build": BodyType(shoulders=0.10, bust=0.06, waist=-0.03, hips=0.0, thighs=0.03),
    "Petite": BodyType(
        shoulders=-0.03, bust=-0.03, waist=-0.03, hips=-0.03, thighs=-0.03, height=-0.06
    ),
    "Slim with Bust": BodyType(shoulders=-0.04, bust=0.09, waist=-0.08, hips=-0.06, thighs=-0.06),
    "Hourglass": BodyType(shoulders=0.02, bust=0.09, waist=-0.09, hips=0.11, thighs=0.06),
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


def row_scale_field(
    shape: tuple[int, int],
    knots: list[tuple[float, float]],
    centre_x: np.ndarray,
    weight: np.ndarray,
    smooth: float,
) -> np.ndarray:
    """Backward horizontal displacement that scales each row about ``centre_x[row]``.

    ``knots`` are (y, relative width change) along the body, interpolated between and held at 0
    beyond the first and last; ``smooth`` (px) blurs the profile so no row has a visible kink.
    The output pixel at x samples the input at cx + (x - cx) / (1 + change).
    """
    h, w = shape
    ys = np.arange(h, dtype=np.float32)
    ky = np.array([k[0] for k in knots], np.float32)
    kv = np.array([k[1] for k in knots], np.float32)
    order = np.argsort(ky)
    profile = np.interp(ys, ky[order], kv[order], left=0.0, right=0.0).astype(np.float32)
    if smooth > 0:
        profile = cv2.GaussianBlur(
            profile[:, None], (1, 0), sigmaX=0.1, sigmaY=smooth, borderType=cv2.BORDER_REPLICATE
        )[:, 0]
    factor = 1.0 / (1.0 + profile) - 1.0
    xs = np.arange(w, dtype=np.float32)[None, :]
    return ((xs - centre_x[:, None]) * factor[:, None] * weight).astype(np.float32)


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
    neck = body.band_y("neck")
    # Local size of each source row in the output: torso a little, legs a little more.
    k = np.ones(h)
    k[(ys >= neck) & (ys < body.hip_y)] = 1.0 + 0.6 * change
    k[(ys >= body.hip_y) & (ys < bottom)] = 1.0 + 1.2 * change
    if smooth > 0:
        k = cv2.GaussianBlur(
            k[:, None], (1, 0), sigmaX=0.1, sigmaY=smooth, borderType=cv2.BORDER_REPLICATE
        )[:, 0]
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


def apply_field(
    rgb: np.ndarray, alpha: np.ndarray | None, dx_small: np.ndarray, dy_small: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Resize working-size backward displacements to the photo and resample it once."""
    h, w = rgb.shape[:2]
    sh, sw = dx_small.shape
    sx, sy = w / sw, h / sh
    dx = cv2.resize(dx_small, (w, h), interpolation=cv2.INTER_LINEAR) * sx
    map_x = dx + np.arange(w, dtype=np.float32)[None, :]
    if dy_small is None:
        map_y = np.repeat(np.arange(h, dtype=np.float32)[:, None], w, axis=1)
    else:
        dy = cv2.resize(dy_small, (w, h), interpolation=cv2.INTER_LINEAR) * sy
        map_y = dy + np.arange(h, dtype=np.float32)[:, None]
    m1, m2 = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
    out = cv2.remap(rgb, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    out_alpha = None
    if alpha is not None:
        out_alpha = cv2.remap(alpha, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out, out_alpha


def working_copy(rgb: np.ndarray, side: int = WORK_SIDE) -> np.ndarray:
    h, w = rgb.shape[:2]
    scale = min(1.0, side / max(h, w))
    if scale >= 1.0:
        return rgb
    return cv2.resize(
        rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
    )


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
    person = pose_mod.person_mask(small) if body is not None else None
    if body is None or person is None or (person > 0.5).sum() < 0.01 * h * w:
        raise EngineError("no_person", "No person was found in the image.")
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
    rows = np.arange(h, dtype=np.float32)
    weight = person_weight(person, reach=0.45 * body.shoulder_width)
    dx = row_scale_field((h, w), knots, body.centre_x(rows), weight, smooth=0.07 * t)

    dy = None
    if target.height:
        ys_person = np.nonzero((person > 0.5).any(axis=1))[0]
        top = float(ys_person[0]) if len(ys_person) else body.band_y("neck") - 0.4 * t
        dy = vertical_field(h, w, body, top, target.height, smooth=0.05 * t)
    dx = rigid_hands(protect_faces(dx, faces), hand_discs(pose, body.shoulder_width))
    if dy is not None:
        dy = rigid_hands(dy, hand_discs(pose, body.shoulder_width))
    tick(60)
    out, out_alpha = apply_field(rgb, alpha, dx, dy)
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
