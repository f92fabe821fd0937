"""Hand landmarks from mediapipe's bundled hands model, and a finger mask built from them.

mediapipe 0.10.21 ships the hand landmark model in its wheel (full complexity), so this runs
offline on CPU. Like the pose solutions, the graph is built once per process and used by one
thread at a time. Results are in the caller's pixel coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.imaging.color import CLOTH_WEIGHTS, srgb8_to_oklab
from workers.engines.imaging.pose import _detector_input, _Solution

# mediapipe's HandLandmark indices.
WRIST = 0
THUMB = (1, 2, 3, 4)
INDEX = (5, 6, 7, 8)
MIDDLE = (9, 10, 11, 12)
RING = (13, 14, 15, 16)
PINKY = (17, 18, 19, 20)
FINGERS = (INDEX, MIDDLE, RING, PINKY)
PALM = (0, 1, 5, 9, 13, 17)

# A bag the model already holds: the person's silhouette (the segmentation takes a held bag in
# with the body) reaching outward past the hand's outer edge, within HELD_REACH_CM below the
# wrist and beside it, and attached at the hand. Hands hanging free showed at most 4 cm² of
# it (a sleeve's cuff, a skirt's flare) on our catalogue photos; a held bag or clutch, 27 cm²
# and more.
HELD_MIN_CM2 = 12.0
HELD_REACH_CM = (30.0, 25.0)  # down from the wrist, outward from the hand
# ... or, where the segmentation leaves a bag out, a colour this far (OKLab, lightness
# weighted down as a backdrop's light falls off) from the backdrop further out on its row.
HELD_BACKDROP_DIST = 0.06
HELD_BACKDROP_CM = 5.0  # the backdrop's strip, just past the reach


@dataclass(frozen=True)
class Hand:
    points: np.ndarray  # 21x2 float32 pixel (x, y)
    score: float

    @property
    def size(self) -> float:
        """Palm length in pixels: wrist to the middle finger's knuckle."""
        return float(np.linalg.norm(self.points[MIDDLE[0]] - self.points[WRIST]))

    @property
    def centre(self) -> np.ndarray:
        return self.points[list(PALM)].mean(axis=0)


def _build_hands() -> Any:
    import mediapipe as mp

    return mp.solutions.hands.Hands(
        static_image_mode=True,
        max_num_hands=2,
        model_complexity=1,
        min_detection_confidence=0.5,
    )


_HANDS = _Solution(_build_hands)


def detect_hands(rgb: np.ndarray) -> list[Hand]:
    """Every hand the model finds, best first."""
    h, w = rgb.shape[:2]
    result = _HANDS.process(_detector_input(rgb))
    hands: list[Hand] = []
    for i, lms in enumerate(result.multi_hand_landmarks or []):
        pts = np.array([(lm.x * w, lm.y * h) for lm in lms.landmark], np.float32)
        score = 1.0
        if result.multi_handedness and i < len(result.multi_handedness):
            score = float(result.multi_handedness[i].classification[0].score)
        hands.append(Hand(points=pts, score=score))
    hands.sort(key=lambda hd: hd.score, reverse=True)
    return hands


def detect_hands_near(rgb: np.ndarray, centres: list[tuple[float, float]], side_px: float,
                      found: list[Hand] | None = None) -> list[Hand]:
    """``found`` plus the hands found in square crops of ``side_px`` around each centre that no
    found hand is near. A hand is small in a full-length photo: seen whole, the detector
    misses many that a crop around the pose's wrist shows at a size it knows."""
    hands = list(found or [])
    h, w = rgb.shape[:2]
    half = max(8, int(side_px / 2))
    for cx, cy in centres:
        if any(np.linalg.norm(hd.centre - (cx, cy)) < max(8.0, 1.5 * hd.size) for hd in hands):
            continue
        x0, y0 = int(max(0, cx - half)), int(max(0, cy - half))
        x1, y1 = int(min(w, cx + half)), int(min(h, cy + half))
        if x1 - x0 < 16 or y1 - y0 < 16:
            continue
        crop = rgb[y0:y1, x0:x1]
        scale = 256.0 / max(crop.shape[:2])
        big = cv2.resize(crop, None, fx=scale, fy=scale,
                         interpolation=cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA)
        for hd in detect_hands(big):
            pts = hd.points / scale + (x0, y0)
            if np.linalg.norm(pts[0] - (cx, cy)) < 1.5 * max(8.0, hd.size / scale):
                hands.append(Hand(points=pts.astype(np.float32), score=hd.score))
                break
    return hands


