"""Virtual Try-On, Restyle, Garment Integration and Ecommerce Asset: one try-on core.

The core cuts the garment out of its product shot, reads its keypoints from the silhouette,
warps it onto the person's pose landmarks with a thin-plate spline and composites it keeping
the person's shading, with face, hair and bare arms left in front and the parts of the old
garment the new one does not cover painted over (skin on arms and midriff, the surroundings
elsewhere). The four entry points differ only in what they do around that:

- ``virtual_try_on``: the core, PNG.
- ``restyle``: the core on a full-body outfit photo, PNG named restyle-<n>.png.
- ``garment_integration``: the core on an editorial image, then the garment lit like the scene
  (a soft ramp along its light direction, a small gain toward its key) without its own colour
  or levels moving, PNG.
- ``ecommerce_asset``: an accessory (bag, hat, scarf, jewellery) placed on the model at the
  body part it belongs to, at a scale taken from the pose, JPEG.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import warp
from workers.engines.imaging.color import linear_to_srgb, srgb_to_linear
from workers.engines.imaging.cutout import (
    Cutout,
    border_colour,
    cut_out,
    cut_out_product,
    refine_matte,
    soft_shadow,
    spread_colours,
    wide_blur,
)
from workers.engines.imaging.decode import decode_image, encode_jpeg, encode_png

# Work on at most this long side: a catalogue shot at 1024 px keeps folds and prints sharp, and
# pose, masks and warp all scale with pixels.
MAX_SIDE = 1024
# Pixels we agree to decode at all (a 24 MP camera frame passes).
MAX_PIXELS = 40_000_000

CATEGORY_ALIASES = {
    "upper_body": warp.UPPER, "upper": warp.UPPER, "top": warp.UPPER, "tops": warp.UPPER,
    "lower_body": warp.LOWER, "lower": warp.LOWER, "bottom": warp.LOWER, "bottoms": warp.LOWER,
    "trousers": warp.LOWER, "pants": warp.LOWER, "skirt": warp.LOWER, "jeans": warp.LOWER,
    "shorts": warp.LOWER,
    "one_piece": warp.ONE_PIECE, "dress": warp.ONE_PIECE, "dresses": warp.ONE_PIECE,
    "jumpsuit": warp.ONE_PIECE, "full": warp.ONE_PIECE,
}

ACCESSORY_KINDS = ("bag", "hat", "scarf", "jewellery")


# --- images in and out ------------------------------------------------------------------------


def _load(data: Any, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_input", f"The {what} image is missing.")
    img = decode_image(bytes(data), max_pixels=MAX_PIXELS)
    rgb, alpha = img.rgb, img.alpha
    h, w = rgb.shape[:2]
    s = min(1.0, MAX_SIDE / max(h, w))
    if s < 1.0:
        size = (max(1, round(w * s)), max(1, round(h * s)))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        if alpha is not None:
            alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    a = None if alpha is None else alpha.astype(np.float32) / 255.0
    return np.ascontiguousarray(rgb), a


# --- the person -------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoseLike:
    """Same shape as ``imaging.pose.Pose`` (which garment.py reads)."""

    points: dict[str, tuple[float, float]]
    width: int
    height: int


_POSE_LOCK = threading.Lock()
_POSE_MODEL: Any = None


def _pose_model() -> Any:
    global _POSE_MODEL
    if _POSE_MODEL is None:
        import mediapipe as mp  # heavy: import on first use

        # Complexity 1 is the model the wheel ships; lite and heavy try to download.
        _POSE_MODEL = mp.solutions.pose.Pose(
            static_image_mode=True, model_complexity=1, enable_segmentation=True,
            min_detection_confidence=0.5,
        )
    return _POSE_MODEL


def _detect(rgb: np.ndarray) -> tuple[PoseLike | None, np.ndarray]:
    """Pose landmarks (visibility >= 0.5) and the person mask from one mediapipe pass."""
    import mediapipe as mp

    h, w = rgb.shape[:2]
    with _POSE_LOCK:
        res = _pose_model().process(np.ascontiguousarray(rgb))
    if res.pose_landmarks is None:
        return None, np.zeros((h, w), np.float32)
    pts: dict[str, tuple[float, float]] = {}
    for lm_enum, lm in zip(mp.solutions.pose.PoseLandmark, res.pose_landmarks.landmark, strict=True):
        if lm.visibility >= 0.5 and -0.05 <= lm.x <= 1.05 and -0.05 <= lm.y <= 1.05:
            pts[lm_enum.name.lower()] = (float(lm.x * w), float(lm.y * h))
    mask = res.segmentation_mask
    mask = np.zeros((h, w), np.float32) if mask is None else np.asarray(mask, np.float32)
    return PoseLike(pts, w, h), mask


def _np(p: tuple[float, float]) -> np.ndarray:
    return np.array(p, np.float64)


@dataclass
class Body:
    rgb: np.ndarray
    pose: PoseLike
    mask: np.ndarray  # float32 person mask
    left: dict[str, np.ndarray]  # image-left chain: shoulder, elbow, wrist, hip, knee, ankle...
    right: dict[str, np.ndarray]
    shoulder_mid: np.ndarray
    hip_mid: np.ndarray
    u: np.ndarray  # unit vector image-left shoulder to image-right shoulder
    down: np.ndarray  # unit vector shoulders to hips
    shoulder_width: float  # edge to edge, pixels
    torso_len: float
    face_box: tuple[int, int, int, int] | None
    head: np.ndarray  # bool: face and hair above the neck, always kept
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def h(self) -> int:
        return int(self.rgb.shape[0])

    @property
    def w(self) -> int:
        return int(self.rgb.shape[1])


def analyse_body(rgb: np.ndarray) -> Body:
    pose, mask = _detect(rgb)
    if pose is None or mask.sum() < 0.01 * mask.size:
        raise EngineError("no_person", "No person was found in the model image.")
    p = pose.points
    if "left_shoulder" not in p or "right_shoulder" not in p:
        raise EngineError(
            "no_person",
            "No person with both shoulders visible was found in the model image; use a "
            "front-facing photo showing the upper body.",
        )
    h, w = rgb.shape[:2]
    # Image-left chain is whichever shoulder is further left (the person's right when facing us).
    names = ("shoulder", "elbow", "wrist", "hip", "knee", "ankle", "heel", "foot_index",
             "index", "ear", "eye")
    a_side, b_side = ("right", "left") if p["right_shoulder"][0] <= p["left_shoulder"][0] else ("left", "right")
    left = {n: _np(p[f"{a_side}_{n}"]) for n in names if f"{a_side}_{n}" in p}
    right = {n: _np(p[f"{b_side}_{n}"]) for n in names if f"{b_side}_{n}" in p}
    sl, sr = left["shoulder"], right["shoulder"]
    joint_w = float(np.linalg.norm(sr - sl))
    if joint_w < 0.03 * w:
        raise EngineError("no_person", "The person is turned sideways or too small to dress.")
    u = (sr - sl) / joint_w
    shoulder_mid = (sl + sr) / 2
    if "hip" in left and "hip" in right:
        hip_mid = (left["hip"] + right["hip"]) / 2
        if float(np.linalg.norm(right["hip"] - left["hip"])) < 0.4 * joint_w:
            # Hip joints cannot meet: the pose model lost them (a narrow dress, legs crossed);
            # an adult's sit about two thirds of the shoulder joints' width apart.
            left["hip"] = hip_mid - u * 0.33 * joint_w
            right["hip"] = hip_mid + u * 0.33 * joint_w
    else:
        hip_mid = shoulder_mid + np.array([-u[1], u[0]]) * 1.45 * joint_w
    torso_len = float(np.linalg.norm(hip_mid - shoulder_mid))
    down = (hip_mid - shoulder_mid) / max(torso_len, 1e-6)

    # Shoulder edges: walk outward from each joint along the shoulder line while on the body.
    binm = mask > 0.5
    edge = []
    for joint, sign in ((sl, -1.0), (sr, 1.0)):
        reach = 0.0
        for t in np.linspace(0, 0.35 * joint_w, 24):
            q = joint + sign * u * t
            x, y = int(round(q[0])), int(round(q[1]))
            if not (0 <= x < w and 0 <= y < h) or not binm[y, x]:
                break
            reach = t
        edge.append(float(np.clip(reach, 0.06 * joint_w, 0.14 * joint_w)))
    shoulder_width = joint_w + sum(edge)

    face_box, head = _head_region(p, binm, shoulder_mid, joint_w, h, w)
    body = Body(rgb=rgb, pose=pose, mask=mask, left=left, right=right,
                shoulder_mid=shoulder_mid, hip_mid=hip_mid, u=u, down=down,
                shoulder_width=shoulder_width, torso_len=torso_len,
                face_box=face_box, head=head)
    body.extras["edge"] = edge
    return body


def _head_region(
    p: dict[str, tuple[float, float]], binm: np.ndarray, shoulder_mid: np.ndarray,
    joint_w: float, h: int, w: int,
) -> tuple[tuple[int, int, int, int] | None, np.ndarray]:
    """Face box and the head (face, hair, neck top) that no garment may cover."""
    head = np.zeros((h, w), bool)
    face_pts = [p[n] for n in ("nose", "left_eye", "right_eye", "mouth_left", "mouth_right",
                                "left_ear", "right_ear") if n in p]
    if len(face_pts) < 3 or "nose" not in p:
        return None, head
    fp = np.array(face_pts)
    eye_y = np.mean([p[n][1] for n in ("left_eye", "right_eye") if n in p] or [p["nose"][1]])
    mouth_y = np.mean([p[n][1] for n in ("mouth_left", "mouth_right") if n in p] or [p["nose"][1]])
    ears = [p[n] for n in ("left_ear", "right_ear") if n in p]
    face_w = abs(ears[0][0] - ears[1][0]) if len(ears) == 2 else max(np.ptp(fp[:, 0]) * 1.6, 0.35 * joint_w)
    face_w = max(face_w, 0.3 * joint_w)
    em = max(mouth_y - eye_y, 0.12 * face_w)
    chin_y = eye_y + 1.75 * em
    top_y = eye_y - 1.6 * em
    cx = float(np.mean(fp[:, 0]))
    box = (int(max(0, cx - 0.6 * face_w)), int(max(0, top_y)),
           int(min(w, cx + 0.6 * face_w)), int(min(h, chin_y)))
    # Everything of the person above the chin, across the head's width plus hair either side.
    rows = np.arange(h)[:, None]
    cols = np.arange(w)[None, :]
    band = (rows < chin_y) & (np.abs(cols - cx) < 1.1 * face_w)
    head |= band & binm
    cv2.ellipse(head.view(np.uint8), (int(cx), int((top_y + chin_y) / 2)),
                (int(0.55 * face_w), int((chin_y - top_y) / 2)), 0, 0, 360, 1, -1)
    return box, head


# --- the garment --------------------------------------------------------------------------------


@dataclass
class Garment:
    rgb: np.ndarray
    alpha: np.ndarray
    shape: warp.GarmentShape


def _bleed(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The cut-out's colours with its rim and transparent margin taken from the opaque inside.

    A product shot's rim pixels still carry some of the sweep; the warp's bilinear lookups and
    the feathered edge would mix it back in as a light line around a dark garment.
    """
    if (alpha > 0.9).sum() < 16:
        return rgb
    return np.clip(spread_colours(rgb, alpha > 0.9) + 0.5, 0, 255).astype(np.uint8)


