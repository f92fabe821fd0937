"""Virtual Try-On, Restyle, Garment Integration and Ecommerce Asset: one try-on core.

The core cuts the garment out of its product shot, reads its keypoints from the silhouette,
warps it onto the person's pose landmarks with a thin-plate spline and composites it keeping
the person's shading, with face, hair and bare arms left in front and the parts of the old
garment the new one does not cover painted over (skin on arms and midriff, the surroundings
elsewhere). The four entry points differ only in what they do around that:

- ``virtual_try_on``: the core, PNG.
- ``restyle``: the core on a full-body outfit photo, PNG named restyle-<n>.png.
- ``garment_integration``: the core on an editorial image, then the garment's Lab statistics
  moved toward the scene's and a soft light ramp along the scene's light direction, PNG.
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
from workers.engines.imaging.cutout import Cutout, cut_out_product, soft_shadow
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


def prepare_garment(data: bytes, category: str | None = None) -> Garment:
    rgb, alpha = _load(data, "garment")
    cut = cut_out_product(rgb, alpha, what="garment")
    # A margin so the warp's bilinear lookups fade to transparent instead of clamping.
    pad = 4
    crgb = cv2.copyMakeBorder(cut.rgb, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    # Shrink the matte by a pixel: product-shot rims carry the sweep's colour and shadow.
    eroded = cv2.erode(cut.alpha, np.ones((3, 3), np.uint8))
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


# --- placing: garment keypoints to body targets ---------------------------------------------------


def _along(chain: list[np.ndarray], dist: float) -> np.ndarray:
    """The point ``dist`` along a polyline, continuing past its end in the last direction."""
    for a, b in zip(chain, chain[1:], strict=False):
        seg = float(np.linalg.norm(b - a))
        if dist <= seg or b is chain[-1]:
            return a + (b - a) / max(seg, 1e-6) * dist
        dist -= seg
    return chain[-1]


def _body_half_width(body: Body, centre: np.ndarray, cap: float) -> float:
    """Half the body's width along the shoulder line through ``centre`` (arms merged in are
    capped by ``cap``)."""
    binm = body.mask > 0.5
    out = []
    for sign in (-1.0, 1.0):
        reach = 0.0
        for t in np.linspace(0, cap, 40):
            q = centre + sign * body.u * t
            x, y = int(round(q[0])), int(round(q[1]))
            if not (0 <= x < body.w and 0 <= y < body.h) or not binm[y, x]:
                break
            reach = t
        out.append(reach)
    return float(np.mean(out)) if out else cap


def _similarity_parts(g_a: np.ndarray, g_b: np.ndarray, b_a: np.ndarray, b_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(A, t) with f(q) = A q + t mapping segment g_a-g_b onto b_a-b_b."""
    gv, bv = g_b - g_a, b_b - b_a
    s = np.linalg.norm(bv) / max(np.linalg.norm(gv), 1e-6)
    ang = np.arctan2(bv[1], bv[0]) - np.arctan2(gv[1], gv[0])
    c, si = np.cos(ang), np.sin(ang)
    a = np.array([[c, -si], [si, c]]) * s
    return a, (b_a + b_b) / 2 - a @ ((g_a + g_b) / 2)


def sleeve_masks(g: Garment) -> dict[str, np.ndarray]:
    """The sleeves of a top or dress: garment pixels outside the shoulder-armpit line."""
    pts = {k: _np(v) for k, v in g.shape.points.items()}
    out: dict[str, np.ndarray] = {}
    if g.shape.category == warp.LOWER:
        return out
    h, w = g.alpha.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    tw = float(np.linalg.norm(pts["shoulder_r"] - pts["shoulder_l"]))
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
        m = (side_dist > 0.02 * tw) & (g.alpha > 0.02)
        out[side] = m
    return out


def _torso_half_width(body: Body, t: float, centre: np.ndarray) -> float:
    """Half the torso's width at ``t`` torso lengths below the shoulder line: the person
    mask's width there, but no wider than a body's proportions allow (arms hanging against the
    sides merge into the mask)."""
    sw = body.shoulder_width
    hl, hr = body.left.get("hip"), body.right.get("hip")
    hip_half = 0.85 * float(np.linalg.norm(hr - hl)) if hl is not None and hr is not None else 0.36 * sw
    chest_half = 0.42 * sw
    model = float(np.interp(t, [0.0, 0.35, 1.0, 1.4], [0.5 * sw, chest_half, hip_half, hip_half]))
    measured = _body_half_width(body, centre, 0.8 * sw)
    return float(np.clip(measured, 0.8 * model, 1.1 * model))


