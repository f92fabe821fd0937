"""Refusals: are the inputs no engine can make good refused with the right code, and are the
inputs each tool is meant for let through?

- Refused: each case runs the real engine as a job does (its engine behind its input checks,
  which puts the batch engines behind ``workers.engines.imaging.inputs``) and must raise
  ``EngineError`` with the expected code: a person in a product shot (an earring, bag or shoe
  "product" that is a model photo with the product on it), a 200 px image, a bag photo under
  Baghold's own minimum (the engine's refusal, behind the checks), two people in a
  library model photo (two fixture photos side by side, every neighbouring pair of the model
  fixtures), and half-length portraits for the tools that need hands or the whole figure.
- Let through: every fixture of ``tests/fixtures/fashion`` in the role it is meant for goes
  through the same checks (``guard_engine_inputs``, what the registry calls before the engine)
  and must not be refused by them: garments and model photos for Recolor, Refabric and Reshape,
  model photos for Rebody, faces in frame for Earfit, full figures for Baghold and Flats,
  the drawn and photographed products for Earfit, Baghold and Flats.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw

from tests.engines.synthetic_products import bag_shot, earring_shot
from tests.fidelity.common import FIXTURES, Bar, ToolReport, contact_sheet, photo
from workers.engines.base import EngineError
from workers.engines.imaging.inputs import guard_engine_inputs

# What each model fixture shows, by the data set it comes from (see the fixtures' NOTICE):
# VITON-HD photos ("01861_00") are upper-body shots with the whole face in frame; Dress Code
# photos ("049205_0") are full-length, cut at the face; the "model_N" studio photos are
# half-length with the face in frame, but for the two full-length ones.
MODELS = sorted(p.relative_to(FIXTURES).as_posix() for p in (FIXTURES / "model").iterdir())
FULL_LENGTH_STUDIO = {"model/model_8.png", "model/model_9.png"}


def _dress_code(name: str) -> bool:
    return re.fullmatch(r"\d{6}_0", Path(name).stem) is not None


FACE_IN_FRAME = {m for m in MODELS if not _dress_code(m)}
FULL_FIGURE = [m for m in MODELS if _dress_code(m) or m in FULL_LENGTH_STUDIO]
HALF_LENGTH = [m for m in MODELS if m not in FULL_FIGURE]
GARMENTS = sorted(p.relative_to(FIXTURES).as_posix() for p in (FIXTURES / "garment").iterdir())
BAG = "accessory/bag_053514_0.jpg"
SHOES = "shoes/shoes_049205_0.jpg"
LEOPARD = "refused/01008_00.jpg"


def png(rgb: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buf, "PNG")
    return buf.getvalue()


def jpeg_of(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def side_by_side(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two photos at the same height, next to each other: a two-person model photo."""
    h = a.shape[0]
    b = cv2.resize(b, (round(b.shape[1] * h / b.shape[0]), h), interpolation=cv2.INTER_AREA)
    return np.concatenate([a, b], axis=1)


