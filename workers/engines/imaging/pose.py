"""Body landmarks, person segmentation and face boxes from mediapipe's bundled models.

mediapipe 0.10.21 ships pose (full, model complexity 1: lite and heavy try to download), selfie
segmentation and face detection in its wheel, so all of this runs offline on CPU. Building a
solution object loads a TFLite graph (tens of milliseconds to a second), so each is built once
per process; a graph is not safe to run from two threads at once, so each has its own lock.

Every detector sees the picture at most ``DETECT_SIDE`` pixels on its long side: the models
resize to 256 px inside anyway, and handing them a 24 MP array only costs copies. Results are in
the caller's pixel coordinates.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

DETECT_SIDE = 640
MIN_VISIBILITY = 0.5

# mediapipe's PoseLandmark order, lower-cased.
LANDMARK_NAMES: tuple[str, ...] = (
    "nose",
    "left_eye_inner",
    "left_eye",
    "left_eye_outer",
    "right_eye_inner",
    "right_eye",
    "right_eye_outer",
    "left_ear",
    "right_ear",
    "mouth_left",
    "mouth_right",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_pinky",
    "right_pinky",
    "left_index",
    "right_index",
    "left_thumb",
    "right_thumb",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
    "left_heel",
    "right_heel",
    "left_foot_index",
    "right_foot_index",
)


@dataclass(frozen=True)
class Pose:
    points: dict[str, tuple[float, float]]  # pixel (x, y), only landmarks with visibility >= 0.5
    width: int
    height: int


class _Solution:
    """One mediapipe solution object, built on first use, used by one thread at a time."""

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._obj: Any = None
        self._lock = threading.Lock()

    def process(self, rgb: np.ndarray) -> Any:
        with self._lock:
            if self._obj is None:
                self._obj = self._build()
            return self._obj.process(rgb)


def _build_pose(segmentation: bool = False) -> Any:
    import mediapipe as mp

    # ``segmentation``: the pose graph's own person mask too, the silhouette the landmarks
    # were read from.
    return mp.solutions.pose.Pose(
        static_image_mode=True,
        model_complexity=1,
        enable_segmentation=segmentation,
        min_detection_confidence=0.5,
    )


def _build_segmentation() -> Any:
    import mediapipe as mp

    # model_selection=0 is the "general" model (256x256, square input): better on full bodies
    # than the landscape model, which is tuned for video-call framing.
    return mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)


def _build_face_detection() -> Any:
    import mediapipe as mp

    # model_selection=1 is the full-range model: faces small in a full-body shot.
    return mp.solutions.face_detection.FaceDetection(
        model_selection=1, min_detection_confidence=0.5
    )


_POSE = _Solution(_build_pose)
_POSE_WITH_MASK = _Solution(lambda: _build_pose(segmentation=True))
_SEGMENTATION = _Solution(_build_segmentation)
_FACES = _Solution(_build_face_detection)


def _detector_input(rgb: np.ndarray) -> np.ndarray:
    if rgb.ndim != 3 or rgb.shape[2] != 3:
        raise ValueError("expected an RGB image (HxWx3)")
    h, w = rgb.shape[:2]
    scale = DETECT_SIDE / max(h, w)
    if scale < 1.0:
        rgb = cv2.resize(
            rgb, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    return np.ascontiguousarray(rgb, dtype=np.uint8)


def _points(
    landmarks: Any, w: int, h: int, in_frame: bool = False
) -> dict[str, tuple[float, float]]:
    """Landmarks seen well enough, in pixels; ``in_frame``: only those at most 5% outside it."""
    points: dict[str, tuple[float, float]] = {}
    for name, lm in zip(LANDMARK_NAMES, landmarks.landmark, strict=True):
        if not lm.visibility >= MIN_VISIBILITY:
            continue
        if in_frame and not (-0.05 <= lm.x <= 1.05 and -0.05 <= lm.y <= 1.05):
            continue
        points[name] = (float(lm.x * w), float(lm.y * h))
    return points


def detect_pose(rgb: np.ndarray) -> Pose | None:
    """The most prominent person's landmarks, or None when there is no body in the picture."""
    h, w = rgb.shape[:2]
    result = _POSE.process(_detector_input(rgb))
    if result.pose_landmarks is None:
        return None
    points = _points(result.pose_landmarks, w, h)
    if not points:
        return None
    return Pose(points=points, width=int(w), height=int(h))


def detect_pose_and_mask(rgb: np.ndarray) -> tuple[Pose | None, np.ndarray]:
    """Landmarks in frame and the person mask (float32 HxW) from one pass of the pose graph
    with its segmentation, on the picture at full size: the try-on engines read limb widths
    and shoulder edges off that mask, so it must match the picture pixel for pixel.

    (None, zeros) when there is no body; a Pose with no points when the body is all off frame
    or unseen.
    """
    h, w = rgb.shape[:2]
    result = _POSE_WITH_MASK.process(np.ascontiguousarray(rgb))
    if result.pose_landmarks is None:
        return None, np.zeros((h, w), np.float32)
    points = _points(result.pose_landmarks, w, h, in_frame=True)
    mask = result.segmentation_mask
    mask = np.zeros((h, w), np.float32) if mask is None else np.asarray(mask, np.float32)
    return Pose(points=points, width=w, height=h), mask


def person_mask(rgb: np.ndarray) -> np.ndarray:
    """Probability that each pixel belongs to a person, float32 HxW in [0, 1]."""
    h, w = rgb.shape[:2]
    result = _SEGMENTATION.process(_detector_input(rgb))
    mask = result.segmentation_mask
    if mask is None:
        return np.zeros((h, w), np.float32)
    mask = np.asarray(mask, np.float32)
    if mask.shape != (h, w):
        mask = cv2.resize(mask, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(mask, 0.0, 1.0).astype(np.float32)


def face_detections(rgb: np.ndarray) -> list[tuple[tuple[int, int, int, int], float]]:
    """(box (x0, y0, x1, y1) clipped to the image, score) of each face in frame, in the
    detector's order."""
    h, w = rgb.shape[:2]
    result = _FACES.process(_detector_input(rgb))
    found: list[tuple[tuple[int, int, int, int], float]] = []
    for det in result.detections or []:
        rb = det.location_data.relative_bounding_box
        x0 = int(np.clip(np.floor(rb.xmin * w), 0, w))
        y0 = int(np.clip(np.floor(rb.ymin * h), 0, h))
        x1 = int(np.clip(np.ceil((rb.xmin + rb.width) * w), 0, w))
        y1 = int(np.clip(np.ceil((rb.ymin + rb.height) * h), 0, h))
        if x1 - x0 >= 2 and y1 - y0 >= 2:
            found.append(((x0, y0, x1, y1), float(det.score[0])))
    return found


def face_boxes(rgb: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) of the faces in frame, clipped to the image, largest first."""
    boxes = [box for box, _ in face_detections(rgb)]
    boxes.sort(key=lambda b: (b[2] - b[0]) * (b[3] - b[1]), reverse=True)
    return boxes
