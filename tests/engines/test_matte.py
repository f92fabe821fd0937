"""The matte helpers' local means: a wide one is taken on a reduced copy, and stays the exact
one's to the eye."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES
from workers.engines.imaging import matte
from workers.engines.imaging.color import srgb8_to_oklab


def exact_spread(values: np.ndarray, weight: np.ndarray,
                 sigma: float) -> tuple[np.ndarray, np.ndarray]:
    k = 2 * int(np.ceil(2.5 * sigma)) + 1
    wt = weight.astype(np.float32)
    den = cv2.GaussianBlur(wt, (k, k), sigma)
    num = cv2.GaussianBlur(values * wt[..., None], (k, k), sigma)
    return num / np.maximum(den, 1e-6)[..., None], den


@pytest.mark.parametrize("sigma", [8.0, 12.0, 24.0])
def test_a_wide_local_mean_from_a_reduced_copy_is_the_exact_ones(sigma: float) -> None:
    rgb = np.asarray(Image.open(FIXTURES / "model" / "02849_00.jpg").convert("RGB"))
    lab = srgb8_to_oklab(rgb).astype(np.float32)
    # A garment-like weight: the darker half of the photo, with its ragged outline.
    weight = lab[..., 0] < np.median(lab[..., 0])
    mean, support = matte.spread(lab, weight, sigma)
    want, want_support = exact_spread(lab, weight, sigma)
    # Away from the photo's border (reflected at each scale), where callers read a local mean
    # at all (support above 0.02). OKLab units: 0.03 is 3 % of the lightness range.
    m = int(2.5 * sigma)
    inner = (slice(m, -m), slice(m, -m))
    read = want_support[inner] > 0.02
    err = np.abs(mean[inner] - want[inner])[read].max(axis=-1)
    assert float(np.abs(support[inner] - want_support[inner]).max()) < 0.03
    assert float(np.percentile(err, 99)) < 0.03
    assert float(err.mean()) < 0.003
