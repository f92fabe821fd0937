"""Open Lab: the instruction parser, Image to Flat against the garment mask, Sketch to Photo,
and the two-result answers on real product shots."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES, noop_progress, photo, save_log
from workers.engines import flatdraw, openlab
from workers.engines.base import EngineError
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import delta_e2000


def _png(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def _rgb(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


@pytest.mark.parametrize(
    "prompt,kind,extra",
    [
        ("Image to Flat", "image_to_flat", {}),
        (openlab.TEMPLATES["Image to Flat"], "image_to_flat", {}),
        ("Convert this dress into a technical flat", "image_to_flat", {"garment_type": "dress"}),
        ("Sketch to Photo", "sketch_to_photo", {}),
        (
            "Sketch to Photo: render the attached sketch as a photo in navy [Optional: fabric]",
            "sketch_to_photo",
            {"colour": "#1c2541"},
        ),
        ("render the sketch in burgundy silk", "sketch_to_photo", {"fabric": "silk"}),
        ("Recolour the top to navy", "recolour", {"colour": "#1c2541"}),
        ("recolor to #4A5D23", "recolour", {"colour": "#4a5d23"}),
        ("make it forest green", "recolour", {"colour_name": "forest green"}),
        ("change the colour of the silk dress to red", "recolour", {"colour_name": "red"}),
        ("change the fabric to denim", "refabric", {"fabric": "denim"}),
        ("make it in glossy silk", "refabric", {"fabric": "silk", "finish": "glossy"}),
        ("remove the background", "remove_background", {}),
        ("put it on a white background", "remove_background", {}),
        ("put it on a beige background", "replace_background", {"colour_name": "beige"}),
        ("change the background to #e8e2d6", "replace_background", {"colour": "#e8e2d6"}),
        ("put this top on the model", "try_on", {}),
        ("virtual try-on", "try_on", {}),
        ("apply the Warm 70s Film Look", "film_look", {"look": "Warm 70s Film Look"}),
        ("give it a black and white film look", "film_look", {"look": "Grainy High-Contrast B&W"}),
    ],
)
def test_parser_maps_the_documented_phrasings(prompt: str, kind: str, extra: dict) -> None:
    ins = openlab.parse_instruction(prompt)

    assert ins.kind == kind
    for key, value in extra.items():
        assert getattr(ins, key) == value


@pytest.mark.parametrize(
    "prompt",
    [
        "write a poem about this dress",
        "generate a brand new evening gown from scratch",
        "make a video of this jacket spinning",
        "",
    ],
)
def test_parser_refuses_other_instructions_listing_what_it_can_do(prompt: str) -> None:
    with pytest.raises(EngineError) as err:
        openlab.parse_instruction(prompt)

    assert err.value.code == "unsupported_instruction"
    for capability in (
        "Image to Flat",
        "Sketch to Photo",
        "recolour",
        "fabric",
        "remove the background",
        "background",
        "person of image 1",
        "film look",
    ):
        assert capability in err.value.message


def _outline_fill(drawing: np.ndarray) -> np.ndarray:
    """What the drawn outline encloses: everything not reachable from the border through white."""
    ink = (drawing.min(axis=2) < 160).astype(np.uint8)
    free = (1 - ink).copy()
    ff = np.zeros((free.shape[0] + 2, free.shape[1] + 2), np.uint8)
    cv2.floodFill(free, ff, (0, 0), 2)
    return free != 2


@pytest.mark.parametrize(
    "name",
    [
        "garment/00055_00",
        "garment/050181_1",
        "garment/051988_1",
        "garment/052234_1",
        "garment/053319_1",
    ],
)
def test_image_to_flat_outline_matches_the_garment_mask(name: str) -> None:
    rgb = photo(name)
    data = (FIXTURES / f"{name}.jpg").read_bytes()

    out = openlab.run({"prompt": "Image to Flat", "image": data}, noop_progress)

    assert [o.filename for o in out] == ["result-1.png", "result-2.png"]
    front, back = _rgb(out[0].data), _rgb(out[1].data)
    assert front.shape == rgb.shape
    # A line drawing on white: a white border and little ink.
    border = np.concatenate(
        [
            front[:4].reshape(-1, 3),
            front[-4:].reshape(-1, 3),
            front[:, :4].reshape(-1, 3),
            front[:, -4:].reshape(-1, 3),
        ]
    )
    assert (border.min(axis=1) == 255).mean() > 0.9
    assert (front.min(axis=2) < 128).mean() < 0.12
    small, _ = garment_mod.working_copy(rgb)
    mask = cv2.resize(garment_mod.product_mask(small), (rgb.shape[1], rgb.shape[0])) > 0.5
    fill = _outline_fill(front)
    iou = (fill & mask).sum() / (fill | mask).sum()
    assert iou >= 0.8, iou
    assert not np.array_equal(front, back)
    save_log(f"openlab_flat_{name.split('/')[1]}", rgb, front, back)


def test_sketch_to_photo_fills_the_closed_shape_with_the_colour_and_shading() -> None:
    sketch = flatdraw.flat_from_template("dress", size=(480, 640)).rgb
    _, inside = openlab.sketch_regions(sketch)

    out = openlab.run(
        {"prompt": "Sketch to Photo in emerald", "image": _png(sketch)}, noop_progress
    )

    soft, photo_like = _rgb(out[0].data), _rgb(out[1].data)
    core = cv2.erode(inside.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    target = np.array([0x16, 0x84, 0x5A], np.uint8)
    de = delta_e2000(soft[core], np.repeat(target[None], core.sum(), 0))
    assert np.median(de) < 10, np.median(de)
    # Shading: the centre of the garment is lighter than its rim.
    lum = soft.astype(np.float32).mean(axis=2)
    dist = cv2.distanceTransform(core.astype(np.uint8), cv2.DIST_L2, 5)
    assert lum[dist > 0.6 * dist.max()].mean() > lum[(dist > 0) & (dist < 6)].mean() + 3
    assert soft[:5].min() == 255  # the background stays white
    assert not np.array_equal(soft, photo_like)
    save_log("openlab_sketch_to_photo", sketch, soft, photo_like)


def test_sketch_without_a_closed_shape_is_refused() -> None:
    blank = np.full((200, 200, 3), 255, np.uint8)
    cv2.line(blank, (20, 20), (180, 180), (0, 0, 0), 3)

    with pytest.raises(EngineError) as err:
        openlab.run({"prompt": "sketch to photo", "image": _png(blank)}, noop_progress)

    assert err.value.code == "no_closed_shape"


@pytest.mark.parametrize(
    "prompt,corner",
    [
        ("remove the background", (255, 255, 255)),
        ("put it on a sage background", (0xA3, 0xB0, 0x9A)),
    ],
)
def test_background_instructions_return_two_results(prompt: str, corner: tuple) -> None:
    data = (FIXTURES / "garment/050181_1.jpg").read_bytes()

    out = openlab.run({"prompt": prompt, "image": data}, noop_progress)

    first, second = _rgb(out[0].data), _rgb(out[1].data)
    assert np.abs(first[3, 3].astype(int) - corner).max() <= 3
    assert first.shape == second.shape
    save_log(f"openlab_{prompt.split()[-2]}_background", first, second)


def test_instructions_needing_an_image_say_so() -> None:
    with pytest.raises(EngineError) as err:
        openlab.run({"prompt": "recolour to navy"}, noop_progress)

    assert err.value.code == "missing_image"