def _similarity(g: warp.GarmentShape, body: Body, g_a: np.ndarray, g_b: np.ndarray,
                b_a: np.ndarray, b_b: np.ndarray):  # type: ignore[no-untyped-def]
    """Map garment points so segment g_a-g_b lands on b_a-b_b (rotation, scale, shift)."""
    gv, bv = g_b - g_a, b_b - b_a
    s = np.linalg.norm(bv) / max(np.linalg.norm(gv), 1e-6)
    ang = np.arctan2(bv[1], bv[0]) - np.arctan2(gv[1], gv[0])
    c, si = np.cos(ang), np.sin(ang)
    rot = np.array([[c, -si], [si, c]]) * s
    gm, bm = (g_a + g_b) / 2, (b_a + b_b) / 2

    def f(q: tuple[float, float] | np.ndarray) -> np.ndarray:
        return bm + rot @ (np.asarray(q, np.float64) - gm)

    return f, float(s)


def place_garment(g: Garment, body: Body) -> tuple[list[np.ndarray], list[np.ndarray], dict[str, Any]]:
    """Control point pairs (garment, body) for the TPS, and facts for the compositor."""
    pts = {k: _np(v) for k, v in g.shape.points.items()}
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    info: dict[str, Any] = {}
    sw = body.shoulder_width
    L, R = body.left, body.right
    edge_l, edge_r = body.extras["edge"]
    # Garment shoulders sit on the top of the shoulder, a little above the joints.
    lift = -0.06 * sw * body.down
    b_sl = L["shoulder"] - body.u * edge_l + lift
    b_sr = R["shoulder"] + body.u * edge_r + lift

    if g.shape.category in (warp.UPPER, warp.ONE_PIECE):
        f, s = _similarity(g.shape, body, pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
        g_mid = (pts["shoulder_l"] + pts["shoulder_r"]) / 2
        # Garment's own down axis (perpendicular to its shoulder line).
        gu = pts["shoulder_r"] - pts["shoulder_l"]
        gu /= max(np.linalg.norm(gu), 1e-6)
        gd = np.array([-gu[1], gu[0]])
        b_mid = (b_sl + b_sr) / 2
        for k in ("shoulder_l", "shoulder_r"):
            src.append(pts[k])
        dst += [b_sl, b_sr]
        for k in ("neck_l", "neck_r"):
            if k in pts:
                src.append(pts[k])
                dst.append(f(pts[k]))
        # Hem: straight down the body's torso axis at the garment's own length.
        hem_c = (pts["hem_l"] + pts["hem_r"]) / 2
        depth = float((hem_c - g_mid) @ gd) * s
        if g.shape.category == warp.UPPER:
            # Flat product shots exaggerate length against the shoulders; a top ending past
            # 1.3 torso lengths would be a dress.
            depth = min(depth, 1.3 * body.torso_len + 0.06 * sw)
        b_hem_c = b_mid + body.down * depth
        half = float(np.linalg.norm(pts["hem_r"] - pts["hem_l"])) * s / 2
        body_half = _torso_half_width(body, depth / max(body.torso_len, 1e-6), b_hem_c)
        if g.shape.category == warp.UPPER:
            half = float(np.clip(half, body_half * 1.03, body_half * 1.2))
        else:
            half = max(half, body_half * 1.03)
        src += [pts["hem_l"], pts["hem_r"]]
        dst += [b_hem_c - body.u * half, b_hem_c + body.u * half]
        info["hem_depth"] = depth
        # Points down the sides keep the body of the garment straight between shoulders and hem.
        for t in (0.35, 0.7):
            for side, sgn in (("l", -1.0), ("r", 1.0)):
                gs = pts[f"shoulder_{side}"] + t * (pts[f"hem_{side}"] - pts[f"shoulder_{side}"])
                src.append(gs)
                bs = (b_sl if side == "l" else b_sr) + t * (
                    (b_hem_c + sgn * body.u * half) - (b_sl if side == "l" else b_sr))
                # Not narrower than the body there.
                cen = b_mid + body.down * (t * depth)
                bh = _torso_half_width(body, t * depth / max(body.torso_len, 1e-6), cen)
                off = abs(float((bs - cen) @ body.u))
                off = float(np.clip(off, bh * 1.03, bh * 1.2))
                bs = cen + sgn * body.u * off + body.down * float((bs - cen) @ body.down)
                dst.append(bs)
        if g.shape.category == warp.ONE_PIECE and "waist_l" in pts:
            for k in ("waist_l", "waist_r"):
                src.append(pts[k])
                q = f(pts[k])
                dst.append(b_mid + body.down * float((q - b_mid) @ body.down)
                           + body.u * float((q - b_mid) @ body.u))
        # Sleeves follow the arms: the tip goes the sleeve's length down the arm.
        sleeve_frac = {}
        sleeves: dict[str, np.ndarray] = {}
        sim_parts = _similarity_parts(pts["shoulder_l"], pts["shoulder_r"], b_sl, b_sr)
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
            # Swing the whole sleeve rigidly about the shoulder onto the arm, so its outline
            # follows the tip instead of being stretched by it.
            v0 = f(pts[key]) - shoulder_pt
            v1 = tip - shoulder_pt
            ang = np.arctan2(v1[1], v1[0]) - np.arctan2(v0[1], v0[0])
            c, si = np.cos(ang), np.sin(ang)
            rot = np.array([[c, -si], [si, c]])
            # As a 2x3 affine: q -> P + R (f(q) - P), f(q) = bm + A (q - gm).
            a_sim, b_sim = sim_parts
            m_lin = rot @ a_sim
            m_t = shoulder_pt + rot @ (b_sim - shoulder_pt)
            sleeves[side] = np.hstack([m_lin, m_t[:, None]])
        info["sleeve_frac"] = sleeve_frac
        info["sleeves"] = sleeves
        info["scale"] = s
    else:
        # Bottoms: waistband above the hip joints, legs down the leg chains.
        hl = L.get("hip", body.hip_mid - body.u * 0.2 * sw)
        hr = R.get("hip", body.hip_mid + body.u * 0.2 * sw)
        hip_w = float(np.linalg.norm(hr - hl))
        waist_c = body.hip_mid - body.down * 0.2 * body.torso_len
        half = _body_half_width(body, waist_c, 1.3 * hip_w)
        half = float(np.clip(half * 1.04, 0.75 * hip_w, 1.25 * hip_w))
        b_wl, b_wr = waist_c - body.u * half, waist_c + body.u * half
        f, s = _similarity(g.shape, body, pts["waist_l"], pts["waist_r"], b_wl, b_wr)
        src += [pts["waist_l"], pts["waist_r"]]
        dst += [b_wl, b_wr]
        src.append(pts["crotch"])
        dst.append(body.hip_mid + body.down * 0.12 * body.torso_len)
        g_waist_y = (pts["waist_l"][1] + pts["waist_r"][1]) / 2
        for side, chain_src, hip in (("l", L, hl), ("r", R, hr)):
            knee = chain_src.get("knee", hip + body.down * 0.95 * body.torso_len)
            ankle = chain_src.get("ankle", knee + (knee - hip))
            chain = [hip, knee, ankle]
            leg_dir_knee = (knee - hip) / max(np.linalg.norm(knee - hip), 1e-6)
            leg_dir_ankle = (ankle - knee) / max(np.linalg.norm(ankle - knee), 1e-6)
            for part, ldir in (("knee", leg_dir_knee), ("hem", leg_dir_ankle)):
                ko, ki = f"{part}_{side}_out", f"{part}_{side}_in"
                if ko not in pts or ki not in pts:
                    continue
                gc = (pts[ko] + pts[ki]) / 2
                length = (gc[1] - g_waist_y) * s - 0.2 * body.torso_len
                # Trousers break on the shoe, they do not run through the floor.
                leg_len = float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))
                length = min(length, 1.03 * leg_len if part == "hem" else 0.55 * leg_len)
                c = _along(chain, max(length, 0.0))
                lw = float(np.linalg.norm(pts[ko] - pts[ki])) * s / 2
                perp = np.array([-ldir[1], ldir[0]])
                # Outer side points away from the body's centre line.
                if float(perp @ body.u) * (-1 if side == "l" else 1) < 0:
                    perp = -perp
                src += [pts[ko], pts[ki]]
                dst += [c + perp * lw, c - perp * lw]
        info["scale"] = s
    return src, dst, info