def paste(base: np.ndarray, product: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The product shot's object (its non-white pixels) pasted into ``box`` of a photo."""
    x0, y0, x1, y1 = box
    obj = cv2.resize(product, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    solid = (obj.astype(np.int32).min(axis=2) < 235)[..., None]
    out = base.copy()
    out[y0:y1, x0:x1] = np.where(solid, obj, out[y0:y1, x0:x1])
    return out


def half_length_portrait() -> np.ndarray:
    from tools.portraits import astronaut

    return astronaut()


def small(name: str, short_side: int = 200) -> np.ndarray:
    rgb = photo(name)
    h, w = rgb.shape[:2]
    s = short_side / min(h, w)
    return cv2.resize(rgb, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)


def expected_codes(expected: str | tuple[str, ...]) -> tuple[str, ...]:
    return (expected,) if isinstance(expected, str) else expected


@dataclass
class Case:
    label: str
    engine: str
    expected: str | tuple[str, ...]  # the code, or the codes any of which is right
    params: dict[str, Any]
    shown: list[np.ndarray]  # the refused input(s), for the contact sheet


def refusal_cases() -> list[Case]:
    earring = earring_shot()
    bag, _ = bag_shot()
    face_model, full_model = photo("model/model_3.png"), photo("model/model_9.png")
    h, w = face_model.shape[:2]
    worn_earring = paste(face_model, earring, (int(0.62 * w), int(0.20 * h),
                                               int(0.68 * w), int(0.32 * h)))
    # a close-up of the head and shoulders wearing it, as earrings are often shot
    close_up = np.ascontiguousarray(worn_earring[int(0.02 * h):int(0.45 * h),
                                                 int(0.25 * w):int(0.80 * w)])
    h, w = full_model.shape[:2]
    held_bag = paste(full_model, bag, (int(0.55 * w), int(0.45 * h),
                                       int(0.85 * w), int(0.70 * h)))
    shoes_on_model = photo("model/049205_0")
    portrait = half_length_portrait()
    tiny_garment, tiny_model = small("garment/049805_1"), small("model/model_3.png")
    cases = [
        Case("Earfit: the earring 'product' is a model wearing it", "earfit",
             "person_in_product",
             {"ring_image": png(worn_earring), "model_image": jpeg_of("model/model_3.png"),
              "ring_height_in": 1.5, "model_name": "Ana"}, [worn_earring]),
        Case("Earfit: the earring 'product' is a close-up of a model wearing it", "earfit",
             "person_in_product",
             {"ring_image": png(close_up), "model_image": jpeg_of("model/model_3.png"),
              "ring_height_in": 1.5, "model_name": "Ana"}, [close_up]),
        Case("Baghold: the bag 'product' is a model holding it", "baghold", "person_in_product",
             {"bag_image": png(held_bag), "model_image": jpeg_of("model/model_9.png"),
              "width": 30, "height": 25, "depth": 12, "model_name": "Mila"}, [held_bag]),
        Case("Flats: the shoe 'product' is a model wearing them", "flats", "person_in_product",
             {"shoes": {"FRONT": png(shoes_on_model)},
              "top": {"FRONT": jpeg_of("garment/050181_1.jpg")},
              "model": jpeg_of("model/model_9.png")}, [shoes_on_model]),
        Case("Recolor: a 200 px garment photo", "recolor", "image_too_small",
             {"image": png(tiny_garment), "garment_type": "top", "target_color": "#1F3A93"},
             [tiny_garment]),
        Case("Earfit: a 200 px model photo", "earfit", "image_too_small",
             {"ring_image": png(earring), "model_image": png(tiny_model),
              "ring_height_in": 1.5, "model_name": "Ana"}, [tiny_model]),
        # The photographed bag fixture is a 130x100 px crop: its cut-out came out fringed.
        Case("Baghold: a 130x100 px bag photo", "baghold", "image_too_small",
             {"bag_image": jpeg_of(BAG), "model_image": jpeg_of("model/model_9.png"),
              "width": 24, "height": 17, "depth": 10, "model_name": "Mila"}, [photo(BAG)]),
        # No hand in frame and a handle too short to go over the shoulder: whether the bag
        # can be carried another way is the engine's call, so its refusal counts too.
        Case("Baghold: short-handled bag, no strap, half-length portrait", "baghold",
             ("no_hand", "no_carry"),
             {"bag_image": png(bag), "model_image": png(portrait), "width": 30, "height": 25,
              "depth": 12, "model_name": "Eileen (sample)"}, [portrait]),
        Case("Flats: a look of shoes on a half-length portrait", "flats", "no_full_body",
             {"shoes": {"FRONT": jpeg_of(SHOES)}, "model": png(portrait)}, [portrait]),
        Case("Flats: a short-sleeved tee on a model in long sleeves", "flats", "arms_covered",
             {"top": {"FRONT": jpeg_of("garment/050191_1.jpg")},
              "model": jpeg_of("model/01861_00.jpg")}, [photo("model/01861_00")]),
        Case("Rebody: a half-length portrait", "rebody", "no_torso",
             {"image": png(portrait), "target_bodytype": "Curvy Fit"}, [portrait]),
        Case("Recolor: a leopard skirt whose colours read as the wearer's skin", "recolor",
             "garment_unclear", {"image": jpeg_of(LEOPARD), "garment_type": "skirt",
                                 "target_color": "#1F3A93"}, [photo(LEOPARD)]),
    ]
    for i, a in enumerate(MODELS):
        b = MODELS[(i + 1) % len(MODELS)]
        pair = side_by_side(photo(a), photo(b))
        engine, params = (("earfit", {"ring_image": png(earring), "ring_height_in": 1.5,
                                      "model_name": "Pair"})
                          if a in FACE_IN_FRAME else
                          ("baghold", {"bag_image": png(bag), "width": 30, "height": 25,
                                       "depth": 12, "model_name": "Pair"}))
        params["model_image"] = png(pair)
        cases.append(Case(f"{engine.capitalize()}: two people ({Path(a).stem} + {Path(b).stem})",
                          engine, "several_people", params, [pair]))
    return cases


def refused_code(engine: str, params: dict[str, Any]) -> str | None:
    """The code the engine refuses with (run as a job runs it), or None when it ran."""
    from workers.engines.registry import engine_at

    try:
        engine_at(f"workers.engines.{engine}:run", engine)(params, lambda *a, **k: None)
    except EngineError as exc:
        return exc.code
    return None


def acceptance_cases() -> list[tuple[str, str, dict[str, Any]]]:
    """(label, engine, params) for every fixture in the role it is meant for."""
    earring, bag = png(earring_shot()), png(bag_shot()[0])
    # A second bag of another shape (the photographed bag fixture is under the bag floor).
    tall_bag = png(bag_shot(420, 900, body_w=380, body_h=500, handle_h=250)[0])
    out: list[tuple[str, str, dict[str, Any]]] = []
    for name in GARMENTS + MODELS:
        for engine in ("recolor", "refabric", "reshape"):
            out.append((f"{engine} {name}", engine, {"image": jpeg_of(name)}))
    for name in MODELS:
        out.append((f"rebody {name}", "rebody", {"image": jpeg_of(name)}))
    for name in sorted(FACE_IN_FRAME):
        out.append((f"earfit {name}", "earfit",
                    {"ring_image": earring, "model_image": jpeg_of(name), "model_name": "M"}))
    for i, name in enumerate(FULL_FIGURE):
        # the two drawn bags in turn
        out.append((f"baghold {name}", "baghold",
                    {"bag_image": bag if i % 2 else tall_bag, "model_image": jpeg_of(name),
                     "model_name": "M"}))
        out.append((f"flats {name}", "flats",
                    {"shoes": {"FRONT": jpeg_of(SHOES)},
                     "bottom": {"FRONT": jpeg_of("garment/051827_1.jpg")},
                     "top": {"FRONT": jpeg_of(GARMENTS[0])},
                     "model": jpeg_of(name)}))
        out.append((f"flats shoes {name}", "flats",
                    {"shoes": {"FRONT": jpeg_of(SHOES)}, "model": jpeg_of(name)}))
    for name in HALF_LENGTH:
        # a half-length model still wears a top, an earring, a bag on a strap
        out.append((f"flats top {name}", "flats",
                    {"top": {"FRONT": jpeg_of("garment/050181_1.jpg")}, "model": jpeg_of(name)}))
        # the engine chooses the carry (hand, shoulder) or refuses with its own reason
        out.append((f"baghold {name}", "baghold",
                    {"bag_image": bag, "model_image": jpeg_of(name), "strap": 60}))
    for name in GARMENTS:
        out.append((f"flats items {name}", "flats",
                    {"top": {"FRONT": jpeg_of(name)}, "bottom": {"BACK": jpeg_of(name)}}))
    return out


def false_refusals(check: Callable[[str, dict[str, Any]], None] = guard_engine_inputs
                   ) -> tuple[int, list[str]]:
    """(inputs checked, the labels of those refused with their codes)."""
    cases = acceptance_cases()
    refused = []
    for label, engine, params in cases:
        try:
            check(engine, params)
        except EngineError as exc:
            refused.append(f"{label}: {exc.code}")
    return len(cases), refused


def _code_tile(code: str | None, expected: str | tuple[str, ...], width: int = 420,
               height: int = 320) -> np.ndarray:
    ok = code in expected_codes(expected)
    im = Image.new("RGB", (width, height), (225, 245, 225) if ok else (250, 215, 215))
    d = ImageDraw.Draw(im)
    d.text((10, 20), "refused with" if code else "NOT REFUSED", fill=(0, 0, 0))
    d.text((10, 50), code or "-", fill=(0, 0, 0))
    d.text((10, 90), "expected " + " or ".join(expected_codes(expected)), fill=(60, 60, 60))
    d.text((10, 130), "as expected" if ok else "WRONG", fill=(0, 110, 0) if ok else (170, 0, 0))
    return np.asarray(im)


def measure(out_dir: Path) -> ToolReport:
    report = ToolReport("refusals")
    cases = refusal_cases()
    right = 0
    sheet_rows = []
    for case in cases:
        code = refused_code(case.engine, case.params)
        right += code in expected_codes(case.expected)
        report.rows.append({"case": case.label,
                            "expected": " or ".join(expected_codes(case.expected)),
                            "refused with": code or "not refused"})
        sheet_rows.append((f"{case.label} -> {code or 'NOT REFUSED'}",
                           [*case.shown, _code_tile(code, case.expected)]))
    checked, refused = false_refusals()
    report.rows.append({"case": f"fixtures in their roles ({checked} inputs)",
                        "expected": "not refused",
                        "refused with": f"{len(refused)} refused" + (
                            ": " + "; ".join(refused) if refused else "")})
    report.bars += [
        Bar("refusal cases refused with the expected code", right, len(cases), at_least=True),
        Bar("false refusals of fixtures in their roles", len(refused), 0),
    ]
    report.notes.append(f"{right} of {len(cases)} refusal cases refused with the expected code; "
                        f"{len(refused)} of {checked} fixture inputs refused.")
    report.sheet = contact_sheet(out_dir / "refusals.png", sheet_rows, height=200)
    return report
