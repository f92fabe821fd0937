"""Flats Ecommerce on real product shots and a real model photo (384x512), measured."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES, save_log
from tests.fidelity import fid_flats
from workers.engines import flats, tryon
from workers.engines.base import EngineError
from workers.engines.imaging.color import delta_e2000
from workers.engines.imaging.cutout import cut_out_product
from workers.engines.tryon.body import crop_body


def raw(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def rgb_of(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


ITEMS = {
    "top": "garment/050191_1.jpg",  # green tee
    "bottom": "garment/051827_1.jpg",  # ripped jeans
    "overlayer": "garment/049805_1.jpg",  # purple long-sleeve
    "shoes": "shoes/shoes_049205_0.jpg",  # black sneakers
}


def params(model: bytes | None) -> dict:
    p: dict = {c: {"FRONT": raw(n), "BACK": raw(n)} for c, n in ITEMS.items()}
    p["shoes"]["SIDE"] = raw(ITEMS["shoes"])
    p["model"] = model
    return p


def main_colour(name: str) -> np.ndarray:
    cut = cut_out_product(rgb_of(raw(name)))
    px = cut.rgb[cut.alpha > 0.9].astype(np.float32)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, centres = cv2.kmeans(px, 3, None, crit, 2, cv2.KMEANS_PP_CENTERS)
    return centres[np.bincount(labels.ravel()).argmax()].astype(np.uint8)


class Steps:
    def __init__(self) -> None:
        self.calls: list[tuple[int, str | None]] = []

    def __call__(self, pct: int, message: str | None = None) -> None:
        self.calls.append((pct, message))


def test_with_a_model_gives_front_back_and_flat_lay_in_three_steps() -> None:
    steps = Steps()
    out = flats.run(params(raw("model/049205_0.jpg")), steps)
    assert [o.filename for o in out] == ["flats-front.png", "flats-back.png", "flats-flatlay.png"]
    images = [rgb_of(o.data) for o in out]
    save_log("flats-with-model", *[cv2.resize(i, (int(i.shape[1] * 512 / i.shape[0]), 512)) for i in images])

    # Progress: analysing (0-40) then compositing (40-80), never backwards, ending at 80.
    pcts = [p for p, _ in steps.calls]
    assert pcts == sorted(pcts) and pcts[0] == 0 and pcts[-1] == 80
    messages = [m for _, m in steps.calls]
    first_compose = messages.index(flats.STEP_COMPOSE)
    assert set(messages[:first_compose]) == {flats.STEP_ANALYSE}
    assert set(messages[first_compose:]) == {flats.STEP_COMPOSE}
    assert all(p <= 40 for p, m in steps.calls if m == flats.STEP_ANALYSE)

    # On the model: the jeans' blue on the thighs, the overlayer's purple on the chest.
    front = images[0]
    before = rgb_of(raw("model/049205_0.jpg"))
    assert np.abs(front.astype(int) - before.astype(int)).mean() > 10
    purple = main_colour(ITEMS["overlayer"])
    chest = front[120:220, 150:240].reshape(-1, 3)
    assert float((delta_e2000(chest, np.broadcast_to(purple, chest.shape)) < 10).mean()) > 0.2


def test_the_garments_are_dressed_on_a_crop_round_the_person_and_nothing_outside_changes() -> None:
    model = raw("model/049205_0.jpg")
    before = rgb_of(model)
    body = tryon.analyse_body(before)
    crop, (rows, cols) = crop_body(body, flats.DRESS_MARGIN)
    assert crop.rgb.shape[:2] == (rows.stop - rows.start, cols.stop - cols.start)
    assert crop.rgb.shape[1] < before.shape[1]  # the model does not fill the frame's width
    off = np.array([cols.start, rows.start])
    assert np.allclose(crop.shoulder_mid + off, body.shoulder_mid)
    assert np.allclose(crop.left["hip"] + off, body.left["hip"])
    assert np.array_equal(crop.mask, body.mask[rows, cols])

    look = params(model)
    del look["shoes"]  # the shoes are worn on the whole photo
    front = rgb_of(flats.run(look, lambda *_: None)[0].data)
    outside = np.ones(before.shape[:2], bool)
    outside[rows, cols] = False
    assert np.array_equal(front[outside], before[outside])
    assert np.abs(front[rows, cols].astype(int) - before[rows, cols].astype(int)).mean() > 10


def test_flat_lay_contains_every_item() -> None:
    out = flats.run(params(None), Steps())
    assert [o.filename for o in out] == ["flats-flatlay.png", "flats-flatlay-back.png"]
    lay = rgb_of(out[0].data)
    save_log("flats-flatlay", lay)
    # Colour shares read off a quarter-size copy: the same shares, a sixteenth of the ΔE work.
    px = cv2.resize(lay, (lay.shape[1] // 4, lay.shape[0] // 4), interpolation=cv2.INTER_AREA).reshape(-1, 3)
    for cat, name in ITEMS.items():
        colour = main_colour(name)
        share = float((delta_e2000(px, np.broadcast_to(colour, px.shape)) < 8).mean())
        assert share > 0.003, (cat, colour, share)
    # Arrangement: top above bottom, overlayer beside them, shoes below.
    _, boxes = flats.flat_lay(flats.analyse_items(params(None), Steps()))
    assert boxes["top"][1] + boxes["top"][3] <= boxes["bottom"][1] + 5
    assert boxes["overlayer"][0] >= boxes["top"][0] + boxes["top"][2] - 5
    assert boxes["shoes"][1] >= boxes["bottom"][1] + boxes["bottom"][3] - 5


def test_only_some_items_is_fine_and_none_is_refused() -> None:
    out = flats.run({"top": {"FRONT": raw(ITEMS["top"])}, "model": None}, Steps())
    assert len(out) == 2
    try:
        flats.run({"model": raw("model/049205_0.jpg")}, Steps())
    except Exception as exc:  # noqa: BLE001
        assert getattr(exc, "code", None) == "no_items"
    else:
        raise AssertionError("no items must fail")


# --- looks worn together, shoes at the feet, nothing blank (the bars of tests/fidelity) ---------


@pytest.mark.parametrize("case", fid_flats.FULL_LENGTH, ids=lambda c: c.model.split("/")[1])
def test_a_top_and_shoes_are_worn_together_with_the_shoes_at_the_feet(case: fid_flats.Case) -> None:
    out = flats.run(fid_flats.look_params(case.model), Steps())
    images = [rgb_of(o.data) for o in out]
    figures = fid_flats.on_model_figures(images[0], case)
    save_log(f"flats-look-{case.model.split('/')[1][:-4]}",
             fid_flats.photo(case.model), fid_flats._diagnostic(images[0], figures))
    assert figures["top_share"] >= fid_flats.MIN_TOP_SHARE, figures["top_share"]
    assert figures["shoe_offset"] <= fid_flats.MAX_SHOE_OFFSET, figures["boxes"]
    assert figures["floor_gap"] <= fid_flats.MAX_FLOOR_GAP, figures["boxes"]
    assert figures["shoe_to_shin"] <= fid_flats.MAX_SHOE_TO_SHIN, figures["boxes"]
    assert all(fid_flats.is_visible(im) for im in images)


def test_the_tester_sync_is_one_look_of_both_products() -> None:
    looks = fid_flats.tester_sync()
    assert len(looks) == 1 and set(looks[0].items) == {"top", "shoes"}


def test_shoes_alone_give_no_blank_output_and_need_the_feet() -> None:
    # The tester's blank output was the back of a look of shoes alone.
    for model in ("model/051918_0.jpg", None):
        out = flats.run(fid_flats.look_params(model, top=False), Steps())
        assert all(fid_flats.is_visible(rgb_of(o.data)) for o in out), model
    with pytest.raises(EngineError) as refused:
        flats.run(fid_flats.look_params(fid_flats.HALF_LENGTH, top=False), Steps())
    assert refused.value.code == "no_feet"


def test_a_nearly_uniform_output_is_refused_not_delivered() -> None:
    faint = np.full((400, 400, 3), 245, np.uint8)
    faint[180:220, 180:220] = 235  # a product that barely stands out from its sweep
    buf = io.BytesIO()
    Image.fromarray(faint).save(buf, "PNG")
    with pytest.raises(EngineError) as refused:
        flats.run({"shoes": {"FRONT": buf.getvalue(), "BACK": buf.getvalue()}, "model": None},
                  Steps())
    assert refused.value.code == "blank_output"


def test_shoes_on_feet_the_pose_cannot_place_are_refused_not_guessed() -> None:
    body = tryon.analyse_body(fid_flats.photo("model/051918_0.jpg"))
    shoes = flats._cutout(flats.analyse_items(fid_flats.look_params(None, top=False), Steps())[0].view("FRONT"))
    worn = flats._place_shoes(body.rgb.copy(), body, shoes)
    assert np.abs(worn.astype(int) - body.rgb.astype(int)).max() > 0
    for key in ("heel", "foot_index"):
        body.left.pop(key, None)
    with pytest.raises(EngineError) as refused:
        flats._place_shoes(body.rgb.copy(), body, shoes)
    assert refused.value.code == "shoes_unfit"


@pytest.mark.parametrize("legs", [True, False], ids=["legs", "no-legs"])
def test_the_trousers_hem_over_the_old_shoes_stays_when_new_shoes_go_on(legs: bool) -> None:
    # Long printed trousers over flats: the old shoes were painted out from a little above the
    # ankle's row, so the trousers' hem was cut off and smeared down onto the new shoes (its
    # lowest rows changed at 44-89 % of their pixels).
    body = tryon.analyse_body(fid_flats.photo("model/049447_0.jpg"))
    shoes = flats._cutout(flats.analyse_items(fid_flats.look_params(None, top=False),
                                              Steps())[0].view("FRONT"))
    boxes: list[tuple[int, int, int, int]] = []
    worn = flats._place_shoes(body.rgb.copy(), body, shoes, boxes,
                              legs=flats.legs_now(body, body.rgb) if legs else None)
    save_log(f"flats_hem_over_shoes_{legs}", np.hstack([body.rgb, worn]))
    moved = np.abs(worn.astype(int) - body.rgb.astype(int)).max(axis=2) > 40
    for (ankle, _), (x, y, w, _) in zip(flats.feet_of(body) or [], boxes, strict=True):
        # The rows from where the old shoe's region starts to the new shoe's top, across the
        # new shoe's width: the hem (and the ankle below it) as the photo shows them.
        top = int(ankle[1] - 0.02 * body.torso_len)
        share = float(moved[top:y, x:x + w].mean())
        if legs:
            assert share < 0.1, (top, y, share)
        else:
            assert share > 0.3, (top, y, share)  # the old paint-out, for comparison


def test_small_holes_in_the_silhouette_are_under_the_top() -> None:
    """A small gap the person closes round (under the armpit of a loose sleeve) is covered by
    the top: put back to the photo, it showed through the sleeve as a round pale spot. A large
    one (an arm held away from the waist) and background reaching the frame's edge stay open."""
    from workers.engines.flats import SLEEVE_GAP, _small_holes_filled

    sw = 200.0
    mask = np.zeros((400, 400), np.uint8)
    mask[50:350, 50:350] = 1
    mask[100:120, 100:120] = 0  # 400 px: 0.01 of sw squared
    mask[150:300, 200:260] = 0  # 9,000 px: 0.225
    mask[300:400, 340:350] = 0  # reaches the bottom edge
    filled = _small_holes_filled(mask, SLEEVE_GAP * sw ** 2)
    assert filled[100:120, 100:120].all()
    assert not filled[150:300, 200:260].any()
    assert not filled[300:400, 340:350].any()
    assert (filled[mask == 1] == 1).all()


