"""Baghold: a bag photographed on a plain background, held by the model at its real size.

Body scale comes from the model's height (head top to soles, when both are in frame) or, for
cropped shots, from body proportions measured on the pose (torso length, shoulder width). The
bag's cut-out is scaled by its stated width, hung from the hand with its handle under the
fingers (the model's own fingers are put back over the handle), or from the shoulder on a
strap, with a soft shadow on the body.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import (
    Cutout,
    composite,
    cut_out_product,
    darken,
    jpeg_bytes,
    load_image,
    soft_shadow,
)
from workers.engines.imaging.pose import Pose, detect_pose, person_mask

PRODUCT_MAX_PIXELS = 4_000_000
# Pose-landmark proportions of standing adults as a share of stature, measured on the full-body
# catalogue photos (head and soles in frame) and matching anthropometric tables: landmark
# shoulders sit at the joint centres, inside the shoulder's outer edge.
SHOULDER_WIDTH_SHARE = {"female": 0.178, "male": 0.195}
TORSO_SHARE = 0.285  # shoulder-centre to hip-centre, vertical
SOLE_SHARE = 0.012  # heel landmark to the floor


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    dims = {k: float(params.get(k) or 0) for k in ("width", "height", "depth")}
    if min(dims.values()) <= 0:
        raise EngineError("bad_dimensions", "The bag's width, height and depth must be above 0 cm.")
    strap = float(params.get("strap") or 0)
    gender = "male" if str(params.get("gender") or "").lower().startswith("m") else "female"
    model_height = float(params.get("model_height_cm") or 175)
    progress(5)
    model_rgb, _ = load_image(params["model_image"])
    bag_rgb, bag_alpha = load_image(params["bag_image"])
    bag_rgb, bag_alpha = _limit(bag_rgb, bag_alpha, PRODUCT_MAX_PIXELS)
    progress(15)
    pose = detect_pose(model_rgb)
    if pose is None:
        raise EngineError("no_person", "No person was found in the model photo.")
    mask = person_mask(model_rgb)
    ppcm = body_scale(pose, mask, model_height, gender)
    if ppcm is None:
        raise EngineError(
            "no_person", "The model's body is not visible enough to measure (shoulders not found)."
        )
    progress(35)
    bag = cut_out_product(bag_rgb, bag_alpha, what="bag")
    progress(60)
    if strap > 0:
        out = hang_on_shoulder(model_rgb, pose, mask, bag, dims["width"], strap, ppcm)
    else:
        grip = hand_grip(pose)
        if grip is None:
            raise EngineError("no_hand", "No hand was found on the model to hold the bag.")
        out = hold_in_hand(model_rgb, pose, mask, bag, dims["width"], ppcm, grip)
    progress(95)
    return [EngineOutput(jpeg_bytes(out, quality=95), "image/jpeg", "baghold.jpg")]


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
    return stature * (1 + SOLE_SHARE)


def hand_grip(pose: Pose) -> tuple[str, np.ndarray, float] | None:
    """The hand that can carry the bag: (side, grip point, hand length in px).

    A hand hanging low and away from the body carries best; a hand raised above the hips
    (on the hip, at the face) is a poor pick but still better than none.
    """
    pts = pose.points
    best = None
    for side in ("left", "right"):
        parts = [pts[f"{side}_{k}"] for k in ("wrist", "index", "pinky") if f"{side}_{k}" in pts]
        if f"{side}_wrist" not in pts or len(parts) < 2:
            continue
        wrist = np.array(pts[f"{side}_wrist"])
        fingers = np.mean([p for p in parts[1:]], axis=0)
        # The grip sits between the palm and the knuckles.
        grip = wrist + 0.75 * (fingers - wrist)
        hand_len = max(4.0, float(np.linalg.norm(fingers - wrist)) * 1.6)
        hip = pts.get(f"{side}_hip")
        score = grip[1] + (0.5 * grip[1] if hip and grip[1] > hip[1] else 0.0)
        if best is None or score > best[0]:
            best = (score, side, grip, hand_len)
    if best is None:
        return None
    return best[1], best[2], best[3]


def _scaled(bag: Cutout, width_cm: float, ppcm: float) -> tuple[np.ndarray, np.ndarray]:
    scale = width_cm * ppcm / bag.width
    w = max(2, round(bag.width * scale))
    h = max(2, round(bag.height * scale))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    pm = cv2.resize(bag.rgb.astype(np.float32) * bag.alpha[..., None], (w, h), interpolation=interp)
    a = np.clip(cv2.resize(bag.alpha, (w, h), interpolation=interp), 0, 1)
    rgb = np.clip(pm / np.maximum(a[..., None], 1e-3), 0, 255).astype(np.uint8)
    return rgb, a.astype(np.float32)


def _top_anchor_x(alpha: np.ndarray) -> float:
    rows = max(1, round(0.05 * alpha.shape[0]))
    top = alpha[:rows]
    ys, xs = np.nonzero(alpha > 0.5)
    if top.sum() < 1e-3:
        return float(xs.mean()) if len(xs) else alpha.shape[1] / 2
    return float((top.sum(axis=0) * np.arange(alpha.shape[1])).sum() / top.sum())


def hold_in_hand(
    rgb: np.ndarray,
    pose: Pose,
    mask: np.ndarray,
    bag: Cutout,
    width_cm: float,
    ppcm: float,
    grip_info: tuple[str, np.ndarray, float],
) -> np.ndarray:
    _, grip, hand_len = grip_info
    fg, alpha = _scaled(bag, width_cm, ppcm)
    ax = _top_anchor_x(alpha)
    # The handle's top rests in the curled fingers, a little above the grip point.
    x = round(grip[0] - ax)
    y = round(grip[1] - 0.12 * hand_len)
    out = _shadow(rgb, mask, alpha, x, y, ppcm)
    out = composite(out, fg, alpha, x, y)
    return _fingers_over(out, rgb, grip, hand_len)


def _fingers_over(
    out: np.ndarray, original: np.ndarray, grip: np.ndarray, hand_len: float
) -> np.ndarray:
    """Put the model's fingers back over the handle so the bag is held, not pasted."""
    r = max(3, int(0.45 * hand_len))
    cx, cy = int(grip[0]), int(grip[1])
    H, W = original.shape[:2]
    x0, y0, x1, y1 = max(0, cx - r), max(0, cy - r), min(W, cx + r + 1), min(H, cy + r + 1)
    if x1 <= x0 or y1 <= y0:
        return out
    patch = original[y0:y1, x0:x1]
    lab = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB).astype(np.float32)
    centre = (
        lab[max(0, cy - y0 - 2) : cy - y0 + 3, max(0, cx - x0 - 2) : cx - x0 + 3]
        .reshape(-1, 3)
        .mean(axis=0)
    )
    d = np.linalg.norm((lab - centre) * np.array([0.4, 1.0, 1.0], np.float32), axis=2)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = np.clip(1.0 - (np.hypot(xx - cx, yy - cy) / r) ** 4, 0, 1)
    hand = np.clip(1.0 - d / 18.0, 0, 1) * disc
    hand = cv2.GaussianBlur(hand.astype(np.float32), (0, 0), 1.0)
    region = out[y0:y1, x0:x1].astype(np.float32)
    blended = region * (1 - hand[..., None]) + patch.astype(np.float32) * hand[..., None]
    out = out.copy()
    out[y0:y1, x0:x1] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)
    return out


