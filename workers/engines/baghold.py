"""Baghold: a bag photographed on a plain background, held by the model at its real size.

Body scale comes from the model's height (head top to soles, when both are in frame) or, for
cropped shots, from body proportions measured on the pose (torso length, shoulder width). The
bag's cut-out is scaled so its body matches the stated width and height. It is carried:

- in a hand, when a hand hangs free: mediapipe's hand landmarks give the fingers, the top of
  the handle is put in the curled fingers, the bag hangs along the forearm, and the model's own
  fingers (a mask from the landmarks' capsules refined by the hand's skin colour) are put back
  over the handle, with the fingers' contact shadow on it and the bag's shadow on the body
  and, fainter and wider, on the backdrop;
- else from a shoulder, by its strap (the card's Strap drop) or by its handle when the handle's
  drop is long enough to go over a shoulder: the strap starts on the shoulder the pose sees
  and bows gently along the body.

A bag the model already holds is never stacked on: the other hand carries the new one, or the
job is refused (already_holding); a model who already wears a bag on a strap (over a shoulder
or across the body) is refused the same way. The whole bag stays in the frame: a carry that would cut it
is not used, except at the bottom of a full-length photo, whose floor is extended downward. Hands clasped together are never
used (the bag would cover both hands and the crotch). When no carry fits, the job is refused
with the reason (a half-length portrait with no hand in frame, for one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.carried import carried_strap
from workers.engines.imaging.cutout import (
    Cutout,
    composite,
    cut_out_product,
    darken,
    jpeg_bytes,
    load_image,
    soft_shadow,
)
from workers.engines.imaging.hands import (
    Hand,
    detect_hands,
    detect_hands_near,
    finger_mask,
    held_object,
    looks_like_skin,
)
from workers.engines.imaging.inputs import require_min_side
from workers.engines.imaging.pose import Pose, detect_pose, person_mask
from workers.engines.imaging.resize import limit_pixels
from workers.vocabularies import MIN_SHOULDER_DROP_CM

PRODUCT_MAX_PIXELS = 4_000_000
# A bag photo's shorter side, at least: a bag is scaled *up* on a model photo (32 cm is about
# 200 px on a 1024 px full-length photo, 800 px on a 4000 px one), and under this the cut-out's
# edge came out as a fringe of the old backdrop and its handle as a blur.
BAG_MIN_SIDE = 256
# Pose-landmark proportions of standing adults as a share of stature, measured on the full-body
# catalogue photos (head and soles in frame) and matching anthropometric tables: landmark
# shoulders sit at the joint centres, inside the shoulder's outer edge.
SHOULDER_WIDTH_SHARE = {"female": 0.178, "male": 0.195}
TORSO_SHARE = 0.285  # shoulder-centre to hip-centre, vertical
SOLE_SHARE = 0.012  # heel landmark to the floor
# A hand carry follows the forearm's tilt up to this angle; past it the bag would swing.
MAX_TILT_DEG = 8.0
# A forearm pointing more than this far from straight down is not a hanging hand (on the hip,
# raised, folded): a bag would not hang from it.
MAX_FOREARM_DEG = 55.0
# Stated width:height and the photo's may differ this much (perspective, a soft bag's sag);
# past it the numbers or the photo are wrong and no size would be right.
MAX_ASPECT_MISMATCH = 1.35
# A shoulder strap's width when the card gives only its drop.
STRAP_WIDTH_CM = 2.0
# A carry that hides more than this share of the torso is not used.
MAX_TORSO_COVER = 0.35
# The floor of a full-length photo may be extended downward by at most this share of its height.
MAX_EXTENSION = 0.35
# A strap slants from the shoulder to the bag, so the bag's top sits this share of the drop
# below the shoulder.
STRAP_SLANT = 0.85
# The top of a shoulder lies at most this far above the pose's shoulder joint.
SHOULDER_RISE_CM = 6.0
# Halves of the person whose median greys differ by less than this are lit alike.
LIT_LEVELS = 6.0
# A strap drapes: its middle sags this share of its length off the straight line, toward
# the body's side.
STRAP_SAG = 0.08
# A strap's shadow on the body: (offset away from the light, offset down, blur) in cm, and
# its strength; and its shade where it turns over the shoulder's top (the first
# STRAP_CREST_CM from where it starts).
STRAP_SHADOW_CM = (0.35, 0.3, 0.35)
STRAP_SHADOW_STRENGTH = 0.35
STRAP_CREST_CM = 4.0
STRAP_CREST_SHADE = 0.8


@dataclass
class Placement:
    """What the engine made and the layers a measurement needs (all in output pixels)."""

    image: np.ndarray  # uint8 RGB, the output
    base: np.ndarray  # the model photo (extended when the canvas grew), before the bag
    bag_alpha: np.ndarray  # float32 HxW, the bag as placed (before the fingers went back)
    handle_alpha: np.ndarray  # float32 HxW, the handle's part of it
    fingers: np.ndarray  # float32 HxW, the holding hand's mask (zeros for a shoulder carry)
    ppcm: float
    carry: str  # "hand", "shoulder-strap" or "shoulder-handle"
    side: str
    body_height_px: float  # the bag body's height as placed (without the handle)
    body_width_px: float
    extended_rows: int = 0
    tilt_deg: float = 0.0  # the bag's turn from vertical (its bottom toward +x when positive)
    forearm_deg: float | None = None  # the holding forearm's angle from straight down
    hand_points: np.ndarray | None = None  # 21x2, the holding hand's landmarks


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    dims = {k: float(params.get(k) or 0) for k in ("width", "height", "depth")}
    if min(dims.values()) <= 0:
        raise EngineError("bad_dimensions", "The bag's width, height and depth must be above 0 cm.")
    progress(5)
    model_rgb, _ = load_image(params["model_image"])
    bag_rgb, bag_alpha = load_image(params["bag_image"])
    require_min_side(bag_rgb, "bag image", BAG_MIN_SIDE)
    bag_rgb, bag_alpha = limit_pixels(bag_rgb, bag_alpha, PRODUCT_MAX_PIXELS)
    progress(15)
    placed = place_bag(model_rgb, bag_rgb, bag_alpha, params, progress)
    progress(95)
    return [EngineOutput(jpeg_bytes(placed.image, quality=95), "image/jpeg", "baghold.jpg")]


def place_bag(
    model_rgb: np.ndarray,
    bag_rgb: np.ndarray,
    bag_alpha: np.ndarray | None,
    params: dict[str, Any],
    progress: Progress | None = None,
) -> Placement:
    """The array-level engine: the model photo with the bag carried, and its layers."""
    step = progress or (lambda *a: None)
    width_cm = float(params.get("width") or 0)
    height_cm = float(params.get("height") or 0)
    strap = float(params.get("strap") or 0)
    handle_drop = float(params.get("handle") or 0)
    gender = "male" if str(params.get("gender") or "").lower().startswith("m") else "female"
    model_height = float(params.get("model_height_cm") or 175)
    who = str(params.get("model_name") or "the model")
    pose = detect_pose(model_rgb)
    if pose is None:
        raise EngineError("no_person", "No person was found in the model photo.")
    if not upright(pose):
        raise EngineError(
            "pose_unreadable",
            "The model in the photo is not upright (the hips are not below the shoulders): a "
            "bag hangs from a standing model. Use a photo of the model standing, head up.",
        )
    mask = person_mask(model_rgb)
    ppcm = body_scale(pose, mask, model_height, gender)
    if ppcm is None:
        raise EngineError(
            "no_person", "The model's body is not visible enough to measure (shoulders not found)."
        )
    worn = carried_strap(model_rgb, mask, pose, ppcm)
    if worn is not None:
        # Her own bag hangs from that strap: a second one in a hand or on the other shoulder
        # is two bags, which no catalogue shows.
        raise EngineError(
            "already_holding",
            f"{who} already carries a bag {worn.describe()}: a second bag is not added next "
            "to it. Use a photo of the model without a bag, with a free hand.",
        )
    step(35)
    bag = cut_out_product(bag_rgb, bag_alpha, what="bag")
    sbag = scale_bag(bag, width_cm, height_cm, ppcm)
    hands = detect_hands(model_rgb)
    wrists = [pose.points[k] for k in ("left_wrist", "right_wrist") if k in pose.points]
    if len(hands) < len(wrists):
        # A hand missed in the whole picture is looked for again around its wrist.
        # The crop is centred a little below the wrist, where the palm and fingers are.
        centres = [(x, y + 7.0 * ppcm) for x, y in wrists]
        hands = detect_hands_near(model_rgb, centres, 32.0 * ppcm, hands)
    step(60)
    if handle_drop <= 0:
        handle_drop = sbag.body_top / ppcm  # the handle's rise in the photo
    plans: list[_Plan] = []
    if strap > 0:
        plans += _shoulder_plans(model_rgb, pose, mask, sbag, ppcm, strap, "shoulder-strap")
    hand_plans, clasped = _hand_plans(model_rgb, pose, mask, sbag, ppcm, hands)
    plans += hand_plans
    if strap <= 0 and handle_drop >= MIN_SHOULDER_DROP_CM:
        plans += _shoulder_plans(model_rgb, pose, mask, sbag, ppcm, handle_drop, "shoulder-handle")
    held = [p for p in plans if p.held is not None]
    for p in plans:
        if p.fits and any(_over(p.patch, h.held, h.hand) for h in held):
            p.fits, p.why = False, "would hang over the bag the model holds"
    fitting = [p for p in plans if p.fits]
    if not fitting and held:
        sides = sorted({p.side for p in held if p.side != "?"})
        which = f"the {' and '.join(sides)} hand" if len(sides) == 1 else (
            "both hands" if sides else "one hand")
        raise EngineError(
            "already_holding",
            f"{who} already holds a bag in {which}, and no other carry fits: a second bag is "
            "not added next to it. Use a photo of the model without a bag, with a free hand.",
        )
    if not fitting:
        raise EngineError("no_carry", _refusal(who, hands, clasped, plans, strap, handle_drop))
    # By kind: the strap asked for, then a hand, then the handle over a shoulder; within a
    # kind, a carry that needs no extension of the floor first.
    plan = min(fitting, key=lambda p: (int(p.rank), p.extend > 0, p.extend, p.rank))
    # Carries ranked alike (the two shoulders of a body, at the same offset) were settled by
    # the order the sides are tried in: always the same side of the picture, so a photo and
    # its mirror image got the bag on the same side. The carry on the lit side of the body
    # wins, which a mirror image mirrors.
    ties = [p for p in fitting if p.rank == plan.rank and p.extend == plan.extend]
    lit = _lit_side(model_rgb, mask)
    if len(ties) > 1 and lit != 0:
        mid = float(np.median(np.nonzero(mask > 0.5)[1]))
        plan = min(ties, key=lambda p: (-lit * (_centre_x(p.patch) - mid), p.rank))
    return plan.render(model_rgb, mask, sbag, ppcm)


def _over(patch: _Patch, held: np.ndarray, hand: Hand | None) -> bool:
    """Whether a carry's bag comes within a hand's size of a bag the model holds."""
    ys, xs = np.nonzero(held)
    x0, y0, x1, y1 = patch.bbox()
    pad = hand.size if hand is not None else 0.0
    return bool(x0 < xs.max() + pad and x1 > xs.min() - pad
                and y0 < ys.max() + pad and y1 > ys.min() - pad)


def _centre_x(patch: _Patch) -> float:
    x0, _, x1, _ = patch.bbox()
    return 0.5 * (x0 + x1)


def _lit_side(rgb: np.ndarray, mask: np.ndarray) -> int:
    """+1 when the person's right-hand half (in the picture) is the lighter one, -1 when the
    left-hand half is, 0 when they differ by less than LIT_LEVELS grey levels."""
    body = mask > 0.5
    if body.sum() < 16:
        return 0
    diff = _right_minus_left(rgb, body)
    if diff is None:
        return 0
    return 0 if abs(diff) < LIT_LEVELS else int(np.sign(diff))


def _right_minus_left(rgb: np.ndarray, body: np.ndarray) -> float | None:
    """The median grey of the person's right-hand half (in the picture) minus the left-hand
    half's, split at the person's median column; None when a half is empty."""
    mid = int(np.median(np.nonzero(body)[1]))
    grey = rgb.mean(axis=2)
    left = grey[:, :mid][body[:, :mid]]
    right = grey[:, mid:][body[:, mid:]]
    if len(left) == 0 or len(right) == 0:
        return None
    return float(np.median(right)) - float(np.median(left))


def _refusal(who: str, hands: list[Hand], clasped: bool, plans: list[_Plan], strap: float,
             handle_drop: float) -> str:
    """Why no carry fits, in words a partner can act on."""
    if clasped:
        why = (f"{who}'s hands are clasped together in front of the body, so a bag in hand "
               "would cover both hands")
    elif not hands:
        why = f"no hand of {who} is in frame to hold the bag"
    elif any(p.carry == "hand" for p in plans):
        reason = next(p.why for p in plans if p.carry == "hand")
        why = f"held in {who}'s hand the bag {reason}"
    else:
        why = f"neither of {who}'s hands hangs free to hold the bag"
    reasons = [p.why for p in plans if p.carry.startswith("shoulder") and p.why]
    # The most frequent reason over the shoulders and positions tried.
    worst = max(set(reasons), key=reasons.count) if reasons else "has no shoulder to hang from"
    if strap > 0:
        how = f"hung from a shoulder on its {strap:g} cm strap it {worst}"
    elif handle_drop >= MIN_SHOULDER_DROP_CM:
        how = f"hung from a shoulder by its handle it {worst}"
    else:
        how = (f"its handle ({handle_drop:.0f} cm drop) is too short to go over a shoulder and "
               "no strap drop was given")
    fix = ("Use a full-length photo of the model with a free hand" if strap > 0 else
           "Use a full-length photo of the model with a free hand, or give the bag's strap drop")
    return f"The bag cannot be carried: {why}, and {how}. {fix}."


def upright(pose: Pose) -> bool:
    """Whether the hips (or, without them, the nose above the shoulders) say the body stands
    head up. Upside down, the stature came out negative and so did the bag's scale."""
    pts = pose.points
    shoulders = [pts[k][1] for k in ("left_shoulder", "right_shoulder") if k in pts]
    hips = [pts[k][1] for k in ("left_hip", "right_hip") if k in pts]
    if not shoulders:
        return True  # no shoulders: the scale refuses it with its own reason
    if hips:
        return float(np.mean(hips)) > float(np.mean(shoulders))
    return "nose" not in pts or pts["nose"][1] < float(np.mean(shoulders))


