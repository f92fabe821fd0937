"""Intermediate renders several galleries start from: editorials of the two portraits and
two try-ons, made once per run."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tools.portraits import astronaut
from tools.portraits import grace_hopper as hopper

from .common import images, png, run_engine
from .products import garment_shot

# Intermediate renders several galleries start from (made once per run).
_RENDERS: dict[str, np.ndarray] = {}

EDITORIAL_CASES: dict[str, tuple[Callable[[], np.ndarray], dict[str, str], int]] = {
    "astronaut-beach": (astronaut, {
        "scene_composition": "sandy beach by the sea, wide frame, rule of thirds",
        "lighting": "golden hour, rim light from the right",
        "color_style": "warm, muted",
        "camera_details": "Warm 70s Film Look"}, 0),
    "hopper-wall": (hopper, {
        "scene_composition": "dusty pink painted wall, centred, half body",
        "lighting": "soft window light from the left",
        "color_style": "natural skin tones, gentle contrast",
        "camera_details": "Clean & Natural Color Film"}, 1),
    "astronaut-studio": (astronaut, {
        "scene_composition": "light grey seamless studio backdrop, centred",
        "lighting": "studio softbox from camera left, fill",
        "color_style": "neutral, crisp",
        "camera_details": "Sharp & Vivid Color Film"}, 1),
    "hopper-night": (hopper, {
        "scene_composition": "city street at night, neon lights",
        "lighting": "tungsten, rim light from behind",
        "color_style": "teal and orange, deep blacks",
        "camera_details": "Night Film with Red Halos"}, 0),
}


def editorial_render(name: str) -> np.ndarray:
    from workers.engines.editorial.generate import run
    from workers.engines.editorial.looks import CAMERA_TEMPLATES

    key = f"editorial:{name}"
    if key not in _RENDERS:
        photo, texts, pick = EDITORIAL_CASES[name]
        params = dict(texts)
        camera = {t["title"]: t["camera_details"] for t in CAMERA_TEMPLATES}
        params["camera_details"] = camera.get(texts["camera_details"], texts["camera_details"])
        _RENDERS[key] = images(run_engine(run, {"image": png(photo()), **params}))[pick]
    return _RENDERS[key]


def tryon_render(name: str) -> np.ndarray:
    from workers.engines.tryon import virtual_try_on

    key = f"tryon:{name}"
    if key not in _RENDERS:
        person, garment = {
            "hopper-tee": (hopper, lambda: garment_shot("top", (178, 40, 52), texture="knit",
                                                        seed=41)),
            "astronaut-shirt": (astronaut, lambda: garment_shot("shirt", (128, 158, 196),
                                                                seed=33)),
        }[name]
        _RENDERS[key] = images(run_engine(virtual_try_on, {"model": png(person()),
                                                           "garment": png(garment())}))[0]
    return _RENDERS[key]
