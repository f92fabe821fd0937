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

# name: (portrait, Editorial's four texts (scene, lighting, colour, camera template), the variant
# kept)
EDITORIAL_CASES: dict[str, tuple[Callable[[], np.ndarray], tuple[str, str, str, str], int]] = {
    "astronaut-beach": (astronaut, ("sandy beach by the sea, wide frame, rule of thirds",
                                    "golden hour, rim light from the right", "warm, muted",
                                    "Warm 70s Film Look"), 0),
    "hopper-wall": (hopper, ("dusty pink painted wall, centred, half body",
                             "soft window light from the left",
                             "natural skin tones, gentle contrast",
                             "Clean & Natural Color Film"), 1),
    "astronaut-studio": (astronaut, ("light grey seamless studio backdrop, centred",
                                     "studio softbox from camera left, fill", "neutral, crisp",
                                     "Sharp & Vivid Color Film"), 1),
    "hopper-night": (hopper, ("city street at night, neon lights",
                              "tungsten, rim light from behind", "teal and orange, deep blacks",
                              "Night Film with Red Halos"), 0),
}
EDITORIAL_FIELDS = ("scene_composition", "lighting", "color_style", "camera_details")


def editorial_render(name: str) -> np.ndarray:
    from workers.engines.editorial.generate import run
    from workers.engines.editorial.looks import CAMERA_TEMPLATES

    key = f"editorial:{name}"
    if key not in _RENDERS:
        photo, values, pick = EDITORIAL_CASES[name]
        texts = dict(zip(EDITORIAL_FIELDS, values, strict=True))
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
