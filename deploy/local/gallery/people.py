"""The galleries of the tools that dress or re-cast a person: Restyle, Virtual Try-On, Garment
Integration, Ecommerce Asset, Earfit, Baghold, Model Swap and Remodel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tests.engines.synthetic_products import earring_shot as earring_drop
from tools.portraits import astronaut
from tools.portraits import grace_hopper as hopper
from workers.engines.base import EngineOutput

from .accessories import (
    beanie_shot,
    crossbody_shot,
    earring_hoop,
    earring_tassel,
    necklace_shot,
    pearls_shot,
)
from .common import Example, images, png, run_engine, upscale
from .layout import row, with_inset
from .products import CREAM, NAVY, garment_shot, polo_shot
from .renders import editorial_render, tryon_render


def _before_after_with(engine: Callable[..., list[EngineOutput]], params: dict[str, Any],
                       person: np.ndarray, product: np.ndarray, *,
                       share: float = 0.34) -> np.ndarray:
    """Run a two-input engine; the photo with the product inset | the result."""
    res = images(run_engine(engine, params))[0]
    return row(with_inset(person, product, share=share), res)


def ex_restyle() -> list[Example]:
    from workers.engines.tryon import restyle

    cases = [
        (astronaut(), polo_shot(NAVY, tipping=CREAM, seed=31),
         "A navy polo product shot restyled onto an astronaut's portrait over her flight suit."),
        (hopper(), garment_shot("jacket", (150, 112, 78), texture="twill", seed=32),
         "A camel jacket product shot restyled onto Grace Hopper's portrait in place of her "
         "uniform jacket."),
        (astronaut(), garment_shot("shirt", (128, 158, 196), seed=33),
         "A chambray shirt product shot restyled onto the astronaut portrait."),
    ]
    return [(_before_after_with(restyle, {"outfit": png(p), "garment": png(g)}, p, g), alt)
            for p, g, alt in cases]


def ex_virtual_try_on() -> list[Example]:
    from workers.engines.tryon import virtual_try_on

    cases = [
        (hopper(), garment_shot("top", (178, 40, 52), texture="knit", seed=41),
         "A red knit T-shirt tried on Grace Hopper's portrait, fitted to her shoulders."),
        (astronaut(), garment_shot("jacket", (70, 92, 70), texture="twill", seed=42),
         "An olive twill jacket tried on the astronaut portrait."),
        (hopper(), polo_shot(CREAM, tipping=NAVY, seed=43),
         "A cream polo with navy tipping tried on Grace Hopper's portrait."),
    ]
    return [(_before_after_with(virtual_try_on, {"model": png(p), "garment": png(g)}, p, g), alt)
            for p, g, alt in cases]


def ex_garment_integration() -> list[Example]:
    from workers.engines.tryon import garment_integration

    cases = [
        (editorial_render("astronaut-beach"), garment_shot("top", CREAM, texture="knit", seed=51),
         "A cream knit T-shirt integrated into a beach editorial of the astronaut portrait, "
         "matched to the scene's warm light."),
        (editorial_render("hopper-wall"), garment_shot("jacket", (120, 46, 56), texture="twill",
                                                       seed=52),
         "A burgundy jacket integrated into a pink-wall editorial of Grace Hopper's "
         "portrait."),
        (editorial_render("astronaut-studio"), polo_shot((64, 96, 150), tipping=CREAM, seed=53),
         "A blue polo integrated into a studio editorial of the astronaut portrait."),
    ]
    return [(_before_after_with(garment_integration, {"outfit": png(p), "garment": png(g)}, p, g),
             alt) for p, g, alt in cases]


def ex_ecommerce_asset() -> list[Example]:
    from workers.engines.tryon import ecommerce_asset

    cases = [
        (astronaut(), beanie_shot(), "hat",
         "A red ribbed beanie placed on the astronaut's head, sized from her face."),
        (hopper(), pearls_shot(), "jewellery",
         "A pearl necklace placed at Grace Hopper's collar, scaled to her shoulders."),
        (hopper(), necklace_shot(), "jewellery",
         "A gold chain with an emerald pendant placed on Grace Hopper's portrait."),
    ]
    return [(_before_after_with(ecommerce_asset, {"outfit": png(p), "garment": png(a), "kind": k},
                                p, a), alt) for p, a, k, alt in cases]


def _head_box(rgb: np.ndarray) -> tuple[int, int, int, int]:
    """A portrait crop around the head and both ears (x0, y0, x1, y1)."""
    from workers.engines.imaging.face import detect_face

    face = detect_face(rgb)
    assert face is not None, "the portrait has a face"
    pts = face.points
    h, w = rgb.shape[:2]
    cx, cy = float(pts[:, 0].mean()), float(pts[:, 1].mean())
    side = 2.3 * face.face_width
    x0 = int(np.clip(cx - side / 2, 0, w - side))
    y0 = int(np.clip(cy - 0.42 * side, 0, h - side))
    return x0, y0, x0 + int(side), y0 + int(side)


def ex_earfit() -> list[Example]:
    from workers.engines.earfit import run

    cases = [
        (astronaut(), earring_drop(), 1.5, "Pearl and gold drop earrings, 1.5 in tall, hung at "
         "true size on the astronaut's ear lobes."),
        (hopper(), earring_hoop(), 1.2, "Gold hoop earrings, 1.2 in across, on Grace Hopper's "
         "ears, scaled from her iris."),
        (astronaut(), earring_tassel(), 2.5, "Teal silk tassel earrings, 2.5 in long, on the "
         "astronaut portrait."),
    ]
    out: list[Example] = []
    for photo, ring, inches, alt in cases:
        # Twice the size first: the earrings are small on the face, and their drawing stays sharp.
        big = upscale(photo, 2.0)
        res = images(run_engine(run, {"model_image": png(big), "ring_image": png(ring),
                                      "ring_height_in": inches}))[0]
        x0, y0, x1, y1 = _head_box(big)
        before = big[y0:y1, x0:x1]
        out.append((row(with_inset(before, ring, share=0.3), res[y0:y1, x0:x1]), alt))
    return out


def ex_baghold() -> list[Example]:
    from workers.engines.baghold import run

    # Both portraits end at the chest, so every bag hangs from the shoulder on a short strap
    # (there is no hand in frame to hold one).
    cases = [
        (crossbody_shot(), 20, 15, "A navy flap bag, 20 cm wide, worn on a short strap at the "
         "astronaut's shoulder at true scale."),
        (crossbody_shot(colour=(128, 30, 44)), 24, 20, "A burgundy shoulder bag, 24 cm wide, "
         "hung on a 20 cm strap."),
        (crossbody_shot(colour=(176, 128, 80)), 16, 25, "A small tan bag, 16 cm wide, on a "
         "25 cm strap, sized from the body's proportions."),
    ]
    photo = astronaut()
    out: list[Example] = []
    for bag, width, strap, alt in cases:
        res = images(run_engine(run, {"model_image": png(photo), "bag_image": png(bag),
                                      "width": width, "height": round(width * 0.7, 1),
                                      "depth": 6, "strap": strap, "gender": "Female"}))[0]
        out.append((row(with_inset(photo, bag, share=0.3, corner="tr"), res), alt))
    return out


def _swap(target: np.ndarray, face_photo: np.ndarray) -> np.ndarray:
    from workers.engines.remodel import run

    return images(run_engine(run, {"image": png(target), "model_face": png(face_photo),
                                   "model_name": "library model"}))[0]


def _face_crop(rgb: np.ndarray) -> np.ndarray:
    x0, y0, x1, y1 = _head_box(rgb)
    return rgb[y0:y1, x0:x1]


def ex_model_swap() -> list[Example]:
    cases = [
        (astronaut(), hopper(), "The astronaut portrait re-cast with Grace Hopper as the "
         "library model: her features on the same pose, light and outfit."),
        (hopper(), astronaut(), "Grace Hopper's portrait re-cast with the astronaut as the "
         "library model, the uniform and cap untouched."),
        (editorial_render("astronaut-studio"), hopper(), "A studio editorial re-cast with "
         "another library model, the garment and backdrop kept."),
    ]
    return [(row(with_inset(t, _face_crop(f), share=0.3, corner="tr"), _swap(t, f)), alt)
            for t, f, alt in cases]


def ex_remodel() -> list[Example]:
    cases = [
        (tryon_render("hopper-tee"), astronaut(), "A catalogue shot of a red T-shirt re-cast "
         "with a library model's face; the garment is untouched."),
        (tryon_render("astronaut-shirt"), hopper(), "A chambray shirt catalogue shot re-cast "
         "with another library model."),
        (editorial_render("hopper-wall"), astronaut(), "An editorial catalogue image re-cast "
         "with a library model, background and styling kept."),
    ]
    return [(row(with_inset(t, _face_crop(f), share=0.3, corner="tr"), _swap(t, f)), alt)
            for t, f, alt in cases]