def test_the_bottom_beside_a_longer_top_keeps_its_own_pixels() -> None:
    # An oversized tee over jeans: the jeans' side between the tee and the arm was taken for a
    # strip of the old top and painted over, a blotch of smeared denim (0.29 % of the jeans
    # changed off the tee; 0.09 % now, along the tee's edge).
    model = "model/model_8.png"
    from workers.engines.imaging import warp
    from workers.engines.tryon.body import old_garment

    data = raw(model)
    look = {"top": {"FRONT": raw("garment/050191_1.jpg")}, "model": data}
    front = rgb_of(flats.run(look, lambda *a, **k: None)[0].data)
    rgb, _ = tryon._load(data, "model")
    bottom = old_garment(tryon.analyse_body(rgb), warp.LOWER)
    hsv = cv2.cvtColor(front, cv2.COLOR_RGB2HSV)  # the tee is green
    tee = (np.abs(hsv[..., 0].astype(int) - 80) < 15) & (hsv[..., 1] > 80)
    tee = cv2.dilate(tee.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    changed = np.abs(front.astype(int) - rgb.astype(int)).max(axis=2) > 25
    save_log(f"flats-bottom-beside-tee-{model.split('/')[-1]}", rgb, front)
    assert float((bottom & ~tee & changed).sum()) / float(bottom.sum()) < 0.0015
