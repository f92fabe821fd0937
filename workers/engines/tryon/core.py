"""The try-on core that Virtual Try-On, Restyle and Garment Integration share: a body wearing a
garment (``dress``), and the read-analyse-cut-fit pipeline around it (``try_on``)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, Progress
from workers.engines.imaging import warp
from workers.engines.tryon.body import (
    Body,
    analyse_body,
    arms_mask,
    bare_arms_in_front,
    bare_hands,
    body_box,
    front_mask,
    limbs_covered,
    limbs_of,
    old_garment,
    outer_forearms,
    skin_zone,
    sleeve_wrap,
    torso_sides,
)
from workers.engines.tryon.garment import Garment, prepare_garment_image
from workers.engines.tryon.guards import check_garment, check_person, check_pose
from workers.engines.tryon.images import decode_full, onto_full, working_copy
from workers.engines.tryon.placement import nonzero_box, warp_garment
from workers.engines.tryon.shading import cloth_shading, continues_below, fill_uncovered, rounding

# How far past the person's bounding box (a share of its width and height) a garment may reach.
BOX_MARGIN = 0.05
# Both arms covered by the person's clothes over at least this share of what the new garment's
# sleeves leave bare (long sleeves under a tee's short ones), or both legs of what its hems
# leave bare (trousers under shorts): the bare forearms or legs would have to be made up, and
# come out as flat shapes of skin rimmed with the old clothes' colour. On our photos: 0.80 and
# more under long sleeves; 0.77 at most on a bare arm, where the pose puts the bones on the
# dress beside it, and then never on both arms.
LIMBS_INVENTED = 0.6
# A leg left bare by new trousers, shorts or a skirt over at least this share of its length
# (hip to ankle) where the photo shows it covered: 0.17 to 0.65 on our photos under shorts cut
# from jeans, under trousers over a dress or on a walking stride, each time drawn as flat skin
# (or as two tubes with the skin between); 0.016 at most where trousers are dressed well.
LEGS_INVENTED = 0.12
# Share of the upper chest (shoulder line to 0.45 of the torso down, within the shoulders) a
# top or dress would leave bare where the photo shows it covered: a lower neckline than the
# worn one. 0.33 to 0.73 on our photos for a V-neck strap top or a square neckline over tees and
# crew necks, each painted as a flat, banded patch of skin; 0.25 at most where the chest came
# out as skin a catalogue would take, 0.06 at most for necklines no lower than the worn one.
CHEST_INVENTED = 0.3
# The same below the chest, to just above the hips: a crop top or a top split at the front
# over a longer one. 0.086 to 0.73 on our photos for such a top, each showing a painted band or
# gap of skin; 0.09 at most for a tee or a dress.
MIDRIFF_INVENTED = 0.1
_GARMENT = {warp.UPPER: "the top", warp.ONE_PIECE: "the dress"}  # (sleeves: no bottoms)


def _torso_band(body: Body, top: float, bottom: float, half: float) -> np.ndarray:
    """A band of the person's torso (bool): from ``top`` to ``bottom`` torso lengths below the
    shoulder line, ``half`` shoulder widths either side of its middle, the head left out."""
    if "torso_axes" not in body.extras:  # the same for every band of the photo
        yy, xx = np.mgrid[0:body.h, 0:body.w].astype(np.float32)
        x, y = xx - float(body.shoulder_mid[0]), yy - float(body.shoulder_mid[1])
        body.extras["torso_axes"] = (
            (x * float(body.down[0]) + y * float(body.down[1])) / max(body.torso_len, 1.0),
            np.abs(x * float(body.u[0]) + y * float(body.u[1])))
    along, across = body.extras["torso_axes"]
    return ((along > top) & (along < bottom) & (across < half * body.shoulder_width)
            & (body.mask > 0.5) & ~body.head)


def skirt_allowance(body: Body) -> np.ndarray:
    """Where a dress's skirt may hang below the hips (float32, soft edge): an A-line from the
    hips' width, a third wider at the ankles. A product shot's skirt laid flat is far wider
    than it hangs; warped as it is, it spreads into the room as a trapezoid."""
    h, w = body.h, body.w
    centre, hl, hr = torso_sides(body, body.torso_len)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    along = (xx - float(centre[0])) * float(body.down[0]) + (yy - float(centre[1])) * float(body.down[1])
    across = (xx - float(centre[0])) * float(body.u[0]) + (yy - float(centre[1])) * float(body.u[1])
    ankles = [c["ankle"] for c in (body.left, body.right) if "ankle" in c]
    leg = (float((np.mean(ankles, axis=0) - centre) @ body.down) if ankles else 1.6 * body.torso_len)
    t = np.clip(along / max(leg, 1.0), 0.0, 1.0)
    half = np.where(across < 0, hl, hr) * (1.08 + 0.35 * t)
    m = ((along > 0) & (np.abs(across) <= half)).astype(np.float32)
    return cv2.GaussianBlur(m, (0, 0), 1.0)


def _refuse_invented_limbs(body: Body, cat: str, arm_starts: dict[str, float],
                           alpha: np.ndarray) -> None:
    """Refuse a garment that would bare skin the photo shows covered: forearms under long
    sleeves (LIMBS_INVENTED), legs under trousers (LEGS_INVENTED), a chest under a higher
    neckline (CHEST_INVENTED), a midriff under a longer top (MIDRIFF_INVENTED). ``alpha``:
    the new garment's opacity."""
    bared = old_garment(body, cat) & (alpha < 0.5)
    if cat in (warp.LOWER, warp.ONE_PIECE):
        # A dress shorter than the trousers or the long skirt the photo shows bares the legs
        # as shorts over trousers do.
        leg = max(limbs_covered(body, bared, "leg"), default=0.0)
        if leg >= LEGS_INVENTED:
            raise EngineError(
                "legs_covered",
                f"The photo shows {leg:.0%} of a leg covered (by trousers, a skirt or a "
                "dress) where the new garment would leave it bare, so that part of the leg would "
                "have to be invented. Use a photo of the model with bare legs, or in a garment "
                "no longer than the new one.")
    if cat == warp.LOWER:
        return
    for part, band, limit, advice in (
            ("upper chest", (-0.15, 0.45, 0.32), CHEST_INVENTED,
             "in a neckline as low as the new garment's, or a garment with a higher neckline"),
            ("midriff", (0.45, 0.95, 0.3), MIDRIFF_INVENTED,
             "in a top no longer than the new one, or a longer garment")):
        zone = _torso_band(body, *band)
        share = float((zone & bared).sum()) / max(float(zone.sum()), 1.0)
        if share >= limit:
            raise EngineError(
                f"{part.split()[-1]}_covered",
                f"The photo shows {share:.0%} of the {part} covered where {_GARMENT[cat]} "
                "would leave it bare, so that skin would have to be invented. Use a photo of "
                f"the model {advice}.")
    covered = limbs_covered(body, old_garment(body, cat), "arm", arm_starts)
    if len(covered) == 2 and min(covered) >= LIMBS_INVENTED:
        raise EngineError(
            "arms_covered",
            f"The model's arms are covered down to the wrists ({min(covered):.0%} of what "
            f"{_GARMENT[cat]}'s sleeves leave bare), so bare arms would have to be invented. "
            "Use a photo of the model with bare forearms, or a garment with long sleeves.")