def body_scale(pose: Pose, mask: np.ndarray, height_cm: float, gender: str) -> float | None:
    """Pixels per centimetre at the model's body."""
    pts = pose.points
    h = pose.height
    stature = stature_px(pose, mask)
    if stature is not None:
        return stature / height_cm
    if "left_shoulder" not in pts or "right_shoulder" not in pts:
        return None
    ls, rs = np.array(pts["left_shoulder"]), np.array(pts["right_shoulder"])
    candidates = []
    if (
        "left_hip" in pts
        and "right_hip" in pts
        and max(pts["left_hip"][1], pts["right_hip"][1]) < h - 2
    ):
        torso = abs((pts["left_hip"][1] + pts["right_hip"][1]) / 2 - (ls[1] + rs[1]) / 2)
        candidates.append(torso / (TORSO_SHARE * height_cm))
    shoulders = float(np.linalg.norm(ls - rs)) / (SHOULDER_WIDTH_SHARE[gender] * height_cm)
    candidates.append(shoulders)
    # A turned torso narrows the shoulders and a bent one shortens the torso; neither makes a
    # body look bigger, so the larger estimate is the less foreshortened one.
    return float(max(candidates))


def stature_px(pose: Pose, mask: np.ndarray) -> float | None:
    """Head top to floor in pixels, when both ends are in frame."""
    pts = pose.points
    h, w = mask.shape
    feet = [
        pts[k][1]
        for k in ("left_heel", "right_heel", "left_foot_index", "right_foot_index")
        if k in pts
    ]
    if not feet or max(feet) > h - 3 or "nose" not in pts:
        return None
    nx, ny = pts["nose"]
    band = max(3, int(0.03 * w))
    cols = mask[:, max(0, int(nx) - band) : int(nx) + band + 1] > 0.5
    rows = np.nonzero(cols.any(axis=1))[0]
    rows = rows[rows < ny]
    if len(rows) == 0 or rows.min() <= 2:
        return None  # the head touches the frame: cropped
    top = float(rows.min())
    bottom = max(feet)
    stature = bottom - top
    if stature <= 0:
        return None
    return stature * (1 + SOLE_SHARE)




