from __future__ import annotations

import cv2
import numpy as np
import pytest
from skimage.metrics import structural_similarity

from tests.engines.placement_support import decode, fixture_bytes, save_log
from workers.engines import remodel
from workers.engines.base import EngineError
from workers.engines.imaging.face import CHIN, FACE_OVAL, Face, detect_face

# Eyes, brows, nose and mouth: the points whose layout makes a face someone's.
INNER = [
    33,
    133,
    159,
    145,
    362,
    263,
    386,
    374,
    70,
    105,
    107,
    336,
    334,
    300,
    168,
    6,
    1,
    2,
    98,
    327,
    61,
    291,
    0,
    17,
    13,
    14,
]


def _shape(face: Face) -> np.ndarray:
    p = face.points[INNER].astype(np.float64)
    p -= p.mean(axis=0)
    return p / np.linalg.norm(p)


def _shape_distance(a: Face, b: Face) -> float:
    """Procrustes distance between inner-feature layouts (position, size and roll removed)."""
    x, y = _shape(a), _shape(b)
    u, _, vt = np.linalg.svd(x.T @ y)
    return float(np.linalg.norm(x @ (u @ vt) - y))


def _face_colour(rgb: np.ndarray, face: Face) -> np.ndarray:
    mask = np.zeros(rgb.shape[:2], np.uint8)
    oval = face.points[list(FACE_OVAL)]
    c = oval.mean(axis=0)
    cv2.fillConvexPoly(mask, np.round(c + (oval - c) * 0.8).astype(np.int32), 1)
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)[mask > 0].mean(axis=0)


@pytest.mark.parametrize(
    ("target", "library"),
    [("model/02849_00.jpg", "model/model_1.png"), ("model/model_3.png", "model/model_6.png")],
)
def test_face_becomes_the_library_model_and_the_garment_stays(target: str, library: str) -> None:
    # given a catalogue photo and a library model's photo
    before = decode(fixture_bytes(target))
    model = decode(fixture_bytes(library))

    # when the face is swapped
    (out,) = remodel.run(
        {"image": fixture_bytes(target), "model_face": fixture_bytes(library), "model_name": "Mia"},
        lambda *a: None,
    )
    after = decode(out.data)

    # then the face's layout and colour moved towards the library model
    f_before, f_model, f_after = detect_face(before), detect_face(model), detect_face(after)
    assert f_before and f_model and f_after
    d_before, d_after = _shape_distance(f_before, f_model), _shape_distance(f_after, f_model)
    c_before = float(np.linalg.norm(_face_colour(before, f_before) - _face_colour(model, f_model)))
    c_after = float(np.linalg.norm(_face_colour(after, f_after) - _face_colour(model, f_model)))
    print(
        f"shape distance {d_before:.4f} -> {d_after:.4f}; colour distance {c_before:.1f} -> {c_after:.1f}"
    )
    assert d_after < 0.8 * d_before
    assert c_after < c_before
    # and everything below the chin is unchanged
    chin = int(f_before.points[CHIN][1]) + 2
    below_b = cv2.cvtColor(before[chin:], cv2.COLOR_RGB2GRAY)
    below_a = cv2.cvtColor(after[chin:], cv2.COLOR_RGB2GRAY)
    ssim = structural_similarity(below_b, below_a, data_range=255)
    print(f"SSIM below the chin {ssim:.4f}")
    assert ssim >= 0.95
    x0, y0, x1, y1 = f_before.box
    pad = (x1 - x0) // 2
    crop = (slice(max(0, y0 - pad), y1 + pad), slice(max(0, x0 - pad), x1 + pad))
    save_log(
        f"remodel_{target.split('/')[-1][:-4]}_as_{library.split('/')[-1][:-4]}.png",
        before[crop],
        cv2.resize(
            model, (before[crop].shape[1] * model.shape[0] // model.shape[0], before[crop].shape[0])
        ),
        after[crop],
    )


def test_no_face_is_a_clear_error() -> None:
    with pytest.raises(EngineError) as err:
        remodel.run(
            {
                "image": fixture_bytes("model/049205_0.jpg"),
                "model_face": fixture_bytes("model/model_1.png"),
                "model_name": "Mia",
            },
            lambda *a: None,
        )
    assert err.value.code == "no_face"
