"""Spinview: a turntable MP4 from a product's views, turning through them and back to the first.

Each view is letterboxed on white. Consecutive views are joined by an optical-flow morph
(Farneback both ways, each side pushed part of the way along its flow and cross-faded) so
outlines travel instead of ghosting; where flow is unreliable (very different views) the
transition falls back to an eased cross-fade. Flow is computed on a small copy: it only has to
be smooth, and it is the costly step.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import load_image, png_bytes

MAX_VIEWS = 36
FLOW_SIDE = 256  # Farneback resolution; finer adds cost, not smoothness
# Share of each view's segment spent holding still before morphing on to the next view.
HOLD = 0.3
# Mean flow beyond this share of the frame means the two views do not correspond.
MAX_MEAN_FLOW = 0.12
# Flow is kept when warping by it leaves less than this share of the plain difference.
FLOW_GAIN = 0.5


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    views_data = params.get("views") or []
    if not views_data:
        raise EngineError("no_views", "Spinview needs at least one product view.")
    if len(views_data) > MAX_VIEWS:
        raise EngineError("too_many_views", f"Spinview takes at most {MAX_VIEWS} views.")
    seconds = float(params.get("seconds") or 6)
    fps = int(params.get("fps") or 24)
    size = int(params.get("size") or 1080)
    if not (1 <= seconds <= 60 and 1 <= fps <= 60 and 64 <= size <= 2160):
        raise EngineError(
            "bad_params", "Spinview takes 1–60 seconds, 1–60 fps and a size of 64–2160 px."
        )
    size -= size % 8  # H.264 in yuv420p wants even sides; 8 keeps imageio from padding
    total = max(1, round(seconds * fps))

    views = []
    for data in views_data:
        rgb, alpha = load_image(data)
        views.append(letterbox(rgb, alpha, size))
    progress(10)
    frames = turntable_frames(views, total, progress)
    path = _encode(frames, fps, size, total, progress)
    try:
        with open(path, "rb") as fh:
            video = fh.read()
    finally:
        os.unlink(path)
    progress(100)
    return [
        EngineOutput(video, "video/mp4", "spinview.mp4"),
        EngineOutput(png_bytes(views[0]), "image/png", "spinview-poster.png"),
    ]


def letterbox(rgb: np.ndarray, alpha: np.ndarray | None, size: int) -> np.ndarray:
    """The view fitted into size×size on white, centred (transparency composited on white)."""
    if alpha is not None:
        a = alpha[..., None]
        rgb = np.clip(rgb.astype(np.float32) * a + 255.0 * (1 - a) + 0.5, 0, 255).astype(np.uint8)
    h, w = rgb.shape[:2]
    s = size / max(h, w)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    canvas = np.full((size, size, 3), 255, np.uint8)
    x0, y0 = (size - nw) // 2, (size - nh) // 2
    canvas[y0 : y0 + nh, x0 : x0 + nw] = cv2.resize(rgb, (nw, nh), interpolation=interp)
    return canvas


def _ease(t: float) -> float:
    return t * t * (3.0 - 2.0 * t)  # smoothstep: no jolt at either end of a transition


class _Morph:
    """Frames between view a and view b at 0 ≤ t ≤ 1."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        self.a, self.b = a, b
        size = a.shape[0]
        s = min(1.0, FLOW_SIDE / size)
        ga = cv2.cvtColor(
            cv2.resize(a, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY
        )
        gb = cv2.cvtColor(
            cv2.resize(b, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), cv2.COLOR_RGB2GRAY
        )
        args = (None, 0.5, 4, 21, 4, 7, 1.5, cv2.OPTFLOW_FARNEBACK_GAUSSIAN)
        f_ab = cv2.calcOpticalFlowFarneback(ga, gb, *args)
        f_ba = cv2.calcOpticalFlowFarneback(gb, ga, *args)
        mean_flow = float(np.linalg.norm(f_ab, axis=2).mean()) / ga.shape[0]
        # Flow that does not actually carry one view onto the other (a different product, a
        # large turn) only smears texture: keep it only when it explains most of the change.
        hh, ww = ga.shape
        gy, gx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        carried = cv2.remap(
            gb,
            gx + f_ab[..., 0],
            gy + f_ab[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        plain = float(np.abs(ga.astype(np.float32) - gb).mean())
        residual = float(np.abs(ga.astype(np.float32) - carried).mean())
        self.use_flow = mean_flow <= MAX_MEAN_FLOW and residual < FLOW_GAIN * plain
        if self.use_flow:
            # Smooth flows keep the warp from tearing fine print; upsample to frame size.
            f_ab = cv2.GaussianBlur(f_ab, (0, 0), 2.0)
            f_ba = cv2.GaussianBlur(f_ba, (0, 0), 2.0)
            self.f_ab = cv2.resize(f_ab, (size, size), interpolation=cv2.INTER_LINEAR) / s
            self.f_ba = cv2.resize(f_ba, (size, size), interpolation=cv2.INTER_LINEAR) / s
            gy, gx = np.mgrid[0:size, 0:size].astype(np.float32)
            self.gx, self.gy = gx, gy

    def at(self, t: float) -> np.ndarray:
        w = _ease(t)
        if not self.use_flow:
            return cv2.addWeighted(self.a, 1 - w, self.b, w, 0)
        # Backward warping with the flows as the (smooth) approximation of their inverses.
        wa = cv2.remap(
            self.a,
            self.gx - w * self.f_ab[..., 0],
            self.gy - w * self.f_ab[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        wb = cv2.remap(
            self.b,
            self.gx - (1 - w) * self.f_ba[..., 0],
            self.gy - (1 - w) * self.f_ba[..., 1],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return cv2.addWeighted(wa, 1 - w, wb, w, 0)


def turntable_frames(views: list[np.ndarray], total: int, progress: Progress | None = None):  # type: ignore[no-untyped-def]
    """Yield ``total`` frames: each view holds, then morphs into the next; the last morphs
    back into the first so the video loops without a cut."""
    n = len(views)
    if n == 1:
        for _ in range(total):
            yield views[0]
        return
    per = total / n
    morph: _Morph | None = None
    current = -1
    for i in range(total):
        pos = i / per
        k = min(n - 1, int(pos))
        local = pos - k
        if local < HOLD:
            yield views[k]
            continue
        if current != k:
            morph = _Morph(views[k], views[(k + 1) % n])
            current = k
        assert morph is not None
        yield morph.at((local - HOLD) / (1 - HOLD))
        if progress and i % 8 == 0:
            progress(10 + int(85 * i / total))


def _encode(frames, fps: int, size: int, total: int, progress: Progress) -> str:  # type: ignore[no-untyped-def]
    import imageio.v2 as imageio

    fd, path = tempfile.mkstemp(suffix=".mp4")
    os.close(fd)
    writer = imageio.get_writer(
        path,
        format="FFMPEG",
        mode="I",
        fps=fps,
        codec="libx264",
        pixelformat="yuv420p",
        macro_block_size=8,
        quality=None,
        ffmpeg_log_level="error",
        # CRF 20 is visually clean on product shots; faststart lets browsers play while loading.
        output_params=["-crf", "20", "-preset", "veryfast", "-movflags", "+faststart"],
    )
    try:
        for frame in frames:
            writer.append_data(frame)
    except BaseException:
        writer.close()
        os.unlink(path)
        raise
    writer.close()
    return path
