"""Reshape: the instruction parser on its own, and measured edits on real photos."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES, noop_progress, save_log
from workers.engines import reshape
from workers.engines.base import EngineError
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging import pose as pose_mod
from workers.engines.imaging.color import srgb8_to_oklab
from workers.engines.reshape import Edit, parse_change


def load(name: str) -> np.ndarray:
    return np.asarray(Image.open(FIXTURES / name).convert("RGB"))


def product_mask(rgb: np.ndarray) -> np.ndarray:
    """The garment of a product shot, measured from scratch on the picture."""
    return garment_mod.product_mask(rgb) > 0.5


def rows_of(mask: np.ndarray) -> tuple[int, int]:
    r = np.nonzero(mask.any(axis=1))[0]
    return int(r[0]), int(r[-1])


# --- parser -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("place", "instruction", "expected"),
    [
        ("length", "shorter by 20%", Edit("length", "length", -1, 20.0, "%")),
        ("length", "Make it 5 cm shorter", Edit("length", "length", -1, 5.0, "cm")),
        ("hem", "longer by 10 percent", Edit("hem", "length", 1, 10.0, "%")),
        ("hem", "lengthen 2 inches", Edit("hem", "length", 1, 5.08, "cm")),
        ("length", "shorten to the knee", Edit("length", "length", -1, landmark="knee")),
        ("length", "knee length", Edit("length", "length", 0, landmark="knee")),
        ("length", "to mid-thigh", Edit("length", "length", 0, landmark="mid-thigh")),
        ("length", "longer, to the ankle", Edit("length", "length", 1, landmark="ankle")),
        ("hem", "crop it to the waist", Edit("hem", "length", -1, landmark="waist")),
        ("length", "hip length", Edit("length", "length", 0, landmark="hip")),
        ("length", "make it a midi", Edit("length", "length", 0, landmark="mid-calf")),
        ("length", "shorter", Edit("length", "length", -1, 10.0, "%")),
        ("fit", "looser", Edit("fit", "width", 1, 10.0, "%")),
        ("fit", "tighter by 8%", Edit("fit", "width", -1, 8.0, "%")),
        ("silhouette", "wider", Edit("silhouette", "width", 1, 10.0, "%")),
        ("silhouette", "narrower by 4 cm", Edit("silhouette", "width", -1, 4.0, "cm")),
        ("waist", "cinched", Edit("waist", "width", -1, 10.0, "%")),
        ("waist", "less tight", Edit("waist", "width", 1, 10.0, "%")),
        ("shoulders", "broader shoulders", Edit("shoulders", "width", 1, 10.0, "%")),
        ("back", "slimmer", Edit("back", "width", -1, 10.0, "%")),
        ("sleeves", "remove the sleeves", Edit("sleeves", "sleeves", sleeve="removed")),
        ("sleeves", "sleeveless", Edit("sleeves", "sleeves", sleeve="removed")),
        ("sleeves", "short sleeves", Edit("sleeves", "sleeves", sleeve="short")),
        ("sleeves", "long", Edit("sleeves", "sleeves", sleeve="long")),
        ("sleeves", "3/4 sleeves", Edit("sleeves", "sleeves", sleeve="three-quarter")),
        ("sleeves", "shorter by 30%", Edit("sleeves", "sleeves", -1, 30.0, "%")),
        ("sleeves", "longer", Edit("sleeves", "sleeves", 1, 25.0, "%")),
        ("neckline", "deeper", Edit("neckline", "neckline", -1)),
        ("neckline", "deeper V by 6 cm", Edit("neckline", "neckline", -1, 6.0, "cm", shape="v")),
        ("neckline", "higher round neck", Edit("neckline", "neckline", 1, shape="round")),
        ("neckline", "square", Edit("neckline", "neckline", 0, shape="square")),
        ("neckline", "V-neck", Edit("neckline", "neckline", 0, shape="v")),
        ("collar", "crew neck", Edit("collar", "neckline", 0, shape="round")),
        ("collar", "wider", Edit("collar", "width", 1, 10.0, "%")),
    ],
)
def test_parser_understands_plain_instructions(
    place: str, instruction: str, expected: Edit
) -> None:
    got = parse_change(place, instruction)
    assert got.kind == expected.kind and got.direction == expected.direction
    assert got.landmark == expected.landmark and got.sleeve == expected.sleeve
    assert got.shape == expected.shape and got.unit == expected.unit
    if expected.amount is None:
        assert got.amount is None
    else:
        assert got.amount == pytest.approx(expected.amount)


@pytest.mark.parametrize(
    ("place", "instruction"),
    [
        ("length", "blorp the zorg"),
        ("fit", "make it purple"),
        ("sleeves", "add sequins"),
        ("neckline", "more fabulous"),
        ("waist", ""),
        ("length", "shorter by 500%"),
    ],
)
def test_parser_refuses_what_it_cannot_understand(place: str, instruction: str) -> None:
    with pytest.raises(EngineError) as err:
        parse_change(place, instruction)
    assert err.value.code == "unsupported_instruction"
    if instruction and "%" not in instruction:
        msg = err.value.message
        for kind in (
            "shorter or longer",
            "N cm",
            "knee",
            "wider",
            "tighter",
            "removed",
            "deeper",
            "V, round or square",
        ):
            assert kind in msg


def test_unknown_places_and_too_many_changes_are_refused() -> None:
    with pytest.raises(EngineError) as err:
        parse_change("pockets", "bigger")
    assert err.value.code == "unsupported_instruction" and "sleeves" in err.value.message
    with pytest.raises(EngineError) as err:
        reshape.parse_changes([{"place": "fit", "instruction": "looser"}] * 11)
    assert err.value.code == "invalid_changes"
    with pytest.raises(EngineError):
        reshape.parse_changes([])


# --- edits on product shots -------------------------------------------------------------------


def reshaped(name: str, garment: str, place: str, instruction: str,
             log: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fixture photo, the photo reshaped by one change, and the garment's mask after it;
    both pictures are kept in the test log as reshape_<log>_<photo>."""
    rgb = load(name)
    out, mask = reshape.reshape(rgb, garment, [parse_change(place, instruction)])
    save_log(f"reshape_{log}_{Path(name).stem}", rgb, out)
    return rgb, out, mask


