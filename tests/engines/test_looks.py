"""Camera looks and the parameter vocabulary: each look measured for its defining change."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tests.engines.conftest import photo, save_log
from workers.engines.editorial.looks import (
    CAMERA_TEMPLATES,
    LOOKS,
    TITLES,
    apply_look,
    look_from_text,
    render_look,
)
from workers.engines.editorial.vocabulary import parse
from workers.engines.imaging.color import srgb8_to_oklab


def _chroma(rgb: np.ndarray) -> np.ndarray:
    lab = srgb8_to_oklab(rgb)
    return np.hypot(lab[..., 1], lab[..., 2])


def _hf_energy(rgb: np.ndarray) -> float:
    import cv2

    g = rgb.astype(np.float32).mean(axis=2)
    return float(cv2.Laplacian(g, cv2.CV_32F).var())


@pytest.fixture(scope="module")
def model() -> np.ndarray:
    return photo("model/01861_00")


def test_templates_are_the_eight_titles_with_texts_the_vocabulary_fully_understands() -> None:
    assert TITLES == [
        "Custom", "Warm 70s Film Look", "Grainy High-Contrast B&W", "Soft Pastel Portraits",
        "Night Film with Red Halos", "Sharp & Vivid Color Film", "Saturated Lo-Fi with Vignetting",
        "Clean & Natural Color Film",
    ]
    assert CAMERA_TEMPLATES[0]["camera_details"] == ""
    for tpl in CAMERA_TEMPLATES[1:]:
        _, unknown = parse(tpl["camera_details"])
        assert unknown == [], (tpl["title"], unknown)


def test_all_looks_written_side_by_side_for_review(model: np.ndarray) -> None:
    outs = [apply_look(model, t, 1.0) for t in TITLES[1:]]
    save_log("looks_all_a", model, *outs[:3])
    save_log("looks_all_b", *outs[3:])
    for t, out in zip(TITLES[1:], outs, strict=True):
        assert out.shape == model.shape and out.dtype == np.uint8
        assert float(np.abs(out.astype(int) - model).mean()) > 3, t


def test_strength_zero_is_the_photo_untouched(model: np.ndarray) -> None:
    for title in TITLES:
        assert np.array_equal(apply_look(model, title, 0.0), model)


def test_bw_has_no_chroma_and_more_contrast(model: np.ndarray) -> None:
    out = apply_look(model, "Grainy High-Contrast B&W", 1.0)
    assert float(np.percentile(_chroma(out), 99)) < 0.01
    assert float(np.percentile(_chroma(model), 99)) > 0.1
    lum_in, lum_out = model.mean(axis=2), out.mean(axis=2)
    assert np.percentile(lum_out, 95) - np.percentile(lum_out, 5) >= np.percentile(lum_in, 95) - np.percentile(lum_in, 5) - 2


def test_red_halos_appear_around_highlights_not_elsewhere() -> None:
    # A night scene: dark surroundings with two bright lamps.
    img = np.full((400, 300, 3), 28, np.uint8)
    yy, xx = np.mgrid[:400, :300]
    lamps = ((yy - 120) ** 2 + (xx - 90) ** 2 < 18**2) | ((yy - 280) ** 2 + (xx - 210) ** 2 < 14**2)
    img[lamps] = 250
    out = apply_look(img, "Night Film with Red Halos", 1.0)
    d1 = np.sqrt((yy - 120) ** 2 + (xx - 90) ** 2)
    ring = (d1 > 21) & (d1 < 34)
    far = (yy < 40) & (xx > 220)
    redness = out[..., 0].astype(float) - out[..., 2].astype(float)
    save_log("looks_halation", img, out)
    assert redness[ring].mean() > redness[far].mean() + 12
    no_halo = render_look(img, replace(LOOKS["Night Film with Red Halos"], halation=0.0), 1.0)
    assert out[..., 0][ring].mean() > no_halo[..., 0][ring].mean() + 10


def test_vignetting_darkens_corners_against_the_centre() -> None:
    flat = np.full((512, 384, 3), 150, np.uint8)
    out = apply_look(flat, "Saturated Lo-Fi with Vignetting", 1.0).astype(float).mean(axis=2)
    corners = np.mean([out[:40, :40].mean(), out[:40, -40:].mean(), out[-40:, :40].mean(), out[-40:, -40:].mean()])
    centre = out[236:276, 172:212].mean()
    assert corners < 0.7 * centre


def test_grainy_adds_high_frequency_energy(model: np.ndarray) -> None:
    grainy = apply_look(model, "Grainy High-Contrast B&W", 1.0)
    clean = apply_look(model, "Clean & Natural Color Film", 1.0)
    # Flat backdrop patch (top-left corner of the sweep) carries no detail of its own.
    patch = (slice(10, 90), slice(5, 60))
    assert _hf_energy(grainy[patch]) > 10 * max(1.0, _hf_energy(model[patch]))
    assert _hf_energy(grainy[patch]) > 5 * max(1.0, _hf_energy(clean[patch]))


@pytest.mark.parametrize(
    ("title", "check"),
    [
        ("Warm 70s Film Look", lambda a, b: srgb8_to_oklab(b)[..., 2].mean() > srgb8_to_oklab(a)[..., 2].mean() + 0.012),
        ("Soft Pastel Portraits", lambda a, b: np.ptp(np.percentile(b.mean(axis=2), [5, 95])) < np.ptp(np.percentile(a.mean(axis=2), [5, 95])) - 8),
        ("Sharp & Vivid Color Film", lambda a, b: _chroma(b).mean() > 1.15 * _chroma(a).mean()),
        ("Saturated Lo-Fi with Vignetting", lambda a, b: _chroma(b).mean() > 1.15 * _chroma(a).mean()),
        ("Clean & Natural Color Film", lambda a, b: np.abs(b.astype(int) - a).mean() < 8),
    ],
)
def test_each_colour_look_changes_the_photo_in_its_defining_way(model: np.ndarray, title: str, check) -> None:  # type: ignore[no-untyped-def]
    assert check(model, apply_look(model, title, 1.0)), title


def test_half_strength_is_half_way(model: np.ndarray) -> None:
    full = apply_look(model, "Sharp & Vivid Color Film", 1.0)
    half = apply_look(model, "Sharp & Vivid Color Film", 0.5)
    c0, ch, cf = _chroma(model).mean(), _chroma(half).mean(), _chroma(full).mean()
    assert c0 < ch < cf


def test_template_text_gives_the_template_look_and_free_text_builds_one() -> None:
    tpl = next(t for t in CAMERA_TEMPLATES if t["title"] == "Grainy High-Contrast B&W")
    look = look_from_text(tpl["camera_details"])
    assert look.mono == LOOKS["Grainy High-Contrast B&W"].mono == 1.0
    assert look.grain == pytest.approx(LOOKS["Grainy High-Contrast B&W"].grain)
    free = look_from_text("grainy black and white with dark corners and red halos")
    assert free.mono == 1.0 and free.grain > 0 and free.vignette > 0 and free.halation > 0
    assert look_from_text("") == look_from_text(None) == LOOKS["Custom"]
    assert look_from_text("clean, no vignetting").vignette == 0.0


def test_render_look_accepts_a_combined_look(model: np.ndarray) -> None:
    look = look_from_text("Warm 70s Film Look", "teal and orange, muted")
    out = render_look(model, look, 1.0)
    assert out.shape == model.shape
    assert "template: Warm 70s Film Look" in look.notes and "colour: teal-orange" in look.notes


def test_vocabulary_recognises_settings_and_lists_unknown_words() -> None:
    settings, unknown = parse("Golden hour rim light from the left, teal-orange grade, 35mm at f/2, 3200K, zorblax gleeb")
    assert "golden hour" in settings["light"] and "rim light" in settings["light"]
    assert settings["direction"] == ["left"]
    assert settings["colour"] == ["teal-orange"]
    assert settings["camera"] == ["35mm film"]
    assert settings["aperture"] == [2.0] and settings["kelvin"] == [3200]
    assert unknown == ["zorblax", "gleeb"]


@pytest.mark.parametrize(
    ("text", "category", "term"),
    [
        ("black & white", "colour", "monochrome"),
        ("B&W", "colour", "monochrome"),
        ("head-to-toe", "framing", "full body"),
        ("close-up", "framing", "close-up"),
        ("knee up", "framing", "three-quarter"),
        ("city sidewalk", "scene", "street"),
        ("seamless grey backdrop", "scene", "studio seamless"),
        ("window light", "light", "window light"),
        ("bright and airy", "light", "high key"),
        ("overcast", "light", "overcast"),
        ("backlit", "light", "backlit"),
        ("hard flash", "light", "hard flash"),
        ("pastel", "colour", "pastel"),
        ("muted", "colour", "muted"),
        ("wide shot", "framing", "wide"),
        ("garden", "scene", "garden"),
        ("beach", "scene", "beach"),
        ("interior", "scene", "interior"),
    ],
)
def test_vocabulary_terms(text: str, category: str, term: str) -> None:
    settings, unknown = parse(text)
    assert term in settings.get(category, []), settings
    assert unknown == []
