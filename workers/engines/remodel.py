"""Remodel: the chosen library model's face on a catalogue photo, the garment untouched.

Both faces get a 478-point mesh. The destination geometry keeps the target's outline (jaw,
cheeks, forehead: it has to meet the hair and neck) but takes the library model's inner
features (eyes, brows, nose, mouth), aligned to the target's pose by a similarity transform:
that is what makes the face read as the other person. The library face is warped triangle by
triangle (Delaunay over the mesh) onto that geometry, its skin tone is moved part of the way
towards the target's light (the model keeps most of its own tone), and it is Poisson-cloned
inside the face outline, above the chin.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import jpeg_bytes, load_image
from workers.engines.imaging.face import CHIN, FACE_OVAL, Face, detect_face

# Stable points for the similarity alignment: eye corners, nose bridge and tip, mouth corners.
ALIGN = (33, 133, 362, 263, 168, 1, 61, 291)
# How far the library model's chroma survives the match to the target's (1 keeps it, 0 takes the
# target's); lightness mostly follows the target so the light on the face matches the scene.
CHROMA_KEEP = 0.8
LIGHTNESS_KEEP = 0.5


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    model_name = str(params.get("model_name") or "the model")
    progress(5)
    target, _ = load_image(params["image"])
    source, _ = load_image(params["model_face"])
    progress(15)
    t_face = detect_face(target)
    if t_face is None:
        raise EngineError("no_face", "No face was found in the catalogue photo.")
    s_face = detect_face(source)
    if s_face is None:
        raise EngineError("no_face", f"No face was found in the photo of {model_name}.")
    progress(40)
    out = swap_face(target, t_face, source, s_face)
    progress(95)
    return [EngineOutput(jpeg_bytes(out, quality=95), "image/jpeg", "remodel.jpg")]


def destination_points(t_face: Face, s_face: Face) -> np.ndarray:
    t = t_face.points[:468].astype(np.float32)
    s = s_face.points[:468].astype(np.float32)
    m, _ = cv2.estimateAffinePartial2D(s[list(ALIGN)], t[list(ALIGN)], method=cv2.LMEDS)
    if m is None:
        return t.copy()
    s_aligned = s @ m[:, :2].T + m[:, 2]
    # Weight 0 on the outline, 1 deep inside: distance from the outline in face widths.
    oval = t[list(FACE_OVAL)]
    fw = t_face.face_width
    d = np.array(
        [
            abs(cv2.pointPolygonTest(oval.reshape(-1, 1, 2), (float(x), float(y)), True))
            for x, y in t
        ]
    )
    w = np.clip(d / (0.18 * fw), 0.0, 1.0)[:, None]
    w[list(FACE_OVAL)] = 0.0
    return (t * (1 - w) + s_aligned * w).astype(np.float32)


def _piecewise_affine(
    src: np.ndarray,
    src_pts: np.ndarray,
    dst_pts: np.ndarray,
    shape: tuple[int, int],
    box: tuple[int, int, int, int],
) -> tuple[np.ndarray, np.ndarray]:
    """src warped so src_pts land on dst_pts, inside box of an image of shape; and coverage."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    rect = (0, 0, bw, bh)
    subdiv = cv2.Subdiv2D(rect)
    local = dst_pts - np.array([x0, y0], np.float32)
    inside = [(i, p) for i, p in enumerate(local) if 0 <= p[0] < bw and 0 <= p[1] < bh]
    index = {}
    for i, p in inside:
        subdiv.insert((float(p[0]), float(p[1])))
        index[(round(float(p[0]), 3), round(float(p[1]), 3))] = i
    tri_ids = []
    for t in subdiv.getTriangleList():
        ids = []
        for k in range(3):
            key = (round(float(t[2 * k]), 3), round(float(t[2 * k + 1]), 3))
            ids.append(index.get(key, -1))
        if -1 not in ids:
            tri_ids.append(ids)
    # Label every pixel with its triangle, then map it through that triangle's affine.
    labels = np.full((bh, bw), -1, np.int32)
    mats = np.zeros((len(tri_ids), 2, 3), np.float32)
    for k, ids in enumerate(tri_ids):
        d = local[ids].astype(np.float32)
        s = src_pts[ids].astype(np.float32)
        mats[k] = cv2.getAffineTransform(d, s)
        cv2.fillConvexPoly(labels, np.round(d).astype(np.int32), k)
    yy, xx = np.mgrid[0:bh, 0:bw].astype(np.float32)
    valid = labels >= 0
    lab = np.where(valid, labels, 0)
    m = mats[lab]
    map_x = m[..., 0, 0] * xx + m[..., 0, 1] * yy + m[..., 0, 2]
    map_y = m[..., 1, 0] * xx + m[..., 1, 1] * yy + m[..., 1, 2]
    # mats map local destination pixels to source pixels directly.
    warped = cv2.remap(
        src,
        map_x.astype(np.float32),
        map_y.astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    return warped, valid


def _match_tone(
    face_rgb: np.ndarray, mask: np.ndarray, target_rgb: np.ndarray, target_mask: np.ndarray
) -> np.ndarray:
    src = cv2.cvtColor(face_rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    tgt = cv2.cvtColor(target_rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    sm, ss = src[mask].mean(axis=0), src[mask].std(axis=0) + 1e-3
    tm, ts = tgt[target_mask].mean(axis=0), tgt[target_mask].std(axis=0) + 1e-3
    keep = np.array([LIGHTNESS_KEEP, CHROMA_KEEP, CHROMA_KEEP], np.float32)
    goal_m = tm * (1 - keep) + sm * keep
    goal_s = ts * (1 - keep) + ss * keep
    out = (src - sm) / ss * goal_s + goal_m
    return cv2.cvtColor(np.clip(out, 0, 255).astype(np.uint8), cv2.COLOR_LAB2RGB)


def swap_face(target: np.ndarray, t_face: Face, source: np.ndarray, s_face: Face) -> np.ndarray:
    H, W = target.shape[:2]
    dst = destination_points(t_face, s_face)
    src = s_face.points[:468].astype(np.float32)
    oval = t_face.points[list(FACE_OVAL)]
    fw = t_face.face_width
    pad = int(0.1 * fw) + 2
    x0, y0 = np.floor(oval.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(oval.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    warped, valid = _piecewise_affine(source, src, dst, (H, W), (x0, y0, x1, y1))

    # Clone region: the face outline pulled in a little (hairline and jaw edge stay the
    # target's), and never below the target's chin.
    centre = oval.mean(axis=0)
    inner = centre + (oval - centre) * 0.92
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(inner - [x0, y0]).astype(np.int32), 255)
    chin_y = int(t_face.points[CHIN][1]) - y0
    mask[max(0, chin_y - int(0.02 * fw)) :] = 0
    mask[~valid] = 0
    if mask.sum() < 255 * 50:
        return target.copy()
    region = target[y0:y1, x0:x1]
    toned = _match_tone(warped, mask > 0, region, mask > 0)
    # seamlessClone must not touch the frame edge: give it a one-pixel margin.
    mask[:1] = 0
    mask[-1:] = 0
    mask[:, :1] = 0
    mask[:, -1:] = 0
    ys, xs = np.nonzero(mask)
    cy, cx = (ys.min() + ys.max() + 1) // 2, (xs.min() + xs.max() + 1) // 2
    canvas = target.copy()
    src_full = np.zeros_like(target)
    src_full[y0:y1, x0:x1] = toned
    mask_full = np.zeros((H, W), np.uint8)
    mask_full[y0:y1, x0:x1] = mask
    # seamlessClone writes into the mask it is given: hand it a copy.
    cloned = cv2.seamlessClone(
        src_full, canvas, mask_full.copy(), (int(x0 + cx), int(y0 + cy)), cv2.NORMAL_CLONE
    )
    # Poisson cloning pulls the whole patch to the target's boundary colour; keep the inner
    # face closer to the warped, toned model so the identity survives it.
    soft = cv2.GaussianBlur(
        cv2.erode(mask_full, np.ones((3, 3), np.uint8), iterations=max(1, int(0.06 * fw))).astype(
            np.float32
        )
        / 255.0,
        (0, 0),
        max(1.0, 0.05 * fw),
    )[..., None]
    out = cloned.astype(np.float32) * (1 - 0.8 * soft) + src_full.astype(np.float32) * 0.8 * soft
    out = np.where(mask_full[..., None] > 0, out, target.astype(np.float32))
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