@pytest.mark.parametrize("name", ["garment/053319_1.jpg", "garment/052234_1.jpg"])
def test_shorter_by_20_percent_shortens_a_dress_by_20_percent(name: str) -> None:
    rgb, out, _ = reshaped(name, "dress", "length", "shorter by 20%", log="shorter")
    top0, bottom0 = rows_of(product_mask(rgb))

    top1, bottom1 = rows_of(product_mask(out))
    change = 1.0 - (bottom1 - top1) / (bottom0 - top0)
    assert 0.15 <= change <= 0.25, f"{change:.3f}"
    assert abs(top1 - top0) <= 3
    # Below the new hem: backdrop like the rest of the border, no hole, no ghost of the skirt.
    # Each row is compared with the backdrop beside it in that row (sweeps have gradients).
    outside = ~cv2.dilate(product_mask(rgb).astype(np.uint8), np.ones((15, 15), np.uint8)).astype(
        bool
    )
    gone = product_mask(rgb) & ~product_mask(out)
    lab_out, lab_in = srgb8_to_oklab(out), srgb8_to_oklab(rgb)
    d = []
    for y in range(bottom1 + 6, bottom0 + 1):
        if gone[y].any() and outside[y].sum() > 10:
            ref = np.median(lab_in[y][outside[y]], axis=0)
            d.append(np.linalg.norm(lab_out[y][gone[y]] - ref, axis=-1))
    d_all = np.concatenate(d)
    assert out[bottom1 + 6 : bottom0 + 1].min() > 0
    assert float(np.percentile(d_all, 95)) < 0.03


def _length_to_width(mask: np.ndarray) -> float:
    top, bottom = rows_of(mask)
    cols = np.nonzero(mask.any(axis=0))[0]
    return (bottom - top) / (cols[-1] - cols[0])


def test_longer_extends_a_dress_downwards() -> None:
    # The dress nearly fills the frame: the longer one is reframed to stay whole in it, so its
    # new length shows in its proportions (length to width), not in pixels.
    rgb, out, _ = reshaped("garment/052234_1.jpg", "dress", "hem", "longer by 10%", log="longer")
    before = product_mask(rgb)
    after = product_mask(out)
    assert 0.07 <= _length_to_width(after) / _length_to_width(before) - 1.0 <= 0.13
    assert rows_of(after)[1] < rgb.shape[0] - 4  # the whole hem in the frame


