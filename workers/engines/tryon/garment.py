"""The garment from its product shot: cut out, its rim cleaned, its category and keypoints read
from the silhouette."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging import warp
from workers.engines.imaging.cutout import border_colour, cut_out, refine_matte, spread_colours
from workers.engines.tryon.images import load_image

CATEGORY_ALIASES = {
    "upper_body": warp.UPPER, "upper": warp.UPPER, "top": warp.UPPER, "tops": warp.UPPER,
    "lower_body": warp.LOWER, "lower": warp.LOWER, "bottom": warp.LOWER, "bottoms": warp.LOWER,
    "trousers": warp.LOWER, "pants": warp.LOWER, "skirt": warp.LOWER, "jeans": warp.LOWER,
    "shorts": warp.LOWER,
    "one_piece": warp.ONE_PIECE, "dress": warp.ONE_PIECE, "dresses": warp.ONE_PIECE,
    "jumpsuit": warp.ONE_PIECE, "full": warp.ONE_PIECE,
}


@dataclass
class Garment:
    rgb: np.ndarray
    alpha: np.ndarray
    shape: warp.GarmentShape


def _bleed(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The cut-out's colours with its rim and transparent margin taken from the opaque inside.

    A product shot's rim pixels still carry some of the sweep; the warp's bilinear lookups and
    the feathered edge would mix it back in as a light line around a dark garment.
    """
    if (alpha > 0.9).sum() < 16:
        return rgb
    return np.clip(spread_colours(rgb, alpha > 0.9) + 0.5, 0, 255).astype(np.uint8)


def prepare_garment(data: bytes, category: str | None = None) -> Garment:
    rgb, alpha = load_image(data, "garment")
    has_alpha = alpha is not None and float((alpha < 0.5).mean()) > 0.01
    cut = cut_out(rgb, alpha, what="garment")
    matte = cut.alpha
    if not has_alpha:
        matte = refine_matte(cut.rgb, matte, border_colour(rgb))
    # A margin so the warp's bilinear lookups fade to transparent instead of clamping.
    pad = 4
    # Shrink the matte by a pixel: product-shot rims carry the sweep's colour and shadow.
    eroded = cv2.erode(matte, np.ones((3, 3), np.uint8))
    crgb = cv2.copyMakeBorder(_bleed(cut.rgb, eroded), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    calpha = cv2.copyMakeBorder(eroded, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    if category:
        cat = CATEGORY_ALIASES.get(str(category).strip().lower().replace("-", "_").replace(" ", "_"))
        if cat is None:
            raise EngineError("bad_category", f"Unknown garment category {category!r}: use "
                              "upper_body, lower_body or one_piece.")
    else:
        cat = warp.classify(calpha)
    try:
        shape = warp.garment_keypoints(calpha, cat)
    except (ValueError, IndexError) as exc:
        raise EngineError("no_garment", "The garment's outline could not be read.") from exc
    return Garment(crgb, calpha, shape)