def prepare_garment(data: bytes, category: str | None = None) -> Garment:
    rgb, alpha = _load(data, "garment")
    has_alpha = alpha is not None and float((alpha < 0.5).mean()) > 0.01
    cut = cut_out(rgb, alpha, what="garment")
    matte = cut.alpha
    if not has_alpha:
        matte = refine_matte(cut.rgb, matte, border_colour(rgb))
    # A margin so the warp's bilinear lookups fade to transparent instead of clamping.
    pad = 4
    # Shrink the matte by a pixel: product-shot rims carry the sweep's colour and shadow.
    eroded = cv2.erode(matte, np.ones((3, 3), np.uint8))
    crgb = cv2.copyMakeBorder(_bleed(cut.rgb, eroded), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    calpha = cv2.copyMakeBorder(eroded, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    if category:
        cat = CATEGORY_ALIASES.get(str(category).strip().lower().replace("-", "_").replace(" ", "_"))
        if cat is None:
            raise EngineError("bad_category", f"Unknown garment category {category!r}: use "
                              "upper_body, lower_body or one_piece.")
    else:
        cat = warp.classify(calpha)
    try:
        shape = warp.garment_keypoints(calpha, cat)
    except (ValueError, IndexError) as exc:
        raise EngineError("no_garment", "The garment's outline could not be read.") from exc
    return Garment(crgb, calpha, shape)


# --- the body's parts ------------------------------------------------------------------------------

# Limb radii as shares of the shoulder width (edge to edge), for limbs whose outline cannot be
# measured because they touch the torso: adult proportions seen from the front.
ARM_RADII = (0.1, 0.08, 0.085)  # upper arm, forearm, hand
LEG_RADII = (0.17, 0.11, 0.07)  # thigh, calf, foot


@dataclass(frozen=True)
class Limb:
    """A chain of joints (arm: shoulder, elbow, wrist, hand tip) with a radius per segment."""

    joints: tuple[np.ndarray, ...]
    radii: tuple[float, ...]

    def mask(self, h: int, w: int, scale: float = 1.0, first: int = 0) -> np.ndarray:
        """The limb as round-capped segments (uint8), from segment ``first`` on."""
        m = np.zeros((h, w), np.uint8)
        for i in range(first, len(self.radii)):
            a, b = self.joints[i], self.joints[i + 1]
            r = max(1, int(round(self.radii[i] * scale)))
            pa, pb = (int(round(a[0])), int(round(a[1]))), (int(round(b[0])), int(round(b[1])))
            cv2.line(m, pa, pb, 1, 2 * r)
            cv2.circle(m, pa, r, 1, -1)
            cv2.circle(m, pb, r, 1, -1)
        return m


def _reach(binm: np.ndarray, start: np.ndarray, direction: np.ndarray, cap: float) -> float:
    """How far from ``start`` along ``direction`` the mask stays set (at most ``cap``)."""
    h, w = binm.shape
    reach = 0.0
    for t in np.linspace(0, cap, max(8, int(cap / 1.5))):
        q = start + direction * t
        x, y = int(round(q[0])), int(round(q[1]))
        if not (0 <= x < w and 0 <= y < h) or not binm[y, x]:
            break
        reach = t
    return reach


def _segment_radius(binm: np.ndarray, a: np.ndarray, b: np.ndarray, default: float) -> float:
    """Half the limb's width across segment a-b where it stands free of the body, else the
    default (an arm resting on the torso merges with it in the person mask)."""
    d = b - a
    n = float(np.linalg.norm(d))
    if n < 2:
        return default
    perp = np.array([-d[1], d[0]]) / n
    widths = []
    cap = 2.2 * default
    for t in (0.35, 0.5, 0.65):
        q = a + d * t
        r1, r2 = _reach(binm, q, perp, cap), _reach(binm, q, -perp, cap)
        if r1 < cap * 0.98 and r2 < cap * 0.98 and r1 + r2 > 0.5 * default:
            widths.append(r1 + r2)
    if not widths:
        return default
    return float(np.clip(np.median(widths) / 2, 0.6 * default, 1.4 * default))


def _limbs(body: Body) -> dict[str, Limb]:
    """Arms and legs with joints from the pose and radii measured where they stand free."""
    if "limbs" in body.extras:
        return body.extras["limbs"]
    sw = body.shoulder_width
    binm = body.mask > 0.5
    limbs: dict[str, Limb] = {}
    for side, chain in (("l", body.left), ("r", body.right)):
        if "elbow" in chain:
            joints = [chain["shoulder"], chain["elbow"]]
            if "wrist" in chain:
                wr = chain["wrist"]
                tip = chain.get("index", wr + (wr - chain["elbow"]) * 0.3)
                # The hand reaches past the index knuckle landmark.
                joints += [wr, wr + (tip - wr) * 1.5]
            radii = [_segment_radius(binm, joints[i], joints[i + 1], ARM_RADII[i] * sw)
                     for i in range(len(joints) - 1)]
            limbs[f"arm_{side}"] = Limb(tuple(joints), tuple(radii))
        if "hip" in chain and "knee" in chain:
            joints = [chain["hip"], chain["knee"]]
            if "ankle" in chain:
                joints.append(chain["ankle"])
                if "foot_index" in chain:
                    joints.append(chain["foot_index"])
            radii = [_segment_radius(binm, joints[i], joints[i + 1], LEG_RADII[i] * sw)
                     for i in range(len(joints) - 1)]
            limbs[f"leg_{side}"] = Limb(tuple(joints), tuple(radii))
    body.extras["limbs"] = limbs
    return limbs


def _guided(guide: np.ndarray, p: np.ndarray, r: int, eps: float = 2e-3) -> np.ndarray:
    """He's guided filter (grey guide): ``p`` with its edges moved onto the photo's edges."""
    k = (2 * r + 1, 2 * r + 1)
    mean_i = cv2.boxFilter(guide, -1, k)
    mean_p = cv2.boxFilter(p, -1, k)
    cov = cv2.boxFilter(guide * p, -1, k) - mean_i * mean_p
    var = cv2.boxFilter(guide * guide, -1, k) - mean_i * mean_i
    a = cov / (var + eps)
    b = mean_p - a * mean_i
    return cv2.boxFilter(a, -1, k) * guide + cv2.boxFilter(b, -1, k)


def _gray01(body: Body) -> np.ndarray:
    if "gray01" not in body.extras:
        body.extras["gray01"] = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    return body.extras["gray01"]


def _refine(body: Body, m: np.ndarray) -> np.ndarray:
    """A hard mask made soft along the photo's own edges (hair, fingers, arm outlines)."""
    r = max(2, int(0.012 * body.shoulder_width + 1))
    return np.clip(_guided(_gray01(body), m.astype(np.float32), r), 0.0, 1.0)


def _arms(body: Body, starts: dict[str, float], category: str) -> np.ndarray:
    """Soft mask of the arms and hands from ``starts[side]`` pixels down each arm: capsules on
    the pose, grown over bare skin, on the person, with edges refined on the photo.

    The arm near the shoulder is never in front of a garment: the shoulder seam and sleeve go
    over it. Further down, an arm hanging beside or crossing the body is in front of the
    garment's body.
    """
    h, w = body.h, body.w
    binm = body.mask > 0.5
    # Skin-coloured prints on the garment being replaced are not hands.
    skin = (_skin(body) > 0.5) & ~_old_garment(body, category)
    m = np.zeros((h, w), bool)
    for name, limb in _limbs(body).items():
        if not name.startswith("arm"):
            continue
        chain = list(limb.joints)
        start = max(starts.get(name[-1], 0.0), 0.0)
        # Cut the chain ``start`` pixels from the shoulder.
        joints, radii = [], []
        for i in range(len(chain) - 1):
            seg = float(np.linalg.norm(chain[i + 1] - chain[i]))
            if start >= seg:
                start -= seg
                continue
            a = chain[i] + (chain[i + 1] - chain[i]) * (start / max(seg, 1e-6))
            joints = [a] + chain[i + 1:]
            radii = list(limb.radii[i:])
            break
        if not radii:
            continue
        part = Limb(tuple(joints), tuple(radii))
        core = part.mask(h, w, 0.95) > 0
        grown = part.mask(h, w, 1.3) > 0
        bare = grown & binm & skin
        if bare.sum() > 0.5 * (core & binm).sum():
            # A bare arm: its skin is its outline, exactly (the capsule would also take the
            # gap between arm and waist, or a strip of the torso beside it).
            closed = cv2.morphologyEx(bare.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)) > 0
            # Highlights and shadows on the arm fill in; the gap between arm and waist (not
            # skin, outside the arm's core) stays out.
            m |= bare | (closed & core)
        else:
            m |= (core & binm) | bare
    m &= ~body.head
    if not m.any():
        return m.astype(np.float32)
    return _refine(body, m) * np.clip(body.mask * 1.5, 0, 1)


def _torso_reach(body: Body, centre: np.ndarray) -> tuple[float, float]:
    """How far the torso reaches left and right of ``centre`` along the shoulder line, with the
    arms taken out (arms hanging against the sides merge into the person mask)."""
    if "torso_mask" not in body.extras:
        h, w = body.h, body.w
        arms = np.zeros((h, w), np.uint8)
        for name, limb in _limbs(body).items():
            if name.startswith("arm"):
                # From the elbow on: the upper arm joins the shoulder, which is torso.
                arms |= limb.mask(h, w, 1.05, first=1)
                arms |= cv2.dilate(limb.mask(h, w, 1.0), np.ones((3, 3), np.uint8)) & (
                    _side_of_shoulders(body, h, w))
        body.extras["torso_mask"] = (body.mask > 0.5) & (arms == 0)
    binm = body.extras["torso_mask"]
    cap = 0.9 * body.shoulder_width
    return _reach(binm, centre, -body.u, cap), _reach(binm, centre, body.u, cap)


def _arm_limits(body: Body, centre: np.ndarray) -> tuple[float, float]:
    """How far left and right of ``centre`` the torso can reach before an arm passing at that
    height: an arm hanging against the side merges with the torso in the mask, and the torso
    ends before the arm's middle."""
    left = right = float("inf")
    for name, limb in _limbs(body).items():
        if not name.startswith("arm"):
            continue
        for i in range(len(limb.radii)):
            a, b = limb.joints[i], limb.joints[i + 1]
            da, db = float((a - centre) @ body.down), float((b - centre) @ body.down)
            if (da > 0) == (db > 0) or abs(db - da) < 1e-6:
                continue
            seg = (b - a) / max(float(np.linalg.norm(b - a)), 1e-6)
            if abs(float(seg @ body.down)) < 0.7:
                continue  # a forearm across the body or a hand on the hip, not a side
            q = a + (b - a) * (da / (da - db))
            side = float((q - centre) @ body.u)
            limit = abs(side) - 0.6 * limb.radii[i]
            if limit > 0.1 * body.shoulder_width:
                if side < 0:
                    left = min(left, limit)
                else:
                    right = min(right, limit)
    return left, right


def _side_of_shoulders(body: Body, h: int, w: int) -> np.ndarray:
    """Pixels further out than the shoulder joints (uint8): there an upper arm is arm, not torso."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xx - body.shoulder_mid[0]) * body.u[0] + (yy - body.shoulder_mid[1]) * body.u[1]
    half = float(np.linalg.norm(body.right["shoulder"] - body.left["shoulder"])) / 2
    return (np.abs(along) > 0.92 * half).astype(np.uint8)


def _torso_sides(body: Body, depth: float) -> tuple[np.ndarray, float, float]:
    """Centre of the torso ``depth`` pixels below the shoulder line and its half widths to the
    left and right, measured but held to a body's proportions."""
    centre = body.shoulder_mid + body.down * depth
    t = depth / max(body.torso_len, 1e-6)
    sw = body.shoulder_width
    hl, hr = body.left.get("hip"), body.right.get("hip")
    hip_half = 0.95 * float(np.linalg.norm(hr - hl)) if hl is not None and hr is not None else 0.38 * sw
    model = float(np.interp(t, [0.0, 0.3, 0.65, 1.0, 1.6], [0.5 * sw, 0.42 * sw, 0.37 * sw, hip_half, hip_half]))
    left, right = _torso_reach(body, centre)
    lim_l, lim_r = _arm_limits(body, centre)
    return (centre, min(float(np.clip(left, 0.75 * model, 1.2 * model)), max(lim_l, 0.6 * model)),
            min(float(np.clip(right, 0.75 * model, 1.2 * model)), max(lim_r, 0.6 * model)))


# --- placing: garment keypoints to body targets ---------------------------------------------------


def _along(chain: list[np.ndarray], dist: float) -> np.ndarray:
    """The point ``dist`` along a polyline, continuing past its end in the last direction."""
    for a, b in zip(chain, chain[1:], strict=False):
        seg = float(np.linalg.norm(b - a))
        if dist <= seg or b is chain[-1]:
            return a + (b - a) / max(seg, 1e-6) * dist
        dist -= seg
    return chain[-1]


def _similarity_parts(g_a: np.ndarray, g_b: np.ndarray, b_a: np.ndarray, b_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, t) with f(q) = A q + t mapping segment g_a-g_b onto b_a-b_b."""
    gv, bv = g_b - g_a, b_b - b_a
    s = np.linalg.norm(bv) / max(np.linalg.norm(gv), 1e-6)
    ang = np.arctan2(bv[1], bv[0]) - np.arctan2(gv[1], gv[0])
    c, si = np.cos(ang), np.sin(ang)
    a = np.array([[c, -si], [si, c]]) * s
    return a, (b_a + b_b) / 2 - a @ ((g_a + g_b) / 2)


def _similarity(g_a: np.ndarray, g_b: np.ndarray, b_a: np.ndarray, b_b: np.ndarray):  # type: ignore[no-untyped-def]
    """Map garment points so segment g_a-g_b lands on b_a-b_b (rotation, scale, shift)."""
    a, t = _similarity_parts(g_a, g_b, b_a, b_b)
    s = float(np.linalg.norm(b_b - b_a) / max(np.linalg.norm(g_b - g_a), 1e-6))

    def f(q: tuple[float, float] | np.ndarray) -> np.ndarray:
        return a @ np.asarray(q, np.float64) + t

    return f, s


def sleeve_masks(g: Garment) -> dict[str, np.ndarray]:
    """The sleeves of a top or dress: garment pixels outside the shoulder-armpit line (above a
    dress's waist: a skirt flares out past that line too)."""
    pts = {k: _np(v) for k, v in g.shape.points.items()}
    out: dict[str, np.ndarray] = {}
    if g.shape.category == warp.LOWER:
        return out
    h, w = g.alpha.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    tw = float(np.linalg.norm(pts["shoulder_r"] - pts["shoulder_l"]))
    limit = pts["waist_l"][1] if g.shape.category == warp.ONE_PIECE and "waist_l" in pts else h
    for side, sgn in (("l", -1.0), ("r", 1.0)):
        if f"sleeve_{side}" not in pts:
            continue
        sh = pts[f"shoulder_{side}"]
        ap = pts.get(f"armpit_{side}", sh + np.array([0.0, 0.35 * tw]))
        d = ap - sh
        d /= max(np.linalg.norm(d), 1e-6)
        n = np.array([d[1], -d[0]])
        if n[0] * sgn < 0:
            n = -n
        side_dist = (xx - sh[0]) * n[0] + (yy - sh[1]) * n[1]
        out[side] = (side_dist > 0.02 * tw) & (g.alpha > 0.02) & (yy < limit)
    return out


def place_garment(g: Garment, body: Body) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Control point pairs (garment, body) for the TPS, and facts for the compositor."""
    if g.shape.category == warp.LOWER:
        return _place_bottoms(g, body)
    return _place_top(g, body)


def _place_top(g: Garment, body: Body) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    pts = {k: _np(v) for k, v in g.shape.points.items()}
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    info: dict[str, Any] = {}
    sw, torso = body.shoulder_width, body.torso_len
    L, R = body.left, body.right
    edge_l, edge_r = body.extras["edge"]
    one_piece = g.shape.category == warp.ONE_PIECE
    sleeveless = "armhole_l" in pts
    # Garment shoulders sit on the top of the shoulder, a little above the joints; a strap sits
    # on the joint itself.
    lift = -0.06 * sw * body.down
    if sleeveless:
        b_sl = L["shoulder"] - body.u * 0.2 * edge_l + 1.2 * lift
        b_sr = R["shoulder"] + body.u * 0.2 * edge_r + 1.2 * lift
    else:
        b_sl = L["shoulder"] - body.u * edge_l + lift
        b_sr = R["shoulder"] + body.u * edge_r + lift
    f, s = _similarity(pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
    g_mid = (pts["shoulder_l"] + pts["shoulder_r"]) / 2
    gu = pts["shoulder_r"] - pts["shoulder_l"]
    gu /= max(np.linalg.norm(gu), 1e-6)
    gd = np.array([-gu[1], gu[0]])
    b_mid = (b_sl + b_sr) / 2
    lift_len = float((body.shoulder_mid - b_mid) @ body.down)  # the shoulder line below b_mid

    def depth_of(q: np.ndarray) -> float:
        return float((q - g_mid) @ gd) * s

    def on_sides(depth: float, half_l: float, half_r: float) -> tuple[np.ndarray, np.ndarray]:
        c = b_mid + body.down * depth
        return c - body.u * half_l, c + body.u * half_r

    def fitted(depth: float, own_l: float, own_r: float, lo: float, hi: float | None) -> tuple[float, float]:
        """Half widths at ``depth``: the garment's own, held between lo and hi times the torso's."""
        _, tl, tr = _torso_sides(body, max(depth - lift_len, 0.0))
        if hi is None:
            return max(own_l, lo * tl), max(own_r, lo * tr)
        return float(np.clip(own_l, lo * tl, hi * tl)), float(np.clip(own_r, lo * tr, hi * tr))

    src += [pts["shoulder_l"], pts["shoulder_r"]]
    dst += [b_sl, b_sr]
    for k in ("neck_l", "neck_r"):
        if k in pts:
            src.append(pts[k])
            dst.append(f(pts[k]))

    # Hem: straight down the body's torso axis at the garment's own length.
    hem_c = (pts["hem_l"] + pts["hem_r"]) / 2
    depth = depth_of(hem_c)
    if one_piece:
        ankles = [c["ankle"] for c in (L, R) if "ankle" in c]
        if ankles:
            floor = float((np.mean(ankles, axis=0) - b_mid) @ body.down)
            depth = min(depth, 0.97 * floor)
    else:
        # Flat product shots exaggerate length against the shoulders; a top ending past
        # 1.3 torso lengths would be a dress.
        depth = min(depth, 1.3 * torso + 0.06 * sw)
    own_half = float(np.linalg.norm(pts["hem_r"] - pts["hem_l"])) * s / 2
    hl, hr = fitted(depth, own_half, own_half, 1.03, None if one_piece else 1.08)
    src += [pts["hem_l"], pts["hem_r"], hem_c]
    b_hem_l, b_hem_r = on_sides(depth, hl, hr)
    dst += [b_hem_l, b_hem_r, (b_hem_l + b_hem_r) / 2]
    info["hem_depth"] = depth
    # One vertical scale for everything between shoulders and hem, so prints keep their
    # proportions when the length is held to the body's.
    sv = depth / max(depth_of(hem_c), 1.0)

    def vdepth(q: np.ndarray) -> float:
        return depth_of(q) * sv

    # Armpits: the side seams start at the torso's sides, under the arms.
    g_pits: dict[str, np.ndarray] = {}
    for side in ("l", "r"):
        key = f"armpit_{side}" if f"armpit_{side}" in pts else f"armhole_{side}"
        if key in pts:
            g_pits[side] = pts[key]
    pit_depth = None
    if len(g_pits) == 2:
        pit_depth = float(np.clip(np.mean([vdepth(p) for p in g_pits.values()]),
                                  0.2 * torso + lift_len, 0.55 * torso + lift_len))
        # A boxy top is as wide at the armpits as its body; a fitted one hugs the chest.
        own_l, own_r = (abs(float((g_pits[k] - g_mid) @ gu)) * s for k in ("l", "r"))
        _, tl, tr = _torso_sides(body, max(pit_depth - lift_len, 0.0))
        pl = float(np.clip(own_l, 1.03 * tl, max(1.1 * tl, hl)))
        pr = float(np.clip(own_r, 1.03 * tr, max(1.1 * tr, hr)))
        b_pl, b_pr = on_sides(pit_depth, pl, pr)
        src += [g_pits["l"], g_pits["r"]]
        dst += [b_pl, b_pr]
        # The chest line between the armpits stays straight and level: the swung sleeves pull
        # on it otherwise, and a print across the chest would bend.
        for t in (0.2, 0.5, 0.8):
            src.append(g_pits["l"] + t * (g_pits["r"] - g_pits["l"]))
            dst.append(b_pl + t * (b_pr - b_pl))

    # Down the sides: the garment's outline between armpit (or shoulder) and hem or waist.
    waist_depth = None
    if one_piece and "waist_l" in pts:
        waist_depth = float(np.clip(vdepth((pts["waist_l"] + pts["waist_r"]) / 2),
                                    0.5 * torso + lift_len, 0.95 * torso + lift_len))
        wl, wr = fitted(waist_depth, 0.0, 0.0, 1.04, None)
        src += [pts["waist_l"], pts["waist_r"]]
        dst += list(on_sides(waist_depth, wl, wr))
    outline: dict[str, list[np.ndarray]] = {"l": [b_sl], "r": [b_sr]}
    for i, side in enumerate(("l", "r")):
        top = g_pits.get(side, pts[f"shoulder_{side}"])
        if pit_depth is not None:
            outline[side].append(b_pl if side == "l" else b_pr)
        bottom_g = pts[f"waist_{side}"] if waist_depth is not None else pts[f"hem_{side}"]
        top_half = [pl, pr][i] if pit_depth is not None else None
        for t in (0.33, 0.67):
            gs = top + t * (bottom_g - top)
            d = vdepth(gs)
            own = abs(float((gs - g_mid) @ gu)) * s
            _, tl, tr = _torso_sides(body, max(d - lift_len, 0.0))
            reach = [tl, tr][i]
            hi = (1.08 if waist_depth is None else 1.06) * reach
            if waist_depth is None and top_half is not None:
                # A top hangs straight from the armpit to the hem; it does not follow the waist in.
                hi = max(hi, top_half + t * ([hl, hr][i] - top_half))
            half = float(np.clip(own, 1.02 * reach, hi))
            src.append(gs)
            q = on_sides(d, half, half)[i]
            dst.append(q)
            outline[side].append(q)
        if waist_depth is not None:
            # The skirt: its own flare, never narrower than the hips.
            gs = pts[f"waist_{side}"] + 0.5 * (pts[f"hem_{side}"] - pts[f"waist_{side}"])
            d = vdepth(gs)
            own = abs(float((gs - g_mid) @ gu)) * s
            half_l, half_r = fitted(d, own, own, 1.05, None)
            src.append(gs)
            dst.append(on_sides(d, half_l, half_r)[0 if side == "l" else 1])
            outline[side].append(dst[-1])
        outline[side].append(b_hem_l if side == "l" else b_hem_r)
    # Inside this outline the garment may stand off the body (over the gap between arm and waist).
    info["outline"] = np.array(outline["l"] + outline["r"][::-1])
    # The centre line stays straight, so prints and plackets are not bent.
    for t in (0.35, 0.7):
        gq = g_mid + gd * (t * float((hem_c - g_mid) @ gd))
        src.append(gq)
        dst.append(b_mid + body.down * t * depth)

    # Sleeves follow the arms: each is swung rigidly about its shoulder onto the arm, the tip
    # the sleeve's length down it.
    sleeve_frac: dict[str, float] = {}
    sleeves: dict[str, np.ndarray] = {}
    a_sim, b_sim = _similarity_parts(pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
    g_sleeves = sleeve_masks(g)
    limbs = _limbs(body)
    for side, chain_src in (("l", L), ("r", R)):
        key = f"sleeve_{side}"
        if key not in pts or "elbow" not in chain_src:
            continue
        shoulder_pt = b_sl if side == "l" else b_sr
        chain = [shoulder_pt, chain_src["elbow"]] + ([chain_src["wrist"]] if "wrist" in chain_src else [])
        length = float(np.linalg.norm(pts[key] - pts[f"shoulder_{side}"])) * s
        arm_len = sum(float(np.linalg.norm(b - a)) for a, b in zip(chain, chain[1:], strict=False))
        length = min(length, arm_len * 1.05)
        tip = _along(chain, length)
        sleeve_frac[side] = length / max(arm_len, 1e-6)
        v0 = f(pts[key]) - shoulder_pt
        v1 = tip - shoulder_pt
        ang = np.arctan2(v1[1], v1[0]) - np.arctan2(v0[1], v0[0])
        c, si = np.cos(ang), np.sin(ang)
        rot = np.array([[c, -si], [si, c]])
        # Across the arm the sleeve is fitted to it: seen from the front a sleeve is a little
        # wider than the arm (2.5 radii), where laid flat it is half its round; a flat sleeve
        # swung down as it is stands off the arm and leaves a hole at the armpit.
        widen = np.eye(2)
        arm = limbs.get(f"arm_{side}")
        if arm is not None and side in g_sleeves and g_sleeves[side].any():
            ys_, xs_ = np.nonzero(g_sleeves[side])
            axis = pts[key] - pts[f"shoulder_{side}"]
            axis_len = max(float(np.linalg.norm(axis)), 1e-6)
            axis /= axis_len
            rel = np.stack([xs_, ys_], 1) - pts[f"shoulder_{side}"]
            along, across = rel @ axis, rel @ np.array([-axis[1], axis[0]])
            mid = (along > 0.35 * axis_len) & (along < 0.75 * axis_len)
            if mid.sum() > 10:
                own_w = float(np.ptp(across[mid])) * s
                k = float(np.clip(2.5 * arm.radii[0] / max(own_w, 1.0), 0.7, 1.5))
                n = np.array([-v1[1], v1[0]]) / max(float(np.linalg.norm(v1)), 1e-6)
                widen = np.eye(2) + (k - 1.0) * np.outer(n, n)
        # As a 2x3 affine: q -> P + W R (f(q) - P), f(q) = A q + t.
        lin = widen @ rot @ a_sim
        sleeves[side] = np.hstack([lin, (shoulder_pt + widen @ rot @ (b_sim - shoulder_pt))[:, None]])
    info["sleeve_frac"] = sleeve_frac
    info["sleeves"] = sleeves
    info["scale"] = s
    return src, dst, info


def _place_bottoms(g: Garment, body: Body) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Waistband a little above the hip joints at the torso's width, crotch below them, each leg
    down its leg's hip-knee-ankle chain."""
    pts = {k: _np(v) for k, v in g.shape.points.items()}
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    info: dict[str, Any] = {}
    sw, torso = body.shoulder_width, body.torso_len
    L, R = body.left, body.right
    hl = L.get("hip", body.hip_mid - body.u * 0.2 * sw)
    hr = R.get("hip", body.hip_mid + body.u * 0.2 * sw)
    # The waistband where the old bottoms' was (a skirt at the natural waist, jeans lower),
    # else a little above the hip joints.
    waist_depth = 0.8 * torso
    old = _old_garment(body, warp.LOWER)
    ys, xs = np.nonzero(old)
    if len(ys):
        q = np.stack([xs, ys], 1).astype(np.float64) - body.shoulder_mid
        central = np.abs(q @ body.u - float((body.hip_mid - body.shoulder_mid) @ body.u)) < 0.15 * sw
        if central.sum() > 20:
            waist_depth = float(np.clip(np.percentile(q[central] @ body.down, 2), 0.55 * torso, 0.85 * torso))
    waist_c, wl, wr = _torso_sides(body, waist_depth)
    b_wl, b_wr = waist_c - body.u * 1.03 * wl, waist_c + body.u * 1.03 * wr
    _, s = _similarity(pts["waist_l"], pts["waist_r"], b_wl, b_wr)
    # A flat waistband is half the waist's round, wider than the body seen from the front.
    s *= 1.25
    src += [pts["waist_l"], pts["waist_r"]]
    dst += [b_wl, b_wr]
    waist_g = (pts["waist_l"] + pts["waist_r"]) / 2
    crotch_len = float(np.clip((pts["crotch"][1] - waist_g[1]) * s, 0.2 * torso, 0.45 * torso))
    b_crotch = waist_c + body.down * crotch_len
    src.append(pts["crotch"])
    dst.append(b_crotch)
    if "hip_l_out" in pts:
        c, ll, rr = _torso_sides(body, waist_depth + crotch_len)
        own = float(np.linalg.norm(pts["hip_r_out"] - pts["hip_l_out"])) * s / 2
        src += [pts["hip_l_out"], pts["hip_r_out"]]
        dst += [c - body.u * max(own, 1.04 * ll), c + body.u * max(own, 1.04 * rr)]
    g_waist_y = float(waist_g[1])
    hip_to_waist = float((body.hip_mid - waist_c) @ body.down)
    for side, chain_src, hip in (("l", L, hl), ("r", R, hr)):
        knee = chain_src.get("knee", hip + body.down * 0.95 * torso)
        ankle = chain_src.get("ankle", knee + (knee - hip))
        chain = [hip, knee, ankle]
        leg_len = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
        for part in ("knee", "hem"):
            ko, ki = f"{part}_{side}_out", f"{part}_{side}_in"
            if ko not in pts or ki not in pts:
                continue
            gc = (pts[ko] + pts[ki]) / 2
            length = (gc[1] - g_waist_y) * s - hip_to_waist
            if part == "hem" and length > 0.8 * leg_len:
                # Full-length trousers break on the shoe, whatever the product shot's scale says.
                length = leg_len + 0.3 * LEG_RADII[2] * sw
            length = min(length, leg_len + 0.3 * LEG_RADII[2] * sw if part == "hem" else 0.55 * leg_len)
            c = _along(chain, max(length, 0.0))
            seg = (knee - hip) if length <= np.linalg.norm(knee - hip) else (ankle - knee)
            ldir = seg / max(float(np.linalg.norm(seg)), 1e-6)
            lw = float(np.linalg.norm(pts[ko] - pts[ki])) * s / 2
            perp = np.array([-ldir[1], ldir[0]])
            # Outer side points away from the body's centre line.
            if float(perp @ body.u) * (-1 if side == "l" else 1) < 0:
                perp = -perp
            src += [pts[ko], pts[ki]]
            dst += [c + perp * lw, c - perp * lw]
    info["scale"] = s
    return src, dst, info


def _sleeve_controls(g: Garment, side: str, mat: np.ndarray, mask: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Points around a sleeve's outline and the places ``mat`` (its swing onto the arm) takes
    them, leaving out the armpit's neighbourhood, where the TPS joins sleeve and body."""
    pts = g.shape.points
    cnts, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not cnts:
        return [], []
    c = max(cnts, key=cv2.contourArea).reshape(-1, 2).astype(np.float64)
    tw = float(np.linalg.norm(_np(pts["shoulder_r"]) - _np(pts["shoulder_l"])))
    pit = _np(pts.get(f"armpit_{side}", pts[f"shoulder_{side}"]))
    sh = _np(pts[f"shoulder_{side}"])
    tip = _np(pts[f"sleeve_{side}"])
    axis = tip - sh
    length = max(float(np.linalg.norm(axis)), 1e-6)
    axis /= length
    normal = np.array([-axis[1], axis[0]])
    # The normal pointing away from the armpit: the sleeve's top edge lies that way.
    if float((pit - sh) @ normal) > 0:
        normal = -normal
    step = max(1, len(c) // 20)
    src, dst = [], []
    for q in c[::step]:
        along = float((q - sh) @ axis)
        across = float((q - sh) @ normal)
        # The underside, from the armpit to the cuff, swings into the body's side: left to the
        # spline, it folds under instead of pinching the body.
        underside = across < 0 and along < 0.85 * length
        if underside or np.linalg.norm(q - pit) < 0.22 * tw or np.linalg.norm(q - sh) < 0.08 * tw:
            continue
        src.append(q)
        dst.append(mat[:, :2] @ q + mat[:, 2])
    return src, dst


def warp_garment(g: Garment, body: Body) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The garment in the person's frame: its body by a TPS on the torso's landmarks, each
    sleeve swung rigidly about its shoulder onto the arm and laid over it.

    One spline for both would have to fold a wide sleeve hanging down the arm into the
    body's side, pinching it; a sleeve pulled out of the body's spline leaves a gap at the
    armpit, so the body keeps a few pixels of each sleeve's root under the swung sleeve.
    ``info["sleeve_share"]`` says which part of the result is sleeve: arms go in front of the
    rest.
    """
    src, dst, info = place_garment(g, body)
    src_a, dst_a = np.array(src), np.array(dst)
    size = (body.w, body.h)
    sleeves = info.get("sleeves", {})
    smasks = {k: v for k, v in sleeve_masks(g).items() if k in sleeves}
    torso_alpha = g.alpha.copy()
    root = max(2, int(0.02 * g.alpha.shape[1]))
    kernel = np.ones((2 * root + 1, 2 * root + 1), np.uint8)
    body_part = (g.alpha > 0.5).astype(np.uint8)
    for m in smasks.values():
        body_part[m] = 0
    seam = cv2.dilate(body_part, kernel) > 0
    for m in smasks.values():
        torso_alpha[m & ~seam] = 0.0
    map_x, map_y = warp.tps_maps(src_a, dst_a, size)
    t_rgb = cv2.remap(g.rgb, map_x, map_y, interpolation=cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    t_a = np.clip(cv2.remap(torso_alpha, map_x, map_y, interpolation=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0), 0, 1)
    s_rgb = np.zeros_like(t_rgb)
    s_a = np.zeros_like(t_a)
    for side, m in smasks.items():
        sa = np.where(m, g.alpha, 0.0).astype(np.float32)
        mat = sleeves[side].astype(np.float32)
        one_rgb = cv2.warpAffine(g.rgb, mat, size, flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        one_a = np.clip(cv2.warpAffine(sa, mat, size, flags=cv2.INTER_LINEAR, borderValue=0), 0, 1)
        s_rgb = one_rgb * one_a[..., None] + s_rgb * (1 - one_a[..., None])
        s_a = one_a + s_a * (1 - one_a)
    a = s_a + t_a * (1 - s_a)
    rgb = (s_rgb * s_a[..., None] + t_rgb * (t_a * (1 - s_a))[..., None]) / np.maximum(a, 1e-3)[..., None]
    rgb = np.where(a[..., None] > 1e-3, rgb, t_rgb)
    info["targets"] = dst_a
    info["sleeve_share"] = np.clip(s_a / np.maximum(a, 1e-3), 0, 1)
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8), np.clip(a, 0, 1), info


# --- compositing ---------------------------------------------------------------------------------


def _skin(body: Body) -> np.ndarray:
    """Skin probability, seeded from the face (garment.py's model when present)."""
    if "skin" in body.extras:
        return body.extras["skin"]
    faces = [body.face_box] if body.face_box else []
    try:
        from workers.engines.imaging.garment import skin_probability

        p = skin_probability(body.rgb, faces)
        from workers.engines.imaging.color import srgb8_to_oklab

        lab = srgb8_to_oklab(body.rgb)
        hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1]))
        chroma = np.hypot(lab[..., 1], lab[..., 2])
        # Whites and greys have no hue to compare: never skin.
        p = p * ((hue > 15) & (hue < 90) & (chroma > 0.025))
    except ImportError:  # pragma: no cover - garment.py is part of the tree
        ycc = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2YCrCb)
        p = ((ycc[..., 1] > 135) & (ycc[..., 1] < 175) & (ycc[..., 2] > 80) & (ycc[..., 2] < 130)).astype(np.float32)
    body.extras["skin"] = p
    return p


def _old_garment(body: Body, category: str) -> np.ndarray:
    """Where the person's current garment of that category is (bool)."""
    key = f"old_{category}"
    if key in body.extras:
        return body.extras[key]
    region = {warp.UPPER: "upper", warp.LOWER: "lower", warp.ONE_PIECE: "full"}[category]
    faces = [body.face_box] if body.face_box else []
    try:
        from workers.engines.imaging.garment import worn_mask

        m, _ = worn_mask(body.rgb, region, body.pose, body.mask, faces)
        old = m > 0.5
    except (ImportError, EngineError):
        old = np.zeros(body.mask.shape, bool)
    old &= ~body.head
    body.extras[key] = old
    return old


def _shading(body: Body, region: np.ndarray) -> np.ndarray:
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
    lab = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    lab[..., 1:] -= 128.0
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
    d = ((px[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    labels = np.full((h, w), -1, np.int32)
    labels[sel] = np.array(group)[d.argmin(1)]
    gray = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
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
    soft = wide_blur(gray, 0.8)
    grad = np.hypot(cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3)) / 8.0
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


def _rounding(alpha: np.ndarray, sw: float) -> np.ndarray:
    """A little shade toward the garment's outline, where cloth turns away around the body."""
    inside = (alpha > 0.5).astype(np.uint8)
    if not inside.any():
        return np.ones(alpha.shape, np.float32)
    dt = cv2.distanceTransform(inside, cv2.DIST_L2, 3)
    t = np.clip(dt / max(2.0, 0.07 * sw), 0.0, 1.0)
    return (1.0 - 0.14 * (1.0 - t) ** 2).astype(np.float32)


def _skin_zone(body: Body, category: str) -> np.ndarray:
    """Where skin shows once a garment of ``category`` is taken off: limbs, neck, and for tops
    and dresses the torso; elsewhere (between the legs, beyond the body) the background."""
    h, w = body.h, body.w
    zone = np.zeros((h, w), np.uint8)
    for name, limb in _limbs(body).items():
        if name.startswith("arm") or category in (warp.LOWER, warp.ONE_PIECE):
            # A loose sleeve or trouser leg is wider than the limb in it.
            zone |= limb.mask(h, w, 0.85 if name.startswith("arm") else 0.7)
    if category in (warp.UPPER, warp.ONE_PIECE):
        corners = []
        for depth, scale in ((-0.25 * body.torso_len, 0.28), (0.0, 1.0), (0.95 * body.torso_len, 1.0)):
            c, ll, rr = _torso_sides(body, max(depth, 0.0))
            c = body.shoulder_mid + body.down * depth
            corners.append((c - body.u * ll * scale, c + body.u * rr * scale))
        poly = [p for p, _ in corners] + [q for _, q in reversed(corners)]
        cv2.fillPoly(zone, [np.round(np.array(poly)).astype(np.int32)], 1)
    near = cv2.dilate((body.mask > 0.3).astype(np.uint8), np.ones((5, 5), np.uint8))
    return (zone > 0) & (near > 0)


def _skin_colour(body: Body) -> np.ndarray | None:
    """Every pixel's nearest visible skin colour, smoothly (float32 RGB), or None when no skin
    shows: a neckline is filled from the neck above it, a forearm from its hand."""
    if "skin_colour" in body.extras:
        return body.extras["skin_colour"]
    sel = (_skin(body) > 0.6) & (body.mask > 0.5)
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


def _fill_uncovered(out: np.ndarray, body: Body, uncovered: np.ndarray, under: np.ndarray,
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
    filled = _inpaint(out, hole > 0).astype(np.float32)
    tone = _skin_colour(body)
    zone = (m8 > 0) & skin_zone
    if tone is not None and zone.any():
        sw = body.shoulder_width
        # Round limbs: a little darker toward their outline.
        dt = cv2.distanceTransform(skin_zone.astype(np.uint8), cv2.DIST_L2, 3)
        roll = 0.85 + 0.15 * np.sqrt(np.clip(dt / max(2.0, 0.07 * sw), 0.0, 1.0))
        skin_fill = tone * roll[..., None]
        filled = np.where(zone[..., None], skin_fill, filled)
    a = cv2.GaussianBlur(m8.astype(np.float32), (0, 0), 1.0)[..., None]
    return np.clip(filled * a + out.astype(np.float32) * (1 - a) + 0.5, 0, 255).astype(np.uint8)


def _continues_below(body: Body, old: np.ndarray, covered: np.ndarray) -> np.ndarray:
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


def _front(body: Body, category: str) -> np.ndarray:
    """What stays in front of any garment (soft): face and hair; for bottoms also the top worn
    over the waistband and the feet."""
    h, w = body.h, body.w
    m = body.head.copy()
    if category in (warp.LOWER, warp.ONE_PIECE):
        for name, limb in _limbs(body).items():
            if name.startswith("leg") and len(limb.joints) == 4:
                # The foot: from a little above the ankle on.
                foot = Limb((limb.joints[2] + 0.25 * (limb.joints[1] - limb.joints[2]), limb.joints[2], limb.joints[3]),
                            (limb.radii[1] * 0.9, limb.radii[2] * 1.3))
                m |= (foot.mask(h, w) > 0) & (body.mask > 0.5) & ~_old_garment(body, category)
    if category == warp.LOWER:
        m |= _old_garment(body, warp.UPPER)
    return _refine(body, m) if m.any() else m.astype(np.float32)


def _outer_forearms(body: Body) -> np.ndarray:
    """The outer half of each forearm and hand (uint8): the garment's body stops at it. The
    same for every garment dressed on this body, so it is worked out once."""
    if "outer_forearms" in body.extras:
        return body.extras["outer_forearms"]
    h, w = body.h, body.w
    forearms = np.zeros((h, w), np.uint8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for name, limb in _limbs(body).items():
        if name.startswith("arm"):
            away = body.u * (-1.0 if name.endswith("l") else 1.0)
            outer = np.zeros((h, w), bool)
            for i in range(1, len(limb.radii)):
                j0, d = limb.joints[i], limb.joints[i + 1] - limb.joints[i]
                side = d[0] * (yy - j0[1]) - d[1] * (xx - j0[0])
                outer |= side * float(d[0] * away[1] - d[1] * away[0]) > 0
            forearms |= limb.mask(h, w, 1.0, first=1) & outer.astype(np.uint8)
    body.extras["outer_forearms"] = forearms
    return forearms


def _sleeve_wrap(body: Body) -> np.ndarray:
    """Where a sleeve may show on a hanging arm (float32 0/1): about as wide as the arm."""
    if "sleeve_wrap" in body.extras:
        return body.extras["sleeve_wrap"]
    h, w = body.h, body.w
    wrap = np.zeros((h, w), np.uint8)
    for name, limb in _limbs(body).items():
        if name.startswith("arm"):
            wrap |= limb.mask(h, w, 1.8)
    body.extras["sleeve_wrap"] = wrap.astype(np.float32)
    return body.extras["sleeve_wrap"]


def dress(
    body: Body, g: Garment, base: np.ndarray | None = None, *, ghost: bool = False,
    fill_old: bool = True,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The person (or ``base``, an image already dressed in earlier layers) wearing ``g``.

    Layers, back to front: the photo with the old garment painted out where the new one does
    not reach, the body of the new garment, bare arms and hands, the sleeves, face and hair.
    ``ghost``: ``base`` is an empty sweep and the body only lends its pose (invisible
    mannequin). ``fill_old``: paint out what the new garment leaves of the old one.
    """
    # The colour clusters (old garment, shading) start from k-means++ seeds: the same photo
    # gives the same picture every time.
    cv2.setRNGSeed(0)
    out = (body.rgb if base is None else base).copy()
    cat = g.shape.category
    rgb, a, info = warp_garment(g, body)
    rgb = rgb.astype(np.float32)
    h, w = body.h, body.w
    sw = body.shoulder_width
    if not ghost:
        # The garment hugs the body: little of it may stand off the silhouette (gaps between
        # arms and torso stay background), except a dress's skirt below the hips.
        reach = max(1, int((0.07 if cat == warp.LOWER else 0.04) * sw))
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        person = (body.mask > 0.5).astype(np.uint8)
        # Forearms and hands do not carry the garment's body: it stops at them, not past them.
        # Only their outer half stops it: under the inner half the garment goes on, hidden by
        # the arm drawn in front, so no strip of the old clothes shows between the two (the
        # capsule is wider than most arms).
        forearms = _outer_forearms(body)
        allow_sleeve = cv2.dilate(person, disc).astype(np.float32)
        allow = cv2.dilate(person & (1 - forearms), disc).astype(np.float32)
        if cat == warp.ONE_PIECE:
            rows = np.arange(h)[:, None]
            allow = np.maximum(allow, (rows > body.hip_mid[1]).astype(np.float32))
        if "outline" in info:
            poly = np.zeros((h, w), np.uint8)
            cv2.fillPoly(poly, [np.round(info["outline"]).astype(np.int32)], 1)
            allow = np.maximum(allow, poly.astype(np.float32))
        share = info.get("sleeve_share", 0.0)
        # A sleeve swung down a hanging arm shows about as wide as the arm it wraps; the rest of
        # its flat width folds under, out of sight.
        allow_sleeve = allow_sleeve * _sleeve_wrap(body)
        allow = share * allow_sleeve + (1.0 - share) * allow
        a = a * cv2.GaussianBlur(allow, (0, 0), 1.0)
        # Arms and hands in front of the garment's body from the sleeve's end (or the armpit)
        # down; the sleeves over the arms.
        starts = {}
        for side, chain in (("l", body.left), ("r", body.right)):
            if "elbow" not in chain:
                continue
            upper = float(np.linalg.norm(chain["elbow"] - chain["shoulder"]))
            arm_len = upper + (float(np.linalg.norm(chain["wrist"] - chain["elbow"])) if "wrist" in chain else 0.0)
            sleeve = info.get("sleeve_frac", {}).get(side, 0.0) * arm_len
            # The sleeve's hem is slanted: the arm comes out from under all of it a little on.
            radius = _limbs(body)[f"arm_{side}"].radii[0] if f"arm_{side}" in _limbs(body) else 0.0
            starts[side] = max(0.4 * upper, sleeve + 0.6 * radius if sleeve > 0 else 0.0)
        a = a * (1.0 - _arms(body, starts, cat) * (1.0 - info.get("sleeve_share", 0.0)))
        a = a * (1.0 - _front(body, cat))
    a = np.clip(cv2.GaussianBlur(a, (0, 0), 0.5), 0, 1)
    covered = a > 0.5
    if not ghost:
        old = _old_garment(body, cat)
        if fill_old and old.any():
            grown = cv2.dilate(old.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
            grown &= ~body.head
            if base is not None:
                # What an earlier layer painted is not the old garment any more.
                grown &= np.abs(base.astype(np.int16) - body.rgb.astype(np.int16)).max(axis=2) < 12
            uncovered = grown & (a < 0.6)
            if cat == warp.UPPER:
                uncovered &= ~_continues_below(body, old, covered)
            out = _fill_uncovered(out, body, uncovered, covered, _skin_zone(body, cat))
        shade = _shading(body, (old | covered) & ~body.head)
    else:
        shade = _shading(body, covered)
    shade = shade * _rounding(a, sw)
    layer = np.clip(rgb * shade[..., None], 0, 255)
    out = np.clip(layer * a[..., None] + out.astype(np.float32) * (1 - a[..., None]) + 0.5, 0, 255).astype(np.uint8)
    info["alpha"] = a
    info["garment_rgb"] = np.clip(rgb, 0, 255).astype(np.uint8)
    return out, info


# --- entry points --------------------------------------------------------------------------------


def _try_on(params: dict[str, Any], progress: Progress, person_key: str, what: str) -> tuple[np.ndarray, Body, Garment, dict[str, Any]]:
    progress(5, "Reading images")
    person_rgb, _ = _load(params.get(person_key), what)
    progress(15, "Finding the person")
    body = analyse_body(person_rgb)
    progress(35, "Cutting out the garment")
    g = prepare_garment(params.get("garment"), params.get("category"))  # type: ignore[arg-type]
    progress(55, "Fitting the garment")
    out, info = dress(body, g)
    progress(90, "Encoding")
    return out, body, g, info


def virtual_try_on(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), model (bytes), category (optional)."""
    out, *_ = _try_on(params, progress, "model", "model")
    data = encode_png(out)
    progress(100)
    return [EngineOutput(data, "image/png", "try-on.png")]


def restyle(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), outfit (bytes, full-body outfit photo)."""
    out, *_ = _try_on(params, progress, "outfit", "outfit")
    data = encode_png(out)
    progress(100)
    return [EngineOutput(data, "image/png", "restyle-1.png")]


def light_direction(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """Unit vector toward which the scene gets brighter, and how strongly (0..1)."""
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    small = cv2.resize(gray, (32, 32), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 3)
    gx = float(cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3).mean())
    gy = float(cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3).mean())
    mag = float(np.hypot(gx, gy))
    if mag < 1e-6:
        return np.array([0.0, 0.0]), 0.0
    return np.array([gx, gy]) / mag, float(np.clip(mag * 4.0, 0.0, 1.0))


def match_to_scene(out: np.ndarray, scene: np.ndarray, alpha: np.ndarray, strength: float = 1.0) -> np.ndarray:
    """Light the garment like the scene without changing its colour: a gentle ramp along the
    scene's light direction, a small overall gain toward the scene's key, and a trace of its
    colour cast, all as gains on linear light (a navy stays navy, a black stays black).

    Moving the garment's own lightness toward the scene's (what statistics transfer does)
    washes a dark garment out on a bright editorial, so the garment's levels are never pulled.
    """
    sel = alpha > 0.5
    if sel.sum() < 50:
        return out
    lin = srgb_to_linear(out.astype(np.float32) / 255.0)
    scene_lin = srgb_to_linear(scene.astype(np.float32) / 255.0)
    rest = ~sel
    # The key: the scene's mean luminance against a studio's mid grey, a tenth of the way in
    # log terms and at most 12%: a bright editorial lifts the garment, never to a wash.
    y = scene_lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    key = float(np.clip((float(y[rest].mean()) / 0.18) ** 0.1, 0.9, 1.12))
    gain = np.full(alpha.shape, key, np.float32)
    direction, power = light_direction(scene)
    if power > 0:
        ys, xs = np.nonzero(sel)
        cx, cy = xs.mean(), ys.mean()
        r = max(np.ptp(xs), np.ptp(ys), 1) / 2
        yy, xx = np.mgrid[0:out.shape[0], 0:out.shape[1]].astype(np.float32)
        ramp = np.clip(((xx - cx) * direction[0] + (yy - cy) * direction[1]) / r, -1, 1)
        gain = gain * (1.0 + 0.15 * strength * power * ramp)
    # The cast: the scene's average colour over its own grey, a tenth of it.
    mean = scene_lin[rest].mean(axis=0)
    cast = np.clip((mean / max(float(mean.mean()), 1e-4)) ** (0.1 * strength), 0.97, 1.03)
    adj = np.clip(lin * gain[..., None] * cast[None, None, :], 0.0, 1.0)
    adj8 = linear_to_srgb(adj) * 255.0
    a = alpha[..., None]
    return np.clip(adj8 * a + out.astype(np.float32) * (1 - a) + 0.5, 0, 255).astype(np.uint8)


def garment_integration(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, product shot), outfit (bytes, editorial image)."""
    out, body, _, info = _try_on(params, progress, "outfit", "editorial")
    out = match_to_scene(out, body.rgb, info["alpha"])
    data = encode_png(out)
    progress(100)
    return [EngineOutput(data, "image/png", "garment-integration.png")]


# --- accessories -----------------------------------------------------------------------------------


def classify_accessory(alpha: np.ndarray) -> str:
    """Bag, hat or scarf from the cut-out's silhouette (jewellery needs ``kind``)."""
    m = alpha > 0.5
    ys, xs = np.nonzero(m)
    h, w = ys.ptp() + 1, xs.ptp() + 1
    sub = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.uint8)
    # A handle: a hole (background enclosed by the object) in the top half.
    inv = (1 - sub).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(inv, connectivity=4)
    for i in range(1, n):
        x, y, ww, hh, area = stats[i]
        touches = x == 0 or y == 0 or x + ww >= sub.shape[1] or y + hh >= sub.shape[0]
        if not touches and area > 0.01 * sub.size and y + hh / 2 < 0.55 * h:
            return "bag"
    aspect = h / w
    if aspect > 2.2 or aspect < 0.4:
        return "scarf"
    top_w = sub[: max(1, h // 4)].sum(1).mean()
    bot_w = sub[-max(1, h // 6):].sum(1).mean()
    if w > 1.2 * h and bot_w > 1.3 * top_w:
        return "hat"
    return "bag"


def place_accessory(body: Body, cut: Cutout, kind: str) -> tuple[np.ndarray, np.ndarray, tuple[int, int, int, int]]:
    """Where the accessory goes: (scaled rgb, scaled alpha, (x, y, w, h) on the model)."""
    sw = body.shoulder_width
    ch, cw = cut.alpha.shape
    aspect = ch / cw
    p = body.pose.points
    if kind == "hat":
        fb = body.face_box
        if fb is None:
            raise EngineError("no_face", "A hat needs the model's head in the photo.")
        fw = fb[2] - fb[0]
        width = 1.45 * fw
        height = width * aspect
        cx = (fb[0] + fb[2]) / 2
        eye_y = np.mean([p[n][1] for n in ("left_eye", "right_eye") if n in p] or [fb[1] + 0.4 * (fb[3] - fb[1])])
        # The brim sits on the brow, a little above the eyes.
        bottom = eye_y - 0.18 * (fb[3] - fb[1])
        x, y = cx - width / 2, bottom - height
    elif kind in ("scarf", "jewellery"):
        width = (0.85 if kind == "scarf" else 0.38) * sw
        height = width * aspect
        cx, cy = body.shoulder_mid
        neck_top = cy - 0.18 * sw if kind == "scarf" else cy - 0.08 * sw
        if body.face_box:
            neck_top = max(neck_top, body.face_box[3] - 0.02 * sw)
        x, y = cx - width / 2, neck_top
    else:
        # A handbag hangs from the hand on the side away from the body's centre, about half a
        # torso tall; without a visible wrist it sits at the hip.
        height = 0.55 * body.torso_len
        width = height / aspect
        if width > 0.9 * sw:
            width = 0.9 * sw
            height = width * aspect
        cands = [c for c in (body.right, body.left) if "wrist" in c]
        if cands:
            chain = max(cands, key=lambda c: c["wrist"][1])
            hand = chain.get("index", chain["wrist"])
            grip = (chain["wrist"] + hand) / 2
            x, y = grip[0] - width / 2, grip[1] - 0.08 * height
        else:
            chain = body.right
            hip = chain.get("hip", body.hip_mid + body.u * 0.3 * sw)
            x, y = hip[0] + 0.1 * sw, hip[1] - 0.3 * height
    size = (max(2, int(round(width))), max(2, int(round(height))))
    rgb = cv2.resize(cut.rgb, size, interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(cut.alpha, size, interpolation=cv2.INTER_AREA)
    return rgb, alpha, (int(round(x)), int(round(y)), size[0], size[1])


def _paste(base: np.ndarray, fg: np.ndarray, alpha: np.ndarray, x: int, y: int) -> np.ndarray:
    # Only the pasted box is blended (in float); the rest of the frame is copied as it is.
    out = base.copy()
    h, w = alpha.shape
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(base.shape[1], x + w), min(base.shape[0], y + h)
    if bx1 <= bx0 or by1 <= by0:
        return out
    a = alpha[by0 - y:by1 - y, bx0 - x:bx1 - x, None]
    f = fg[by0 - y:by1 - y, bx0 - x:bx1 - x].astype(np.float32)
    box = base[by0:by1, bx0:bx1].astype(np.float32)
    box[:] = f * a + box * (1 - a)
    out[by0:by1, bx0:bx1] = np.clip(box + 0.5, 0, 255).astype(np.uint8)
    return out


def _shadow(base: np.ndarray, alpha: np.ndarray, x: int, y: int, blur: float, strength: float) -> np.ndarray:
    pad = int(3 * blur) + 2
    sh = soft_shadow(alpha, blur, pad)
    out = base.copy()
    h, w = sh.shape
    x -= pad
    y -= pad
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(base.shape[1], x + w), min(base.shape[0], y + h)
    if bx1 > bx0 and by1 > by0:
        s = sh[by0 - y:by1 - y, bx0 - x:bx1 - x, None]
        box = base[by0:by1, bx0:bx1].astype(np.float32)
        box *= 1 - strength * s
        out[by0:by1, bx0:bx1] = np.clip(box + 0.5, 0, 255).astype(np.uint8)
    return out


def ecommerce_asset(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, accessory product shot), outfit (bytes, model), kind (optional:
    bag, hat, scarf, jewellery)."""
    progress(5, "Reading images")
    model_rgb, _ = _load(params.get("outfit"), "model")
    acc_rgb, acc_alpha = _load(params.get("garment"), "accessory")
    progress(20, "Finding the person")
    body = analyse_body(model_rgb)
    progress(45, "Cutting out the accessory")
    cut = cut_out_product(acc_rgb, acc_alpha, what="accessory")
    kind = params.get("kind")
    if kind:
        kind = str(kind).strip().lower()
        if kind in ("jewelry", "necklace"):
            kind = "jewellery"
        if kind not in ACCESSORY_KINDS:
            raise EngineError("bad_kind", f"Unknown accessory kind {kind!r}: use one of "
                              + ", ".join(ACCESSORY_KINDS) + ".")
    else:
        kind = classify_accessory(cut.alpha)
    progress(65, "Placing the accessory")
    rgb, alpha, (x, y, w, h) = place_accessory(body, cut, kind)
    # A soft shadow cast a little down and to the side, then the accessory over it.
    out = _shadow(model_rgb, alpha, x + int(0.04 * w), y + int(0.03 * h), 0.04 * max(w, h), 0.35)
    out = _paste(out, rgb, alpha, x, y)
    if kind in ("scarf", "jewellery") and body.face_box is not None:
        # The chin stays in front of a scarf.
        fa = cv2.GaussianBlur((body.head & (body.mask > 0.5)).astype(np.float32), (0, 0), 1.0)[..., None]
        out = (model_rgb.astype(np.float32) * fa + out.astype(np.float32) * (1 - fa)).astype(np.uint8)
    progress(90, "Encoding")
    data = encode_jpeg(out, quality=92)
    progress(100)
    return [EngineOutput(data, "image/jpeg", f"ecommerce-asset-{kind}.jpg")]
