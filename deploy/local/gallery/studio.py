"""The studio tools' galleries: Editorial, Tonelab, Editorial Product, Open Lab, Tech Pack,
Flats Ecommerce and Spinview."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from tests.engines.synthetic_products import earring_shot as earring_drop
from tools.portraits import astronaut
from tools.portraits import grace_hopper as hopper
from workers.engines import flatdraw

from .accessories import hat_shot, pearls_shot, shoe_views, tote_shot
from .common import VIDEO_SECONDS, VIDEO_SIZE, Example, images, png, run_engine
from .layout import row, with_inset
from .products import CREAM, NAVY, garment_shot, polo_shot
from .renders import editorial_render
from .turntable import dress_form_mesh, hat_mesh, tote_mesh, turntable_views


def ex_editorial() -> list[Example]:
    return [
        (editorial_render("astronaut-beach"), "The astronaut portrait staged on a beach at "
         "golden hour with a rim light and the Warm 70s Film Look."),
        (editorial_render("hopper-wall"), "Grace Hopper's portrait staged against a dusty pink "
         "wall in soft window light, Clean & Natural Color Film."),
        (editorial_render("hopper-night"), "Grace Hopper's portrait staged on a night street "
         "with tungsten light and the Night Film with Red Halos look."),
    ]


def ex_tonelab() -> list[Example]:
    from workers.engines.editorial.looks import CAMERA_TEMPLATES
    from workers.engines.editorial.tonelab import run

    camera = {t["title"]: t["camera_details"] for t in CAMERA_TEMPLATES}
    cases = [
        (hopper(), None, {"lighting": "", "color_style": "black and white, hard contrast",
                          "camera_details": camera["Grainy High-Contrast B&W"]},
         "Grace Hopper's portrait graded to Grainy High-Contrast B&W."),
        (astronaut(), None, {"lighting": "warm sunlight from the left",
                             "color_style": "warm, faded",
                             "camera_details": camera["Warm 70s Film Look"]},
         "The astronaut portrait relit with warm light from the left in the Warm 70s Film "
         "Look."),
        (hopper(), editorial_render("astronaut-beach"),
         {"lighting": "", "color_style": "", "camera_details": camera["Soft Pastel Portraits"]},
         "Grace Hopper's portrait graded to the tones of a reference image (inset), with Soft "
         "Pastel Portraits."),
    ]
    out: list[Example] = []
    for base, reference, texts, alt in cases:
        params: dict[str, Any] = {"image": png(base), **texts}
        if reference is not None:
            params["reference"] = png(reference)
        res = images(run_engine(run, params))[-1]  # the full-strength grade
        before = base if reference is None else with_inset(base, reference, share=0.32)
        out.append((row(before, res), alt))
    return out


def _canvas(size: tuple[int, int], items: list[tuple[np.ndarray, float, float, float]]
            ) -> tuple[np.ndarray, np.ndarray]:
    """A layout like the Editorial Product canvas: cut-outs placed at (cx, cy) fractions with a
    width fraction, on transparency. Returns (rgb on white, alpha)."""
    from workers.engines.imaging.cutout import cut_out_product

    W, H = size
    rgb = np.full((H, W, 3), 255, np.float32)
    alpha = np.zeros((H, W), np.float32)
    for shot, cx, cy, wf in items:
        cut = cut_out_product(shot)
        w = max(2, int(wf * W))
        h = max(2, int(w * cut.height / cut.width))
        fg = cv2.resize(cut.rgb, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        a = cv2.resize(cut.alpha, (w, h), interpolation=cv2.INTER_AREA)
        x, y = int(cx * W - w / 2), int(cy * H - h / 2)
        assert 0 <= x and x + w <= W and 0 <= y and y + h <= H, "the item fits the canvas"
        region = (slice(y, y + h), slice(x, x + w))
        rgb[region] = fg * a[..., None] + rgb[region] * (1 - a[..., None])
        alpha[region] = np.maximum(alpha[region], a)
    return np.clip(rgb + 0.5, 0, 255).astype(np.uint8), (alpha * 255).astype(np.uint8)


def ex_editorial_product() -> list[Example]:
    from workers.engines.product import PHOTO_PRESETS, run

    sentence = {p["title"]: p["sentence"] for p in PHOTO_PRESETS}
    cases = [
        ((1200, 1200), [(tote_shot(), 0.36, 0.6, 0.42), (pearls_shot(), 0.72, 0.7, 0.3),
                        (earring_drop(), 0.74, 0.36, 0.08)],
         "Luxury Fashion", "A tote, a pearl strand and a drop earring laid out on the canvas, "
         "staged as a Luxury Fashion shot on a dark plinth."),
        ((1200, 1600), [(garment_shot("shirt", (128, 158, 196), seed=61), 0.5, 0.27, 0.62),
                        (garment_shot("trousers", (170, 150, 115), seed=62), 0.5, 0.72, 0.3)],
         "Lifestyle Editorial", "A shirt and chinos arranged as an outfit, staged in the "
         "Lifestyle Editorial preset on linen and plaster."),
        ((1200, 1200), [(hat_shot(), 0.5, 0.3, 0.6), (shoe_views()["SIDE"], 0.5, 0.72, 0.6)],
         "Minimalist White", "A felt fedora and a sneaker staged as a Minimalist White "
         "catalogue shot."),
    ]
    out: list[Example] = []
    for size, items, preset, alt in cases:
        rgb, alpha = _canvas(size, items)
        res = images(run_engine(run, {"image": png(rgb, alpha), "prompt": sentence[preset],
                                      "preset": preset}))[0]
        out.append((row(rgb, res), alt))
    return out


def ex_open_lab() -> list[Example]:
    from workers.engines.openlab import TEMPLATES, run

    jacket = garment_shot("jacket", (150, 112, 78), texture="twill", seed=71)
    sketch = flatdraw.flat_from_template("dress", size=(600, 750), margin=0.08).rgb
    tote = tote_shot()
    to_flat = TEMPLATES["Image to Flat"].replace(
        "[REQUIRED: attach the garment image]", "").replace(
        "[Optional: garment type, e.g. t-shirt, dress, trousers]", "jacket")
    to_photo = TEMPLATES["Sketch to Photo"].replace(
        "[REQUIRED: colour, e.g. navy or #1c2541]", "burgundy").replace(
        "[Optional: fabric, e.g. denim, silk, linen]", "silk")
    flat_front, flat_back = images(run_engine(run, {"prompt": to_flat, "image": png(jacket)}))
    _, photo = images(run_engine(run, {"prompt": to_photo, "image": png(sketch)}))
    _, sage = images(run_engine(run, {"prompt": "put it on a sage background",
                                      "image": png(tote)}))
    return [
        (row(jacket, flat_front, flat_back), "Image to Flat: a jacket product shot turned into "
         "front and back technical flats."),
        (row(sketch, photo), "Sketch to Photo: a dress sketch rendered as a burgundy silk "
         "photograph."),
        (row(tote, sage), "A prompt to put a tote bag on a sage background, answered with a "
         "sage sweep and a contact shadow."),
    ]


def ex_tech_pack() -> list[Example]:
    from workers.engines.techpack import describe_run
    from workers.engines.techpack.sheet import tech_pack_run as techpack_process

    cases = [
        ("Relaxed-fit cotton piqué polo shirt, 220 gsm, three-button placket, knitted collar "
         "with contrast tipping, short sleeves with ribbed cuffs.", polo_shot(NAVY, tipping=CREAM),
         "A tech pack sheet for a piqué polo: flats, measurements graded XS–XL, bill of "
         "materials and colourways."),
        ("Single-breasted wool tweed jacket with notch lapels, two flap pockets, a chest welt "
         "pocket and a centre back vent; fully lined.",
         garment_shot("jacket", (92, 96, 78), texture="twill", seed=81),
         "A tech pack sheet for a tweed jacket drawn from its product shot."),
        ("Sleeveless A-line dress in viscose crepe, round neck, fitted waist seam with darts, "
         "concealed centre back zip, knee length.", None,
         "A tech pack sheet for an A-line dress written from a description alone."),
    ]
    out: list[Example] = []
    for description, photo, alt in cases:
        params: dict[str, Any] = {"description": description}
        if photo is not None:
            params["image"] = png(photo)
        md = run_engine(describe_run, params)[0].data.decode()
        step2: dict[str, Any] = {"tech_pack": md}
        if photo is not None:
            step2["image"] = png(photo)
        out.append((images(run_engine(techpack_process, step2))[0], alt))
    return out


def _outfit(views: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, bytes]]:
    return {cat: {v: png(img) for v, img in vv.items()} for cat, vv in views.items()}


def ex_flats() -> list[Example]:
    from workers.engines.flats import run

    shoes = shoe_views()
    outfit_a = {
        "shoes": shoes,
        "bottom": {v.upper(): garment_shot("trousers", (170, 150, 115), view=v, seed=91)
                   for v in ("front", "back")},
        "top": {v.upper(): garment_shot("shirt", (128, 158, 196), view=v, seed=92)
                for v in ("front", "back")},
        "overlayer": {v.upper(): garment_shot("jacket", (44, 58, 92), view=v, texture="twill",
                                              seed=93) for v in ("front", "back")},
    }
    outfit_b = {
        "shoes": shoe_views(colour=(30, 30, 34), accent=(200, 200, 196)),
        "bottom": {v.upper(): garment_shot("skirt", (120, 28, 48), view=v, seed=94)
                   for v in ("front", "back")},
        "top": {v.upper(): garment_shot("top", CREAM, view=v, texture="knit", seed=95)
                for v in ("front", "back")},
    }
    lay_front, lay_back = images(run_engine(run, _outfit(outfit_a)))
    on_model = images(run_engine(run, {**_outfit(outfit_a), "model": png(hopper())}))
    lay_b = images(run_engine(run, _outfit(outfit_b)))[0]
    return [
        (lay_front, "Front flat-lay composed from the _FRONT flats of a navy jacket, chambray "
         "shirt, chinos and sneakers."),
        (lay_back, "The same outfit's back flat-lay, from the _BACK files."),
        (on_model[0], "The outfit's shirt and jacket dressed on Grace Hopper's portrait from "
         "the flats."),
        (lay_b, "A second outfit, a cream T-shirt, burgundy skirt and black sneakers, composed "
         "as a flat-lay."),
    ]


def ex_spinview() -> list[Example]:
    from workers.engines.spinview import run

    cases = [
        (turntable_views(tote_mesh(), scale=1.7), "A tan leather tote turning on a turntable, "
         "morphed from twelve rendered views."),
        (turntable_views(hat_mesh(), scale=1.45, centre_y=0.12), "A felt fedora with a band and "
         "bow turning through twelve views."),
        (turntable_views(dress_form_mesh(), scale=1.35, centre_y=0.2), "A striped dress on a "
         "dress form turning through twelve views."),
    ]
    out: list[Example] = []
    for views, alt in cases:
        outs = run_engine(run, {"views": [png(v) for v in views], "seconds": VIDEO_SECONDS,
                                "fps": 24, "size": VIDEO_SIZE})
        video = next(o for o in outs if o.content_type == "video/mp4")
        out.append((video.data, alt))
    return out
