from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.engines.placement_support import decode, fixture_bytes, object_change, png, save_log
from tests.engines.synthetic_products import earring_shot
from workers.engines import earfit
from workers.engines.base import EngineError
from workers.engines.imaging.face import detect_face, earlobes


@pytest.mark.parametrize(
    ("model", "height_in"), [("model/model_3.png", 2.0), ("model/model_3.png", 3.0)]
)
def test_earring_hangs_at_the_lobe_at_true_height(model: str, height_in: float) -> None:
    # given a model photo and an earring shot on white
    model_bytes = fixture_bytes(model)
    before = decode(model_bytes)
    face = detect_face(before)
    assert face is not None
    lobes = [lobe for lobe in earlobes(before, face) if lobe.visible]
    assert lobes

    # when the earring is placed at a given height
    (out,) = earfit.run(
        {
            "ring_image": png(earring_shot()),
            "ring_height_in": height_in,
            "model_image": model_bytes,
            "model_name": "Ana",
        },
        lambda *a: None,
    )
    after = decode(out.data)

    # then at every visible lobe an earring appears, height/ppi = the height, top at the lobe
    changed = object_change(before, after, threshold=12.0)
    # The hook and chain are a pixel or two thin: close the gaps between hook, pearl and drop.
    joined = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((1, 5), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(
        cv2.morphologyEx(joined, cv2.MORPH_CLOSE, np.ones((5, 1), np.uint8))
    )
    for lobe in lobes:
        lx, ly = lobe.point
        full = height_in * face.ppi
        near = [
            k
            for k in range(1, n)
            if abs(stats[k, cv2.CC_STAT_LEFT] + stats[k, cv2.CC_STAT_WIDTH] / 2 - lx) < 0.4 * full
            and ly - 4 <= stats[k, cv2.CC_STAT_TOP] < ly + full
        ]
        assert near, f"nothing placed at the {lobe.side} lobe"
        ys, xs = np.nonzero(np.isin(labels, near) & changed)
        measured_in = (ys.max() - ys.min() + 1) / face.ppi
        print(
            f"{lobe.side}: {measured_in:.2f} in for {height_in} in (ppi {face.ppi:.1f}), top {ys.min() - ly:+.1f} px"
        )
        assert measured_in == pytest.approx(height_in, rel=0.10)
        assert abs(ys.min() - ly) <= 3
        assert abs(xs[ys == ys.min()].mean() - lx) <= 4
    # and nothing else in the picture changed
    assert changed.mean() < 0.02
    x0, y0, x1, y1 = face.box
    pad = x1 - x0
    crop = (slice(max(0, y0 - pad // 4), y1 + pad), slice(max(0, x0 - pad // 2), x1 + pad // 2))
    save_log(f"earfit_{model.split('/')[-1][:-4]}_{height_in}in.png", before[crop], after[crop])


def test_no_visible_ear_names_the_model() -> None:
    # a full-body photo cropped at the chin: no face, so no ear
    with pytest.raises(EngineError) as err:
        earfit.run(
            {
                "ring_image": png(earring_shot()),
                "ring_height_in": 1.5,
                "model_image": fixture_bytes("model/049205_0.jpg"),
                "model_name": "Lena",
            },
            lambda *a: None,
        )
    assert err.value.code == "no_ear"
    assert err.value.message == "No visible ear was found on Lena."


@pytest.mark.parametrize("height", [0.2, 11])
def test_height_outside_the_range_is_refused(height: float) -> None:
    with pytest.raises(EngineError) as err:
        earfit.run(
            {"ring_image": b"", "ring_height_in": height, "model_image": b"", "model_name": "x"},
            lambda *a: None,
        )
    assert err.value.code == "bad_height"