def hand_geometry_mask(hand: Hand, shape: tuple[int, int], *, fingers_only: bool = False
                       ) -> np.ndarray:
    """A uint8 {0, 1} mask of the hand drawn from its landmarks: a capsule per finger bone
    (and the palm's polygon unless ``fingers_only``)."""
    h, w = shape
    mask = np.zeros((h, w), np.uint8)
    p = hand.points
    r = max(1, round(0.11 * hand.size))
    # 16 ticks per pixel keeps the capsules sub-pixel placed on small hands.
    def pt(i: int) -> tuple[int, int]:
        return (int(round(p[i][0] * 16)), int(round(p[i][1] * 16)))

    for finger in (*FINGERS, THUMB):
        chain = finger if fingers_only else (WRIST, *finger)
        for a, b in zip(chain[:-1], chain[1:], strict=True):
            cv2.line(mask, pt(a), pt(b), 1, 2 * r, cv2.LINE_8, shift=4)
            cv2.circle(mask, pt(b), r * 16, 1, -1, cv2.LINE_8, shift=4)
    if not fingers_only:
        cv2.fillPoly(mask, [np.round(p[list(PALM)] * 16).astype(np.int32)], 1, cv2.LINE_8,
                     shift=4)
    return mask


def finger_mask(rgb: np.ndarray, hand: Hand) -> np.ndarray:
    """Float32 HxW in [0, 1]: the fingers and palm, from the landmarks' capsules refined by
    the hand's own skin colour (taken on the palm), so the mask follows the real outline a
    few pixels beyond or inside the drawn capsules."""
    h, w = rgb.shape[:2]
    out = np.zeros((h, w), np.float32)
    s = max(2, round(0.08 * hand.size))
    # Work in the hand's box only: the rest of the picture is never hand.
    pad = 2 * s + round(0.2 * hand.size) + 4
    x0, y0 = np.floor(hand.points.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(hand.points.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return out
    local = Hand(points=hand.points - (x0, y0), score=hand.score)
    geo = hand_geometry_mask(local, (y1 - y0, x1 - x0))
    if not geo.any():
        return out
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * s + 1, 2 * s + 1))
    core = cv2.erode(geo, k)
    near = cv2.dilate(geo, k)
    lab = cv2.cvtColor(np.ascontiguousarray(rgb[y0:y1, x0:x1]), cv2.COLOR_RGB2LAB)
    lab = lab.astype(np.float32)
    ref_px = lab[core > 0] if core.sum() >= 12 else lab[geo > 0]
    ref = np.median(ref_px, axis=0)
    spread = np.median(np.abs(ref_px - ref), axis=0) * 1.4826 + np.array([6.0, 3.0, 3.0])
    # Lightness varies with shading far more than chroma does: weight it down.
    d = np.sqrt((((lab - ref) / spread) ** 2 * np.array([0.35, 1.0, 1.0])).sum(axis=2))
    skin = np.clip(1.5 - 0.5 * d, 0.0, 1.0)  # 1 up to about one spread, 0 past three
    mask = np.where(near > 0, skin, 0.0).astype(np.float32)
    # The capsules' core is hand whatever its colour (a shadowed knuckle, a ring).
    mask = np.maximum(mask, core.astype(np.float32))
    mask = cv2.GaussianBlur(mask, (0, 0), 0.8)
    out[y0:y1, x0:x1] = np.clip(mask, 0.0, 1.0)
    return out


