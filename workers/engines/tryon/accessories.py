"""Accessories (bag, hat, scarf, jewellery): the kind read from a cut-out's silhouette, and where
on the model it goes, at a scale taken from the pose."""

from __future__ import annotations

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging.cutout import Cutout
from workers.engines.tryon.body import Body

ACCESSORY_KINDS = ("bag", "hat", "scarf", "jewellery")


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
