"""The garment from its product shot: cut out, its rim cleaned, its category and keypoints read
from the silhouette."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging import warp
from workers.engines.imaging.cutout import (
    border_colour,
    cut_out,
    drop_cast_shadow,
    refine_matte,
    spread_colours,
)
from workers.engines.imaging.matte import weak_outline_share
from workers.engines.imaging.resize import limit_side
from workers.engines.tryon.images import load_image

CATEGORY_ALIASES = {
    "upper_body": warp.UPPER, "upper": warp.UPPER, "top": warp.UPPER, "tops": warp.UPPER,
    "lower_body": warp.LOWER, "lower": warp.LOWER, "bottom": warp.LOWER, "bottoms": warp.LOWER,
    "trousers": warp.LOWER, "pants": warp.LOWER, "skirt": warp.LOWER, "jeans": warp.LOWER,
    "shorts": warp.LOWER,
    "one_piece": warp.ONE_PIECE, "dress": warp.ONE_PIECE, "dresses": warp.ONE_PIECE,
    "jumpsuit": warp.ONE_PIECE, "full": warp.ONE_PIECE,
}
# Share of the cut-out's outline with the same colour on both sides above which the cut went
# through the fabric, not round it (a white garment on a white sweep). Our fixture product
# shots measure 0 to 1.1 % (a striped top's cuffs, a long sleeve's print), the white printed
# tee on a light sweep 11 %.
WEAK_OUTLINE = 0.04
# A garment fills a good part of its own outline's box; a cut that found only the print on a
# white tee (its letters, a face) is scattered specks.
MIN_SOLIDITY = 0.45
# GrabCut's working copy for a garment's product shot (long side, px): a garment is one large
# smooth shape, whose outline GrabCut finds as well at this size as at the 480 px that thin
# chains and straps need; the soft edge is recomputed at full resolution either way, and
# GrabCut is the dearest step of preparing a garment (its cost grows with the pixels).
GARMENT_CUT_SIDE = 360.0
# And one round of GrabCut, not two: for such a shape the second round moves the outline by a
# pixel at a few frayed threads (the matte's IoU with two rounds' is 0.998 or more on our
# garment shots, 0.969 on the white tee refused as not separable either way), and each round
# costs about as much as the other.
GARMENT_CUT_ROUNDS = 1
# The long side at which the cut-out's outline is checked (weak_outline_share's own scale).
OUTLINE_SIDE = 512


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
    # Only colours near the matte are ever read: the warp's bilinear lookups reach a pixel
    # past it, a flat lay's area shrink as many pixels as it shrinks by. 1/64 of the long side
    # covers a garment drawn down to 64 px; further out the colours are never mixed in, so
    # they are left as they are rather than filled by the widest (dearest) blurs.
    reach = max(4, round(max(alpha.shape) / 64))
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * reach + 1, 2 * reach + 1))
    near = cv2.dilate((alpha > 0).astype(np.uint8), k) > 0
    return np.clip(spread_colours(rgb, alpha > 0.9, near) + 0.5, 0, 255).astype(np.uint8)


def _not_separable() -> EngineError:
    return EngineError(
        "product_not_separable",
        "The garment cannot be told from the background of its product shot (a white garment "
        "on a white sweep?): send a shot on a backdrop that contrasts with the garment, or a "
        "PNG cut-out with transparency.")


def _check_separable(rgb: np.ndarray, matte: np.ndarray) -> None:
    """Refuse a cut-out that did not follow the garment's edge: its outline runs through
    cloth of the backdrop's colour, or it is scattered pieces of a print."""
    solid = (matte > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    if n < 2:
        raise _not_separable()
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    area = float(stats[big, cv2.CC_STAT_AREA])
    box = float(stats[big, cv2.CC_STAT_WIDTH] * stats[big, cv2.CC_STAT_HEIGHT])
    if area < 0.7 * float(solid.sum()) or area < MIN_SOLIDITY * box:
        raise _not_separable()
    # The share is read at 512 px on the long side (the scale of its blurs and bands): a
    # larger cut-out is reduced to that first rather than blurred at full size; our garment
    # shots' shares move by 0.0004 at most (the refused white tee's by 0.002, 0.180 -> 0.182).
    rgb, _ = limit_side(rgb, OUTLINE_SIDE)
    matte, _ = limit_side(matte.astype(np.float32), OUTLINE_SIDE)
    if weak_outline_share(rgb, matte) > WEAK_OUTLINE:
        raise _not_separable()


def prepare_garment(data: bytes, category: str | None = None) -> Garment:
    rgb, alpha = load_image(data, "garment")
    return prepare_garment_image(rgb, alpha, category)


def prepare_garment_image(rgb: np.ndarray, alpha: np.ndarray | None, category: str | None = None) -> Garment:
    """The garment of a decoded product shot (a working copy, alpha float32 or None)."""
    has_alpha = alpha is not None and float((alpha < 0.5).mean()) > 0.01
    try:
        cut = cut_out(rgb, alpha, what="garment", work_side=GARMENT_CUT_SIDE,
                      rounds=GARMENT_CUT_ROUNDS, outline=True)
    except EngineError as exc:
        if exc.code == "no_garment" and not has_alpha:
            raise _not_separable() from exc
        raise
    matte = cut.alpha
    if not has_alpha:
        backdrop = border_colour(rgb)
        # The shadow first: with it gone, the rim's colour is re-read against the fabric.
        matte = refine_matte(cut.rgb, drop_cast_shadow(cut.rgb, matte, backdrop), backdrop)
        _check_separable(cut.rgb, matte)
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
    except warp.UnreadableSleeves as exc:
        raise EngineError(
            "garment_unreadable",
            "The garment's outline does not show whether it has sleeves (its sides run from "
            "the neck to the hem with no gap under the arms, neither as an armhole nor as a "
            "shoulder), so it cannot be fitted to a body. Send a front view with the sleeves "
            "held a little away from the body, or a PNG cut-out with transparency.") from exc
    except (ValueError, IndexError) as exc:
        raise EngineError("no_garment", "The garment's outline could not be read.") from exc
    _check_shoulders(shape)
    return Garment(crgb, calpha, shape)


# A top's or a dress's shoulder points, read from its outline: at least this share of its
# width apart, and level to within this share. On the front-view product shots we have they
# are 0.18 to 0.81 apart and level to 0.07. A cut-out that lost part of the garment (a white
# tee on a pale sweep: its print alone), a camisole whose straps were both taken for one
# shoulder, or a halter neck came out 0.03 to 0.09 apart or 0.36 askew, and were dressed as
# shreds of fabric and painted skin.
SHOULDERS_APART = 0.15
SHOULDERS_LEVEL = 0.15


def _check_shoulders(shape: warp.GarmentShape) -> None:
    """Refuse a top or dress whose shoulders the outline does not show where a garment's are."""
    p, w = shape.points, float(shape.width)
    if shape.category == warp.LOWER or w <= 0:
        return
    pairs = [(p[f"{k}_l"], p[f"{k}_r"]) for k in ("shoulder", "armhole")
             if f"{k}_l" in p and f"{k}_r" in p]
    if not pairs:
        return
    apart = abs(pairs[0][1][0] - pairs[0][0][0]) / w
    askew = max(abs(r[1] - l[1]) for l, r in pairs) / w
    if apart < SHOULDERS_APART or askew > SHOULDERS_LEVEL:
        raise EngineError(
            "garment_unreadable",
            "The garment's shoulders could not be found in its product shot (read "
            f"{apart:.0%} of its width apart and {askew:.0%} askew), so it cannot be fitted "
            "to a body. Send a front view of the whole garment, laid flat or on an invisible "
            "mannequin, on a backdrop that contrasts with it, or a PNG cut-out with "
            "transparency.")
