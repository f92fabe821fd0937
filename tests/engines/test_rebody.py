"""Rebody on real photos: widths measured on the person mask of the output, face untouched."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from skimage.metrics import structural_similarity

from tests.engines.conftest import FIXTURES, noop_progress, save_log
from workers.engines import rebody
from workers.engines.base import EngineError
from workers.engines.imaging import pose as pose_mod

PHOTOS = ["model_8.png", "model_1.png"]  # full body with feet; half body down to the thighs

# (band, lowest, highest) relative width change, in per cent, that each body type promises.
PROMISES: dict[str, list[tuple[str, float, float]]] = {
    "Standard Fit": [("shoulders", -4, 4), ("waist", -4, 4), ("hips", -4, 4)],
    "Curvy Fit": [("bust", 3, 16), ("waist", 2, 14), ("hips", 6, 18)],
    "Pear Silhouette": [("shoulders", -2.5, 2.5), ("hips", 6, 18)],
    "Slim Fit": [("shoulders", -10, -2), ("bust", -12, -3), ("waist", -14, -4), ("hips", -14, -4)],
    "Athletic Build": [("shoulders", 5, 15), ("waist", -5, 1)],
    "Petite": [("shoulders", -6, 0), ("waist", -6, 0), ("hips", -6, 0)],
    "Slim with Bust": [("bust", 3, 14), ("waist", -12, -3), ("hips", -12, -2)],
    "Hourglass": [("bust", 3, 14), ("waist", -12, -3), ("hips", 4, 16)],
}


def load(name: str) -> np.ndarray:
    return np.asarray(Image.open(FIXTURES / "model" / name).convert("RGB"))


def measure(rgb: np.ndarray) -> dict[str, float]:
    """Silhouette width (person mask, arms included) at each band's height, and body height.

    Every image is measured at its own landmarks, so a body that moved is measured where it is.
    """
    p = pose_mod.detect_pose(rgb)
    assert p is not None
    body = rebody.body_from_pose(p)
    assert body is not None
    m = pose_mod.person_mask(rgb) > 0.5
    out: dict[str, float] = {}
    for band in ("shoulders", "bust", "waist", "hips"):
        y = int(round(body.band_y(band)))
        widths = []
        for yy in range(max(0, y - 3), min(m.shape[0], y + 4)):
            xs = np.nonzero(m[yy])[0]
            if len(xs):
                widths.append(xs[-1] - xs[0] + 1)
        out[band] = float(np.median(widths))
    rows = np.nonzero(m.any(axis=1))[0]
    out["height"] = float(rows[-1] - rows[0])
    return out


def face_ssim(before: np.ndarray, after: np.ndarray) -> float:
    ((x0, y0, x1, y1),) = pose_mod.face_boxes(before)[:1]
    boxes_after = pose_mod.face_boxes(after)
    assert boxes_after, "the face must still be found"
    # Compare where the face is now (Petite moves the head down, undeformed).
    # The detector's box jitters by a pixel or two: take the best alignment near it.
    ax0, ay0, _, _ = boxes_after[0]
    a = np.asarray(Image.fromarray(before).convert("L"))[y0:y1, x0:x1]
    gray = np.asarray(Image.fromarray(after).convert("L"))
    best = 0.0
    for dy in range(-3, 4):
        for dx in range(-3, 4):
            bx, by = ax0 + dx, ay0 + dy
            b = gray[max(0, by) : by + (y1 - y0), max(0, bx) : bx + (x1 - x0)]
            if b.shape == a.shape:
                best = max(best, float(structural_similarity(a, b, data_range=255)))
    return best


@pytest.mark.parametrize("photo", PHOTOS)
@pytest.mark.parametrize("name", list(rebody.BODY_TYPES))
def test_body_type_moves_widths_as_promised_and_keeps_the_face(photo: str, name: str) -> None:
    rgb = load(photo)
    before = measure(rgb)

    out, alpha = rebody.rebody(rgb, rebody.body_type(name))

    assert alpha is None and out.shape == rgb.shape and out.dtype == np.uint8
    after = measure(out)
    change = {k: 100.0 * (after[k] / before[k] - 1.0) for k in before}
    for band, lo, hi in PROMISES[name]:
        assert lo <= change[band] <= hi, f"{name} {band}: {change[band]:+.1f} % not in [{lo}, {hi}]"
    if name == "Petite":
        if photo == "model_8.png":  # feet in frame: the whole figure is shorter
            assert -8.0 <= change["height"] <= -2.0
    else:
        assert abs(change["height"]) < 1.5
    assert face_ssim(rgb, out) >= 0.95
    # Far from the person the backdrop is the same pixels.
    far = pose_mod.person_mask(rgb) < 0.01
    far[:, 20:-20] = False
    assert np.abs(out[far].astype(int) - rgb[far].astype(int)).mean() < 2.0
    save_log(f"rebody_{photo.split('.')[0]}_{name.lower().replace(' ', '-')}", rgb, out)


def test_opposite_body_types_move_hips_in_opposite_directions() -> None:
    rgb = load("model_8.png")
    curvy, _ = rebody.rebody(rgb, rebody.body_type("Curvy Fit"))
    slim, _ = rebody.rebody(rgb, rebody.body_type("Slim Fit"))
    assert measure(curvy)["hips"] > measure(rgb)["hips"] > measure(slim)["hips"]


def test_run_returns_a_png_of_the_same_size() -> None:
    data = (FIXTURES / "model" / "model_9.png").read_bytes()
    seen: list[int] = []

    outputs = rebody.run(
        {"image": data, "target_bodytype": "Hourglass", "specs": ""}, lambda p, *_: seen.append(p)
    )

    assert len(outputs) == 1
    assert outputs[0].content_type == "image/png" and outputs[0].filename.endswith(".png")
    im = Image.open(io.BytesIO(outputs[0].data))
    assert im.format == "PNG" and im.size == Image.open(FIXTURES / "model" / "model_9.png").size
    assert seen == sorted(seen) and seen[-1] == 100


def test_a_product_shot_has_no_person() -> None:
    data = (FIXTURES / "garment" / "00055_00.jpg").read_bytes()
    with pytest.raises(EngineError) as err:
        rebody.run({"image": data, "target_bodytype": "Slim Fit"}, noop_progress)
    assert err.value.code == "no_person"
    assert err.value.message == "No person was found in the image."


def test_an_unknown_body_type_is_refused_before_any_work() -> None:
    with pytest.raises(EngineError) as err:
        rebody.run({"image": b"not read", "target_bodytype": "Giant"}, noop_progress)
    assert err.value.code == "invalid_body_type"
    assert "Hourglass" in err.value.message


def test_body_type_names_are_matched_loosely() -> None:
    assert rebody.body_type("slim-with-bust") == rebody.BODY_TYPES["Slim with Bust"]
    assert rebody.body_type(" curvy fit ") == rebody.BODY_TYPES["Curvy Fit"]


def test_progress_can_stop_the_work() -> None:
    class Stop(Exception):
        pass

    def progress(p: int, *_: object) -> None:
        if p >= 30:
            raise Stop

    data = (FIXTURES / "model" / "model_1.png").read_bytes()
    with pytest.raises(Stop):
        rebody.run({"image": data, "target_bodytype": "Petite"}, progress)
