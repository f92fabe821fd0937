"""Face mesh with iris (mediapipe, shipped in its wheel), earlobe estimates and pixels per inch.

The human iris is close to 11.7 mm across whatever the age, sex or build, which makes it the
one ruler every portrait carries: ppi = iris diameter in pixels / (11.7 / 25.4).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import cv2
import numpy as np

IRIS_MM = 11.7
MM_PER_INCH = 25.4

# Face mesh indices (mediapipe canonical face model, 478 points with refine_landmarks).
CHIN = 152
FOREHEAD = 10
NOSE_TIP = 1
SUBNASALE = 2
RIGHT_EDGE = 234  # the subject's right cheek edge (image left on a frontal face)
LEFT_EDGE = 454
IRIS_RINGS = ((469, 470, 471, 472), (474, 475, 476, 477))
IRIS_CENTRES = (468, 473)
FACE_OVAL = (
    10,
    338,
    297,
    332,
    284,
    251,
    389,
    356,
    454,
    323,
    361,
    288,
    397,
    365,
    379,
    378,
    400,
    377,
    152,
    148,
    176,
    149,
    150,
    136,
    172,
    58,
    132,
    93,
    234,
    127,
    162,
    21,
    54,
    103,
    67,
    109,
)
# Contour points beside the ear, top to bottom; the lobe hangs outside the lower ones.
RIGHT_EAR_SIDE = (127, 234, 93, 132)
LEFT_EAR_SIDE = (356, 454, 323, 361)
CHEEKS = (205, 425, 50, 280)

# Half the disc round a lobe is background or neck; hair over the ear leaves almost no skin.
VISIBLE_SKIN_FRACTION = 0.08

_lock = threading.Lock()
_mesh = None
_detector = None


@dataclass(frozen=True)
class Earlobe:
    side: str  # the subject's "left" or "right"
    point: tuple[float, float]  # pixel (x, y) where a hook or stud goes through the lobe
    outward: float  # +1 when the ear lies towards larger x from the face, else -1
    visible: bool
    skin_fraction: float


@dataclass(frozen=True)
class Face:
    points: np.ndarray  # float32 (478, 2) pixel coordinates
    width: int
    height: int

    @property
    def iris_diameter_px(self) -> float:
        sizes = []
        for a, b, c, d in IRIS_RINGS:
            p = self.points
            horizontal = float(np.linalg.norm(p[a] - p[c]))
            vertical = float(np.linalg.norm(p[b] - p[d]))
            # A turned head foreshortens one axis only; the larger one is the true diameter.
            sizes.append(max(horizontal, vertical))
        return float(np.mean(sizes))

    @property
    def ppi(self) -> float:
        return self.iris_diameter_px / (IRIS_MM / MM_PER_INCH)

    @property
    def face_width(self) -> float:
        return float(np.linalg.norm(self.points[RIGHT_EDGE] - self.points[LEFT_EDGE]))

    @property
    def box(self) -> tuple[int, int, int, int]:
        x0, y0 = self.points[:468].min(axis=0)
        x1, y1 = self.points[:468].max(axis=0)
        return int(x0), int(y0), int(np.ceil(x1)), int(np.ceil(y1))

    def oval(self) -> np.ndarray:
        return self.points[list(FACE_OVAL)]


def _get_mesh():  # type: ignore[no-untyped-def]
    global _mesh
    if _mesh is None:
        import mediapipe as mp

        _mesh = mp.solutions.face_mesh.FaceMesh(
            static_image_mode=True,
            max_num_faces=1,
            refine_landmarks=True,
            min_detection_confidence=0.5,
        )
    return _mesh


def _get_detector():  # type: ignore[no-untyped-def]
    global _detector
    if _detector is None:
        import mediapipe as mp

        # The full-range model finds the small faces of full-body shots the mesh's own
        # short-range detector misses.
        _detector = mp.solutions.face_detection.FaceDetection(
            model_selection=1, min_detection_confidence=0.5
        )
    return _detector


def _mesh_points(rgb: np.ndarray) -> np.ndarray | None:
    with _lock:
        res = _get_mesh().process(np.ascontiguousarray(rgb))
    if not res.multi_face_landmarks:
        return None
    lm = res.multi_face_landmarks[0].landmark
    h, w = rgb.shape[:2]
    return np.array([(p.x * w, p.y * h) for p in lm], np.float32)


def detect_face(rgb: np.ndarray) -> Face | None:
    """The most prominent face's 478 landmarks, or None.

    Small faces (full-body shots) are found with the full-range detector first and the mesh
    runs on an upscaled crop around them.
    """
    h, w = rgb.shape[:2]
    pts = _mesh_points(rgb)
    if pts is None or _too_small(pts, w, h):
        with _lock:
            det = _get_detector().process(np.ascontiguousarray(rgb))
        if det.detections:
            best = max(det.detections, key=lambda d: d.score[0])
            bb = best.location_data.relative_bounding_box
            cx, cy = (bb.xmin + bb.width / 2) * w, (bb.ymin + bb.height / 2) * h
            side = max(bb.width * w, bb.height * h) * 2.2
            x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
            x1, y1 = int(min(w, cx + side / 2)), int(min(h, cy + side / 2))
            if x1 - x0 >= 16 and y1 - y0 >= 16:
                crop = rgb[y0:y1, x0:x1]
                s = 512.0 / max(crop.shape[:2])
                crop = cv2.resize(
                    crop,
                    (round(crop.shape[1] * s), round(crop.shape[0] * s)),
                    interpolation=cv2.INTER_CUBIC,
                )
                cpts = _mesh_points(crop)
                if cpts is not None:
                    pts = cpts / s + np.array([x0, y0], np.float32)
    if pts is None or len(pts) < 478:
        return None
    return Face(points=pts, width=w, height=h)


def _too_small(pts: np.ndarray, w: int, h: int) -> bool:
    span = pts[:468].max(axis=0) - pts[:468].min(axis=0)
    return float(span.max()) < 0.12 * max(w, h)


def _skin_model(rgb: np.ndarray, face: Face) -> tuple[np.ndarray, np.ndarray]:
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    r = max(2, int(0.05 * face.face_width))
    samples = []
    for i in CHEEKS:
        x, y = face.points[i].astype(int)
        patch = lab[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1].reshape(-1, 3)
        samples.append(patch)
    s = np.concatenate(samples) if samples else lab.reshape(-1, 3)[:1]
    return s.mean(axis=0), np.maximum(s.std(axis=0), np.array([6.0, 3.0, 3.0], np.float32))


def skin_probability(rgb: np.ndarray, face: Face, region: tuple[int, int, int, int]) -> np.ndarray:
    """Per-pixel skin likelihood in region (x0, y0, x1, y1) against the cheeks' colour."""
    mean, std = _skin_model(rgb, face)
    x0, y0, x1, y1 = region
    lab = cv2.cvtColor(rgb[y0:y1, x0:x1], cv2.COLOR_RGB2LAB).astype(np.float32)
    # Ears sit in shade more often than cheeks: lightness may wander far, hue may not.
    dl = (lab[..., 0] - mean[0]) / (3.0 * std[0] + 20.0)
    dab = np.linalg.norm((lab[..., 1:] - mean[1:]) / (2.5 * std[1:] + 6.0), axis=2)
    return np.exp(-0.5 * (dl**2 + dab**2)).astype(np.float32)


