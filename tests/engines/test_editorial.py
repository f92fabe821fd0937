"""Editorial analysis, generation and Tonelab on real photos transformed in known ways."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from PIL import Image

from tests.engines.conftest import FIXTURES, HAS_POSE, noop_progress, save_log
from workers.engines.editorial import analysis, analyze, generate, tonelab
from workers.engines.editorial.looks import apply_look
from workers.engines.imaging.color import linear_to_srgb, srgb8_to_lab, srgb_to_linear

pytestmark = pytest.mark.skipif(not HAS_POSE, reason="imaging.pose is not available")


def photo(name: str) -> np.ndarray:
    """A fixture photo by name; the model_N shots are PNG, the rest JPEG."""
    path = FIXTURES / f"{name}.jpg"
    if not path.exists():
        path = FIXTURES / f"{name}.png"
    return np.asarray(Image.open(path).convert("RGB"))


def _png(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


def _jpeg(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="JPEG", quality=92)
    return buf.getvalue()


def _decode(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _in_linear(rgb: np.ndarray, gain: np.ndarray) -> np.ndarray:
    lin = srgb_to_linear(rgb.astype(np.float32) / 255.0) * gain
    return np.clip(linear_to_srgb(lin) * 255 + 0.5, 0, 255).astype(np.uint8)


# --- analysis ---------------------------------------------------------------------------------


def test_warmed_and_cooled_photos_read_warm_and_cool() -> None:
    base = photo("model/049205_0")
    warm = _in_linear(base, np.array([1.18, 1.0, 0.72], np.float32))
    cool = _in_linear(base, np.array([0.8, 0.95, 1.2], np.float32))
    text_base = analysis.analyze(base)["color_style"]
    text_warm = analysis.analyze(warm)["color_style"]
    text_cool = analysis.analyze(cool)["color_style"]
    save_log("editorial_analysis_wb", warm, base, cool)
    assert text_base.startswith("Neutral white balance")
    assert text_warm.startswith("Warm white balance"), text_warm
    assert text_cool.startswith("Cool white balance"), text_cool
    k = [analysis.measure(x)["white_cct"] for x in (warm, base, cool)]
    assert k[0] < k[1] < k[2]


def test_darkened_photo_reads_low_key_and_the_original_high_key() -> None:
    base = photo("model/01861_00")
    dark = _in_linear(base, np.float32(0.08))
    assert analysis.analyze(base)["lighting"].count("High key") == 1
    text = analysis.analyze(dark)["lighting"]
    assert "Low key" in text, text


@pytest.mark.parametrize(("side", "ramp"), [("left", (1.0, 0.3)), ("right", (0.3, 1.0))])
def test_a_side_lit_gradient_reads_as_light_from_that_side(side: str, ramp: tuple[float, float]) -> None:
    # A key light across the model: the gain ramps over the person's width, as a side light
    # falls off across a body, not across the whole frame.
    from workers.engines.imaging.pose import person_mask

    base = photo("model/049205_0")
    xs = np.nonzero(person_mask(base) > 0.5)[1]
    cols = np.arange(base.shape[1], dtype=np.float32)
    t = np.clip((cols - xs.min()) / (xs.max() - xs.min()), 0, 1)
    gain = (ramp[0] + (ramp[1] - ramp[0]) * t)[None, :, None]
    lit = _in_linear(base, gain)
    save_log(f"editorial_analysis_lit_{side}", base, lit)
    text = analysis.analyze(lit)["lighting"]
    assert f"key light from camera {side}" in text, text


def test_desaturated_photo_reads_muted() -> None:
    base = photo("model/01861_00")
    lab = srgb8_to_lab(base)
    grey = base.mean(axis=2, keepdims=True)
    muted = np.clip(grey + 0.15 * (base - grey), 0, 255).astype(np.uint8)
    assert "Vivid" in analysis.analyze(base)["color_style"]
    text = analysis.analyze(muted)["color_style"]
    assert "Muted, desaturated" in text, text
    assert abs(lab[..., 1]).mean() > 5


def test_cropping_a_full_body_photo_to_the_upper_body_changes_the_framing() -> None:
    base = photo("model/051918_0")
    upper = np.ascontiguousarray(base[: int(base.shape[0] * 0.42)])
    full = analysis.measure(base)
    crop = analysis.measure(upper)
    assert full["framing"] == "full body"
    assert crop["framing"] in ("close-up", "half body", "three-quarter"), crop["framing"]
    assert not analysis.analyze(upper)["scene_composition"].startswith("Full body")


def test_pose_reads_standing_with_arms_and_hand_on_hip() -> None:
    text = analysis.analyze(photo("model/049447_0"))["pose_action"]
    assert text.startswith("Standing")
    assert "hand on hip" in text


def test_film_looks_are_read_back_by_the_analysis() -> None:
    base = photo("model/model_9")
    bw = apply_look(base, "Grainy High-Contrast B&W", 1.0)
    lofi = apply_look(base, "Saturated Lo-Fi with Vignetting", 1.0)
    a_bw, a_lofi, a_base = analysis.analyze(bw), analysis.analyze(lofi), analysis.analyze(base)
    save_log("editorial_analysis_looks", base, bw, lofi)
    assert "Black and white" in a_bw["color_style"]
    assert "grain" in a_bw["camera_details"].lower() and "no visible grain" not in a_bw["camera_details"]
    assert "vignette" in a_lofi["camera_details"].lower() and "No vignetting" not in a_lofi["camera_details"]
    assert "No vignetting" in a_base["camera_details"] and "no visible grain" in a_base["camera_details"]


def test_run_returns_json_with_the_requested_fields() -> None:
    data = _jpeg(photo("model/01861_00"))
    editorial = analyze.run({"image": data}, noop_progress)
    tone = tonelab.analyze_run({"image": data}, noop_progress)
    assert len(editorial) == len(tone) == 1 and editorial[0].content_type == "application/json"
    assert set(json.loads(editorial[0].data)) == {"scene_composition", "pose_action", "lighting", "color_style", "camera_details"}
    assert set(json.loads(tone[0].data)) == {"lighting", "color_style", "camera_details"}
    for text in json.loads(editorial[0].data).values():
        assert 10 < len(text) < 400


# --- generation -------------------------------------------------------------------------------


PARAMS = {
    "scene_composition": "full body on a grey seamless studio sweep",
    "pose_action": "walking towards camera",
    "lighting": "studio softbox from the left, rim light",
    "color_style": "neutral, natural skin tones, glorp",
    "camera_details": "Clean & Natural Color Film",
    "outfit_changes": "swap the trousers for a skirt",
    "model_features": "",
}


@pytest.fixture(scope="module")
def editorial_run() -> tuple[np.ndarray, list]:
    base = photo("model/051918_0")
    return base, generate.run({"image": _jpeg(base), **PARAMS}, noop_progress)


def test_generation_returns_three_framings_and_notes(editorial_run) -> None:  # type: ignore[no-untyped-def]
    from workers.engines.imaging.pose import detect_pose

    base, outs = editorial_run
    assert [o.content_type for o in outs] == ["image/png"] * 3 + ["application/json"]
    images = [_decode(o.data) for o in outs[:3]]
    save_log("editorial_generate_studio", base, *images)
    assert all(im.shape == base.shape for im in images)
    notes = json.loads(outs[3].data)
    assert [v["framing"] for v in notes["variants"]] == ["full", "three-quarter", "close"]
    heights = [v["crop"][3] - v["crop"][1] for v in notes["variants"]]
    assert heights[0] > heights[1] > heights[2]
    poses = [detect_pose(im) for im in images]
    shoulders = [abs(p.points["left_shoulder"][0] - p.points["right_shoulder"][0]) for p in poses]  # type: ignore[union-attr]
    assert shoulders[0] < shoulders[1] < shoulders[2]
    assert shoulders[2] > 1.8 * shoulders[0]
    assert notes["unknown_words"]["color_style"] == ["glorp"]
    assert {n["field"] for n in notes["not_applied"]} == {"pose_action", "outfit_changes"}
    assert all("not applied by the local engine" in n["note"] for n in notes["not_applied"])
    assert "studio softbox" in notes["recognised"]["lighting"]["light"]


def test_generation_backdrop_follows_the_scene_text() -> None:
    base = photo("model/049205_0")
    data = _jpeg(base)
    pink = _decode(generate.run({"image": data, "scene_composition": "dusty pink wall"}, noop_progress)[0].data)
    grey = _decode(generate.run({"image": data, "scene_composition": "grey seamless studio"}, noop_progress)[0].data)
    night = _decode(generate.run({"image": data, "scene_composition": "city street at night", "lighting": "low key, neon"}, noop_progress)[0].data)
    save_log("editorial_generate_backdrops", base, pink, grey, night)
    corner = (slice(0, 60), slice(0, 50))
    lab_pink, lab_grey = srgb8_to_lab(pink[corner]).mean(axis=(0, 1)), srgb8_to_lab(grey[corner]).mean(axis=(0, 1))
    assert lab_pink[1] > 8 and abs(lab_grey[1]) < 3 and abs(lab_grey[2]) < 4
    assert srgb8_to_lab(night[corner])[..., 0].mean() < 0.6 * lab_grey[0]


def test_generation_light_direction_follows_the_lighting_text() -> None:
    from workers.engines.imaging.pose import person_mask

    base = photo("model/051918_0")
    data = _jpeg(base)
    left = _decode(generate.run({"image": data, "lighting": "hard side light from the left"}, noop_progress)[0].data)
    right = _decode(generate.run({"image": data, "lighting": "hard side light from the right"}, noop_progress)[0].data)
    save_log("editorial_generate_light", left, right)
    cols = np.arange(base.shape[1])[None, :]

    def balance(img: np.ndarray) -> float:
        mask = person_mask(img) > 0.6
        mid = np.median(np.nonzero(mask)[1])
        lum = img.astype(float).mean(axis=2)
        return float(lum[mask & (cols < mid)].mean() - lum[mask & (cols >= mid)].mean())

    assert balance(left) > balance(right) + 15


# --- tonelab ----------------------------------------------------------------------------------


def _stats(rgb: np.ndarray) -> np.ndarray:
    lab = srgb8_to_lab(rgb).reshape(-1, 3)
    return np.concatenate([lab.mean(axis=0), lab.std(axis=0)])


def test_tonelab_moves_base_statistics_toward_the_reference_with_strength() -> None:
    base = photo("model/049205_0")
    ref = _in_linear(photo("model/01861_00"), np.array([1.0, 0.75, 0.45], np.float32) * 0.45)
    outs = tonelab.run({"image": _jpeg(base), "reference": _jpeg(ref), "lighting": "", "color_style": "", "camera_details": ""}, noop_progress)
    assert [o.content_type for o in outs] == ["image/png"] * 3 + ["application/json"]
    images = [_decode(o.data) for o in outs[:3]]
    save_log("tonelab_reference", base, ref, *images)
    target = _stats(ref)
    dist = [float(np.linalg.norm(_stats(x) - target)) for x in (base, *images)]
    assert dist[0] > dist[1] > dist[2] > dist[3]
    assert dist[3] < 0.35 * dist[0], dist


def test_tonelab_black_and_white_reference_takes_the_colour_out() -> None:
    base = photo("model/01861_00")
    ref = np.repeat(photo("model/model_3").mean(axis=2, keepdims=True), 3, axis=2).astype(np.uint8)
    out = _decode(tonelab.run({"image": _png(base), "reference": _png(ref)}, noop_progress)[2].data)
    chroma = np.hypot(*srgb8_to_lab(out)[..., 1:].transpose(2, 0, 1))
    assert float(np.percentile(chroma, 99)) < 4


def test_tonelab_without_reference_follows_the_texts() -> None:
    base = photo("model/model_6")
    outs = tonelab.run(
        {"image": _jpeg(base), "reference": None, "lighting": "golden hour from the left", "color_style": "warm", "camera_details": "Warm 70s Film Look"},
        noop_progress,
    )
    images = [_decode(o.data) for o in outs[:3]]
    save_log("tonelab_texts", base, *images)
    b = [float(srgb8_to_lab(x)[..., 2].mean()) for x in (base, *images)]
    assert b[0] < b[1] < b[2] < b[3]
    notes = json.loads(outs[3].data)
    assert notes["strengths"] == [0.5, 0.8, 1.0]
    assert "golden hour" in notes["recognised"]["lighting"]["light"]
