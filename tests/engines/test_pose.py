"""Pose, person mask and face boxes on real catalogue photos (tests/fixtures/fashion)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from workers.engines.imaging import pose as pose_mod

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"
MODELS = [
    "model_8.png",
    "model_9.png",
    "model_1.png",
    "02849_00.jpg",
    "01861_00.jpg",
    "051962_0.jpg",
]


def load(name: str, sub: str = "model") -> np.ndarray:
    return np.asarray(Image.open(FIXTURES / sub / name).convert("RGB"))


def _y(p: pose_mod.Pose, *names: str) -> float:
    return float(np.mean([p.points[n][1] for n in names if n in p.points]))


@pytest.mark.parametrize("name", MODELS)
def test_pose_finds_a_body_with_landmarks_in_anatomical_order(name: str) -> None:
    rgb = load(name)
    p = pose_mod.detect_pose(rgb)
    assert p is not None
    assert (p.width, p.height) == (rgb.shape[1], rgb.shape[0])
    for n in ("left_shoulder", "right_shoulder", "left_hip", "right_hip"):
        assert n in p.points
        x, y = p.points[n]
        assert 0 <= x < p.width and 0 <= y < p.height
    shoulders, hips = _y(p, "left_shoulder", "right_shoulder"), _y(p, "left_hip", "right_hip")
    assert shoulders + 0.1 * p.height < hips
    if "left_knee" in p.points or "right_knee" in p.points:
        assert hips < _y(p, "left_knee", "right_knee")
    if "nose" in p.points:
        assert p.points["nose"][1] < shoulders
    # The subject's left shoulder is on the image's right for a person facing the camera.
    assert p.points["left_shoulder"][0] > p.points["right_shoulder"][0]


def test_pose_on_a_full_body_reaches_the_ankles() -> None:
    p = pose_mod.detect_pose(load("model_8.png"))
    assert p is not None
    assert (
        _y(p, "left_hip", "right_hip")
        < _y(p, "left_knee", "right_knee")
        < _y(p, "left_ankle", "right_ankle")
    )


def test_person_mask_covers_the_body_and_not_the_corners() -> None:
    rgb = load("model_8.png")
    m = pose_mod.person_mask(rgb)
    assert m.dtype == np.float32 and m.shape == rgb.shape[:2]
    assert 0.0 <= m.min() and m.max() <= 1.0
    p = pose_mod.detect_pose(rgb)
    assert p is not None
    for n in ("left_shoulder", "right_hip", "left_knee"):
        x, y = p.points[n]
        assert m[int(y), int(x)] > 0.5
    h, w = m.shape
    assert max(m[5, 5], m[5, w - 5], m[h // 3, 5], m[h // 3, w - 5]) < 0.2
    assert 0.05 < float((m > 0.5).mean()) < 0.6


def test_face_boxes_hold_the_nose_and_none_on_headless_crops() -> None:
    rgb = load("model_8.png")
    boxes = pose_mod.face_boxes(rgb)
    assert len(boxes) == 1
    x0, y0, x1, y1 = boxes[0]
    nx, ny = pose_mod.detect_pose(rgb).points["nose"]  # type: ignore[union-attr]
    assert x0 < nx < x1 and y0 < ny < y1
    assert 0.03 * rgb.shape[1] < x1 - x0 < 0.3 * rgb.shape[1]
    assert pose_mod.face_boxes(load("051962_0.jpg")) == []


def test_no_body_on_a_plain_image() -> None:
    grey = np.full((400, 300, 3), 200, np.uint8)
    assert pose_mod.detect_pose(grey) is None
    assert float(pose_mod.person_mask(grey).max()) < 0.5
    assert pose_mod.face_boxes(grey) == []


def test_large_inputs_come_back_in_their_own_pixels() -> None:
    rgb = load("model_8.png")
    big = np.asarray(Image.fromarray(rgb).resize((rgb.shape[1] * 3, rgb.shape[0] * 3)))
    small_pose, big_pose = pose_mod.detect_pose(rgb), pose_mod.detect_pose(big)
    assert small_pose is not None and big_pose is not None
    sx, sy = small_pose.points["left_hip"]
    bx, by = big_pose.points["left_hip"]
    assert abs(bx / 3 - sx) < 0.02 * rgb.shape[1] and abs(by / 3 - sy) < 0.02 * rgb.shape[0]
    assert pose_mod.person_mask(big).shape == big.shape[:2]


def test_detectors_are_shared_and_safe_across_threads() -> None:
    rgb = load("model_1.png")
    expected = pose_mod.detect_pose(rgb)
    results: list[pose_mod.Pose | None] = []

    def work() -> None:
        for _ in range(3):
            results.append(pose_mod.detect_pose(rgb))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 9
    assert all(r == expected for r in results)
    assert pose_mod._POSE._obj is not None  # built once, kept for the process
