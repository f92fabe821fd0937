"""Shared bits of the placement-engine tests: fixture photos, the log folder, change masks."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"
LOGS = Path(__file__).resolve().parents[2] / "var" / "test-logs" / "engines"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def decode(data: bytes) -> np.ndarray:
    bgr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert bgr is not None
    return bgr[..., ::-1].copy()


def png(rgb: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", rgb[..., ::-1])
    assert ok
    return buf.tobytes()


def save_log(name: str, *images: np.ndarray) -> Path:
    """Images side by side (same height) as a PNG under var/test-logs/engines/."""
    LOGS.mkdir(parents=True, exist_ok=True)
    h = max(im.shape[0] for im in images)
    row = [
        cv2.copyMakeBorder(im, 0, h - im.shape[0], 0, 4, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        for im in images
    ]
    path = LOGS / name
    cv2.imwrite(str(path), np.hstack(row)[..., ::-1])
    return path


def object_change(before: np.ndarray, after: np.ndarray, threshold: float = 25.0) -> np.ndarray:
    """Pixels where something was painted in, not merely shaded.

    A shadow multiplies a pixel by one factor across channels; a placed object changes its
    colour. Pure darkening with near-equal channel ratios is therefore left out.
    """
    b = before.astype(np.float32) + 1.0
    a = after.astype(np.float32) + 1.0
    diff = np.abs(a - b).max(axis=2)
    ratio = a / b
    shade_only = (ratio.max(axis=2) - ratio.min(axis=2) < 0.08) & (ratio.mean(axis=2) < 0.995)
    changed = (diff > threshold) & ~shade_only
    return cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)) > 0
