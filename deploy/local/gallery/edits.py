"""The garment edit tools' galleries: Recolor, Refabric, Reshape and Rebody, each the input
and the result side by side."""

from __future__ import annotations

import cv2

from tools.portraits import astronaut
from tools.portraits import grace_hopper as hopper

from .common import Example, images, png, run_engine
from .layout import row, trim_white
from .products import CREAM, NAVY, garment_shot, polo_shot


def ex_recolor() -> list[Example]:
    from workers.engines.recolor import run

    # The spec's example cards: a polo to #C5B299, #8E8E93 and #4A5D23.
    cases = [
        ((238, 236, 230), NAVY, "#C5B299", "A white polo with navy tipping recoloured to "
         "#C5B299 stone beige; the tipping, buttons and shading are kept."),
        (NAVY, CREAM, "#8E8E93", "A navy polo recoloured to #8E8E93 mid grey, its cream "
         "tipping untouched."),
        ((168, 44, 48), CREAM, "#4A5D23", "A red polo recoloured to #4A5D23 olive green, "
         "folds and piqué texture kept."),
    ]
    out: list[Example] = []
    for i, (base, tip, target, alt) in enumerate(cases):
        shot = polo_shot(base, tipping=tip, seed=5 + i)
        res = images(run_engine(run, {"image": png(shot), "target_color": target,
                                      "garment_type": "polo"}))[0]
        out.append((row(shot, res), alt))
    return out


def ex_refabric() -> list[Example]:
    from workers.engines.refabric import run

    cases = [
        ("jacket", (70, 92, 70), "plain", "tweed", "textured", "jacket",
         "A plain cotton jacket re-made in textured tweed, its seams and folds where they were."),
        ("dress", (20, 110, 90), "plain", "silk", "glossy", "dress",
         "An emerald cotton dress re-made in glossy silk, highlights running along its folds."),
        ("skirt", (200, 190, 170), "plain", "linen", "textured", "skirt",
         "A stone cotton skirt re-made in textured linen with its irregular slub yarns."),
    ]
    out: list[Example] = []
    for i, (kind, colour, tex, fabric, finish, garment, alt) in enumerate(cases):
        shot = garment_shot(kind, colour, texture=tex, seed=11 + i)
        res = images(run_engine(run, {"image": png(shot), "re_fabric": fabric,
                                      "material_finish": finish,
                                      "target_garment": garment}))[0]
        out.append((row(shot, res), alt))
    return out


def ex_reshape() -> list[Example]:
    from workers.engines.reshape import run

    cases = [
        ("dress", (44, 84, 120), "dress", [{"place": "length", "instruction": "shorter by 30%"}],
         "A dress shortened by 30% to a mini; the stitched hem band moves up with the new hem."),
        ("jacket", (72, 74, 84), "jacket", [{"place": "length", "instruction": "longer by 30%"}],
         "A jacket lengthened by 30% into a car coat, hem and pockets carried down."),
        ("top", (182, 62, 60), "t-shirt", [{"place": "fit", "instruction": "looser by 15%"}],
         "A T-shirt given a looser fit, 15% wider through the body and sleeves."),
    ]
    out: list[Example] = []
    for i, (kind, colour, garment, changes, alt) in enumerate(cases):
        # On pure white without a drop shadow: what the edit uncovers is inpainted from the
        # sweep, and the inpainting overshoots a little toward white (TELEA's gradient term),
        # which only a white sweep hides; a shadow left standing would outline the old shape.
        shot = garment_shot(kind, colour, seed=21 + i, shadow=0.0, sweep=255)
        # Room below the garment for a longer hem.
        shot = cv2.copyMakeBorder(shot, 0, 150, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
        res = images(run_engine(run, {"image": png(shot), "target_garment": garment,
                                      "changes": changes}))[0]
        out.append((trim_white(row(shot, res)), alt))
    return out


def ex_rebody() -> list[Example]:
    from workers.engines.rebody import run

    cases = [
        (astronaut(), "Slim Fit", "A portrait re-proportioned to the Slim Fit body type: "
         "narrower shoulders, waist and hips, the face untouched."),
        (astronaut(), "Curvy Fit", "The same portrait re-proportioned to the Curvy Fit body "
         "type, fuller through bust and waist."),
        (hopper(), "Athletic Build", "A portrait re-proportioned to the Athletic Build body "
         "type, with broader shoulders."),
    ]
    out: list[Example] = []
    for photo, body, alt in cases:
        res = images(run_engine(run, {"image": png(photo), "target_bodytype": body}))[0]
        out.append((row(photo, res), alt))
    return out