def earlobes(rgb: np.ndarray, face: Face) -> list[Earlobe]:
    """Both earlobe estimates (subject's right, then left), each marked visible or not.

    The mesh has no ear points: the lobe is placed from the face's own frame (cheek edge,
    subnasale height, face width), then checked for skin so hair or a turned head hides it.
    """
    p = face.points
    fw = face.face_width
    up = p[FOREHEAD] - p[CHIN]
    up = up / (np.linalg.norm(up) + 1e-6)
    lateral = p[LEFT_EDGE] - p[RIGHT_EDGE]
    lateral = lateral / (np.linalg.norm(lateral) + 1e-6)
    nose_pos = float(np.dot(p[NOSE_TIP] - p[RIGHT_EDGE], lateral)) / (fw + 1e-6)
    out = []
    for side, edge_ids, sign in (("right", RIGHT_EAR_SIDE, -1.0), ("left", LEFT_EAR_SIDE, 1.0)):
        edge = p[edge_ids[2]]  # contour at the lower ear
        # Lobe piercing: a little below the contour point 93/323 (tragus-to-lobe is about
        # a tenth of face width) and just outside the cheek line.
        along = float(np.dot(p[SUBNASALE] - edge, up))
        pt = edge + lateral * sign * 0.035 * fw + up * (along - 0.10 * fw)
        x, y = float(pt[0]), float(pt[1])
        # A head turned past ~35 degrees hides the far ear behind the cheek.
        turned_away = nose_pos < 0.25 if side == "right" else nose_pos > 0.75
        r = max(2, int(0.06 * fw))
        x0, y0 = int(max(0, x - r)), int(max(0, y - r))
        x1, y1 = int(min(face.width, x + r + 1)), int(min(face.height, y + r + 1))
        inside = 0 <= x < face.width and 0 <= y < face.height
        frac = (
            float((skin_probability(rgb, face, (x0, y0, x1, y1)) > 0.3).mean())
            if inside and x1 > x0 and y1 > y0
            else 0.0
        )
        outward = float(np.sign(lateral[0] * sign)) or sign
        out.append(
            Earlobe(
                side=side,
                point=(x, y),
                outward=outward,
                visible=bool(inside and not turned_away and frac >= VISIBLE_SKIN_FRACTION),
                skin_fraction=frac,
            )
        )
    return out
