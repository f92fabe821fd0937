"""Ecommerce Asset: an accessory placed on the model at the body part it belongs to, with a soft
shadow, JPEG."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import composite, cut_out_product
from workers.engines.imaging.decode import encode_jpeg
from workers.engines.imaging.inputs import (
    MIN_PRODUCT_SIDE,
    refuse_person_in_product,
    require_one_person,
)
from workers.engines.tryon.accessories import ACCESSORY_KINDS, classify_accessory, place_accessory
from workers.engines.tryon.body import analyse_body
from workers.engines.tryon.images import decode_full, load_image, onto_full, working_copy
from workers.engines.tryon.shading import drop_shadow


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: garment (bytes, accessory product shot), outfit (bytes, model), kind (optional:
    bag, hat, scarf, jewellery)."""
    progress(5, "Reading images")
    full, _ = decode_full(params.get("outfit"), "model")
    model_rgb, _ = working_copy(full)
    # An accessory is scaled down to its size on the model: a small product shot will do.
    acc_rgb, acc_alpha = load_image(params.get("garment"), "accessory", MIN_PRODUCT_SIDE)
    progress(10, "Checking the images")
    refuse_person_in_product(acc_rgb, "accessory", acc_alpha)
    require_one_person(model_rgb, "The model photo", ("upper body",))
    progress(20, "Finding the person")
    body = analyse_body(model_rgb)
    progress(45, "Cutting out the accessory")
    cut = cut_out_product(acc_rgb, acc_alpha, what="accessory")
    kind = params.get("kind")
    if kind:
        kind = str(kind).strip().lower()
        if kind in ("jewelry", "necklace"):
            kind = "jewellery"
        if kind not in ACCESSORY_KINDS:
            raise EngineError("bad_kind", f"Unknown accessory kind {kind!r}: use one of "
                              + ", ".join(ACCESSORY_KINDS) + ".")
    else:
        kind = classify_accessory(cut.alpha)
    progress(65, "Placing the accessory")
    rgb, alpha, (x, y, w, h) = place_accessory(body, cut, kind)
    # A soft shadow cast a little down and to the side, then the accessory over it.
    out = drop_shadow(model_rgb, alpha, x + int(0.04 * w), y + int(0.03 * h), 0.04 * max(w, h), 0.35)
    out = composite(out, rgb, alpha, x, y)
    if kind in ("scarf", "jewellery") and body.face_box is not None:
        # The chin stays in front of a scarf.
        fa = cv2.GaussianBlur((body.head & (body.mask > 0.5)).astype(np.float32), (0, 0), 1.0)[..., None]
        out = (model_rgb.astype(np.float32) * fa + out.astype(np.float32) * (1 - fa)).astype(np.uint8)
    progress(90, "Encoding")
    data = encode_jpeg(onto_full(full, model_rgb, out), quality=92)
    progress(100)
    return [EngineOutput(data, "image/jpeg", f"ecommerce-asset-{kind}.jpg")]