def test_trousers_to_the_knee_are_about_half_as_long() -> None:
    rgb, out, _ = reshaped("garment/051988_1.jpg", "trousers / pants", "length", "to the knee", log="knee")
    top0, bottom0 = rows_of(product_mask(rgb))
    top1, bottom1 = rows_of(product_mask(out))
    assert 0.45 <= (bottom1 - top1) / (bottom0 - top0) <= 0.7


def test_sleeves_removed_on_a_product_shot_leave_backdrop() -> None:
    rgb, out, mask = reshaped("garment/00055_00.jpg", "t-shirt", "sleeves", "sleeves removed", log="sleeves_removed")
    before = product_mask(rgb)

    after = product_mask(out)
    sleeves = before & ~mask
    assert sleeves.sum() > 0.08 * before.sum()  # both sleeves were found and taken off
    assert (sleeves & after).sum() < 0.05 * sleeves.sum()
    # Filled with backdrop: close to the border colour, no black or unfilled pixels.
    border = np.median(rgb[:6].reshape(-1, 3), axis=0).astype(np.uint8)
    d = np.linalg.norm(srgb8_to_oklab(out[sleeves]) - srgb8_to_oklab(border[None])[0], axis=-1)
    assert out[sleeves].min() > 0
    assert float(np.percentile(d, 95)) < 0.03
    # The body of the shirt is the same pixels.
    body = before & mask
    body = np.asarray(Image.fromarray(body.astype(np.uint8)).resize(body.shape[::-1])) > 0
    assert np.abs(out[body].astype(int) - rgb[body].astype(int)).mean() < 3.0


def test_sleeves_removed_on_a_worn_top_leave_arms() -> None:
    rgb, out, mask = reshaped("model/049713_0.jpg", "t-shirt", "sleeves", "removed", log="sleeves_removed")
    gm = garment_mod.garment_mask(rgb, "top")
    arm_skin = (gm.skin > 0.6) & ~(gm.mask > 0.5)

    gone = (gm.mask > 0.5) & ~mask
    assert gone.sum() > 300
    lab_out, lab_in = srgb8_to_oklab(out), srgb8_to_oklab(rgb)
    skin = np.median(lab_in[arm_skin], axis=0)
    sleeve = np.median(lab_in[gone], axis=0)
    filled = np.median(lab_out[gone], axis=0)
    assert out[gone].min() > 0
    # Now arm (or backdrop beside it), not the white sleeve: nearer skin than the sleeve was.
    assert np.linalg.norm(filled - skin) < np.linalg.norm(sleeve - skin) * 0.5


def test_looser_fit_widens_the_garment() -> None:
    rgb, out, _ = reshaped("garment/052234_1.jpg", "dress", "fit", "looser by 10%", log="looser")
    before = product_mask(rgb)
    after = product_mask(out)
    ratio = after.sum() / before.sum()
    assert 1.05 <= ratio <= 1.16


def test_run_applies_several_changes_and_returns_a_png() -> None:
    data = (FIXTURES / "garment" / "053319_1.jpg").read_bytes()
    outputs = reshape.run(
        {
            "image": data,
            "target_garment": "dress",
            "changes": [
                {"place": "length", "instruction": "shorter by 10%"},
                {"place": "waist", "instruction": "tighter"},
            ],
        },
        noop_progress,
    )
    assert len(outputs) == 1 and outputs[0].content_type == "image/png"
    assert (
        Image.open(io.BytesIO(outputs[0].data)).size
        == Image.open(FIXTURES / "garment" / "053319_1.jpg").size
    )


def test_run_refuses_gibberish_before_reading_the_image() -> None:
    with pytest.raises(EngineError) as err:
        reshape.run(
            {
                "image": b"unread",
                "target_garment": "dress",
                "changes": [{"place": "hem", "instruction": "qwzx"}],
            },
            noop_progress,
        )
    assert err.value.code == "unsupported_instruction"