def dress(
    body: Body, g: Garment, base: np.ndarray | None = None, *, ghost: bool = False,
    fill_old: bool = True,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The person (or ``base``, an image already dressed in earlier layers) wearing ``g``.

    Layers, back to front: the photo with the old garment painted out where the new one does
    not reach, the body of the new garment, bare arms and hands, the sleeves, face and hair.
    ``ghost``: ``base`` is an empty sweep and the body only lends its pose (invisible
    mannequin). ``fill_old``: paint out what the new garment leaves of the old one.
    """
    # The colour clusters (old garment, shading) start from k-means++ seeds: the same photo
    # gives the same picture every time.
    cv2.setRNGSeed(0)
    out = (body.rgb if base is None else base).copy()
    cat = g.shape.category
    rgb, a, info = warp_garment(g, body)
    h, w = body.h, body.w
    sw = body.shoulder_width
    if not ghost:
        # The garment hugs the body: little of it may stand off the silhouette (gaps between
        # arms and torso stay background), except a dress's skirt below the hips.
        reach = max(1, int((0.07 if cat == warp.LOWER else 0.04) * sw))
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
        person = (body.mask > 0.5).astype(np.uint8)
        # Forearms and hands do not carry the garment's body: it stops at them, not past them.
        # Only their outer half stops it: under the inner half the garment goes on, hidden by
        # the arm drawn in front, so no strip of the old clothes shows between the two (the
        # capsule is wider than most arms).
        forearms = outer_forearms(body)
        allow_sleeve = cv2.dilate(person, disc).astype(np.float32)
        allow = cv2.dilate(person & (1 - forearms), disc).astype(np.float32)
        skirt = skirt_allowance(body) if cat == warp.ONE_PIECE else None
        if skirt is not None:
            allow = np.maximum(allow, skirt)
        if "outline" in info:
            poly = np.zeros((h, w), np.uint8)
            cv2.fillPoly(poly, [np.round(info["outline"]).astype(np.int32)], 1)
            poly_f = poly.astype(np.float32)
            if skirt is not None:
                # Below the hips a skirt hangs in its A-line, not out to its flat flare.
                rows = np.arange(h)[:, None]
                poly_f = np.where(rows > body.hip_mid[1], poly_f * skirt, poly_f)
            allow = np.maximum(allow, poly_f)
        share = info.get("sleeve_share", 0.0)
        # A sleeve swung down a hanging arm shows about as wide as the arm it wraps; the rest of
        # its flat width folds under, out of sight.
        allow_sleeve = allow_sleeve * sleeve_wrap(body)
        allow = share * allow_sleeve + (1.0 - share) * allow
        a = a * cv2.GaussianBlur(allow, (0, 0), 1.0)
        # Arms and hands in front of the garment's body from the sleeve's end (or the armpit)
        # down; the sleeves over the arms.
        starts = {}
        for side, chain in (("l", body.left), ("r", body.right)):
            if "elbow" not in chain:
                continue
            upper = float(np.linalg.norm(chain["elbow"] - chain["shoulder"]))
            arm_len = upper + (float(np.linalg.norm(chain["wrist"] - chain["elbow"])) if "wrist" in chain else 0.0)
            sleeve = info.get("sleeve_frac", {}).get(side, 0.0) * arm_len
            # The sleeve's hem is slanted: the arm comes out from under all of it a little on.
            radius = limbs_of(body)[f"arm_{side}"].radii[0] if f"arm_{side}" in limbs_of(body) else 0.0
            starts[side] = max(0.4 * upper, sleeve + 0.6 * radius if sleeve > 0 else 0.0)
        # The same arms again for the bare arms drawn in front below: worked out once.
        arms = arms_mask(body, starts, cat)
        a = a * (1.0 - arms * (1.0 - info.get("sleeve_share", 0.0)))
        a = a * (1.0 - front_mask(body, cat))
        # Nothing of the garment past the person's box and a small margin: a skirt's or a
        # boxy top's flare stops there, it never spreads into the room.
        a = a * body_box(body, BOX_MARGIN)
        _refuse_invented_limbs(body, cat, starts, a)
    a = np.clip(cv2.GaussianBlur(a, (0, 0), 0.5), 0, 1)
    covered = a > 0.5
    # The bare arms and hands in front, as the photo shows them, over everything.
    arms_front = None if ghost else np.maximum(bare_arms_in_front(body, starts, cat, arms) * (
        1.0 - np.asarray(info.get("sleeve_share", 0.0)) * (a > 0.05)), bare_hands(body, cat))
    if arms_front is not None:
        # The guided filter leaves the arm's own outline half transparent: the garment would
        # show through it as a seam down the arm. Solid from half way, feathered outside.
        # Never the old garment's own pixels beside the arm, which would come back with it.
        arms_front = np.clip(2.0 * arms_front, 0.0, 1.0) * (~old_garment(body, cat))
    if not ghost:
        old = old_garment(body, cat)
        if fill_old and old.any():
            grown = cv2.dilate(old.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
            grown &= ~body.head
            if base is not None:
                # What an earlier layer painted is not the old garment any more.
                grown &= np.abs(base.astype(np.int16) - body.rgb.astype(np.int16)).max(axis=2) < 12
            uncovered = grown & (a < 0.6)
            if arms_front is not None:
                uncovered &= arms_front < 0.5
            if cat == warp.UPPER:
                uncovered &= ~continues_below(body, old, covered)
            out = fill_uncovered(out, body, uncovered, covered, skin_zone(body, cat))
        shade = cloth_shading(body, (old | covered) & ~body.head)
    else:
        shade = cloth_shading(body, covered)
    shade = shade * rounding(a, sw)
    # Each blend only where its weight is not 0: elsewhere it gives back ``out`` exactly.
    box = nonzero_box(a)
    if box is not None:
        ab = a[box][..., None]
        layer = np.clip(rgb[box].astype(np.float32) * shade[box][..., None], 0, 255)
        out[box] = np.clip(layer * ab + out[box].astype(np.float32) * (1 - ab) + 0.5, 0,
                           255).astype(np.uint8)
    if arms_front is not None and arms_front.any():
        fbox = nonzero_box(arms_front)
        assert fbox is not None
        f = arms_front[fbox][..., None]
        out[fbox] = np.clip(body.rgb[fbox].astype(np.float32) * f
                            + out[fbox].astype(np.float32) * (1 - f) + 0.5, 0, 255).astype(np.uint8)
        a = a * (1.0 - arms_front)
    info["alpha"] = a
    info["garment_rgb"] = rgb
    return out, info


def try_on(params: dict[str, Any], progress: Progress, person_key: str, what: str) -> tuple[np.ndarray, Body, Garment, dict[str, Any]]:
    """The person photo under ``params[person_key]`` (named ``what`` in errors) wearing
    ``params["garment"]``: the dressed picture (the working copy), the body, the garment and
    the fit's facts; ``info["full"]`` is the photo at its own size (see ``deliver``).

    Inputs that cannot work are refused before any fitting (``guards``): a photo under 256 px,
    a garment shot of a person wearing it or one that cannot be cut from its backdrop, two
    people, a person cropped above what the garment covers or seated."""
    progress(5, "Reading images")
    full, _ = decode_full(params.get(person_key), what)
    person_rgb, _ = working_copy(full)
    g_rgb, g_alpha = decode_full(params.get("garment"), "garment")
    g_work, g_walpha = working_copy(g_rgb, g_alpha)
    del g_rgb
    progress(10, "Checking the garment")
    check_garment(g_work, g_walpha)
    progress(20, "Cutting out the garment")
    g = prepare_garment_image(g_work, g_walpha, params.get("category"))
    progress(30, "Finding the person")
    check_person(person_rgb, what, g.shape.category)
    body = analyse_body(person_rgb)
    check_pose(body.pose, what, g.shape.category)
    progress(55, "Fitting the garment")
    out, info = dress(body, g)
    info["full"] = full
    progress(90, "Encoding")
    return out, body, g, info


def deliver(out: np.ndarray, body: Body, info: dict[str, Any]) -> np.ndarray:
    """The dressed working copy carried onto the photo at its own size."""
    return onto_full(info.get("full", body.rgb), body.rgb, out)