def warp_garment(g: Garment, body: Body) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The garment in the person's frame: the body by TPS, each sleeve swung rigidly onto its
    arm (a TPS pulled by a sleeve tip bends the whole side of the garment)."""
    src, dst, info = place_garment(g, body)
    src_a, dst_a = np.array(src), np.array(dst)
    size = (body.w, body.h)
    sleeves = info.get("sleeves", {})
    smasks = {k: v for k, v in sleeve_masks(g).items() if k in sleeves}
    torso_alpha = g.alpha.copy()
    for m in smasks.values():
        torso_alpha[m] = 0.0
    rgb = warp.tps_warp(g.rgb, src_a, dst_a, size, border_value=(0, 0, 0)).astype(np.float32)
    alpha = warp.tps_warp(torso_alpha, src_a, dst_a, size, border_value=0)
    for side, m in smasks.items():
        sa = np.where(m, g.alpha, 0.0).astype(np.float32)
        mat = sleeves[side].astype(np.float32)
        s_rgb = cv2.warpAffine(g.rgb, mat, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
        s_a = cv2.warpAffine(sa, mat, size, flags=cv2.INTER_LINEAR, borderValue=0)[..., None]
        rgb = s_rgb.astype(np.float32) * s_a + rgb * (1 - s_a)
        alpha = s_a[..., 0] + alpha * (1 - s_a[..., 0])
    info["targets"] = dst_a
    return np.clip(rgb, 0, 255).astype(np.uint8), np.clip(alpha, 0, 1), info


# --- compositing ---------------------------------------------------------------------------------


def _segment_mask(h: int, w: int, a: np.ndarray, b: np.ndarray, radius: float) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    cv2.line(m, tuple(int(v) for v in a), tuple(int(v) for v in b), 1, max(1, int(2 * radius)))
    return m > 0


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


def _arms_front(body: Body, info: dict[str, Any], category: str) -> np.ndarray:
    """Bare arms and hands that stay in front of the garment."""
    h, w = body.h, body.w
    sw = body.shoulder_width
    corridor = np.zeros((h, w), bool)
    for side, chain in (("l", body.left), ("r", body.right)):
        if "elbow" not in chain:
            continue
        sh, el = chain["shoulder"], chain["elbow"]
        frac = info.get("sleeve_frac", {}).get(side, 0.0)
        upper_len = float(np.linalg.norm(el - sh))
        if category == warp.LOWER:
            # Hands and forearms in front of trousers.
            start = el
        else:
            arm_len = upper_len + (float(np.linalg.norm(chain["wrist"] - el)) if "wrist" in chain else 0)
            along = frac * arm_len
            start = sh + (el - sh) * min(1.0, along / max(upper_len, 1e-6)) if along < upper_len else None
            if start is not None:
                corridor |= _segment_mask(h, w, start, el, 0.16 * sw)
        if "wrist" in chain:
            wr = chain["wrist"]
            hand = chain.get("index", wr + (wr - el) * 0.35)
            corridor |= _segment_mask(h, w, el, wr, 0.14 * sw)
            corridor |= _segment_mask(h, w, wr, hand + (hand - wr) * 0.6, 0.13 * sw)
    skin = _skin(body)
    front = corridor & (body.mask > 0.5) & (skin > 0.35)
    front = cv2.morphologyEx(front.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)) > 0
    return front


def _shading(body: Body, region: np.ndarray) -> np.ndarray:
    """Local luminance ratio of the person: folds and light, without the old print."""
    gray = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY)
    k = int(np.clip(0.06 * body.shoulder_width, 3, 31)) | 1
    med = cv2.medianBlur(gray, k).astype(np.float32)
    sel = region & (body.mask > 0.5)
    ref = float(np.median(med[sel])) if sel.sum() > 50 else float(np.median(med))
    ratio = (np.maximum(med, 4.0) / max(ref, 4.0)) ** 0.55
    ratio = cv2.GaussianBlur(ratio, (0, 0), max(1.0, 0.01 * body.shoulder_width))
    ratio = np.clip(ratio, 0.62, 1.12)
    # Outside the old garment (skin, another garment, background) its texture is not shading
    # of this garment: fade to neutral there.
    inside = cv2.GaussianBlur(sel.astype(np.float32), (0, 0), max(1.0, 0.03 * body.shoulder_width))
    return (ratio * inside + (1.0 - inside) * 1.0).astype(np.float32)


def _fill_uncovered(out: np.ndarray, body: Body, uncovered: np.ndarray, skin_zone: np.ndarray) -> np.ndarray:
    """Paint over what the new garment leaves of the old one: skin where skin belongs (arms,
    midriff), the surroundings elsewhere."""
    if uncovered.sum() == 0:
        return out
    m8 = cv2.dilate(uncovered.astype(np.uint8), np.ones((3, 3), np.uint8))
    filled = cv2.inpaint(out, m8, 5, cv2.INPAINT_TELEA)
    skin_p = _skin(body)
    sel = (skin_p > 0.6) & (body.mask > 0.5) & ~body.head
    if sel.sum() > 100:
        tone = np.median(body.rgb[sel].astype(np.float32), axis=0)
    elif body.face_box:
        x0, y0, x1, y1 = body.face_box
        tone = np.median(body.rgb[y0 + (y1 - y0) // 2:y1, x0:x1].reshape(-1, 3).astype(np.float32), axis=0)
    else:
        tone = None
    if tone is not None:
        zone = (m8 > 0) & skin_zone
        gray = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
        soft = cv2.GaussianBlur(gray, (0, 0), 0.05 * body.shoulder_width)
        shade = np.clip(0.85 + 0.15 * soft / max(float(soft[zone].mean()) if zone.any() else 128.0, 1.0), 0.75, 1.1)
        skin_fill = np.clip(tone[None, None, :] * shade[..., None], 0, 255)
        filled = np.where(zone[..., None], skin_fill, filled).astype(np.uint8)
    a = cv2.GaussianBlur(m8.astype(np.float32), (0, 0), 1.0)[..., None]
    return (filled.astype(np.float32) * a + out.astype(np.float32) * (1 - a)).astype(np.uint8)


def dress(
    body: Body, g: Garment, base: np.ndarray | None = None, *, ghost: bool = False,
    fill_old: bool = True,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The person (or ``base``, an image already dressed in earlier layers) wearing ``g``.

    ``ghost``: ``base`` is an empty sweep and the body only lends its pose (invisible
    mannequin). ``fill_old``: paint out what the new garment leaves of the old one.
    """
    out = (body.rgb if base is None else base).copy()
    cat = g.shape.category
    g_rgb, g_a, info = warp_garment(g, body)
    covered = g_a > 0.5
    h, w = body.h, body.w
    sw = body.shoulder_width
    if not ghost:
        old = _old_garment(body, cat)
        uncovered = old & ~cv2.dilate(covered.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        # Skin belongs on arms and, for tops and dresses, on the torso above the hips.
        skin_zone = np.zeros((h, w), bool)
        for chain in (body.left, body.right):
            if "elbow" in chain:
                skin_zone |= _segment_mask(h, w, chain["shoulder"], chain["elbow"], 0.17 * sw)
                if "wrist" in chain:
                    skin_zone |= _segment_mask(h, w, chain["elbow"], chain["wrist"], 0.15 * sw)
        if cat in (warp.UPPER, warp.ONE_PIECE):
            rows = np.arange(h)[:, None]
            skin_zone |= (rows < body.hip_mid[1] - 0.15 * body.torso_len) & (rows > body.shoulder_mid[1])
        if cat in (warp.LOWER, warp.ONE_PIECE):
            # Legs below a shorter skirt or shorts.
            for chain in (body.left, body.right):
                if "knee" in chain and "hip" in chain:
                    skin_zone |= _segment_mask(h, w, chain["hip"], chain["knee"], 0.14 * sw)
                    if "ankle" in chain:
                        skin_zone |= _segment_mask(h, w, chain["knee"], chain["ankle"], 0.11 * sw)
        if fill_old:
            out = _fill_uncovered(out, body, uncovered, skin_zone)
        shade = _shading(body, old)
    else:
        shade = _shading(body, covered)
    layer = np.clip(g_rgb.astype(np.float32) * shade[..., None], 0, 255)
    a = g_a
    if not ghost:
        # The garment hugs the body: little of it may stand off the silhouette (gaps between
        # arms and torso stay background), except a dress's skirt below the hips.
        reach = max(1, int(0.04 * sw))
        near = cv2.dilate((body.mask > 0.5).astype(np.uint8),
                          cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
        allow = near.astype(np.float32)
        if cat == warp.ONE_PIECE:
            rows = np.arange(h)[:, None]
            allow = np.maximum(allow, (rows > body.hip_mid[1]).astype(np.float32))
        a = a * cv2.GaussianBlur(allow, (0, 0), 1.0)
    a = cv2.GaussianBlur(a, (0, 0), 0.7)
    if not ghost:
        front = body.head.copy()
        front |= _arms_front(body, info, cat)
        fa = cv2.GaussianBlur(front.astype(np.float32), (0, 0), 1.0)
        a = a * (1.0 - fa)
    out = (layer * a[..., None] + out.astype(np.float32) * (1 - a[..., None])).astype(np.uint8)
    info["alpha"] = a
    info["garment_rgb"] = g_rgb
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


def match_to_scene(out: np.ndarray, scene: np.ndarray, alpha: np.ndarray, strength: float = 0.3) -> np.ndarray:
    """Move the garment's Lab statistics toward the scene's and shade it along the scene's
    light direction."""
    sel = alpha > 0.5
    if sel.sum() < 50:
        return out
    lab = cv2.cvtColor(out, cv2.COLOR_RGB2LAB).astype(np.float32)
    slab = cv2.cvtColor(scene, cv2.COLOR_RGB2LAB).astype(np.float32)
    rest = ~sel
    g_px, s_px = lab[sel], slab[rest]
    g_mu, g_sd = g_px.mean(0), g_px.std(0) + 1e-3
    s_mu, s_sd = s_px.mean(0), s_px.std(0) + 1e-3
    new = lab.copy()
    # Lightness: mean moves toward the scene's, contrast partly; a/b: only the colour cast
    # (a fraction of the scene's offset from neutral), so the product keeps its colour.
    ratio_sd = (s_sd[0] / g_sd[0]) ** (0.5 * strength)
    new[..., 0] = (lab[..., 0] - g_mu[0]) * ratio_sd + g_mu[0] + strength * (s_mu[0] - g_mu[0])
    for c in (1, 2):
        new[..., c] = lab[..., c] + 0.35 * strength * (s_mu[c] - 128.0)
    direction, power = light_direction(scene)
    if power > 0:
        ys, xs = np.nonzero(sel)
        cx, cy = xs.mean(), ys.mean()
        r = max(xs.ptp(), ys.ptp(), 1) / 2
        yy, xx = np.mgrid[0:out.shape[0], 0:out.shape[1]].astype(np.float32)
        ramp = ((xx - cx) * direction[0] + (yy - cy) * direction[1]) / r
        new[..., 0] *= np.clip(1.0 + 0.12 * power * np.clip(ramp, -1, 1), 0.8, 1.2)
    new = np.clip(new, 0, 255).astype(np.uint8)
    adj = cv2.cvtColor(new, cv2.COLOR_LAB2RGB).astype(np.float32)
    a = alpha[..., None]
    return (adj * a + out.astype(np.float32) * (1 - a)).astype(np.uint8)


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
    out = base.astype(np.float32)
    h, w = alpha.shape
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(base.shape[1], x + w), min(base.shape[0], y + h)
    if bx1 <= bx0 or by1 <= by0:
        return base.copy()
    a = alpha[by0 - y:by1 - y, bx0 - x:bx1 - x, None]
    f = fg[by0 - y:by1 - y, bx0 - x:bx1 - x].astype(np.float32)
    out[by0:by1, bx0:bx1] = f * a + out[by0:by1, bx0:bx1] * (1 - a)
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _shadow(base: np.ndarray, alpha: np.ndarray, x: int, y: int, blur: float, strength: float) -> np.ndarray:
    pad = int(3 * blur) + 2
    sh = soft_shadow(alpha, blur, pad)
    out = base.astype(np.float32)
    h, w = sh.shape
    x -= pad
    y -= pad
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(base.shape[1], x + w), min(base.shape[0], y + h)
    if bx1 > bx0 and by1 > by0:
        s = sh[by0 - y:by1 - y, bx0 - x:bx1 - x, None]
        out[by0:by1, bx0:bx1] *= 1 - strength * s
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


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
    # Match the accessory's light to the model's: scale its luminance by the scene's average.
    out = _shadow(model_rgb, alpha, x + int(0.04 * w), y + int(0.03 * h), 0.04 * max(w, h), 0.35)
    out = _paste(out, rgb, alpha, x, y)
    if kind == "hat":
        pass
    elif kind in ("scarf", "jewellery") and body.face_box is not None:
        # The chin stays in front of a scarf.
        fa = cv2.GaussianBlur((body.head & (body.mask > 0.5)).astype(np.float32), (0, 0), 1.0)[..., None]
        out = (model_rgb.astype(np.float32) * fa + out.astype(np.float32) * (1 - fa)).astype(np.uint8)
    progress(90, "Encoding")
    data = encode_jpeg(out, quality=92)
    progress(100)
    return [EngineOutput(data, "image/jpeg", f"ecommerce-asset-{kind}.jpg")]