def looks_like_skin(rgb: np.ndarray, hand: Hand) -> bool:
    """Whether the hand's palm and fingers (their landmarks' capsules) have a skin colour: a
    warm hue of modest chroma, any lightness. Landmarks the detector put on a pocket, a
    sleeve or a glove fail it (bar beige or brown cloth)."""
    h, w = rgb.shape[:2]
    geo = hand_geometry_mask(hand, (h, w)) > 0
    if geo.sum() < 8:
        return False
    ys, xs = np.nonzero(geo)
    x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    lab = cv2.cvtColor(np.ascontiguousarray(rgb[y0:y1, x0:x1]), cv2.COLOR_RGB2LAB)
    px = lab[geo[y0:y1, x0:x1]].astype(np.float32)
    a, b = np.median(px[:, 1]) - 128.0, np.median(px[:, 2]) - 128.0
    hue = float(np.degrees(np.arctan2(b, a)))
    chroma = float(np.hypot(a, b))
    return 3.0 <= chroma <= 60.0 and 10.0 <= hue <= 85.0


def held_object(rgb: np.ndarray, mask: np.ndarray, fingers: np.ndarray, hand: Hand,
                outward: float, ppcm: float) -> np.ndarray | None:
    """The bag a hand already holds, as a bool mask of its part beyond the hand's outer edge;
    None when the hand holds none. A hanging hand's outer side shows backdrop below the wrist;
    something solid reaching out there, from within a hand's size of the fingers, is what the
    hand carries. Solid is the person's segmentation (it takes in a bag held in a photo) or a
    colour off the backdrop's (a bag pasted in, which the segmentation leaves out). Colour
    does not tell a bag from the clothes: a cream bag on an ivory dress, a white clutch
    against a white top."""
    h, w = mask.shape
    xs = np.nonzero(fingers.any(axis=0))[0]
    if len(xs) == 0:
        return None
    edge = float(xs.max() if outward > 0 else xs.min()) + outward * 0.5 * ppcm
    down, out = HELD_REACH_CM
    wy = float(hand.points[0][1])
    y0, y1 = int(np.clip(wy, 0, h)), int(np.clip(wy + down * ppcm, 0, h))
    x_far = edge + outward * out * ppcm
    x0, x1 = (int(np.clip(min(edge, x_far), 0, w)), int(np.clip(max(edge, x_far) + 1, 0, w)))
    if y1 <= y0 or x1 <= x0:
        return None
    solid = mask[y0:y1, x0:x1] > 0.5
    # The backdrop per row: the strip just past the reach, or the frame's own edge when the
    # reach gets there first.
    strip_far = x_far + outward * HELD_BACKDROP_CM * ppcm
    sx0, sx1 = sorted((int(np.clip(x_far, 0, w - 1)), int(np.clip(strip_far, 0, w - 1))))
    if sx1 - sx0 < 2:
        sx0, sx1 = (w - 3, w) if outward > 0 else (0, 3)
    lab = srgb8_to_oklab(np.ascontiguousarray(rgb[y0:y1])) * CLOTH_WEIGHTS
    strip = lab[:, sx0:sx1]
    clear = mask[y0:y1, sx0:sx1] <= 0.5
    if clear.any():
        fallback = np.median(strip[clear], axis=0)
        ref = np.array([np.median(strip[r][clear[r]], axis=0) if clear[r].any() else fallback
                        for r in range(len(strip))], np.float32)
        dist = np.linalg.norm(lab[:, x0:x1] - ref[:, None, :], axis=-1)
        solid |= dist > HELD_BACKDROP_DIST
    cand = (solid & ~fingers[y0:y1, x0:x1]).astype(np.uint8)
    # Within a hand's size of the fingers (which lie outside the window: grown from a box
    # around it).
    r = max(1, round(0.5 * hand.size))
    gy0, gx0 = max(0, y0 - r), max(0, x0 - r)
    grown = cv2.dilate(fingers[gy0 : y1 + r, gx0 : x1 + r].astype(np.uint8),
                       np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    near = grown[y0 - gy0 : y1 - gy0, x0 - gx0 : x1 - gx0]
    _, labels = cv2.connectedComponents(cand, connectivity=8)
    touching = np.unique(labels[near & (cand > 0)])
    part = np.isin(labels, touching[touching > 0])
    if part.sum() < HELD_MIN_CM2 * ppcm * ppcm:
        return None
    held = np.zeros((h, w), bool)
    held[y0:y1, x0:x1] = part
    return held