def hang_on_shoulder(
    rgb: np.ndarray,
    pose: Pose,
    mask: np.ndarray,
    bag: Cutout,
    width_cm: float,
    strap_cm: float,
    ppcm: float,
) -> np.ndarray:
    pts = pose.points
    sides = [s for s in ("left", "right") if f"{s}_shoulder" in pts]
    if not sides:
        raise EngineError("no_shoulder", "No shoulder was found on the model to hang the bag from.")
    # Hang it from the shoulder on the image's outer side that has more room beside the body.
    side = max(sides, key=lambda s: abs(pts[f"{s}_shoulder"][0] - rgb.shape[1] / 2))
    sx, sy = pts[f"{side}_shoulder"]
    other = pts.get(("right" if side == "left" else "left") + "_shoulder")
    outward = np.sign(sx - other[0]) if other else (1.0 if sx > rgb.shape[1] / 2 else -1.0)
    fg, alpha = _scaled(bag, width_cm, ppcm)
    bh, bw = alpha.shape
    # A strap over one shoulder drops about half its length; the bag rests against the hip.
    top_y = sy + 0.5 * strap_cm * ppcm
    cx = sx + outward * 0.35 * bw
    x, y = round(cx - bw / 2), round(top_y)
    out = _shadow(rgb, mask, alpha, x, y, ppcm)
    strap_rgb = (
        np.percentile(fg[alpha > 0.9].reshape(-1, 3), 25, axis=0)
        if (alpha > 0.9).any()
        else np.array([60, 40, 30])
    )
    thickness = max(2, round(2.5 * ppcm))
    anchor = (round(sx - outward * 0.5 * thickness), round(sy - 0.5 * thickness))
    # Drawn 8-bit: OpenCV anti-aliases only 8-bit lines (a float layer came out jagged).
    layer8 = np.zeros(rgb.shape[:2], np.uint8)
    for fx in (0.2, 0.8):
        # Where the strap meets the bag: the top edge of the cut-out at that column.
        col = int(fx * (bw - 1))
        rows = np.nonzero(alpha[:, col] > 0.5)[0]
        end = (x + col, y + (int(rows.min()) if len(rows) else 0))
        cv2.line(layer8, anchor, end, 255, thickness, cv2.LINE_AA)
    layer = layer8.astype(np.float32) / 255.0
    # A strap is round-edged leather or webbing: a little darker toward its edges.
    depth = cv2.distanceTransform((layer8 > 0).astype(np.uint8), cv2.DIST_L2, 3)
    shade = 0.78 + 0.22 * np.sqrt(np.clip(depth / max(1.0, 0.5 * thickness), 0.0, 1.0))
    strap_fg = np.clip(strap_rgb[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)
    out = composite(out, strap_fg, layer, 0, 0)
    return composite(out, fg, alpha, x, y)


def _shadow(
    rgb: np.ndarray, mask: np.ndarray, alpha: np.ndarray, x: int, y: int, ppcm: float
) -> np.ndarray:
    blur = max(1.0, 1.5 * ppcm)
    pad = int(3 * blur) + 1
    shade = soft_shadow(alpha, blur, pad)
    sx, sy = round(x - pad + 0.8 * ppcm), round(y - pad + 1.2 * ppcm)
    H, W = rgb.shape[:2]
    # Only the body catches the bag's shadow; the backdrop is too far behind to.
    body = np.zeros(shade.shape, np.float32)
    bx0, by0 = max(0, sx), max(0, sy)
    bx1, by1 = min(W, sx + shade.shape[1]), min(H, sy + shade.shape[0])
    if bx1 > bx0 and by1 > by0:
        body[by0 - sy : by1 - sy, bx0 - sx : bx1 - sx] = mask[by0:by1, bx0:bx1]
    return darken(rgb, shade * body, sx, sy, 0.35)


def _limit(
    rgb: np.ndarray, alpha: np.ndarray | None, max_pixels: int
) -> tuple[np.ndarray, np.ndarray | None]:
    h, w = rgb.shape[:2]
    if h * w <= max_pixels:
        return rgb, alpha
    s = (max_pixels / (h * w)) ** 0.5
    size = (max(1, round(w * s)), max(1, round(h * s)))
    rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    if alpha is not None:
        alpha = cv2.resize(alpha, size, interpolation=cv2.INTER_AREA)
    return rgb, alpha