@dataclass(frozen=True)
class ScaledBag:
    rgb: np.ndarray  # uint8, at the body's scale
    alpha: np.ndarray  # float32
    body_top: int  # first row of the bag's body (rows above it are the handle)
    body_height: int
    body_width: int
    strand_px: float = 0.0  # the handle's thickness (0 without a handle)
    strand_rgb: tuple[float, float, float] | None = None  # the handle's colour


def _body_rows(alpha: np.ndarray) -> tuple[int, int, int]:
    """(top row, bottom row, width) of the bag's body: the rows filled at least half as much
    as the fullest row. A handle's rows hold only its two strands."""
    solid = alpha > 0.5
    fill = solid.sum(axis=1)
    if fill.max() <= 0:
        return 0, alpha.shape[0] - 1, alpha.shape[1]
    rows = np.nonzero(fill >= 0.5 * fill.max())[0]
    top, bottom = int(rows.min()), int(rows.max())
    spans = [
        int(np.ptp(np.nonzero(solid[r])[0])) + 1 for r in range(top, bottom + 1) if solid[r].any()
    ]
    return top, bottom, max(spans)


def scale_bag(bag: Cutout, width_cm: float, height_cm: float, ppcm: float) -> ScaledBag:
    """The cut-out scaled so its body is the stated width and height (the geometric mean of the
    two scales, as a photo's perspective rarely gives both exactly)."""
    top, bottom, width_px = _body_rows(bag.alpha)
    sw = width_cm * ppcm / max(1, width_px)
    sh = height_cm * ppcm / max(1, bottom - top + 1)
    if max(sw, sh) > MAX_ASPECT_MISMATCH * min(sw, sh):
        raise EngineError(
            "bad_dimensions",
            f"In its photo the bag's body is {width_px / max(1, bottom - top + 1):.2f} times as "
            f"wide as it is tall, but the stated size ({width_cm:g} x {height_cm:g} cm) is "
            f"{width_cm / height_cm:.2f}: check the width and height (or the photo).",
        )
    scale = float(np.sqrt(sw * sh))
    w = max(2, round(bag.width * scale))
    h = max(2, round(bag.height * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    pm = cv2.resize(bag.rgb.astype(np.float32) * bag.alpha[..., None], (w, h), interpolation=interp)
    a = np.clip(cv2.resize(bag.alpha, (w, h), interpolation=interp), 0, 1).astype(np.float32)
    rgb = np.clip(pm / np.maximum(a[..., None], 1e-3), 0, 255).astype(np.uint8)
    top2, bottom2, width2 = _body_rows(a)
    # Rings and clasps above the body are hardware, not a handle to hold or wear.
    has_handle = top2 >= 0.15 * (bottom2 - top2 + 1)
    strand, colour = _handle_look(rgb, a, top2) if has_handle else (0.0, None)
    return ScaledBag(rgb, a, top2, bottom2 - top2 + 1, width2, strand, colour)


def _handle_look(rgb: np.ndarray, alpha: np.ndarray, top: int
                 ) -> tuple[float, tuple[float, float, float] | None]:
    """The handle's strand thickness (median run across its rows) and colour."""
    solid = alpha[:top] > 0.5
    runs: list[int] = []
    for row in solid[::2]:
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]])))
        runs += list(edges[1::2] - edges[0::2])
    if len(runs) < 3:
        return 0.0, None
    core = alpha[:top] > 0.9
    if core.sum() < 4:
        return float(np.median(runs)), None
    colour = np.median(rgb[:top][core].reshape(-1, 3), axis=0)
    return float(np.median(runs)), (float(colour[0]), float(colour[1]), float(colour[2]))


