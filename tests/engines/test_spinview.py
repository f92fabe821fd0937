from __future__ import annotations

from pathlib import Path

import imageio.v2 as imageio
import numpy as np
import pytest

from tests.engines.placement_support import decode, fixture_bytes, save_log
from workers.engines import spinview
from workers.engines.base import EngineError

VIEWS = ["garment/00055_00.jpg", "garment/00126_00.jpg", "garment/00151_00.jpg"]


def _frames(data: bytes, tmp_path: Path) -> list[np.ndarray]:
    path = tmp_path / "spin.mp4"
    path.write_bytes(data)
    reader = imageio.get_reader(str(path), format="FFMPEG")
    try:
        return [np.asarray(f) for f in reader]
    finally:
        reader.close()


def test_turntable_has_the_configured_frames_and_no_jumps(tmp_path: Path) -> None:
    # given three product views
    views = [fixture_bytes(v) for v in VIEWS]
    seen: list[int] = []

    # when a 2 s, 24 fps, 256 px turntable is made
    video, poster = spinview.run(
        {"views": views, "seconds": 2, "fps": 24, "size": 256}, seen.append
    )

    # then the MP4 decodes to 48 square frames
    assert video.content_type == "video/mp4" and poster.content_type == "image/png"
    frames = _frames(video.data, tmp_path)
    assert len(frames) == 48
    assert frames[0].shape == (256, 256, 3)
    # no frame jumps: every step, the loop's wrap included, stays far below a hard cut
    stack = [f.astype(np.int16) for f in frames]
    jumps = [
        float(np.abs(stack[(i + 1) % len(stack)] - stack[i]).mean()) for i in range(len(stack))
    ]
    boxed = [spinview.letterbox(decode(v), None, 256).astype(np.int16) for v in views]
    cuts = [float(np.abs(boxed[(i + 1) % 3] - boxed[i]).mean()) for i in range(3)]
    print(f"max frame jump {max(jumps):.1f}, hard cuts {[round(c, 1) for c in cuts]}")
    assert max(jumps) < 0.5 * min(cuts)
    assert max(jumps) < 20
    # the poster is the first view, letterboxed on white, and the video starts on it
    poster_rgb = decode(poster.data)
    assert poster_rgb.shape == (256, 256, 3)
    assert np.abs(poster_rgb.astype(int) - boxed[0]).mean() < 1.0
    assert np.abs(stack[0] - boxed[0]).mean() < 4.0  # H.264 at CRF 20
    assert (poster_rgb[:, :4] > 250).all()  # white letterbox bars
    assert seen and seen[-1] == 100
    save_log("spinview_frames.png", *[frames[i] for i in range(0, 48, 6)])


def test_single_view_makes_a_still_video(tmp_path: Path) -> None:
    video, _ = spinview.run(
        {"views": [fixture_bytes(VIEWS[0])], "seconds": 1, "fps": 12, "size": 128}, lambda *a: None
    )
    frames = _frames(video.data, tmp_path)
    assert len(frames) == 12
    assert max(float(np.abs(f.astype(int) - frames[0]).mean()) for f in frames) < 1.0


@pytest.mark.parametrize("params", [{"views": []}, {"views": [b"x"], "size": 10}])
def test_bad_requests_are_refused(params: dict) -> None:
    with pytest.raises(EngineError):
        spinview.run(params, lambda *a: None)
