"""The person under the garment: pose, shoulders and torso, head, limbs and the masks read
from them (skin, the garment worn now, arms and feet in front, where skin shows).

Pose landmarks and the person mask come from ``imaging.pose.detect_pose_and_mask``: one pass of
the pose graph at full size, so limb widths and shoulder edges are read off the picture itself.
Whatever is worked out once per body (limbs, skin, masks) is kept in ``Body.extras``, so every
garment dressed on the same body reuses it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging import warp
from workers.engines.imaging.pose import Pose, detect_pose_and_mask


def as_point(p: tuple[float, float]) -> np.ndarray:
    """A landmark or keypoint (x, y) as a float64 vector."""
    return np.array(p, np.float64)


@dataclass
class Body:
    rgb: np.ndarray
    pose: Pose
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
    # The picture's size in pixels, which every mask is made at.
    h: int = field(init=False)
    w: int = field(init=False)

    def __post_init__(self) -> None:
        self.h, self.w = int(self.rgb.shape[0]), int(self.rgb.shape[1])


# A shoulder joint sits about an eighth of the joints' width in from the shoulder's outer edge
# (0.08 to 0.24 on our model photos); one with more than SHOULDER_INSIDE of that width of body
# beyond it, along the shoulder line, over an arm hanging down, lies on the chest: the pose
# model has pulled it in (0.34 and 0.47 on a photo whose head the frame cuts). Put back, the
# joint sits SHOULDER_INSET of the shoulders' edge-to-edge width in from its edge.
SHOULDER_INSIDE = 0.28
SHOULDER_INSET = 0.1
# An arm hangs when its upper arm runs at least this close to straight down the torso.
ARM_HANGS = 0.85


def arm_hangs(chain: dict[str, np.ndarray], down: np.ndarray | None = None) -> bool:
    """Whether the arm of ``chain`` (shoulder, elbow...) hangs: its upper arm runs within
    ARM_HANGS of straight ``down`` (the image's down when not given)."""
    elbow, joint = chain.get("elbow"), chain["shoulder"]
    if elbow is None:
        return False
    d = np.array([0.0, 1.0]) if down is None else down
    return float((elbow - joint) @ d) >= ARM_HANGS * max(float(np.linalg.norm(elbow - joint)),
                                                         1e-6)


def _shoulders_to_edges(binm: np.ndarray, left: dict[str, np.ndarray],
                        right: dict[str, np.ndarray]) -> None:
    """Move a shoulder joint that the pose put inside the torso out to its shoulder's edge (in
    place). Only over a hanging arm: along a raised arm the body goes on past any shoulder."""
    sl, sr = left["shoulder"], right["shoulder"]
    joint_w = float(np.linalg.norm(sr - sl))
    if joint_w < 1.0:
        return
    u = (sr - sl) / joint_w
    down = np.array([-u[1], u[0]])
    edges, inside = [], []
    for chain, sign in ((left, -1.0), (right, 1.0)):
        joint = chain["shoulder"]
        reach = _reach(binm, joint, sign * u, joint_w)
        edges.append(joint + sign * u * reach)
        inside.append(arm_hangs(chain, down) and reach > SHOULDER_INSIDE * joint_w)
    if not any(inside):
        return
    inset = SHOULDER_INSET * float(np.linalg.norm(edges[1] - edges[0]))
    for chain, sign, e, moved in zip((left, right), (-1.0, 1.0), edges, inside):
        if moved:
            chain["shoulder"] = e - sign * u * inset


def analyse_body(rgb: np.ndarray) -> Body:
    pose, mask = detect_pose_and_mask(rgb)
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
    left = {n: as_point(p[f"{a_side}_{n}"]) for n in names if f"{a_side}_{n}" in p}
    right = {n: as_point(p[f"{b_side}_{n}"]) for n in names if f"{b_side}_{n}" in p}
    binm = mask > 0.5
    _shoulders_to_edges(binm, left, right)
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


def crop_body(body: Body, margin: float) -> tuple[Body, tuple[slice, slice]]:
    """The body on a crop of its photo: the person mask's box grown by ``margin`` of its width
    and height on every side (clipped to the frame), and the crop's (rows, columns) in the
    photo. Landmarks and masks move with the crop; what ``extras`` held is worked out again on
    the crop (its masks are made at the picture's size), except the shoulder edges."""
    ys, xs = np.nonzero(body.mask > 0.5)
    if not len(ys):
        return body, (slice(0, body.h), slice(0, body.w))
    x0, x1, y0, y1 = int(xs.min()), int(xs.max()) + 1, int(ys.min()), int(ys.max()) + 1
    mx, my = int(np.ceil(margin * (x1 - x0))), int(np.ceil(margin * (y1 - y0)))
    x0, y0, x1, y1 = max(0, x0 - mx), max(0, y0 - my), min(body.w, x1 + mx), min(body.h, y1 + my)
    off = np.array([x0, y0], np.float64)
    rows, cols = slice(y0, y1), slice(x0, x1)
    fb = body.face_box
    crop = Body(
        rgb=np.ascontiguousarray(body.rgb[rows, cols]),
        pose=Pose({k: (x - x0, y - y0) for k, (x, y) in body.pose.points.items()}, x1 - x0, y1 - y0),
        mask=np.ascontiguousarray(body.mask[rows, cols]),
        left={k: v - off for k, v in body.left.items()},
        right={k: v - off for k, v in body.right.items()},
        shoulder_mid=body.shoulder_mid - off, hip_mid=body.hip_mid - off, u=body.u, down=body.down,
        shoulder_width=body.shoulder_width, torso_len=body.torso_len,
        face_box=None if fb is None else (fb[0] - x0, fb[1] - y0, fb[2] - x0, fb[3] - y0),
        head=np.ascontiguousarray(body.head[rows, cols]),
    )
    if "edge" in body.extras:
        crop.extras["edge"] = body.extras["edge"]
    return crop, (rows, cols)


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
    ts = np.linspace(0, cap, max(8, int(cap / 1.5)))
    # All the steps at once (it is called a hundred times per body): each step's point in
    # the same arithmetic as one at a time (t in direction's precision, as a scalar t would be),
    # rounded half to even as round() does.
    step = ts[:, None].astype(np.result_type(direction, ts[0]))
    q = np.rint(start + direction * step)
    x, y = q[:, 0], q[:, 1]
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    on = np.zeros(len(ts), bool)
    on[inside] = binm[y[inside].astype(np.intp), x[inside].astype(np.intp)]
    # The last step before the first one off the mask or out of the frame.
    first_off = int(np.argmin(on)) if not on.all() else len(ts)
    return float(ts[first_off - 1]) if first_off > 0 else 0.0


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


def limbs_of(body: Body) -> dict[str, Limb]:
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


def _guided(guide: np.ndarray, p: np.ndarray, r: int, eps: float = 2e-3,
            guide_stats: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """He's guided filter (grey guide): ``p`` with its edges moved onto the photo's edges.
    ``guide_stats``: ``_guide_stats(guide, r)``, when already worked out."""
    k = (2 * r + 1, 2 * r + 1)
    mean_i, var = guide_stats if guide_stats is not None else _guide_stats(guide, r)
    mean_p = cv2.boxFilter(p, -1, k)
    cov = cv2.boxFilter(guide * p, -1, k) - mean_i * mean_p
    a = cov / (var + eps)
    b = mean_p - a * mean_i
    return cv2.boxFilter(a, -1, k) * guide + cv2.boxFilter(b, -1, k)


def _guide_stats(guide: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The guide's local mean and variance over (2r+1)² windows: what the guided filter needs
    of the guide alone."""
    k = (2 * r + 1, 2 * r + 1)
    mean_i = cv2.boxFilter(guide, -1, k)
    var = cv2.boxFilter(guide * guide, -1, k) - mean_i * mean_i
    return mean_i, var


def _gray01(body: Body) -> np.ndarray:
    if "gray01" not in body.extras:
        body.extras["gray01"] = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    return body.extras["gray01"]


def _refine(body: Body, m: np.ndarray) -> np.ndarray:
    """A hard mask made soft along the photo's own edges (hair, fingers, arm outlines)."""
    r = max(2, int(0.012 * body.shoulder_width + 1))
    # Every mask of the body is refined on the same photo: its statistics are worked out once.
    key = f"guide_stats_{r}"
    if key not in body.extras:
        body.extras[key] = _guide_stats(_gray01(body), r)
    return np.clip(_guided(_gray01(body), m.astype(np.float32), r,
                           guide_stats=body.extras[key]), 0.0, 1.0)


def arms_mask(body: Body, starts: dict[str, float], category: str) -> np.ndarray:
    """Soft mask of the arms and hands from ``starts[side]`` pixels down each arm: capsules on
    the pose, grown over bare skin, on the person, with edges refined on the photo.

    The arm near the shoulder is never in front of a garment: the shoulder seam and sleeve go
    over it. Further down, an arm hanging beside or crossing the body is in front of the
    garment's body.
    """
    h, w = body.h, body.w
    binm = body.mask > 0.5
    # Skin-coloured prints on the garment being replaced, or round a hand, are not hands.
    skin = _bare_skin(body, category)
    m = np.zeros((h, w), bool)
    for name, limb in limbs_of(body).items():
        if not name.startswith("arm"):
            continue
        # The chain cut ``start`` pixels from the shoulder.
        part = _arm_from(limb, max(starts.get(name[-1], 0.0), 0.0))
        if part is None or not part.radii:
            continue
        core = part.mask(h, w, 0.95) > 0
        grown = _arm_reach(body, part, len(limb.joints) > 3, 1.3)
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
    return _refine_limb(body, m) * np.clip(body.mask * 1.5, 0, 1)


# How far (pixels) an arm's refined edge may reach past its hard mask: the photo's own
# antialiasing, not a band of the torso beside it.
LIMB_FEATHER = 2


def _refine_limb(body: Body, m: np.ndarray) -> np.ndarray:
    """``_refine`` for an arm or hand drawn over a garment: its soft edge held to
    LIMB_FEATHER pixels round the hard mask. Where the arm lies against skin of the same tone
    (a bare waist), the guided filter finds no edge to stop at and spreads a quarter's weight
    over that skin, which is then pasted, doubled, over the new garment as a pale notch."""
    k = 2 * LIMB_FEATHER + 1
    near = cv2.dilate((m > 0.5).astype(np.uint8),
                      cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return _refine(body, m) * near


# How far past its measured radius an arm is taken to reach on the side facing the torso. A
# forearm hanging beside a bare midriff touches the waist's skin there: any wider and that
# skin was drawn as arm in front of the new top, a pale notch cut into its side.
ARM_TORSO_SIDE = 1.05


def _arm_reach(body: Body, part: Limb, has_hand: bool, wide: float) -> np.ndarray:
    """Where skin may belong to the arm ``part`` (bool): its capsule at ``wide`` times its
    radius away from the torso and round the hand (spread on a hip, in a pocket), at
    ARM_TORSO_SIDE on the forearm's side facing the torso."""
    h, w = body.h, body.w
    m = part.mask(h, w, ARM_TORSO_SIDE) > 0
    n = len(part.radii)
    hand = n - 1 if has_hand else n
    if hand < n:
        m |= part.mask(h, w, wide, first=hand) > 0
    if hand == 0:
        return m
    # On each forearm segment, the half-plane away from the torso's middle line keeps the
    # wide reach (the arm's outer edge, wherever the pose's axis sits in it).
    if "grid" not in body.extras:  # the same for every arm of the photo
        body.extras["grid"] = np.mgrid[0:h, 0:w].astype(np.float32)
    yy, xx = body.extras["grid"]
    for i in range(hand):
        a, b = part.joints[i], part.joints[i + 1]
        away = body.u * (1.0 if float(((a + b) / 2 - body.shoulder_mid) @ body.u) > 0 else -1.0)
        d = b - a
        side = d[0] * (yy - a[1]) - d[1] * (xx - a[0])
        outer = side * float(d[0] * away[1] - d[1] * away[0]) > 0
        m |= (Limb((a, b), (part.radii[i],)).mask(h, w, wide) > 0) & outer
    return m


def _arm_from(limb: Limb, start: float) -> Limb | None:
    """The limb from ``start`` pixels along it on (None when it is shorter)."""
    chain = list(limb.joints)
    for i in range(len(chain) - 1):
        seg = float(np.linalg.norm(chain[i + 1] - chain[i]))
        if start >= seg:
            start -= seg
            continue
        a = chain[i] + (chain[i + 1] - chain[i]) * (start / max(seg, 1e-6))
        return Limb(tuple([a] + chain[i + 1:]), tuple(limb.radii[i:]))
    return None


# Share of a limb's length (shoulder to wrist, hip to ankle) that must show below a new sleeve
# or hem before what covers it there counts.
LIMB_SHOWN = 0.1


def limbs_covered(body: Body, old: np.ndarray, limb: str = "arm",
                  starts: dict[str, float] | None = None) -> list[float]:
    """For each arm (``limb`` "arm") or leg ("leg") seen to its wrist or ankle with at least
    LIMB_SHOWN of its length showing below ``starts[side]`` pixels along it from the shoulder
    or hip (a new sleeve's or hem's end; none: the whole limb): the share of that stretch, hand
    and foot left out, that ``old`` covers (a narrow core along the pose's bones, so the body
    beside a limb does not count). ``old``: the person's current garment, less whatever the new
    one covers when that is known."""
    h, w = body.h, body.w
    binm = body.mask > 0.5
    shares = []
    for name, whole in limbs_of(body).items():
        if not name.startswith(limb) or len(whole.joints) < 3:
            continue  # no wrist or ankle: too little of it is seen to say
        bones = Limb(whole.joints[:3], whole.radii[:2])  # shoulder or hip, elbow or knee, ...
        length = sum(float(np.linalg.norm(bones.joints[i + 1] - bones.joints[i]))
                     for i in range(2))
        start = max((starts or {}).get(name[-1], 0.0), 0.0)
        part = _arm_from(bones, start)
        if part is None or length - start < LIMB_SHOWN * length:
            continue
        core = (part.mask(h, w, 0.5) > 0) & binm
        if core.any():
            shares.append(float((core & old).sum()) / float(core.sum()))
    return shares


def _torso_reach(body: Body, centre: np.ndarray) -> tuple[float, float]:
    """How far the torso reaches left and right of ``centre`` along the shoulder line, with the
    arms taken out (arms hanging against the sides merge into the person mask)."""
    if "torso_mask" not in body.extras:
        h, w = body.h, body.w
        arms = np.zeros((h, w), np.uint8)
        for name, limb in limbs_of(body).items():
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
    for name, limb in limbs_of(body).items():
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


def torso_sides(body: Body, depth: float) -> tuple[np.ndarray, float, float]:
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


# --- masks ----------------------------------------------------------------------------------------


def oklab_of(body: Body) -> np.ndarray:
    """The photo in OKLab (float32), converted once per body."""
    if "oklab" not in body.extras:
        from workers.engines.imaging.color import srgb8_to_oklab

        body.extras["oklab"] = srgb8_to_oklab(body.rgb)
    return body.extras["oklab"]


def skin_of(body: Body) -> np.ndarray:
    """Skin probability, seeded from the face (garment.py's model when present)."""
    if "skin" in body.extras:
        return body.extras["skin"]
    faces = [body.face_box] if body.face_box else []
    try:
        from workers.engines.imaging.garment import skin_probability

        lab = oklab_of(body)
        p = skin_probability(body.rgb, faces, lab=lab)
        hue = np.degrees(np.arctan2(lab[..., 2], lab[..., 1]))
        chroma = np.hypot(lab[..., 1], lab[..., 2])
        # Whites and greys have no hue to compare: never skin.
        p = p * ((hue > 15) & (hue < 90) & (chroma > 0.025))
    except ImportError:  # pragma: no cover - garment.py is part of the tree
        ycc = cv2.cvtColor(body.rgb, cv2.COLOR_RGB2YCrCb)
        p = ((ycc[..., 1] > 135) & (ycc[..., 1] < 175) & (ycc[..., 2] > 80) & (ycc[..., 2] < 130)).astype(np.float32)
    body.extras["skin"] = p
    return p


def old_garment(body: Body, category: str) -> np.ndarray:
    """Where the person's current garment of that category is (bool)."""
    key = f"old_{category}"
    if key in body.extras:
        return body.extras[key]
    region = {warp.UPPER: "upper", warp.LOWER: "lower", warp.ONE_PIECE: "full"}[category]
    faces = [body.face_box] if body.face_box else []
    try:
        from workers.engines.imaging.garment import worn_mask, worn_outfit

        # The outfit's colours and skin are the same for every part asked: read once.
        if "worn_outfit" not in body.extras:
            body.extras["worn_outfit"] = worn_outfit(body.rgb, body.pose, body.mask, faces,
                                                     lab=oklab_of(body))
        m, _, _ = worn_mask(body.rgb, region, body.pose, body.mask, faces,
                            outfit=body.extras["worn_outfit"], snap=False)
        old = m > 0.5
    except (ImportError, EngineError):
        old = np.zeros(body.mask.shape, bool)
    old &= ~body.head
    body.extras[key] = old
    return old


def skin_zone(body: Body, category: str) -> np.ndarray:
    """Where skin shows once a garment of ``category`` is taken off: limbs, neck, and for tops
    and dresses the torso; elsewhere (between the legs, beyond the body) the background."""
    h, w = body.h, body.w
    zone = np.zeros((h, w), np.uint8)
    for name, limb in limbs_of(body).items():
        if name.startswith("arm") or category in (warp.LOWER, warp.ONE_PIECE):
            # A loose sleeve or trouser leg is wider than the limb in it.
            zone |= limb.mask(h, w, 0.85 if name.startswith("arm") else 0.7)
    if category in (warp.UPPER, warp.ONE_PIECE):
        corners = []
        for depth, scale in ((-0.25 * body.torso_len, 0.28), (0.0, 1.0), (0.95 * body.torso_len, 1.0)):
            c, ll, rr = torso_sides(body, max(depth, 0.0))
            c = body.shoulder_mid + body.down * depth
            corners.append((c - body.u * ll * scale, c + body.u * rr * scale))
        poly = [p for p, _ in corners] + [q for _, q in reversed(corners)]
        cv2.fillPoly(zone, [np.round(np.array(poly)).astype(np.int32)], 1)
    near = cv2.dilate((body.mask > 0.3).astype(np.uint8), np.ones((5, 5), np.uint8))
    return (zone > 0) & (near > 0)


def front_mask(body: Body, category: str) -> np.ndarray:
    """What stays in front of any garment (soft): face and hair; for bottoms also the top worn
    over the waistband and the feet."""
    h, w = body.h, body.w
    m = body.head.copy()
    if category in (warp.LOWER, warp.ONE_PIECE):
        for name, limb in limbs_of(body).items():
            if name.startswith("leg") and len(limb.joints) == 4:
                # The foot: from a little above the ankle on.
                foot = Limb((limb.joints[2] + 0.25 * (limb.joints[1] - limb.joints[2]), limb.joints[2], limb.joints[3]),
                            (limb.radii[1] * 0.9, limb.radii[2] * 1.3))
                m |= (foot.mask(h, w) > 0) & (body.mask > 0.5) & ~old_garment(body, category)
    if category == warp.LOWER:
        m |= old_garment(body, warp.UPPER)
    return _refine(body, m) if m.any() else m.astype(np.float32)


def outer_forearms(body: Body) -> np.ndarray:
    """The outer half of each forearm and hand (uint8): the garment's body stops at it. The
    same for every garment dressed on this body, so it is worked out once."""
    if "outer_forearms" in body.extras:
        return body.extras["outer_forearms"]
    h, w = body.h, body.w
    forearms = np.zeros((h, w), np.uint8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for name, limb in limbs_of(body).items():
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


def sleeve_wrap(body: Body) -> np.ndarray:
    """Where a sleeve may show on a hanging arm (float32 0/1): about as wide as the arm."""
    if "sleeve_wrap" in body.extras:
        return body.extras["sleeve_wrap"]
    h, w = body.h, body.w
    wrap = np.zeros((h, w), np.uint8)
    for name, limb in limbs_of(body).items():
        if name.startswith("arm"):
            wrap |= limb.mask(h, w, 1.8)
    body.extras["sleeve_wrap"] = wrap.astype(np.float32)
    return body.extras["sleeve_wrap"]


def body_box(body: Body, margin: float) -> np.ndarray:
    """The person mask's bounding box grown by ``margin`` of its width and height on every
    side (float32 0/1): no garment reaches past it."""
    key = f"box_{margin}"
    if key in body.extras:
        return body.extras[key]
    box = np.zeros((body.h, body.w), np.float32)
    ys, xs = np.nonzero(body.mask > 0.5)
    if len(ys):
        x0, x1, y0, y1 = int(xs.min()), int(xs.max()), int(ys.min()), int(ys.max())
        mx, my = margin * (x1 - x0), margin * (y1 - y0)
        box[max(0, int(y0 - my)):int(y1 + my) + 1, max(0, int(x0 - mx)):int(x1 + mx) + 1] = 1.0
    body.extras[key] = box
    return box


# How far a pixel's colour may lie from the arms' own skin and still be drawn as a bare arm or
# hand in front of the new garment: its chromaticity (OKLab a and b over lightness, which a
# shadow leaves as it is) within this of the arms' median. A print whose pinks pass the
# generic skin model (trousers round a hand in a pocket) is not the model's skin.
OWN_SKIN_CHROMATICITY = 0.05


def _bare_skin(body: Body, category: str) -> np.ndarray:
    """The person's bare skin (bool), not the garment worn now nor the head, in the colour of
    the arms' own skin."""
    key = f"bare_skin_{category}"
    if key in body.extras:
        return body.extras[key]
    skin = (skin_of(body) > 0.5) & ~old_garment(body, category) & (body.mask > 0.5) & ~body.head
    # Nor the other part of the outfit: a print's pink or beige beside a hanging arm (a
    # geometric trouser under a new tee) went with the arm in front and cut teeth into the
    # garment's side.
    other = {warp.UPPER: warp.LOWER, warp.LOWER: warp.UPPER}.get(category)
    if other is not None:
        skin &= ~old_garment(body, other)
    arms = np.zeros((body.h, body.w), np.uint8)
    for name, limb in limbs_of(body).items():
        if name.startswith("arm"):
            arms |= limb.mask(body.h, body.w, 1.0)
    lab = oklab_of(body)
    ab = lab[..., 1:] / np.maximum(lab[..., :1], 0.05)
    ref = ab[skin & (arms > 0)]
    if len(ref) >= 50:
        d = ab - np.median(ref, axis=0)
        skin &= np.hypot(d[..., 0], d[..., 1]) < OWN_SKIN_CHROMATICITY
    # Specks under a fingertip's size are a print's skin-toned dots, not skin.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(skin.astype(np.uint8), connectivity=8)
    if n > 1:
        keep = stats[:, cv2.CC_STAT_AREA] >= (0.05 * body.shoulder_width) ** 2
        keep[0] = False
        skin = keep[labels]
    body.extras[key] = skin
    return skin


def bare_arms_in_front(body: Body, starts: dict[str, float], category: str,
                       arms: np.ndarray | None = None) -> np.ndarray:
    """The bare arms and hands (skin, not the garment worn now) from ``starts[side]`` pixels
    down each arm (soft): the photo's own pixels, composited over every garment layer.
    ``arms``: ``arms_mask(body, starts, category)`` when the caller has it already.

    Only bare skin: an arm in the old garment's sleeve is under the new garment's sleeve, or
    painted as skin where the new one is shorter."""
    if not any(n.startswith("arm") for n in limbs_of(body)):
        return np.zeros((body.h, body.w), np.float32)
    h, w = body.h, body.w
    skin = _bare_skin(body, category)
    near = np.zeros((h, w), np.uint8)
    for name, limb in limbs_of(body).items():
        if name.startswith("arm"):
            part = _arm_from(limb, max(starts.get(name[-1], 0.0),
                                       0.4 * float(np.linalg.norm(limb.joints[1] - limb.joints[0]))))
            if part is not None:
                # Forearm and hand below the sleeve, a little wider than measured (a hand
                # spread on a hip), but not into the torso's skin beside the forearm.
                near |= _arm_reach(body, part, len(limb.joints) > 3, 1.35)
    bare = skin & (near > 0)
    bare = cv2.morphologyEx(bare.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)) > 0
    bare &= near > 0
    if arms is None:
        arms = arms_mask(body, starts, category)
    m = np.maximum(arms * (skin | bare), bare.astype(np.float32))
    if not m.any():
        return m.astype(np.float32)
    return np.clip(_refine_limb(body, m) * np.clip(body.mask * 1.5, 0, 1), 0.0, 1.0).astype(np.float32)


def bare_hands(body: Body, category: str) -> np.ndarray:
    """The bare hands (soft): in front of every garment, sleeves included (a long sleeve swung
    rigidly down a bent arm would otherwise swallow a hand at the hip or in a pocket)."""
    h, w = body.h, body.w
    near = np.zeros((h, w), np.uint8)
    for name, limb in limbs_of(body).items():
        if name.startswith("arm") and len(limb.joints) > 3:
            near |= limb.mask(h, w, 1.35, first=2)
    if not near.any():
        return np.zeros((h, w), np.float32)
    skin = _bare_skin(body, category)
    bare = skin & (near > 0)
    bare = cv2.morphologyEx(bare.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8)) > 0
    bare &= near > 0
    if not bare.any():
        return np.zeros((h, w), np.float32)
    return np.clip(_refine_limb(body, bare) * np.clip(body.mask * 1.5, 0, 1), 0.0, 1.0).astype(np.float32)