# --- the fidelity bars (tests/fidelity/fid_reshape.py measures them the same way) -------------

from tests.fidelity import fid_reshape as fid  # noqa: E402


@pytest.mark.parametrize("case", fid.SLEEVE_CASES, ids=lambda c: c.name)
def test_sleeves_removed_leave_no_fabric_and_no_cap(case: fid.Case) -> None:
    rgb, out, _ = fid.run_case(case)
    save_log(f"reshape_fid_{case.name.replace('/', '_')}", rgb, out)
    garment, skin, worn = fid._garment(rgb, case.garment)
    left, region = fid.sleeve_left(rgb, out, garment, skin, worn)
    assert region.sum() > 0.03 * garment.sum()  # the measured sleeve is a real sleeve
    if np.isfinite(left):
        assert left <= fid.SLEEVE_LEFT_MAX, f"{left:.1%} of the old sleeve is left"
    assert fid.backdrop_de(rgb, out, garment) < fid.BACKDROP_DE_MAX
    if worn:
        arms = fid.arm_figures(rgb, out, garment, skin, fid.sleeve_region(rgb, garment, worn))
        assert np.isfinite(arms["arm_streak"])  # an upper arm was drawn and measured
        assert arms["arm_streak"] <= fid.ARM_STREAK_MAX, arms


@pytest.mark.parametrize("case", [c for c in fid.SLEEVE_CASES if c.name.startswith("model/")],
                         ids=lambda c: c.name)