def pinch_handle(sbag: ScaledBag, anchor_x: float, width_px: float) -> ScaledBag:
    """The handle as a held one hangs: its strands pulled together toward the top so that they
    meet inside a fist `width_px` wide, widening back to their own spread at the bag's body."""
    top = sbag.body_top
    if top < 3:
        return sbag
    cols = np.nonzero((sbag.alpha[:top] > 0.5).any(axis=0))[0]
    if len(cols) == 0:
        return sbag
    spread = float(cols.max() - cols.min() + 1)
    s0 = float(np.clip(width_px / spread, 0.2, 1.0))
    if s0 >= 0.99:
        return sbag
    h, w = sbag.alpha.shape
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    t = np.clip(ys / top, 0.0, 1.0)
    s = s0 + (1.0 - s0) * t**1.5
    map_x = (anchor_x + (xs - anchor_x) / s).astype(np.float32)
    pm = sbag.rgb.astype(np.float32) * sbag.alpha[..., None]
    pm = cv2.remap(pm, map_x, ys, cv2.INTER_LINEAR, borderValue=0)
    a = np.clip(cv2.remap(sbag.alpha, map_x, ys, cv2.INTER_LINEAR, borderValue=0), 0, 1)
    rgb = np.clip(pm / np.maximum(a[..., None], 1e-3), 0, 255).astype(np.uint8)
    return ScaledBag(rgb, a.astype(np.float32), top, sbag.body_height, sbag.body_width,
                     sbag.strand_px, sbag.strand_rgb)


def _arch_depth(sbag: ScaledBag, width_px: float) -> float:
    """Rows from the handle's top to the first row where its strands are `width_px` apart
    (outer edges); the handle's height if they never are."""
    solid = sbag.alpha[: sbag.body_top] > 0.5
    for r, row in enumerate(solid):
        cols = np.flatnonzero(row)
        if len(cols) and cols[-1] - cols[0] + 1 >= width_px:
            first = np.flatnonzero(solid.any(axis=1))
            return float(r - (first[0] if len(first) else 0))
    return float(sbag.body_top)


def _top_anchor_x(alpha: np.ndarray) -> float:
    rows = max(1, round(0.05 * alpha.shape[0]))
    top = alpha[:rows]
    ys, xs = np.nonzero(alpha > 0.5)
    if top.sum() < 1e-3:
        return float(xs.mean()) if len(xs) else alpha.shape[1] / 2
    return float((top.sum(axis=0) * np.arange(alpha.shape[1])).sum() / top.sum())


@dataclass
class _Patch:
    """A layer placed at (x, y) of the frame."""

    x: int
    y: int
    rgb: np.ndarray
    alpha: np.ndarray
    handle: np.ndarray

    def bbox(self) -> tuple[int, int, int, int]:
        ys, xs = np.nonzero(self.alpha > 0.02)
        if len(xs) == 0:
            return self.x, self.y, self.x, self.y
        return (self.x + int(xs.min()), self.y + int(ys.min()),
                self.x + int(xs.max()) + 1, self.y + int(ys.max()) + 1)


