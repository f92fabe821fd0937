"""Editorial Product: a canvas layout of real product cut-outs staged by the presets into two
results of the canvas's aspect with a shadow under each product."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import noop_progress, photo, save_log
from workers.engines import product
from workers.engines.base import EngineError
from workers.engines.imaging.cutout import cut_out_product


def _canvas(
    size: tuple[int, int], placements: list[tuple[str, int, int, float]], flatten: bool
) -> tuple[bytes, np.ndarray]:
    """The canvas as the page exports it: products on white (or with alpha); and the alpha."""
    w, h = size
    rgb = np.full((h, w, 3), 255, np.float32)
    alpha = np.zeros((h, w), np.float32)
    for name, x, y, scale in placements:
        cut = cut_out_product(photo(name))
        fg = cv2.resize(cut.rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        a = cv2.resize(cut.alpha, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        ch, cw = a.shape
        region = rgb[y : y + ch, x : x + cw]
        rgb[y : y + ch, x : x + cw] = fg * a[..., None] + region * (1 - a[..., None])
        alpha[y : y + ch, x : x + cw] = np.maximum(alpha[y : y + ch, x : x + cw], a)
    rgb8 = np.clip(rgb + 0.5, 0, 255).astype(np.uint8)
    im = (
        Image.fromarray(rgb8)
        if flatten
        else Image.fromarray(np.dstack([rgb8, (alpha * 255).astype(np.uint8)]), "RGBA")
    )
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue(), alpha


def _lum(rgb: np.ndarray) -> np.ndarray:
    return rgb.astype(np.float32) @ np.array([0.2126, 0.7152, 0.0722], np.float32)


def test_presets_are_the_six_with_a_sentence_each() -> None:
    assert [p["title"] for p in product.PHOTO_PRESETS] == [
        "Minimalist White",
        "Lifestyle Editorial",
        "Luxury Fashion",
        "Studio Catalog",
        "Urban Street",
        "Vintage Editorial",
    ]
    assert all(len(p["sentence"]) > 60 for p in product.PHOTO_PRESETS)
    assert product.choose_preset(None, product.PHOTO_PRESETS[4]["sentence"]) == "Urban Street"
    with pytest.raises(EngineError):
        product.choose_preset("Polaroid", "")


@pytest.mark.parametrize(
    "size,preset,flatten",
    [
        ((1600, 1200), "Studio Catalog", False),
        ((1200, 1200), "Minimalist White", True),
        ((1080, 1920), "Vintage Editorial", True),
        ((1600, 1200), "Lifestyle Editorial", False),
        ((1600, 1200), "Urban Street", True),
    ],
)
def test_two_results_of_the_canvas_aspect_with_a_shadow_under_the_products(
    size: tuple[int, int], preset: str, flatten: bool
) -> None:
    w, h = size
    placements = [
        ("garment/050181_1", int(0.08 * w), int(0.25 * h), 0.9 * w / 1600),
        ("garment/051988_1", int(0.55 * w), int(0.15 * h), 1.2 * w / 1600),
    ]
    data, alpha = _canvas(size, placements, flatten)

    out = product.run({"image": data, "prompt": "", "preset": preset}, noop_progress)

    assert [o.filename for o in out] == ["editorial-product-1.png", "editorial-product-2.png"]
    results = [np.asarray(Image.open(io.BytesIO(o.data)).convert("RGB")) for o in out]
    assert all(r.shape == (h, w, 3) for r in results)
    assert not np.array_equal(results[0], results[1])
    near = cv2.dilate((alpha > 0.05).astype(np.uint8), np.ones((61, 61), np.uint8)) > 0
    for r in results:
        lum = _lum(r)
        backdrop = np.median(lum[~near])
        ys, xs = np.nonzero(alpha > 0.5)
        # The trousers: the band just under its bottom edge, across its middle.
        right = xs > w // 2
        y1 = ys[right].max()
        x0, x1 = xs[right].min(), xs[right].max()
        cols = slice(x0 + (x1 - x0) // 5, x1 - (x1 - x0) // 5)
        start = y1 + 1
        while alpha[start, cols].max() >= 0.02:  # past the soft rim of the cut-out
            start += 1
        assert start - y1 < 8
        rows = slice(start, start + max(4, h // 120))
        band = lum[rows, cols]
        # The backdrop elsewhere on the same floor line (the sweep and vignette vary with y).
        same_rows = lum[rows][~near[rows]]
        if same_rows.size > 100:
            backdrop = np.median(same_rows)
        assert band.mean() < backdrop - 6, (preset, band.mean(), backdrop)
    save_log(f"product_{preset.replace(' ', '_').lower()}_{w}x{h}", *results)


def test_luxury_puts_a_fading_reflection_under_the_products() -> None:
    data, alpha = _canvas((1600, 1200), [("garment/051988_1", 800, 150, 1.2)], flatten=True)

    out = product.run({"image": data, "prompt": "", "preset": "Luxury Fashion"}, noop_progress)

    r = np.asarray(Image.open(io.BytesIO(out[0].data)).convert("RGB"))
    lum = _lum(r)
    ys, xs = np.nonzero(alpha > 0.5)
    y1, cols = ys.max(), slice(xs.min() + 40, xs.max() - 40)
    backdrop = np.median(
        lum[~(cv2.dilate((alpha > 0.05).astype(np.uint8), np.ones((61, 61), np.uint8)) > 0)]
    )
    near, far = lum[y1 + 12 : y1 + 30, cols].mean(), lum[y1 + 120 : y1 + 140, cols].mean()
    # The beige trousers mirrored into the dark stone, fading with distance.
    assert near > backdrop + 10 and near > far + 5
    save_log("product_luxury_reflection", r)


def test_prompt_picks_the_preset_and_the_backdrop_colour() -> None:
    data, _ = _canvas((800, 800), [("garment/050181_1", 150, 150, 0.9)], flatten=True)

    out = product.run(
        {"image": data, "prompt": "clean minimal shot on a sage green backdrop"}, noop_progress
    )

    r = np.asarray(Image.open(io.BytesIO(out[0].data)).convert("RGB"))
    corner = r[10:60, 10:60].reshape(-1, 3).mean(axis=0)
    assert corner[1] > corner[0] and corner[1] > corner[2]  # green, not white


def test_an_empty_canvas_is_refused() -> None:
    buf = io.BytesIO()
    Image.new("RGB", (600, 600), "white").save(buf, format="PNG")

    with pytest.raises(EngineError) as err:
        product.run({"image": buf.getvalue(), "prompt": ""}, noop_progress)

    assert err.value.code == "empty_canvas"