def test_a_removed_sleeve_leaves_no_square_garment_corner_above_the_arm(case: fid.Case) -> None:
    # The drawn arm starts at the garment's shoulder line. A round at the shoulder joint stood
    # lower, and the backdrop filled the old sleeve's top between it and the garment's cut,
    # which stood above the arm as a square corner (11-24 px at this size).
    rgb, out, mask = fid.run_case(case)
    garment, _, worn = fid._garment(rgb, case.garment)
    p = pose_mod.detect_pose(rgb).points
    sw = float(np.hypot(*(np.array(p["left_shoulder"]) - p["right_shoulder"])))
    person = pose_mod.person_mask(rgb) > 0.5
    backdrop = np.median(rgb[~person & ~garment], axis=0)
    now_backdrop = np.abs(out.astype(int) - backdrop).max(axis=2) < 12
    r = int(0.1 * sw)
    beside = cv2.dilate(mask.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    rows = np.arange(rgb.shape[0])[:, None]
    for side, sleeve in zip(("left", "right"), fid.sleeve_region(rgb, garment, worn),
                            strict=True):
        pocket = sleeve & ~mask & now_backdrop & beside & (rows < p[f"{side}_shoulder"][1])
        assert pocket.sum() <= 2, f"{side}: {pocket.sum()} px of backdrop above the arm"


def test_no_sliver_of_the_real_arm_is_left_beside_the_drawn_one() -> None:
    # At twice the fixture's size: under the sleeve's slanted hem the real arm's shaded rim
    # reached a pixel or two past the drawn arm's outline, above the old edge, and stayed
    # there as a dark tick beside it (6 px on this photo).
    rgb = fid.photo("model/049205_0")
    rgb = cv2.resize(rgb, (2 * rgb.shape[1], 2 * rgb.shape[0]), interpolation=cv2.INTER_CUBIC)
    out, _ = reshape.reshape(rgb, "t-shirt", [parse_change("sleeves", "removed")])
    garment, skin, worn = fid._garment(rgb, "t-shirt")
    same = np.abs(out.astype(int) - rgb.astype(int)).max(axis=2) < 8
    for sleeve in fid.sleeve_region(rgb, garment, worn):
        rows = np.nonzero(sleeve.any(axis=1))[0]
        above_hem = np.zeros_like(sleeve)
        above_hem[rows[0]:rows[-1] - 4] = True
        rim = (cv2.dilate(sleeve.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0) & ~sleeve
        assert int((rim & above_hem & same & skin & ~garment).sum()) == 0


@pytest.mark.parametrize("case", fid.HEM_CASES, ids=lambda c: c.name)
def test_shorter_hem_on_a_model_shows_her_own_legs(case: fid.Case) -> None:
    rgb, out, mask = fid.run_case(case)
    save_log(f"reshape_fid_{case.name.replace('/', '_')}", rgb, out)
    garment, _, _ = fid._garment(rgb, case.garment)
    figs = fid.hem_figures(rgb, out, garment, mask)
    assert figs["filled_rows"] > 0.03 * rgb.shape[0]  # the hem really went up
    assert figs["leg_de"] <= fid.LEG_DE_MAX, figs
    assert figs["leg_width_err"] <= fid.LEG_WIDTH_MAX, figs
    assert fid.backdrop_de(rgb, out, garment) < fid.BACKDROP_DE_MAX


@pytest.mark.parametrize("case", fid.REFUSAL_CASES, ids=lambda c: f"{c.name} {c.instruction}")
def test_implausible_fills_are_refused_with_the_reason(case: fid.Case) -> None:
    with pytest.raises(EngineError) as err:
        fid.run_case(case)
    assert err.value.code == "implausible_fill"
    assert len(err.value.message) > 40


def _standing(**moved: tuple[float, float]) -> reshape.Scene:
    """A wearer standing with her legs apart, knees and ankles in a 1024 px tall photo (hip to
    ankle 460 px), joints moved as given."""
    points = {
        "left_hip": (440.0, 420.0), "right_hip": (340.0, 420.0),
        "left_knee": (440.0, 660.0), "right_knee": (340.0, 660.0),
        "left_ankle": (440.0, 880.0), "right_ankle": (340.0, 880.0),
    }
    points.update(moved)
    return reshape.Scene(
        rgb=np.zeros((1024, 768, 3), np.uint8), mask=np.zeros((1024, 768), bool),
        garment="dress", region="full", worn=True, body=None,
        skin=np.zeros((1024, 768), bool), person=None,
        skin_rgb=np.array([200.0, 160.0, 130.0]), points=points, ppcm=5.0,
    )


@pytest.mark.parametrize(
    ("moved", "bared", "why"),
    [
        ({}, 0.5, "50% of the legs"),  # a midi raised to a mini: the knees would be invented
        ({"left_knee": (440.0, 1030.0)}, 0.2, "knees are not in the photo"),
        ({"left_knee": (330.0, 660.0), "right_knee": (450.0, 660.0)}, 0.2, "crossed"),
    ],
)
def test_bared_legs_it_could_only_guess_are_refused_with_the_reason(
    moved: dict[str, tuple[float, float]], bared: float, why: str
) -> None:
    with pytest.raises(EngineError) as err:
        reshape._check_legs_drawable(_standing(**moved), 460.0, bared * 460.0, 200.0)
    assert err.value.code == "legs_not_drawable"
    assert why in err.value.message


def test_a_knee_length_hem_raised_to_mid_thigh_is_drawn() -> None:
    reshape._check_legs_drawable(_standing(), 460.0, 0.3 * 460.0, 200.0)


def test_a_shorter_crop_top_keeps_its_long_sleeves_whole() -> None:
    rgb, out, mask = reshaped("model/01861_00.jpg", "top", "length", "shorter by 10%", log="crop_top")
    gm = garment_mod.garment_mask(rgb, "top")
    before = gm.mask > 0.5
    w = rgb.shape[1]
    centre = slice(int(0.4 * w), int(0.6 * w))
    hem0 = np.nonzero(before[:, centre].any(axis=1))[0][-1]
    hem1 = np.nonzero(mask[:, centre].any(axis=1))[0][-1]
    assert hem1 < hem0 - 5  # the body's hem went up
    # The sleeves hang below the hem down to the wrists: not cut, the same pixels.
    low = before.copy()
    low[: hem0 + 5] = False
    low[:, centre] = False
    assert low.sum() > 300
    assert np.abs(out[low].astype(int) - rgb[low].astype(int)).mean() < 2.0


@pytest.mark.parametrize(("name", "garment"), [("model/model_1.png", "top"),
                                                ("model/model_9.png", "dress"),
                                                # A tank top: its armhole's rim is not a sleeve.
                                                ("model/model_6.png", "top")])
def test_removing_sleeves_from_a_sleeveless_garment_changes_nothing(name: str,
                                                                    garment: str) -> None:
    rgb = load(name)
    out, _ = reshape.reshape(rgb, garment, [parse_change("sleeves", "remove the sleeves")])
    assert np.abs(out.astype(int) - rgb.astype(int)).max(axis=2).mean() < 0.05


@pytest.mark.parametrize(("name", "garment", "covered"), [
    ("model/01861_00.jpg", "top", True),  # long sleeves
    ("model/model_1.png", "top", False), ("model/model_9.png", "dress", False),
    ("model/model_6.png", "top", False),  # a tank top's armhole rim lies on the shoulder
    ("model/14627_00.jpg", "top", False)])
def test_an_upper_arm_in_a_sleeve_is_told_from_a_bare_one(name: str, garment: str,
                                                          covered: bool) -> None:
    scene = reshape.build_scene(load(name), garment)
    assert reshape._arm_under_garment(scene) is covered


def test_sleeves_the_search_cannot_tell_from_the_body_are_refused_not_left_unchanged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Long sleeves lying against the body, which the sleeve search does not separate from it:
    # the photo would come back unchanged as if the garment had no sleeves.
    monkeypatch.setattr(reshape, "_worn_sleeves", lambda scene: [])
    with pytest.raises(EngineError) as err:
        reshape.reshape(load("model/01861_00.jpg"), "top",
                        [parse_change("sleeves", "remove the sleeves")])
    assert err.value.code == "implausible_fill"
    assert "cannot be told apart" in err.value.message


def _scene_changed(monkeypatch: pytest.MonkeyPatch, change) -> None:
    """Reshape's scene (garment, pose, skin) as found, then altered by ``change``."""
    found = reshape.build_scene

    def build(rgb: np.ndarray, garment: str) -> reshape.Scene:
        scene = found(rgb, garment)
        change(scene)
        return scene

    monkeypatch.setattr(reshape, "build_scene", build)


def test_removing_sleeves_refuses_an_arm_held_across_the_body(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cross(scene: reshape.Scene) -> None:
        p = scene.points
        sw = reshape._shoulder_width(scene)
        centre = (p["left_shoulder"][0] + p["right_shoulder"][0]) / 2
        sx = p["left_shoulder"][0]
        inward = 1.0 if centre > sx else -1.0
        p["left_elbow"] = (sx + inward * 0.3 * sw, p["left_elbow"][1])

    _scene_changed(monkeypatch, cross)
    with pytest.raises(EngineError) as err:
        reshape.reshape(load("model/049205_0.jpg"), "t-shirt", [parse_change("sleeves", "sleeveless")])
    assert err.value.code == "implausible_fill"
    assert "across the body" in err.value.message


def test_removing_sleeves_refuses_when_no_bare_arm_shows_below_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_arms(scene: reshape.Scene) -> None:
        # Nothing of the person but the garment: the arms below the sleeves are not seen.
        scene.skin = scene.skin & scene.mask
        scene.person = scene.mask.copy()

    _scene_changed(monkeypatch, no_arms)
    with pytest.raises(EngineError) as err:
        reshape.reshape(load("model/049205_0.jpg"), "t-shirt", [parse_change("sleeves", "sleeveless")])
    assert err.value.code == "implausible_fill"
    assert "do not show below the sleeves" in err.value.message


@pytest.mark.parametrize(("name", "garment", "instruction"), [
    ("model/07966_00.jpg", "t-shirt", "deeper V"), ("model/049205_0.jpg", "t-shirt", "higher"),
    ("model/model_9.png", "dress", "square"), ("garment/050191_1.jpg", "t-shirt", "deeper V"),
    ("garment/00055_00.jpg", "t-shirt", "higher round neck")])
def test_a_neckline_change_is_refused_not_cut_as_a_flat_patch(name: str, garment: str,
                                                              instruction: str) -> None:
    # Cut as a flat shape, the new opening showed a pasted patch (of skin on a person, of the
    # garment's inside darkened on a product shot) with hard edges and no binding; a higher
    # one closed only the back collar's rim.
    rgb = load(name)
    with pytest.raises(EngineError) as err:
        reshape.reshape(rgb, garment, [parse_change("neckline", instruction)])
    assert err.value.code == "implausible_fill"
    assert "neckline" in err.value.message and "length, the fit or the sleeves" in err.value.message
