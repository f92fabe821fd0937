from __future__ import annotations

import numpy as np
import pytest

from tests.engines.placement_support import decode, fixture_bytes, object_change, png, save_log
from tests.engines.synthetic_products import bag_shot
from workers.engines import baghold
from workers.engines.base import EngineError
from workers.engines.imaging.pose import detect_pose, person_mask

BAG_W, BAG_H, BAG_D = 32.0, 24.0, 12.0


def _run(model: str, **extra: object) -> tuple[np.ndarray, np.ndarray]:
    image, _ = bag_shot()
    model_bytes = fixture_bytes(model)
    params = {
        "bag_image": png(image),
        "width": BAG_W,
        "height": BAG_H,
        "depth": BAG_D,
        "gender": "Female",
        "model_image": model_bytes,
        "model_height_cm": 170,
    }
    params.update(extra)
    (out,) = baghold.run(params, lambda *a: None)
    return decode(model_bytes), decode(out.data)


def test_bag_is_held_at_the_wrist_at_real_size() -> None:
    # given a full-body photo (head and feet in frame) of a 170 cm model
    before, after = _run("model/model_9.png")

    # then the model's stature measured from her silhouette gives the scale ...
    rows = np.nonzero((person_mask(before) > 0.5).any(axis=1))[0]
    ppcm = (rows.max() - rows.min()) / 170.0
    # ... and the bag, measured from what changed, is 32 cm wide (body) and 24 cm + handle tall
    changed = object_change(before, after)
    ys, xs = np.nonzero(changed)
    widest = max(int(np.ptp(xs[ys == y])) + 1 for y in np.unique(ys) if (ys == y).sum() > 3)
    print(f"bag {widest / ppcm:.1f} cm wide for {BAG_W} cm (ppcm {ppcm:.2f})")
    assert widest / ppcm == pytest.approx(BAG_W, rel=0.10)
    body_h = (ys.max() - ys.min() + 1) / ppcm
    assert BAG_H < body_h < BAG_H * 2.2  # body plus the handle arc
    # and the handle's top is in the hand
    pose = detect_pose(before)
    assert pose is not None
    hand = [
        np.array(pose.points[k]) for k in pose.points if k.endswith(("wrist", "index", "pinky"))
    ]
    top = np.array([xs[ys == ys.min()].mean(), ys.min()])
    gap = min(float(np.linalg.norm(top - p)) for p in hand)
    print(f"handle top {gap:.1f} px from the nearest hand landmark")
    assert gap <= 3.0 * ppcm  # within 3 cm
    save_log("baghold_model_9.png", before, after)


def test_strap_hangs_the_bag_from_the_shoulder() -> None:
    before, after = _run("model/model_9.png", strap=110)
    pose = detect_pose(before)
    assert pose is not None
    changed = object_change(before, after)
    ys, _ = np.nonzero(changed)
    shoulder_y = min(pose.points["left_shoulder"][1], pose.points["right_shoulder"][1])
    # the strap starts at the shoulder
    assert abs(ys.min() - shoulder_y) < 0.05 * before.shape[0]
    save_log("baghold_strap_model_9.png", before, after)


def test_half_body_photo_uses_body_proportions() -> None:
    before, after = _run("model/model_3.png")
    changed = object_change(before, after)
    assert changed.any()
    save_log("baghold_model_3.png", before, after)


def test_no_person_is_a_clear_error() -> None:
    image, _ = bag_shot()
    with pytest.raises(EngineError) as err:
        baghold.run(
            {
                "bag_image": png(image),
                "width": 30,
                "height": 20,
                "depth": 10,
                "gender": "Female",
                "model_image": fixture_bytes("garment/00126_00.jpg"),
            },
            lambda *a: None,
        )
    assert err.value.code == "no_person"


def test_zero_dimension_is_refused() -> None:
    with pytest.raises(EngineError) as err:
        baghold.run(
            {"bag_image": b"", "width": 30, "height": 0, "depth": 10, "model_image": b""},
            lambda *a: None,
        )
    assert err.value.code == "bad_dimensions"