def _transform(sbag: ScaledBag, anchor: tuple[float, float], target: tuple[float, float],
               tilt_deg: float, keep_handle: bool = True) -> _Patch:
    """The bag turned by tilt_deg (its bottom swinging toward +x for a positive angle) about
    `anchor` (bag pixels), with the anchor landing on `target` (frame pixels)."""
    alpha = sbag.alpha.copy()
    handle = np.zeros_like(alpha)
    handle[: sbag.body_top] = alpha[: sbag.body_top]
    if not keep_handle:
        alpha[: sbag.body_top] = 0
        handle[:] = 0
    phi = np.deg2rad(tilt_deg)
    c, s = float(np.cos(phi)), float(np.sin(phi))
    rot = np.array([[c, s], [-s, c]], np.float64)  # (0, 1) -> (sin, cos): bottom swings to +x
    h, w = alpha.shape
    corners = np.array([[0, 0], [w, 0], [0, h], [w, h]], np.float64) - anchor
    moved = corners @ rot.T + target
    x0, y0 = np.floor(moved.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(moved.max(axis=0)).astype(int) + 1
    m = np.zeros((2, 3), np.float64)
    m[:, :2] = rot
    m[:, 2] = np.asarray(target) - rot @ np.asarray(anchor) - (x0, y0)
    size = (int(x1 - x0), int(y1 - y0))
    flags = cv2.INTER_LINEAR
    pm = cv2.warpAffine(sbag.rgb.astype(np.float32) * alpha[..., None], m, size, flags=flags)
    a = np.clip(cv2.warpAffine(alpha, m, size, flags=flags), 0, 1)
    hd = np.clip(cv2.warpAffine(handle, m, size, flags=flags), 0, 1)
    rgb = np.clip(pm / np.maximum(a[..., None], 1e-3), 0, 255).astype(np.uint8)
    return _Patch(int(x0), int(y0), rgb, a.astype(np.float32), hd.astype(np.float32))


def _fit(patch: _Patch, shape: tuple[int, int], mask: np.ndarray, torso: np.ndarray,
         floor: float | None) -> tuple[bool, int, str]:
    """(fits, rows to add at the bottom, why not). The bag keeps a margin from every edge; the
    bottom may grow only on a full-length photo whose bottom rows are backdrop, not body. A
    bag that would hide much of the torso (a big bag slung in front of the body) or stand on
    the floor does not fit."""
    h, w = shape
    margin = max(2, round(0.015 * h))
    x0, y0, x1, y1 = patch.bbox()
    if x0 < margin or x1 > w - margin or y0 < margin:
        return False, 0, "would be cut by the edge of the frame"
    if floor is not None and y1 > floor:
        return False, 0, "would reach the floor"
    area = float(torso.sum())
    if area > 0:
        ph, pw = patch.alpha.shape
        bx0, by0 = max(0, patch.x), max(0, patch.y)
        bx1, by1 = min(w, patch.x + pw), min(h, patch.y + ph)
        covered = 0.0
        if bx1 > bx0 and by1 > by0:
            a = patch.alpha[by0 - patch.y : by1 - patch.y, bx0 - patch.x : bx1 - patch.x]
            covered = float(a[torso[by0:by1, bx0:bx1]].sum()) / area
        if covered > MAX_TORSO_COVER:
            return False, 0, "would hide the body"
    need = y1 + margin - h
    if need <= 0:
        return True, 0, ""
    bottom_is_backdrop = float(mask[-max(2, h // 100):].max()) < 0.3
    if bottom_is_backdrop and need <= MAX_EXTENSION * h:
        return True, int(need), ""
    return False, int(need), "would be cut by the bottom of the frame"


def floor_line(pose: Pose) -> float | None:
    """The soles' row when the feet are in frame: a hanging bag ends above it."""
    feet = [pose.points[k][1] for k in ("left_heel", "right_heel", "left_foot_index",
                                        "right_foot_index") if k in pose.points]
    if not feet or max(feet) >= pose.height - 2:
        return None
    return float(max(feet))


def torso_mask(pose: Pose, shape: tuple[int, int]) -> np.ndarray:
    """The torso as a bool mask: shoulders to the crotch (or, with the hips out of frame, down
    by 1.3 shoulder widths)."""
    h, w = shape
    pts = pose.points
    out = np.zeros((h, w), np.uint8)
    if "left_shoulder" not in pts or "right_shoulder" not in pts:
        return out > 0
    ls, rs = np.asarray(pts["left_shoulder"]), np.asarray(pts["right_shoulder"])
    if "left_hip" in pts and "right_hip" in pts:
        lh, rh = np.asarray(pts["left_hip"]), np.asarray(pts["right_hip"])
    else:
        drop = np.array([0.0, 1.3 * float(np.linalg.norm(ls - rs))])
        lh, rh = ls + drop, rs + drop
    # Down past the hip landmarks to the crotch: a bag hung in front of it is as bad.
    crotch = np.array([0.0, 0.3 * float(abs((lh[1] + rh[1]) - (ls[1] + rs[1])) / 2)])
    poly = np.stack([ls, rs, rh, rh + crotch, lh + crotch, lh])
    cv2.fillPoly(out, [np.round(poly).astype(np.int32)], 1)
    return out > 0


@dataclass
class _Plan:
    carry: str
    side: str
    patch: _Patch
    fits: bool
    extend: int
    rank: float
    hand: Hand | None = None
    strap_from: tuple[float, float] | None = None
    body_x: float = 0.0  # the body's middle column, for a strap to bow toward
    why: str = ""  # why it does not fit
    tilt: float = 0.0
    forearm: float | None = None
    held: np.ndarray | None = None  # the bag this hand already holds (bool, frame-sized)

    def render(self, rgb: np.ndarray, mask: np.ndarray, sbag: ScaledBag, ppcm: float
               ) -> Placement:
        base, mask = extend_backdrop(rgb, mask, self.extend)
        H, W = base.shape[:2]
        p = self.patch
        out = _shadow(base, mask, p.alpha, p.x, p.y, ppcm)
        fingers = np.zeros((H, W), np.float32)
        if self.strap_from is not None:
            if self.carry == "shoulder-handle" and sbag.strand_px > 0:
                thick = sbag.strand_px  # the bag's own handle, over the shoulder
            else:
                thick = STRAP_WIDTH_CM * ppcm
            out = _draw_strap(out, p, self.strap_from, ppcm, thick, sbag.strand_rgb,
                              self.body_x, _away_from_light(base, mask), mask)
        out = composite(out, p.rgb, p.alpha, p.x, p.y)
        if self.hand is not None:
            fingers = finger_mask(rgb, self.hand)
            if self.extend:
                fingers = np.pad(fingers, ((0, self.extend), (0, 0)))
            out = _fingers_over(out, base, fingers, self.hand, p)
        return Placement(
            image=out,
            base=base,
            bag_alpha=_full(p.alpha, p.x, p.y, (H, W)),
            handle_alpha=_full(p.handle, p.x, p.y, (H, W)),
            fingers=fingers,
            ppcm=ppcm,
            carry=self.carry,
            side=self.side,
            body_height_px=float(sbag.body_height),
            body_width_px=float(sbag.body_width),
            extended_rows=self.extend,
            tilt_deg=self.tilt,
            forearm_deg=self.forearm,
            hand_points=None if self.hand is None else self.hand.points,
        )


def _full(layer: np.ndarray, x: int, y: int, shape: tuple[int, int]) -> np.ndarray:
    out = np.zeros(shape, np.float32)
    h, w = layer.shape
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(shape[1], x + w), min(shape[0], y + h)
    if bx1 > bx0 and by1 > by0:
        out[by0:by1, bx0:bx1] = layer[by0 - y : by1 - y, bx0 - x : bx1 - x]
    return out


def _match_side(hand: Hand, pose: Pose) -> str | None:
    best, side = None, None
    for s in ("left", "right"):
        w = pose.points.get(f"{s}_wrist")
        if w is None:
            continue
        d = float(np.linalg.norm(np.asarray(w) - hand.points[0]))
        if d < 1.2 * hand.size and (best is None or d < best):
            best, side = d, s
    return side


def _hand_plans(rgb: np.ndarray, pose: Pose, mask: np.ndarray, sbag: ScaledBag, ppcm: float,
                hands: list[Hand]) -> tuple[list[_Plan], bool]:
    """A carry per hand that hangs free; and whether the hands are clasped together."""
    pts = pose.points
    torso = torso_mask(pose, rgb.shape[:2])
    floor = floor_line(pose)
    clasped = False
    if len(hands) >= 2:
        a, b = hands[0], hands[1]
        gap = float(np.linalg.norm(a.centre - b.centre))
        clasped = gap < 1.6 * 0.5 * (a.size + b.size)
    # The wrists decide only when the hand detector did not see both hands: two hands it
    # found apart are apart, even when the pose puts both wrists on one of them (it did on
    # a photo at twice the size, and the bag was refused as if the hands were clasped).
    if not clasped and len(hands) < 2 and "left_wrist" in pts and "right_wrist" in pts:
        shoulders = (
            float(np.linalg.norm(np.subtract(pts["left_shoulder"], pts["right_shoulder"])))
            if "left_shoulder" in pts and "right_shoulder" in pts else None
        )
        gap = float(np.linalg.norm(np.subtract(pts["left_wrist"], pts["right_wrist"])))
        clasped = shoulders is not None and gap < 0.35 * shoulders
    if clasped:
        return [], True
    centre_x = float(np.mean([p[0] for k, p in pts.items() if k.endswith(("shoulder", "hip"))]
                             or [rgb.shape[1] / 2]))
    plans = []
    anchor = (_top_anchor_x(sbag.alpha), 0.0)
    for hand in hands:
        side = _match_side(hand, pose) or "?"
        elbow = pts.get(f"{side}_elbow")
        tilt, forearm = 0.0, None
        if elbow is not None:
            fore = hand.points[0] - np.asarray(elbow)
            angle = float(np.degrees(np.arctan2(fore[0], fore[1])))  # 0 = straight down
            if abs(angle) > MAX_FOREARM_DEG or np.linalg.norm(fore) < 0.5 * hand.size:
                continue
            # Gravity pulls the bag toward vertical; the grip turns it part way along the arm.
            tilt = float(np.clip(0.5 * angle, -MAX_TILT_DEG, MAX_TILT_DEG))
            forearm = angle
        p = hand.points
        down = np.array([np.sin(np.deg2rad(tilt)), np.cos(np.deg2rad(tilt))])
        across = np.array([down[1], -down[0]])
        knuckles = p[[5, 9, 13, 17]].mean(axis=0)
        fingers = p[[6, 7, 10, 11, 14, 15, 18, 19]].mean(axis=0)
        # Hanging means the fingers point down from the wrist.
        if fingers[1] <= p[0][1]:
            continue
        # Landmarks on a pocket or a sleeve (a hand the detector imagined) are not skin.
        if not looks_like_skin(rgb, hand):
            continue
        outward = 1.0 if float(p[0][0]) >= centre_x else -1.0
        held = held_object(rgb, mask, finger_mask(rgb, hand) > 0.5, hand, outward, ppcm)
        if held is not None:
            # A second bag in this hand would hang on the one it holds. The plan is kept, never
            # fitting (its patch is a placeholder), so that the refusal can say so.
            plans.append(_Plan("hand", side, _transform(sbag, (0.0, 0.0), (0.0, 0.0), 0.0),
                               False, 0, 9.0, hand=hand, why="holds a bag already",
                               held=held))
            continue
        # The handle lies across the proximal finger segments (knuckles to the middle
        # joints), under the curled fingers: its strands are pulled in to the hand's width, so
        # they come out at the sides of the fingers there, and its top is put at the level
        # where the pinched arch reaches that width. Pinched narrower and hung from the
        # knuckles, the strands came out below the fingertips and the bag read as pasted
        # beside the hand.
        grip = p[5:21].mean(axis=0)
        middle = p[[6, 10, 14, 18]].mean(axis=0)
        proximal = 0.5 * (knuckles + middle)
        ext = p[5:21] @ across
        hand_w = float(np.ptp(ext)) + 0.2 * hand.size
        held = pinch_handle(sbag, anchor[0], hand_w + sbag.strand_px)
        target = grip + (float((proximal - grip) @ down) - _arch_depth(held, hand_w)) * down
        patch = _transform(held, anchor, (float(target[0]), float(target[1])), tilt)
        fits, extend, why = _fit(patch, rgb.shape[:2], mask, torso, floor)
        # Away from the body covers less of it: the outer hand first.
        rank = 1.5 - abs(float(grip[0]) - centre_x) / rgb.shape[1]
        plans.append(_Plan("hand", side, patch, fits, extend, rank, hand=hand, why=why,
                           tilt=tilt, forearm=forearm))
    return plans, False


def _shoulder_plans(rgb: np.ndarray, pose: Pose, mask: np.ndarray, sbag: ScaledBag, ppcm: float,
                    drop_cm: float, carry: str) -> list[_Plan]:
    pts = pose.points
    torso = torso_mask(pose, rgb.shape[:2])
    floor = floor_line(pose)
    plans = []
    keep_handle = carry == "shoulder-strap"
    for side in ("left", "right"):
        if f"{side}_shoulder" not in pts:
            continue
        sx, sy = pts[f"{side}_shoulder"]
        other = pts.get(("right" if side == "left" else "left") + "_shoulder")
        outward = np.sign(sx - other[0]) if other else (1.0 if sx > rgb.shape[1] / 2 else -1.0)
        bw = sbag.alpha.shape[1]
        # The strap drops from the shoulder to the top of the bag's body; the bag rests on
        # the outer side, or further in front of the body when the frame is tight there.
        top_y = sy + STRAP_SLANT * drop_cm * ppcm
        body_x = float((sx + other[0]) / 2) if other else float(sx - outward * 10.0 * ppcm)
        # The strap starts over the shoulder joint, a little to its outer side: taken a
        # centimetre inward it started on the astronaut's neck ring, not on the shoulder.
        ax = float(sx + outward * 0.5 * ppcm)
        anchor = (ax, _shoulder_top(mask, ax, sy, ppcm))
        for k, shift in enumerate((0.35, 0.1, -0.15, -0.4)):
            cx = sx + outward * shift * bw
            patch = _transform(sbag, (bw / 2, float(sbag.body_top)), (cx, top_y), 0.0,
                               keep_handle)
            fits, extend, why = _fit(patch, rgb.shape[:2], mask, torso, floor)
            rank = 2.0 + 0.1 * k
            plans.append(_Plan(carry, side, patch, fits, extend, rank, strap_from=anchor,
                               body_x=body_x, why=why))
    if carry == "shoulder-strap":
        for p in plans:
            p.rank -= 2.0  # a strap given on the card is the carry asked for
    return plans


def _shoulder_top(mask: np.ndarray, sx: float, sy: float, ppcm: float) -> float:
    """The row where a strap lies on the shoulder: the silhouette's top above the shoulder
    joint, a centimetre in. A shoulder rises a few centimetres above its joint; a silhouette
    that goes on up past SHOULDER_RISE_CM there is a head, a helmet or a collar, and the
    strap lies that rise above the joint instead (it started on a helmet's ring)."""
    h, w = mask.shape
    x = int(np.clip(round(sx), 0, w - 1))
    y = int(np.clip(round(sy), 0, h - 1))
    reach = max(2, round(SHOULDER_RISE_CM * ppcm))
    col = mask[max(0, y - reach) : y + 1, x] > 0.5
    if not col[-1]:
        return float(sy)
    outside = np.nonzero(~col)[0]
    if len(outside) == 0:
        return float(sy - (SHOULDER_RISE_CM - 1.0) * ppcm)
    return float(max(0, y - reach) + int(outside.max()) + 1 + 1.0 * ppcm)


def _draw_strap(out: np.ndarray, patch: _Patch, anchor: tuple[float, float], ppcm: float,
                thickness_px: float, colour: tuple[float, float, float] | None,
                body_x: float, away: float, mask: np.ndarray) -> np.ndarray:
    """The strap from the shoulder (`anchor`) to the bag's top edge, bowing toward `body_x`
    (the body's middle column), shaded as a band lying on the body: its own shadow on the
    body (`mask`) under it, away from the light (`away`, as `_away_from_light` gives it), its
    edge toward the light the brighter one, and darker where it turns over the top of the
    shoulder. Drawn in one flat colour it read as a stripe painted on the photo."""
    alpha = patch.alpha
    solid = alpha > 0.9
    if colour is not None:
        strap_rgb = np.asarray(colour, np.float32)
    elif solid.any():
        strap_rgb = np.percentile(patch.rgb[solid].reshape(-1, 3), 25, axis=0)
    else:
        strap_rgb = np.array([60, 40, 30], np.float32)
    thickness = max(2, round(thickness_px))
    # Drawn 8-bit: OpenCV anti-aliases only 8-bit lines (a float layer came out jagged).
    layer8 = np.zeros(out.shape[:2], np.uint8)
    cols = np.nonzero((alpha > 0.5).any(axis=0))[0]
    if len(cols) == 0:
        return out
    c0, c1 = int(cols.min()), int(cols.max())
    for fx in (0.2, 0.8):
        # Where the strap meets the bag: the top edge of the cut-out at that column.
        col = int(c0 + fx * (c1 - c0))
        rows = np.nonzero(alpha[:, col] > 0.5)[0]
        end = np.array([patch.x + col, patch.y + (int(rows.min()) if len(rows) else 0)],
                       np.float64)
        # A band that leaves the shoulder steeper than the chord and bows toward the body's
        # side, as a strap over a rounded shoulder does (a straight line read as a rigid
        # triangle): a quadratic curve through a control point off the chord's middle.
        start = np.asarray(anchor, np.float64)
        chord = end - start
        normal = np.array([-chord[1], chord[0]]) / max(1e-6, float(np.linalg.norm(chord)))
        if normal[0] * (body_x - start[0]) < 0:
            normal = -normal
        ctrl = start + 0.5 * chord + 2 * STRAP_SAG * float(np.linalg.norm(chord)) * normal
        t = np.linspace(0.0, 1.0, 24)[:, None]
        curve = (1 - t) ** 2 * start + 2 * (1 - t) * t * ctrl + t**2 * end
        cv2.polylines(layer8, [np.round(curve * 16).astype(np.int32)], False, 255, thickness,
                      cv2.LINE_AA, shift=4)
    layer = layer8.astype(np.float32) / 255.0
    # Its shadow, tight, where it lies on the body; hanging free beside it, it casts none
    # close by.
    dx, dy, blur_cm = STRAP_SHADOW_CM
    out = _cast(out, mask, layer, away * dx * ppcm, dy * ppcm, blur_cm * ppcm,
                STRAP_SHADOW_STRENGTH, True)
    # A strap is round-edged leather or webbing: darker toward its edges, the edge toward the
    # light less so (the depth is measured from a copy moved away from the light).
    # (Worked out in the strap's box: a full frame's grids cost hundreds of MB on 24 MP.)
    ys, xs = np.nonzero(layer8)
    if len(xs) == 0:
        return out
    m = thickness + 1
    x0, y0 = max(0, int(xs.min()) - m), max(0, int(ys.min()) - m)
    x1, y1 = min(out.shape[1], int(xs.max()) + m + 1), min(out.shape[0], int(ys.max()) + m + 1)
    solid8 = (layer8[y0:y1, x0:x1] > 0).astype(np.uint8)
    depth = cv2.distanceTransform(solid8, cv2.DIST_L2, 3)
    lean = int(np.clip(round(-away * 0.25 * thickness), -thickness, thickness))
    lit = np.roll(depth, lean, axis=1)
    across = np.sqrt(np.clip(np.maximum(depth, lit) / max(1.0, 0.5 * thickness), 0.0, 1.0))
    shade = 0.74 + 0.26 * across
    # Over the shoulder's top it turns away from the camera and out of the light.
    yy, xx = np.mgrid[y0:y1, x0:x1]
    reach = np.hypot(xx - anchor[0], yy - anchor[1]) / max(1.0, STRAP_CREST_CM * ppcm)
    shade = shade * (STRAP_CREST_SHADE + (1 - STRAP_CREST_SHADE) * np.clip(reach, 0.0, 1.0))
    strap_fg = np.clip(strap_rgb[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)
    return composite(out, strap_fg, layer[y0:y1, x0:x1], x0, y0)


# The widest crease in the hand's mask (a share of the hand's size) that is closed over the
# handle.
CREASE = 0.08


def _fingers_over(out: np.ndarray, base: np.ndarray, fingers: np.ndarray, hand: Hand,
                  patch: _Patch) -> np.ndarray:
    """The model's own hand put back over the handle, and the fingers' contact shadow on the
    handle just below them, so the bag is held, not pasted."""
    H, W = out.shape[:2]
    size = hand.size
    ys, xs = np.nonzero(fingers > 0.01)
    if len(xs) == 0:
        return out
    # Everything happens in the hand's box, grown by the shadow's reach.
    pad = round(0.3 * size) + 4
    x0, y0 = max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad)
    x1, y1 = min(W, int(xs.max()) + pad + 1), min(H, int(ys.max()) + pad + 1)
    f = fingers[y0:y1, x0:x1]
    # The shaded crease between two fingers, or between the thumb and the hand, is hand too
    # though darker than the skin test allows: left open, the handle's top showed through it.
    k = 2 * max(1, round(CREASE * size)) + 1
    f = cv2.morphologyEx(f, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # Past half-way the mask is the hand: it is put back whole, and only its outer rim blends.
    f = np.clip((f - 0.2) / 0.3, 0.0, 1.0)
    shift = max(1, round(0.06 * size))
    shade = np.zeros_like(f)
    shade[shift:] = f[:-shift]
    shade = cv2.GaussianBlur(shade, (0, 0), max(1.0, 0.06 * size))
    bag = _full(patch.alpha, patch.x - x0, patch.y - y0, f.shape)
    shade = np.clip(shade - f, 0, 1) * bag
    region = out[y0:y1, x0:x1].astype(np.float32) * (1 - 0.45 * shade[..., None])
    region = region * (1 - f[..., None]) + base[y0:y1, x0:x1].astype(np.float32) * f[..., None]
    res = out.copy()
    res[y0:y1, x0:x1] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
    return res


def extend_backdrop(rgb: np.ndarray, mask: np.ndarray, rows: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The photo grown downward by `rows` of its own floor: the bottom rows' colour per column,
    smoothed across, continued with the floor's grain, blended in over a short seam."""
    if rows <= 0:
        return rgb, mask
    h, w = rgb.shape[:2]
    band = max(4, h // 40)
    floor = rgb[-band:].astype(np.float32)
    profile = np.median(floor, axis=0)  # per column
    sigma = max(2.0, 0.03 * w)
    profile = cv2.GaussianBlur(profile[None], (0, 0), sigma)[0]
    grain = float(np.std(floor - cv2.GaussianBlur(floor, (0, 0), 2.0)))
    rng = np.random.default_rng(7)
    ext = np.repeat(profile[None], rows, axis=0)
    ext += rng.normal(0.0, grain, ext.shape[:2])[..., None]
    out = np.concatenate([rgb.astype(np.float32), ext], axis=0)
    seam = min(band, rows)
    t = np.linspace(0.0, 1.0, seam)[:, None, None]
    last = rgb[-seam:].astype(np.float32)
    out[h - seam : h] = last * (1 - t) + (profile[None] + 0) * t
    out = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    return out, np.pad(mask, ((0, rows), (0, 0)))


def _shadow(
    rgb: np.ndarray, mask: np.ndarray, alpha: np.ndarray, x: int, y: int, ppcm: float
) -> np.ndarray:
    """The bag's shadow, multiplied in: close, tight and darker where it falls on the body
    (the bag hangs against it), further, wider and fainter on the backdrop behind. Both are
    offset down and away from the light."""
    away = _away_from_light(rgb, mask)
    out = rgb
    # (offset across and down in cm, blur in cm, strength, where it falls)
    for dx, dy, blur_cm, strength, on_body in ((0.8, 1.2, 1.2, 0.4, True),
                                               (2.5, 3.0, 3.0, 0.2, False)):
        out = _cast(out, mask, alpha, x + away * dx * ppcm, y + dy * ppcm, blur_cm * ppcm,
                    strength, on_body)
    return out


def _cast(out: np.ndarray, mask: np.ndarray, alpha: np.ndarray, x: float, y: float,
          blur_px: float, strength: float, on_body: bool) -> np.ndarray:
    """A layer's soft shadow (its matte `alpha` blurred, put at x, y) multiplied in, on the
    body only or on the backdrop only."""
    H, W = out.shape[:2]
    blur = max(1.0, blur_px)
    pad = int(3 * blur) + 1
    shade = soft_shadow(alpha, blur, pad)
    sx, sy = round(x - pad), round(y - pad)
    where = np.zeros(shade.shape, np.float32)
    bx0, by0 = max(0, sx), max(0, sy)
    bx1, by1 = min(W, sx + shade.shape[1]), min(H, sy + shade.shape[0])
    if bx1 > bx0 and by1 > by0:
        m = mask[by0:by1, bx0:bx1].astype(np.float32)
        where[by0 - sy : by1 - sy, bx0 - sx : bx1 - sx] = m if on_body else 1.0 - m
    return darken(out, shade * where, sx, sy, strength)


def _away_from_light(rgb: np.ndarray, mask: np.ndarray) -> float:
    """+1 when shadows fall toward +x (the person is lit from the left), -1 when toward -x:
    the lit half of the person is the lighter one. +1 when the halves do not differ."""
    body = mask > 0.5
    cols = np.nonzero(body.any(axis=0))[0]
    if len(cols) < 4:
        return 1.0
    diff = _right_minus_left(rgb, body)
    if diff is None:
        return 1.0
    return -1.0 if diff > 3.0 else 1.0
