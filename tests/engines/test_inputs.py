"""Input refusals: what no batch engine can make good is refused with a clear reason, before
the engine runs (as a job runs it, through the engine registry), and what each tool is meant
for is let through."""

from __future__ import annotations

import numpy as np
import pytest

from tests.engines.synthetic_products import bag_shot, earring_shot
from tests.fidelity import fid_refusals as fid
from tests.fidelity.common import FIXTURES, photo
from workers.engines.base import EngineError
from workers.engines.imaging import inputs
from workers.engines.registry import engine_at


def test_every_refusal_case_is_refused_with_its_code() -> None:
    wrong = []
    for case in fid.refusal_cases():
        code = fid.refused_code(case.engine, case.params)
        if code not in fid.expected_codes(case.expected):
            wrong.append(f"{case.label}: {code} (expected {case.expected})")
    assert not wrong, wrong


def test_no_fixture_is_refused_in_the_role_it_is_meant_for() -> None:
    checked, refused = fid.false_refusals()
    assert checked > 100
    assert refused == []


@pytest.mark.parametrize("side,refused", [(255, True), (256, False)])
def test_the_short_side_floor(side: int, refused: bool) -> None:
    rgb = np.full((side, 3 * side, 3), 200, np.uint8)
    if refused:
        with pytest.raises(EngineError) as err:
            inputs.require_min_side(rgb, "garment photo")
        assert err.value.code == "image_too_small"
        assert f"{3 * side}x{side} px" in err.value.message and "256 px" in err.value.message
    else:
        inputs.require_min_side(rgb, "garment photo")


def test_a_bag_photo_under_the_bag_floor_is_refused_by_the_input_checks() -> None:
    # the photographed bag fixture, 130x100 px: drawn near its real size it would be scaled up
    params = {"bag_image": fid.jpeg_of(fid.BAG), "model_image": fid.jpeg_of("model/model_9.png")}
    with pytest.raises(EngineError) as err:
        inputs.guard_engine_inputs("baghold", params)
    assert err.value.code == "image_too_small"
    assert "130x100 px" in err.value.message
    assert f"{inputs.MIN_BAG_SIDE} px" in err.value.message
    # an earring, drawn small on the model, keeps the product floor
    inputs.guard_engine_inputs("earfit", {"ring_image": fid.png(earring_shot(70, 140))})


def test_a_job_with_a_thumbnail_fails_with_the_reason_before_the_engine_runs() -> None:
    seen: list[int] = []
    with pytest.raises(EngineError) as err:
        engine_at("workers.engines.recolor:run", "recolor")(
            {"image": fid.png(fid.small("garment/00055_00", 180))}, lambda p, *a: seen.append(p))
    assert err.value.code == "image_too_small"
    assert seen == []  # refused before the engine reported any progress
    from tools.registry import TOOLS

    assert {"recolor", "refabric", "reshape", "rebody", "earfit", "baghold",
            "flats"} <= {t.engine for t in TOOLS.values() if t.guarded}


@pytest.mark.parametrize("product", [
    earring_shot(), earring_shot(200, 400), bag_shot()[0], bag_shot(body_w=300)[0],
    bag_shot(420, 900, body_w=380, body_h=500, handle_h=250)[0],
])
def test_drawn_products_hold_no_person(product: np.ndarray) -> None:
    assert inputs.person_in_product(product) is None


@pytest.mark.parametrize("name", sorted(
    p.relative_to(FIXTURES).as_posix() for sub in ("accessory", "shoes", "garment")
    for p in (FIXTURES / sub).iterdir()))
def test_product_fixtures_hold_no_person(name: str) -> None:
    assert inputs.person_in_product(photo(name)) is None


def test_a_cut_out_product_with_a_person_behind_its_alpha_is_judged_on_what_shows() -> None:
    # A PNG cut-out whose hidden pixels are a model photo: only the opaque bag counts.
    model = photo("model/model_9.png")
    alpha = np.zeros(model.shape[:2], np.uint8)
    alpha[200:300, 100:250] = 255
    assert inputs.person_in_product(model, alpha) is None
    assert inputs.person_in_product(model) is not None


def test_the_refusal_names_the_model_and_says_what_is_missing() -> None:
    portrait = fid.half_length_portrait()
    with pytest.raises(EngineError) as err:
        engine_at("workers.engines.flats:run", "flats")(
            {"shoes": {"FRONT": fid.jpeg_of(fid.SHOES)}, "model": fid.png(portrait),
             "model_name": "Eileen (sample)"}, lambda *a, **k: None)
    assert err.value.code == "no_full_body"
    assert "Eileen (sample)" in err.value.message and "feet" in err.value.message
    # with a top in the look the upper body is enough
    inputs.guard_engine_inputs("flats", {"shoes": {"FRONT": fid.jpeg_of(fid.SHOES)},
                                         "top": {"FRONT": fid.jpeg_of("garment/050181_1.jpg")},
                                         "model": fid.png(portrait)})


def test_two_people_are_counted_as_two() -> None:
    pair = fid.side_by_side(photo("model/model_8.png"), photo("model/049205_0.jpg"))
    with pytest.raises(EngineError) as err:
        inputs.require_one_person(pair, "The photo of Pair")
    assert err.value.code == "several_people" and "2 people" in err.value.message
    seen = inputs.require_one_person(photo("model/model_8.png"), "The photo")
    assert seen.people == 1


def test_an_empty_backdrop_has_no_person() -> None:
    with pytest.raises(EngineError) as err:
        inputs.require_one_person(np.full((512, 384, 3), 235, np.uint8), "The photo of Nobody")
    assert err.value.code == "no_person"


def test_unknown_parts_are_a_programming_error() -> None:
    with pytest.raises(ValueError):
        inputs.require_one_person(photo("model/model_8.png"), "The photo", ("tail",))
