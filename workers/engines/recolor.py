"""Recolor: the garment's base colour becomes the partner's target colour, shading kept.

Work happens in OKLab. The garment's colours are clustered; the dominant cluster (with the
clusters that are only its shades) is the base, and only pixels that look like the base are
moved, with soft weights, so prints, logos, trims and other colour blocks keep their colours.
Lightness keeps its detail relative to the base's median (folds, seams, knit texture), scaled
when the target is much darker or lighter so a white shirt turned navy still has its folds and
a black one turned white does not come out flat grey. A bright target on a dark garment whose
highlights rise far above its base (velvet, satin) keeps its relief in two layers, the broad
sheen eased and the fine relief kept, with the base a little under the target to give the
highlights room instead of burning them. Background and skin are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging import matte
from workers.engines.imaging.color import (
    CLOTH_WEIGHTS,
    WARM_NEUTRAL,
    cloth_clusters,
    gamut_map_oklab,
    hue_gap_degrees,
    linear_to_srgb,
    neutral_shade,
    oklab_to_linear,
    parse_hex,
    soft_clip,
    srgb8_to_oklab,
)
from workers.engines.imaging.decode import png_engine_run

# OKLab chroma under which a colour reads as grey, white or black.
NEUTRAL_CHROMA = 0.025
# Share of a product shot's garment outline with the same colour on both sides above which
# the mask has cut through the fabric (garments with a real outline: under 1 %).
WEAK_OUTLINE = 0.012
# Weighted OKLab distance (CLOTH_WEIGHTS) within which a piece inside a print is the fabric
# showing through (a letter's counter) rather than a print colour near it.
FABRIC_MATCH = 0.03


@dataclass(frozen=True)
class RecolorResult:
    rgb: np.ndarray  # uint8 HxWx3
    mask: np.ndarray  # float32 HxW: the garment
    weight: np.ndarray  # float32 HxW: how much of each pixel was moved (base colour share)
    base_oklab: np.ndarray  # the garment's base colour before


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    return png_engine_run(params, progress, lambda rgb: recolor_image(
        rgb,
        target_color=str(params.get("target_color") or ""),
        garment_type=str(params.get("garment_type") or ""),
        progress=progress,
    ).rgb, "recolor.png")


def recolor_image(
    rgb: np.ndarray,
    *,
    target_color: str,
    garment_type: str,
    mask: np.ndarray | None = None,
    scene: garment_mod.Scene | None = None,
    progress: Progress | None = None,
) -> RecolorResult:
    """The array-level engine: uint8 RGB in, recoloured uint8 RGB out (plus what it moved)."""
    target_rgb = np.array(parse_hex(target_color), np.uint8)
    garment_mod.garment_region(garment_type)  # refuse unknown types before any work
    check_outline = False
    skin = None
    others = None
    held_bag = None
    if mask is None:
        found = garment_mod.garment_mask(rgb, garment_type, scene=scene)
        mask = found.mask
        check_outline = not found.worn
        skin = found.skin > 0.5 if found.worn else None
        others = found.others
        held_bag = found.held
        garment_mod.refuse_unclear(found, garment_type)
    mask = _fill_small_holes(mask)
    if progress:
        progress(50)
    target = srgb8_to_oklab(target_rgb).astype(np.float32)
    h, w = mask.shape
    scale = max(h, w) / 512.0

    # The matte snapped to the photo's edges: inside it every pixel is garment; its rim is
    # handled apart, by how much garment each rim pixel holds.
    alpha = matte.refine_alpha(rgb, mask)
    interior = alpha > 0.97
    if interior.sum() < 50:
        raise EngineError("garment_not_found", f"No {garment_type} was found in the image.")
    # On a product shot the mask comes from the backdrop's colour; a light garment on a light
    # sweep can defeat it, and the mask then cuts across the fabric. A recolour would stop in
    # the middle of the garment: refuse instead.
    if check_outline and matte.weak_outline_share(rgb, alpha) > WEAK_OUTLINE:
        raise EngineError(
            "garment_unclear",
            f"The {garment_type}'s outline cannot be told from the backdrop (a light garment on "
            "a light backdrop?): send a photo on a backdrop that contrasts with the garment.",
        )
    lab_full = srgb8_to_oklab(rgb)

    core = interior & (mask > 0.5)
    base_groups, base = _base_colour(lab_full[core] if core.sum() > 50 else lab_full[interior])
    base_groups = _fades(lab_full, base_groups, interior, scale)
    # A print in a shade of the base's own hue is no shade of the base: clustered with the
    # garment, its colours join the base's shades and bridge the base to a colour block of the
    # same hue (a tee's dark sleeves). A shade cluster that is mostly such a print's is not
    # the base's.
    shade = _shade_prints(lab_full, base_groups, base, interior, alpha, scale)
    if shade.any():
        base_groups = _without_prints(base_groups, lab_full[core], shade[core])
    # A garment mask of a worn outfit can miss a part of the garment (a sleeve against the
    # body, a side in shadow); left out, it would keep the old colour beside the new one.
    grown = _missed_parts(rgb, lab_full, alpha, base_groups, base, scale,
                          garment_mod.garment_region(garment_type), skin, others)
    if grown is not None:
        added = cv2.GaussianBlur(grown.astype(np.float32), (0, 0), 0.7 * scale)
        mask = np.maximum(mask, added)
        # The matte snaps to the photo's edges, and the creases inside what grew (the fold
        # between a sleeve and the body) would cut it into lines of the old colour: what grew
        # is garment by its colour, whatever edges run through it.
        alpha = np.maximum(matte.refine_alpha(rgb, mask), cv2.erode(added, np.ones((3, 3),
                                                                                 np.uint8)))
        interior = alpha > 0.97
    if held_bag is not None:
        # A bag held in front of the garment can be of its colour (a cream bag on an ivory
        # dress): filling and growing the mask took it back in.
        alpha = alpha * (1.0 - held_bag)
        interior = alpha > 0.97
    # Where the mask itself is unsure (a worn garment's mask is soft over wide areas where the
    # person segmentation hesitates), pixels are moved in proportion to it, as a blend.
    region = alpha > 0.02
    soft = np.clip(alpha / 0.97, 0.0, 1.0)
    # Membership is decided on a smoothed image: decided per noisy pixel, a weight flickering
    # between 0.9 and 1 would print the JPEG noise (or a heather's flecks) into the new colour
    # as grain. Textured fabrics get more smoothing than flat ones.
    # The smoothing only averages garment pixels, so the backdrop does not bleed into the
    # outline's pixels and make them look like something other than the base.
    smooth_rgb, _ = matte.spread(rgb.astype(np.float32), alpha > 0.5, 1.2 * scale)
    smooth = srgb8_to_oklab(np.clip(smooth_rgb[region] + 0.5, 0, 255).astype(np.uint8))
    share = np.zeros((h, w), np.float32)
    share[region] = _base_membership(smooth, base_groups["base"], base_groups["other"],
                                     base)
    share = np.clip((share - 0.05) / 0.8, 0.0, 1.0)  # snap the core to 1, strays to 0
    # On a heather or mottled knit single flecks still cross the line; a median over a few
    # pixels removes them and keeps the outlines of prints and logos where they are.
    k = _fleck_kernel(lab_full[..., 0], interior, scale)
    if k > 1:
        share = cv2.medianBlur((share * 255 + 0.5).astype(np.uint8), k).astype(np.float32) / 255
        share *= region
    share[shade] = 0.0
    chroma = np.zeros((h, w), np.float32)
    chroma[region] = np.hypot(smooth[:, 1], smooth[:, 2])
    # Away from the outline: there a worn garment's mask takes in slivers of skin, which the
    # mask decides on, not the colour.
    away = cv2.erode((alpha > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8),
                     iterations=max(3, round(6 * scale))) > 0
    tinted = _tinted_print(chroma, base, interior & (share > 0.95), interior & away, scale,
                           lab=lab_full, skin=skin)
    share[tinted] = 0.0
    share = _holes_in_print(share, lab_full, base, interior, alpha, scale)
    share[tinted] = 0.0  # a pale print is near the fabric's colour: there it took it for fabric

    idx = region & (share > 0)
    lab = lab_full[idx]
    weight = share[idx] * soft[idx]
    L_new = _squeezed(lab_full[..., 0], share, interior, idx, base, target, scale)
    if L_new is None:
        # Shading: the base's lightness, smoothed, taken where the base is; the rest is detail.
        shading, _ = matte.spread(lab_full[..., 0], share * interior, 3.0 * scale)
        # The broad sheen (drape, large highlights), which alone is compressed under white.
        coarse, _ = matte.spread(lab_full[..., 0], share * interior, 5.0 * scale)
        L_base, relief = _tone(lab[:, 0], shading[idx], base, target, coarse[idx])
        L_new = L_base + relief * _relief_gain(L_base, relief, idx, scale)
    new = _colour(lab, L_new, base, target)
    blended = lab + (new - lab) * weight[:, None]
    lin = oklab_to_linear(gamut_map_oklab(blended))
    out = rgb.copy()
    out[idx] = np.clip(linear_to_srgb(lin) * 255.0 + 0.5, 0, 255).astype(np.uint8)

    # Edges: the garment's outline and the borders between the base and a print or another
    # colour block. A pixel there is a mix of the base and what lies beside it (backdrop,
    # skin, print); it takes the local change of the base beside it, in proportion to how much
    # base it holds, unmixed from the two colours on either side. No ring of the old colour
    # where the mask ended early or along a print's edge, no half-moved backdrop or print.
    reach = cv2.dilate(((mask > 0.004) | (alpha > 0.02)).astype(np.uint8),
                       np.ones((3, 3), np.uint8), iterations=max(1, round(1.5 * scale))) > 0
    weight_full = (share * soft * region).astype(np.float32)
    base_core = interior & (share > 0.95)
    # Print for sure: far from the base both smoothed and pixel by pixel. Between it and the
    # base's core lie the pixels the smoothing made doubtful (a halo around a light print on
    # a dark base) and the print's antialiased edge: those are unmixed too.
    edge = (cv2.dilate(base_core.astype(np.uint8), np.ones((3, 3), np.uint8),
                       iterations=max(3, round(3 * scale))) > 0) & ~base_core & reach
    doubt = edge & interior & (share < 0.05)
    raw = np.zeros((h, w), np.float32)
    raw[doubt] = _base_membership(lab_full[doubt], base_groups["base"], base_groups["other"],
                                 base)
    print_core = interior & (share < 0.05) & ~(doubt & (raw >= 0.1))
    # A pale print or one in the base's own shade lies within the base's colour distance, and
    # would read as doubtful pixels all across a thin letter: it was found by its own rule.
    print_core |= (interior & tinted) | shade
    if held_bag is not None:
        edge &= held_bag < 0.5
    edge &= ~print_core | (cv2.dilate(base_core.astype(np.uint8), np.ones((3, 3), np.uint8),
                                      iterations=max(1, round(scale))) > 0)
    if edge.any():
        sigma_e = max(1.5, 2.0 * scale)
        img = rgb.astype(np.float32)
        fg, _ = matte.spread(img, base_core, sigma_e)
        bg, bg_support = matte.spread(img, (~base_core & ~edge) | print_core, sigma_e)
        moved_share, _ = matte.spread(share, interior, sigma_e)
        prior = np.where(interior, share, alpha * moved_share)
        held = matte.unmix_alpha(rgb, fg / 255.0, bg / 255.0, prior)
        held = np.where(bg_support > 0.05, held, prior)  # nothing else beside it: keep prior
        delta = out.astype(np.float32) - img
        change, support = matte.spread(delta, base_core, sigma_e)
        k = (held * np.clip(support / 0.02, 0.0, 1.0))[edge]
        edge_px = img[edge] + change[edge] * k[:, None]
        out[edge] = np.clip(edge_px + 0.5, 0, 255).astype(np.uint8)
        weight_full[edge] = k
    if progress:
        progress(90)
    return RecolorResult(rgb=out, mask=alpha.astype(np.float32), weight=weight_full,
                         base_oklab=base)


def _fill_small_holes(mask: np.ndarray) -> np.ndarray:
    """A worn garment's mask can cut holes around a print's letters. Holes small against the
    garment are print or fabric, never backdrop: they are given to the garment, and the colour
    membership decides what in them moves (the letters keep their colours)."""
    inside = (mask > 0.5).astype(np.uint8)
    area = int(inside.sum())
    if not area:
        return mask
    n, labels, stats, _ = cv2.connectedComponentsWithStats(1 - inside, connectivity=4)
    h, w = mask.shape
    fill = np.zeros((h, w), bool)
    for i in range(1, n):
        x, y, bw, bh, a = stats[i]
        if x == 0 or y == 0 or x + bw == w or y + bh == h or a > 0.01 * area:
            continue
        fill |= labels == i
    if not fill.any():
        return mask
    return np.maximum(mask, fill.astype(mask.dtype))


def _fleck_kernel(L: np.ndarray, interior: np.ndarray, scale: float) -> int:
    """Median size that removes a textured fabric's flecks from the membership (1: none)."""
    fine = np.abs(L - cv2.GaussianBlur(L, (0, 0), 2.0 * scale))
    texture = float(np.median(fine[interior])) if interior.any() else 0.0
    # Flat jersey about 0.004 (JPEG noise), heather 0.02 and more.
    if texture < 0.008:
        return 1
    return 3 if texture < 0.015 or scale < 1.5 else 5


def _missed_parts(rgb: np.ndarray, lab: np.ndarray, alpha: np.ndarray,
                  groups: dict[str, np.ndarray], base: np.ndarray, scale: float,
                  region: str, skin: np.ndarray | None = None,
                  others: np.ndarray | None = None) -> np.ndarray | None:
    """Pixels just outside the mask that are plainly the garment: the base's own colour, not
    the backdrop's, joined to the garment, within the garment's rows (an upper garment never
    grows into trousers of the same colour below it, nor a lower one into a top above), and
    never into the model's skin (``skin``, when the mask's step found it): pale skin in the
    light is within a white or cream base's distance, and arms, neck and chest would join it.
    Nor into the outfit's other part where the mask's step found it (``others``): a grey top's
    dark wash beside black trousers."""
    a, b = float(base[1]), float(base[2])
    if 0.005 < a < 0.09 and 0.01 < b < 0.11 and 0.4 < float(base[0]) < 0.92:
        return None  # a skin-like base (beige, tan, nude): arms and legs would join it
    h, w = alpha.shape
    inside = alpha > 0.5
    reach = max(3, round(0.06 * max(h, w)))
    zone = cv2.distanceTransform((~inside).astype(np.uint8), cv2.DIST_L2, 3) <= reach
    zone &= ~inside
    if skin is not None:
        zone &= ~skin
    if others is not None:
        zone &= ~others
    if region != "full":
        rows = np.nonzero(inside.any(axis=1))[0]
        zone[: rows.min()] = False
        zone[rows.max() + 1:] = False
    if not zone.any():
        return None
    ys, xs = np.nonzero(zone)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    blurred = cv2.GaussianBlur(rgb[y0:y1, x0:x1], (0, 0), 1.2 * scale)
    sub = zone[y0:y1, x0:x1]
    lab_z = srgb8_to_oklab(blurred[sub])
    close = _dist(lab_z, groups["base"]) < 0.05
    close &= _base_membership(lab_z, groups["base"], groups["other"]) > 0.9
    if close.any():
        close[close] = _backdrop_distance(lab, lab_z[close]) > 0.08  # not the backdrop
    cand = np.zeros((h, w), np.uint8)
    cand[y0:y1, x0:x1][sub] = close
    cand = cv2.morphologyEx(cand, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(cand, connectivity=8)
    if n <= 1:
        return None
    touching = cv2.dilate(inside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    keep = np.unique(labels[touching & (cand > 0)])
    keep = keep[keep > 0]
    if not len(keep):
        return None
    grown = np.isin(labels, keep)
    if grown.sum() < 0.005 * inside.sum():
        return None
    # The seam between the mask and what grew beside it (a pixel or two the opening took off
    # either side) would stay a line of the old colour; a slit of backdrop (between an arm and
    # the body) or a thin letter's stroke there stays out.
    seam = (cv2.morphologyEx((grown | inside).astype(np.uint8), cv2.MORPH_CLOSE,
                             np.ones((5, 5), np.uint8)) > 0) & ~inside & ~grown
    if seam.any():
        px = lab[seam]
        seam[seam] = ((_base_membership(px, groups["base"], groups["other"], base) > 0.5)
                      & (_backdrop_distance(lab, px) > 0.08))
    return grown | seam


def _backdrop_distance(lab: np.ndarray, px: np.ndarray) -> np.ndarray:
    """OKLab distance of `px` to the nearest of the image border's main colours."""
    h, w = lab.shape[:2]
    b = max(2, min(h, w) // 60)
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    border = border[:: max(1, len(border) // 4000)]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1e-3)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(border.astype(np.float32), 3, None, crit, 1,
                                    cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=3) / len(labels)
    centres = centres[share > 0.15]
    d = None
    for c in centres:
        dc = np.linalg.norm(px - c, axis=-1)
        d = dc if d is None else np.minimum(d, dc)
    return d if d is not None else np.full(len(px), np.inf, np.float32)


def _without_prints(groups: dict[str, np.ndarray], lab: np.ndarray,
                    printed: np.ndarray) -> dict[str, np.ndarray]:
    """The base's shade clusters whose pixels (`lab`, nearest centre) are mostly print
    (`printed`) join the other colours; the base's largest cluster always stays."""
    base_c, other_c = groups["base"], groups["other"]
    if len(base_c) < 2:
        return groups
    centres = np.concatenate([base_c, other_c]) * _W
    x = lab * _W
    nearest = np.argmin(((x[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    counts = np.bincount(nearest, minlength=len(centres))[: len(base_c)]
    in_print = np.bincount(nearest, weights=printed.astype(np.float64),
                           minlength=len(centres))[: len(base_c)]
    share = in_print / np.maximum(counts, 1)
    drop = (share > 0.5) & (np.arange(len(base_c)) != int(np.argmax(counts)))
    if not drop.any():
        return groups
    return {"base": base_c[~drop], "other": np.concatenate([other_c, base_c[drop]])}


# A print of the fabric's own hue, only darker or lighter (a band printed in a deeper shade of
# the tee's colour), is told from a fold by its outline: a region of the garment darker (or
# lighter) than the base whose whole boundary is a crisp step (the lightness range over a pixel
# on either side of the boundary holds at least CRISP_RATIO of the range over SHADE_REACH px),
# where a fold's shading, however deep, fades out somewhere along its edge.
SHADE_LEVELS = np.arange(0.04, 0.5, 0.04)  # OKLab L under (or over) the base's
SHADE_REACH = 4  # px at 512: the breadth over which a step is measured
CRISP_RATIO = 0.5  # a step blurred by the camera: about 0.7; a fold's edge: 0.1 to 0.3
CRISP_SHARE = 0.95  # share of the boundary that must be crisp: closed all round
CRISP_STEP = 0.06  # OKLab L: least step at the boundary, or 3 times the fabric's own range
SHADE_MIN_AREA = 150  # px at 512
SHADE_MIN_BREADTH = 2.5  # px at 512: the half-breadth of its thickest part (no seam lines)


def _crisp_steps(lab: np.ndarray, body: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The lightness smoothed a little, and where it steps crisply (bool): most of a step's
    rise within a pixel or two, as at a print's edge; a fold's or a fade's rises slowly. A
    step must also stand well clear of the fabric's own range (`body`: the fabric)."""
    Ls = cv2.GaussianBlur(lab[..., 0].astype(np.float32), (0, 0), 0.8 * scale)
    r1, r4 = max(1, round(scale)), max(2, round(SHADE_REACH * scale))

    def spread(r: int) -> np.ndarray:
        k = np.ones((2 * r + 1, 2 * r + 1), np.uint8)
        return cv2.dilate(Ls, k) - cv2.erode(Ls, k)

    near, wide = spread(r1), spread(r4)
    crisp = (near >= CRISP_RATIO * wide) & (wide >= max(CRISP_STEP,
                                                          3.0 * float(np.median(wide[body]))))
    return Ls, crisp


# Share of the outline of the parts in a faded colour that steps crisply, under which they are
# the base faded (a wash fades out over many pixels) rather than a print in a tint of it.
FADE_CRISP = 0.5


def _fades(lab: np.ndarray, groups: dict[str, np.ndarray], interior: np.ndarray,
           scale: float) -> dict[str, np.ndarray]:
    """The colour groups with the base's faded colours (``groups["faded"]``) moved into the
    base when the parts of the garment in those colours fade in and out softly, as a wash does;
    a print in a tint of the dye has crisp edges and stays a print."""
    cand = groups.get("faded")
    if cand is None or not len(cand):
        return groups
    px = lab[interior]
    d_faded = _dist(px, cand)
    others = [c for c in (groups["base"], groups["other"]) if len(c)]
    d_rest = np.min([_dist(px, c) for c in others], axis=0) if others else np.inf
    part = np.zeros(interior.shape, np.uint8)
    part[interior] = d_faded <= d_rest
    body = np.zeros(interior.shape, bool)
    body[interior] = d_faded > d_rest
    edge = (part > 0) & (cv2.erode(part, np.ones((3, 3), np.uint8)) == 0) & interior
    edge &= cv2.erode(interior.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if edge.sum() < 20 or body.sum() < 50:
        return groups
    _, crisp = _crisp_steps(lab, body, scale)
    if float(crisp[edge].mean()) >= FADE_CRISP:
        return groups
    other = np.array([c for c in groups["other"] if not any(np.allclose(c, f) for f in cand)],
                     np.float32).reshape(-1, 3)
    return {"base": np.concatenate([groups["base"], cand]), "other": other, "faded": cand}


def _shade_prints(lab: np.ndarray, groups: dict[str, np.ndarray], base: np.ndarray,
                  interior: np.ndarray, alpha: np.ndarray, scale: float) -> np.ndarray:
    """Regions the colour membership took for the base that are a print in a shade of the
    base's own hue: darker or lighter than the base, bounded all round by a crisp step, thick
    enough not to be a seam, and away from the garment's outline (a region cut off by the
    outline has no closed boundary of its own). And the small dark objects on it
    (``_small_dark_objects``: buttons, rivets), wherever they are."""
    h, w = lab.shape[:2]
    out = np.zeros((h, w), bool)
    share = np.zeros((h, w), np.float32)
    garment = interior | (alpha > 0.5)
    share[garment] = _base_membership(lab[garment], groups["base"], groups["other"], base)
    body = interior & (share > 0.9)
    if body.sum() < 50:
        return out
    Ls, crisp = _crisp_steps(lab, body, scale)
    out |= _small_dark_objects(Ls, crisp, share, alpha > 0.5, float(base[0]), scale)
    lb = float(np.median(Ls[body]))
    rim = ~(cv2.erode((alpha > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8),
                      iterations=max(3, round(6 * scale))) > 0)
    min_area = SHADE_MIN_AREA * scale * scale
    for sign in (1.0, -1.0):
        gap = (lb - Ls) * sign
        for t in SHADE_LEVELS:
            cand = ((gap > t) & interior).astype(np.uint8)
            n, labels, stats, _ = cv2.connectedComponentsWithStats(cand, connectivity=8)
            for i in range(1, n):
                if stats[i, cv2.CC_STAT_AREA] < min_area:
                    continue
                sub, piece = _component(labels, stats, i)
                if (piece & rim[sub]).any() or float(share[sub][piece].mean()) < 0.5:
                    continue
                if _breadth(piece) < SHADE_MIN_BREADTH * scale:
                    continue
                if _crisp_outline(piece, crisp[sub]) >= CRISP_SHARE:
                    out[sub] |= piece
    return out


# A button, a rivet or a snap on the garment is darker than the cloth round it by OBJECT_STEP
# (OKLab L) at least, and narrower than a closing of OBJECT_REACH px (at 512) fills over.
OBJECT_REACH = 7
OBJECT_STEP = 0.08
# Least area and half-breadth (px at 512): no speck of JPEG noise or weave.
OBJECT_MIN_AREA = 12
OBJECT_MIN_BREADTH = 2.0
# Round or oval: its area at most this many times that of the largest disc it holds (a disc 1, a
# button seen aslant about 1.8); a crease or a seam's shadow is long and thin, far more.
OBJECT_ROUND = 2.5
# Its median lightness under this share of the base's: a fold's deep shade on a white shirt
# reaches down to about half of it, but softly; this darker and crisp all round is no fold.
OBJECT_DARK = 0.75
# Share of its outline that steps crisply (`_crisp_steps`): a print's or a button's edge is
# crisp nearly all round (0.83-1.0 on our buttons), a shadow's hardly anywhere (under 0.5).
OBJECT_CRISP = 0.6


def _small_dark_objects(Ls: np.ndarray, crisp: np.ndarray, share: np.ndarray,
                        garment: np.ndarray, base_l: float, scale: float) -> np.ndarray:
    """Buttons, rivets and snaps on the garment (bool): small, roundish, much darker than the
    base and crisp all round. On a white or grey base the colour membership takes a brown
    button for one of the base's deep shades (they are as neutral as a fold's shadow), and a
    recolour to navy turned the buttons black. Found on or off the outline (a placket's top
    button sits on the neckline's edge), where `_shade_prints` looks only inside."""
    out = np.zeros(Ls.shape, bool)
    d = 2 * max(1, round(OBJECT_REACH * scale)) + 1
    closing = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (d, d))
    # Outside the garment reads as black: the closing never bridges across the outline.
    L = np.where(garment, Ls, 0.0).astype(np.float32)
    below = cv2.morphologyEx(L, cv2.MORPH_CLOSE, closing) - L
    cand = ((below > OBJECT_STEP) & garment).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(cand, connectivity=8)
    for i in range(1, n):
        a = stats[i, cv2.CC_STAT_AREA]
        if a < OBJECT_MIN_AREA * scale * scale:
            continue
        sub, piece = _component(labels, stats, i)
        breadth = _breadth(piece)
        if breadth < OBJECT_MIN_BREADTH * scale or a > OBJECT_ROUND * np.pi * breadth ** 2:
            continue
        if (float(share[sub][piece].mean()) <= 0.5
                or float(np.median(Ls[sub][piece])) >= OBJECT_DARK * base_l):
            continue
        if _crisp_outline(piece, crisp[sub]) >= OBJECT_CRISP:
            out[sub] |= piece
    return out


def _component(labels: np.ndarray, stats: np.ndarray, i: int
               ) -> tuple[tuple[slice, slice], np.ndarray]:
    """Component ``i`` of a labelling: its box grown by a pixel, and its pixels in that box."""
    x, y, bw, bh = stats[i, :4]
    sub = (slice(max(0, y - 1), y + bh + 1), slice(max(0, x - 1), x + bw + 1))
    return sub, labels[sub] == i


def _breadth(piece: np.ndarray) -> float:
    """The half-breadth of a piece's thickest part (px): the radius of the largest disc in it."""
    return float(cv2.distanceTransform(piece.astype(np.uint8), cv2.DIST_L2, 3).max())


def _crisp_outline(piece: np.ndarray, crisp: np.ndarray) -> float:
    """The share of a piece's outline where the lightness steps crisply (``crisp``, on the same
    box: `_crisp_steps`)."""
    edge = piece & ~(cv2.erode(piece.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
    return float(crisp[edge].mean())


# On a grey, white or black base no fold gives colour: a piece of the garment tinted by at least
# TINT (OKLab chroma over the base's; the grey fabric's own pixels: a median of 0.003 once
# smoothed) is a pale print (a lilac or baby-blue letter), too faint for `_not_the_dye` and too
# few pixels to form a cluster of its own, when it holds together (TINT_MIN_AREA px at 512 after
# an opening that takes off single tinted pixels).
TINT = 0.010
GREY_CHROMA = 0.012  # a grey, white or black (a cream or a washed denim is tinted itself)
TINT_MIN_AREA = 12


def _tinted_print(chroma: np.ndarray, base: np.ndarray, body: np.ndarray, interior: np.ndarray,
                  scale: float, *, lab: np.ndarray, skin: np.ndarray | None) -> np.ndarray:
    """The pale prints on a neutral base: coherent pieces plainly tinted (see TINT), with what
    is tinted half as much and joined to them, down to half the tint of the print beside it.
    ``skin`` (a worn garment's; ``lab``: the photo in OKLab): a piece that is the skin's light on
    the garment beside it is no print (`_skin_bounce`)."""
    c0 = float(np.hypot(base[1], base[2]))
    out = np.zeros(chroma.shape, bool)
    if c0 > GREY_CHROMA or body.sum() < 50:
        return out
    # The fabric's own spread of chroma (a washed denim's blues, a heather's flecks): a tint
    # must stand well clear of it.
    spread = float(np.percentile(chroma[body], 90) - np.median(chroma[body]))
    tint = max(TINT, 3.0 * spread)
    k = np.ones((3, 3), np.uint8)
    tinted = cv2.morphologyEx((interior & (chroma > c0 + tint)).astype(np.uint8),
                              cv2.MORPH_OPEN, k)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(tinted, connectivity=8)
    keep = np.nonzero(stats[:, cv2.CC_STAT_AREA] >= TINT_MIN_AREA * scale * scale)[0]
    keep = keep[keep > 0]
    if skin is not None and len(keep):
        keep = _skin_bounce(labels, stats, keep, lab, skin, scale)
    if not len(keep):
        return out
    # Grown, as a hysteresis, over what is tinted half as much and joined to them, a few px at
    # most: the fainter parts of a pale letter (in a fold's shadow) and its rim.
    pieces = np.isin(labels, keep)
    near = cv2.dilate(pieces.astype(np.uint8), k, iterations=max(2, round(2 * scale))) > 0
    faint = (near & interior & (chroma > c0 + 0.5 * tint)).astype(np.uint8)
    m, grown = cv2.connectedComponents(faint, connectivity=8)
    seeds = np.unique(grown[pieces & (faint > 0)])
    seeds = seeds[seeds > 0]
    # Down to half the tint of the print beside it: the photo (a JPEG's halved chroma, the
    # camera's blur) spreads some of a letter's colour over the fabric beside it, which is
    # fabric and follows the garment (its edge is unmixed later), not a ring of the old colour.
    peak = cv2.dilate(chroma, np.ones((7, 7), np.uint8), iterations=max(1, round(scale)))
    return np.isin(grown, seeds) & (chroma - c0 >= 0.5 * (peak - c0))


# A white or grey garment in shade beside bare skin (a tank's side by the arm) takes a warm tint
# from the light the skin bounces onto it: on model_1's white tank 0.013-0.017 OKLab chroma at
# 31 degrees of hue, 12 px from the arm (at 768 px), whose skin round it lies at 45-50 degrees,
# over a base of 0.003. A tinted piece within BOUNCE_REACH px (at 512) of the skin, whose hue
# lies within BOUNCE_HUE degrees of that skin's (the skin within twice that reach of it), is
# that light, not a pale print: it is recoloured with the garment.
BOUNCE_HUE = 25.0
BOUNCE_REACH = 10


def _skin_bounce(labels: np.ndarray, stats: np.ndarray, keep: np.ndarray, lab: np.ndarray,
                 skin: np.ndarray, scale: float) -> np.ndarray:
    """``keep`` (labels of tinted pieces) less the pieces that are the skin's bounced light."""
    h, w = labels.shape
    reach = max(1, round(BOUNCE_REACH * scale))
    kept = []
    for i in keep:
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        box = (slice(max(0, y - 2 * reach), min(h, y + bh + 2 * reach)),
               slice(max(0, x - 2 * reach), min(w, x + bw + 2 * reach)))
        if not skin[box].any():  # no skin near: a print (most pieces; no distances needed)
            kept.append(i)
            continue
        piece = labels[box] == i
        away = cv2.distanceTransform((~piece).astype(np.uint8), cv2.DIST_L2, 3)
        beside = skin[box] & (away <= 2 * reach)
        if beside.sum() < 10 or not (skin[box] & (away <= reach)).any():
            kept.append(i)
            continue
        if hue_gap_degrees(np.median(lab[box][piece], axis=0),
                           np.median(lab[box][beside], axis=0)) > BOUNCE_HUE:
            kept.append(i)
    return np.asarray(kept, keep.dtype)


def _holes_in_print(share: np.ndarray, lab: np.ndarray, base: np.ndarray,
                    interior: np.ndarray, alpha: np.ndarray, scale: float) -> np.ndarray:
    """What lies inside a print, away from the garment's body, is judged piece by piece from
    its own (unsmoothed) colour and shape; the smoothing that decides membership blends a
    small piece into the print around it (a letter's counter reads as the letter) and reads the
    dark sequin spots of a white print on a black tee as the black fabric.

    A piece is the fabric only when its colour closely matches the fabric around the print; it
    then follows the garment when it is a letter's counter -- the stroke around it no thicker
    than about twice the piece itself -- or is cut off from the body only by a blurred
    narrowing, and keeps its colour when it sits in a print much thicker than itself (an emblem
    in a logo stripe, a dalmatian's spots, which match the black fabric as closely as a
    counter would). Anything else inside a print is print; fabric-coloured pixels joined to
    the body are the body."""
    body = ((share > 0.5) & interior).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(body, connectivity=8)
    if n <= 1:
        return share
    areas = stats[1:, cv2.CC_STAT_AREA]
    outline = ~(cv2.erode((alpha > 0.5).astype(np.uint8), np.ones((3, 3), np.uint8),
                          iterations=max(2, round(3 * scale))) > 0)
    is_main = np.zeros(n, bool)
    is_main[np.unique(labels[outline & (labels > 0)])] = True
    is_main[1:] |= areas > 0.15 * float(areas.sum())
    is_main[0] = False
    if not is_main.any():
        return share
    main = is_main[labels]
    inside = interior & ~main
    if not inside.any():
        return share
    # Work in the box around everything that is not the body.
    ys, xs = np.nonzero(inside)
    pad = max(8, round(12 * scale))
    y0, y1 = max(0, ys.min() - pad), min(share.shape[0], ys.max() + pad + 1)
    x0, x1 = max(0, xs.min() - pad), min(share.shape[1], xs.max() + pad + 1)
    box = (slice(y0, y1), slice(x0, x1))
    lab_b, main_b, inside_b = lab[box], main[box], inside[box]
    # The fabric's colour where the print lies, from the body around it (its local shading);
    # deep inside a large print, the base's.
    near, support = matte.spread(lab_b, main_b & interior[box], 4.0 * scale)
    near[support < 1e-3] = base
    gap = np.linalg.norm((lab_b - near) * _W, axis=-1)
    # How far the fabric's own pixels stray from it (JPEG noise, a heather's flecks).
    noise = float(np.median(gap[main_b & interior[box]])) if (main_b & interior[box]).any() \
        else 0.0
    tol = max(FABRIC_MATCH, 2.5 * noise)
    cand = inside_b & ((share[box] > 0.5) | (gap < tol))
    ring_px = cv2.dilate(main_b.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    m, pieces, pstats, _ = cv2.connectedComponentsWithStats(cand.astype(np.uint8),
                                                            connectivity=4)
    touches = np.zeros(m, bool)
    touches[np.unique(pieces[ring_px & cand])] = True
    # Fabric cut off from the body only by a blurred narrowing (a notch in an artwork's edge)
    # is the body's.
    beside = np.zeros(m, bool)
    beside[np.unique(pieces[(cv2.dilate(main_b.astype(np.uint8), np.ones((5, 5), np.uint8))
                             > 0) & cand])] = True
    # The print around each piece and how thick it is (the distance from its middle to its
    # edge, as for the piece): a letter's stroke, or the breadth of a stripe or an artwork.
    printed = (inside_b & ~cand).astype(np.uint8)
    k, plabels = cv2.connectedComponents(printed, connectivity=8)
    if k <= 1:
        return share
    dist = cv2.distanceTransform(printed, cv2.DIST_L2, 3)
    thickness = np.zeros(k, np.float32)
    np.maximum.at(thickness, plabels.ravel(), dist.ravel())
    out_b = share[box].copy()
    min_area = 3.0 * scale * scale
    grow = np.ones((3, 3), np.uint8)
    for i in range(1, m):
        x, y, bw, bh, a = pstats[i]
        sub = (slice(max(0, y - 3), y + bh + 3), slice(max(0, x - 3), x + bw + 3))
        piece = pieces[sub] == i
        if touches[i]:
            out_b[sub][piece] = 1.0  # the fabric's own colour joined to the body: the body
            continue
        ring = (cv2.dilate(piece.astype(np.uint8), grow, iterations=2) > 0) & ~piece
        around = plabels[sub][ring]
        around = around[around > 0]
        if not len(around):
            continue
        if a < min_area:
            out_b[sub][piece] = 0.0  # a speck inside a print is the print's
            continue
        # Its colour without its rim, which the photo mixed with the print around it. A small
        # counter still takes some of its letter's colour (the camera's blur, a JPEG's coarse
        # chroma): it is the fabric when it is far nearer the fabric than the print.
        core = cv2.erode(piece.astype(np.uint8), grow) > 0
        core = core if core.sum() >= 4 else piece
        ink = np.median(lab_b[sub][ring & (plabels[sub] > 0)], axis=0)
        contrast = float(np.linalg.norm((ink - np.median(near[sub][core], axis=0)) * _W))
        fabric = float(np.median(gap[sub][core])) < max(tol, 0.35 * contrast)
        # Its breadth with its rim (the pixels the photo mixed with the print around it).
        rimmed = cv2.dilate(piece.astype(np.uint8), grow)
        own = float(cv2.distanceTransform(rimmed, cv2.DIST_L2, 3).max())
        stroke = float(thickness[int(np.bincount(around).argmax())])
        if not (fabric and (beside[i] or stroke <= 2.0 * own + 1.0)):
            out_b[sub][piece] = 0.0
            continue
        # A counter moves whole: pixels inside it that strayed from the fabric's colour (the
        # camera's noise, a speck of ink) would otherwise stay old-coloured specks in it.
        _, outer = cv2.connectedComponents((~piece).astype(np.uint8), connectivity=4)
        edge_labels = np.unique(np.concatenate([outer[0], outer[-1], outer[:, 0], outer[:, -1]]))
        out_b[sub][piece | ~np.isin(outer, edge_labels)] = 1.0
    out = share.copy()
    out[box] = np.where(inside_b, out_b, share[box])
    return out


# --- the base colour --------------------------------------------------------------------------

_W = CLOTH_WEIGHTS


# A lighter colour of a coloured base's hue is the base faded when its chroma is this share of
# what the base's dye mixed with white to that lightness would have (0.87 on a light denim's
# worn thighs, 0.48 where they are worn palest; bleach takes the chroma first), its hue within
# FADED_HUE degrees (a bleached blue turns a little grey-cyan). A neutral base's faded parts
# reach FADED_NEUTRAL above it (a grey denim's wash).
FADED = (0.35, 1.4)
FADED_HUE = 30
# The chroma a darker colour needs to be taken for a dye whose sheen, mixed with white, is the
# base (less chroma: a grey or a black, whose mixes with white are any lighter neutral).
SHEEN_DYE = 0.04
# A sheen is not only white: the light on the cloth lifts its dye's colour too, so the lit base
# keeps more chroma than a plain mix (1.2 and 1.7 on a champagne satin's folds).
SHEEN = (0.35, 2.0)
FADED_NEUTRAL = 0.3


def _base_colour(lab: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Cluster the garment; the largest cluster and its shades are the base. Lighter colours
    that would be the base faded are also among "other" and listed as "faded": only the
    photo can tell a fade from a print in a tint of the dye (`_fades`)."""
    k = 6
    sample, labels, centres = cloth_clusters(lab, k)
    counts = np.bincount(labels.ravel(), minlength=k).astype(np.float64)
    main = int(np.argmax(counts))
    c0 = centres[main]
    is_base = np.zeros(k, bool)
    faded = np.zeros(k, bool)
    chroma0 = float(np.hypot(c0[1], c0[2]))
    for i, c in enumerate(centres):
        light_gap = abs(float(c[0] - c0[0]))
        chroma = float(np.hypot(c[1], c[2]))
        if chroma0 > 0.04:
            # A shade of a coloured base: same hue, chroma falling or rising with the light.
            hue_gap = hue_gap_degrees(c, c0)
            # Compared as chroma over lightness: a dyed cloth's highlight (velvet sheen) is
            # lighter and more chromatic in proportion, still the same dye.
            sat = (chroma / max(float(c[0]), 0.05)) / (chroma0 / max(float(c0[0]), 0.05))
            is_base[i] = hue_gap < 15 and light_gap < 0.45 and 0.5 < sat < 1.6
            if float(c[0]) > float(c0[0]) and light_gap < 0.45:
                # A faded or washed part (a denim's worn thighs): the dye mixed with white,
                # its chroma falling as its lightness rises towards white's.
                faded[i] = not is_base[i] and _white_mix(c, c0)
        else:
            # (a dark print in the deepest shades' range has crisp edges: `_shade_prints`)
            is_base[i] = neutral_shade(c, c0, deep=True)
            if float(c[0]) > float(c0[0]) and light_gap < FADED_NEUTRAL:
                # Faded further (a grey denim's wash): mixed with white, it can only have lost
                # chroma (a pink on a brown is no fade of it).
                tint = light_gap / max(1.0 - float(c0[0]), 0.05)
                faded[i] = not is_base[i] and chroma < max(0.01, FADED[1] * chroma0 * (1.0 - tint))
        if (float(c[0]) < float(c0[0]) and chroma >= SHEEN_DYE and chroma0 > WARM_NEUTRAL
                and light_gap < 0.45):
            # A satin's or a silk's dye shows in its folds; where the light falls on it the
            # sheen mixes white in: the lit base is this darker colour mixed with white (a
            # champagne satin, its folds gold). A white or grey base has no hue to match: a
            # light denim beside a white top is no fold of it.
            faded[i] = not is_base[i] and _white_mix(c0, c, SHEEN)
    is_base[main] = True
    base_px = sample[np.isin(labels.ravel(), np.nonzero(is_base)[0])]
    base = np.median(base_px, axis=0).astype(np.float32)
    groups = {"base": centres[is_base], "other": centres[~is_base & (counts > 0)],
              "faded": centres[faded & (counts > 0)]}
    return groups, base


def _white_mix(light: np.ndarray, dark: np.ndarray,
               share: tuple[float, float] = FADED) -> bool:
    """Whether the OKLab colour `light` is `dark` mixed with white: the same hue (within
    FADED_HUE degrees) and a chroma about what the mix would have at its lightness (`share`
    of it)."""
    if hue_gap_degrees(light, dark) >= FADED_HUE:
        return False
    tint = (float(light[0]) - float(dark[0])) / max(1.0 - float(dark[0]), 0.05)
    ratio = float(np.hypot(light[1], light[2])) / max(
        float(np.hypot(dark[1], dark[2])) * (1.0 - tint), 1e-3)
    return share[0] < ratio < share[1]


def _base_membership(lab: np.ndarray, base_c: np.ndarray, other_c: np.ndarray,
                     base: np.ndarray | None = None) -> np.ndarray:
    d_base = _dist(lab, base_c)
    if len(other_c):
        d_other = _dist(lab, other_c)
        # Soft boundary between the base and a print colour: antialiased print edges get a part.
        w = np.clip((d_other - d_base) / 0.03 + 0.5, 0.0, 1.0)
    else:
        w = np.ones(len(lab), np.float32)
    # Far from every base shade (a tag, a button of a colour that was too rare to cluster).
    w *= np.clip((0.16 - d_base) / 0.06, 0.0, 1.0)
    if base is not None:
        w *= 1.0 - _not_the_dye(lab, base, base_c)
    return w.astype(np.float32)


def _not_the_dye(lab: np.ndarray, base: np.ndarray, base_c: np.ndarray) -> np.ndarray:
    """How plainly each pixel is not the base's dye (0 to 1), though it lies within the base's
    distance. On a neutral base: a plainly coloured pixel. On a coloured base: a print colour
    too small to form a cluster of its own (one green letter of a word on a green tee), its hue
    off the base's further than any fold or sheen turns a dye (the base's own shades stay
    within 15 degrees), at a chroma above the base's (pixels of less chroma are left to the
    distance: a fine line-art's pixels, a gold Eiffel tower's, half fabric and half ink, have
    no clear hue of their own); and a black or grey darker than the base (a neck tag, black
    lettering), which is no shadow of it: a dyed cloth's shadow keeps its hue, its chroma
    falling with the light (the base's shades keep at least half the base's chroma for their
    lightness), not to nothing."""
    c0 = float(np.hypot(base[1], base[2]))
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    if c0 <= NEUTRAL_CHROMA:
        # On a grey, white or black base no fold gives colour: a pixel plainly coloured is a
        # print's (a light blue letter too few to form a cluster of its own).
        return np.clip((chroma - c0 - 0.03) / 0.02, 0.0, 1.0).astype(np.float32)
    if c0 <= 0.04:
        return np.zeros(len(lab), np.float32)
    hue = np.degrees(np.arctan2(lab[:, 2], lab[:, 1]) - np.arctan2(base[2], base[1]))
    gap = np.abs((hue + 180.0) % 360.0 - 180.0)
    other_hue = np.clip((gap - 20.0) / 10.0, 0.0, 1.0) * np.clip((chroma - c0) / (0.25 * c0),
                                                                 0.0, 1.0)
    lb = max(float(base[0]), 0.05)
    sat = (chroma / np.maximum(lab[:, 0], 0.05)) / (c0 / lb)
    grey = np.clip((0.4 - sat) / 0.15, 0.0, 1.0) * np.clip((lb - lab[:, 0]) / 0.05, 0.0, 1.0)
    # Nor is a black far under the base's darkest shade (a neck tag beside a collar's shadow).
    black = np.clip((float(base_c[:, 0].min()) - 0.12 - lab[:, 0]) / 0.05, 0.0, 1.0)
    return np.maximum(np.maximum(other_hue, grey), black).astype(np.float32)


def _dist(lab: np.ndarray, centres: np.ndarray) -> np.ndarray:
    x = (lab * _W).astype(np.float32)
    best = None
    for c in (centres * _W).astype(np.float32):
        d = x - c
        d2 = np.einsum("ij,ij->i", d, d)
        best = d2 if best is None else np.minimum(best, d2)
    return np.sqrt(best)


# --- the shift --------------------------------------------------------------------------------


# The lightness (OKLab) a highlight's relief is fitted under, place by place, by lowering the
# relief around it (`_relief_gain`); the final soft clip at CLIP_HI with a narrow knee is only a
# guard. A wide knee there (it was 0.06) flattened every sheen ridge from about CIELab L* 90 up.
L_CEILING = 0.985
CLIP_HI = 0.98
CLIP_KNEE = 0.03
# Least share of its relief a highlight keeps under the ceiling (below it, folds would go flat).
MIN_RELIEF_GAIN = 0.25
# Share of the luminance between the target and white that the broad sheen may use.
SHEEN_HEADROOM = 0.36
# Reach (px at 512) of a ridge's lowered relief over its flanks and the shadows beside it.
RELIEF_RADIUS = 3.0


def _tone(L: np.ndarray, shading: np.ndarray, base: np.ndarray, target: np.ndarray,
          coarse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel's new lightness when the base becomes the target, in two layers: the broad
    sheen (drape, large highlights) and the relief riding on it (fine folds, narrow sheen
    ridges, weave, knit, heathering, JPEG grain).

    The shading (the base's lightness smoothed over a few pixels) is mapped in linear light as
    a ratio to the base, so a fold that held half the light on the old colour holds about half
    on the new one. The broad sheen (`coarse`, the shading smoothed further) has a shoulder
    above the base that rolls the ratio off towards (never onto) white, so a bright target on a
    dark base keeps its highlights as highlights instead of burning them flat. The finer relief
    is the ratio mapping's own difference between the shading and the broad sheen, plus the
    detail with a gain kept near one, so it is neither lost on a dark target nor blown up into
    grain on a bright one. How much of the relief fits under white is decided per place, by
    `_relief_gain`.
    """
    lb, lt = max(float(base[0]), 0.02), max(float(target[0]), 0.02)
    yt = lt**3
    # Ratio of the shading's luminance to the base's, in log; eased a little when the
    # lightness changes a lot, so a black tee turned pale does not come out too contrasty
    # and a white one turned navy keeps visible folds.
    gamma = float(np.clip((lb / lt) ** (0.6 if lt > lb else 0.8), 0.45, 2.5))
    ceiling = yt + SHEEN_HEADROOM * (1.0 - yt)
    head = ceiling - yt

    def ratio_mapped(s: np.ndarray) -> np.ndarray:  # lightness, before the shoulder
        return np.cbrt(yt * np.exp(3.0 * np.log(np.maximum(s, 0.02) / lb) * gamma))

    def shouldered(s: np.ndarray) -> np.ndarray:
        y = yt * np.exp(3.0 * np.log(np.maximum(s, 0.02) / lb) * gamma)
        if head > 1e-3:
            hi = y > yt
            y[hi] = yt + head * (1.0 - np.exp(-(y[hi] - yt) / head))
        return np.cbrt(y)

    detail_gain = float(np.clip((lt / lb) ** 0.25, 0.9, 1.15))
    relief = ratio_mapped(shading) - ratio_mapped(coarse) + (L - shading) * detail_gain
    return shouldered(coarse), relief


# A bright target on a dark base whose highlights rise far above it (velvet sheen, satin): the
# garment's relief above its base (99th percentile) is at least SQUEEZE times the room between
# the target and white. No mapping with the base on the target keeps such relief without
# burning it: the measured ceiling of any monotone curve is a detail SSIM of about 0.81
# (tests/fidelity/recolor_ceiling.py). Such a garment is mapped as a retoucher would, in two
# layers (`_squeezed`): the broad sheen (BROAD_SIGMA px at 512) keeps BROAD_GAIN of its rise
# and SHADOW_GAIN of its shadows, the finer relief (folds, ridges, pile) DETAIL_GAIN, and the
# base sits BASE_UNDER (OKLab L, about 3 CIELab L*, ΔE2000 about 2) under the target to give
# the highlights room.
SQUEEZE = 2.0
BROAD_SIGMA = 12.0
BROAD_GAIN = 0.25
SHADOW_GAIN = 0.8
DETAIL_GAIN = 0.65
BASE_UNDER = 0.026


def _squeezed(L_full: np.ndarray, share: np.ndarray, interior: np.ndarray, idx: np.ndarray,
              base: np.ndarray, target: np.ndarray, scale: float) -> np.ndarray | None:
    """The new lightness (OKLab L) of the pixels `idx` of a garment whose highlights cannot
    fit between a bright target and white (see SQUEEZE), or None for every other garment,
    which `_tone` and `_relief_gain` map."""
    lb, lt = float(base[0]), float(target[0])
    room = CLIP_HI - lt
    where = (share > 0.95) & interior
    if lt <= lb or room <= 0.0 or int(where.sum()) < 50:
        return None
    if float(np.percentile(L_full[where], 99)) - lb < SQUEEZE * room:
        return None
    broad_full, _ = matte.spread(L_full, share * interior, BROAD_SIGMA * scale)
    L, broad = L_full[idx], broad_full[idx] - lb
    mapped = (np.where(broad > 0, BROAD_GAIN, SHADOW_GAIN) * broad
              + DETAIL_GAIN * (L - broad_full[idx]))
    # The level that puts the base's median where it should be once `_colour` has softly
    # clipped the highlights (a few steps: the clip moves the median a little).
    inside = where[idx]
    aim = lt - BASE_UNDER
    level = aim
    for _ in range(5):
        out = soft_clip(level + mapped, 0.03, CLIP_HI, knee=CLIP_KNEE)
        level += aim - float(np.median(out[inside]))
    return level + mapped


def _relief_gain(L_base: np.ndarray, relief: np.ndarray, idx: np.ndarray,
                 scale: float) -> np.ndarray:
    """How much of its relief each pixel keeps so that no highlight passes `L_CEILING`.

    A ridge that would rise above the ceiling keeps just the share of its relief that fits its
    crest under it, and that share is spread smoothly over the ridge's flanks and the shadows
    beside it (never more than a pixel's own share): the ridge keeps its shape and its place in
    the shading, only lower, as a retoucher's local tone mapping does, instead of being clipped
    into a flat plateau with posterised contours. A smoothed share rather than the local
    minimum: on a heather the light flecks are everywhere, and a minimum would lower the whole
    knit's contrast for its brightest fleck. Everywhere else the relief is kept whole.
    """
    room = np.maximum(L_CEILING - L_base, 1e-3)
    need = np.ones(len(relief), np.float32)
    over = relief > room
    need[over] = np.maximum(room[over] / relief[over], MIN_RELIEF_GAIN)
    if not over.any():
        return need
    h, w = idx.shape
    img = np.ones((h, w), np.float32)
    img[idx] = need
    img = cv2.GaussianBlur(img, (0, 0), max(1.0, RELIEF_RADIUS * scale))
    return np.minimum(img[idx], need)


def _colour(lab: np.ndarray, L: np.ndarray, base: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The new OKLab colour at lightness `L`: the target's hue, its chroma following the light,
    plus a share of the fabric's own chromatic texture."""
    L = soft_clip(L, 0.03, CLIP_HI, knee=CLIP_KNEE)
    lt = max(float(target[0]), 0.02)
    target_chroma = float(np.hypot(target[1], target[2]))
    # Shaded parts of a dyed cloth lose chroma with lightness; highlights gain a little.
    chroma_gain = np.clip(L / max(lt, 1e-3), 0.55, 1.25) if target_chroma > 0 else 1.0
    residual = lab[:, 1:] - base[1:]  # the fabric's own chromatic texture (heathering, sheen)
    keep = 0.35 if target_chroma > NEUTRAL_CHROMA else 0.15
    ab = target[1:][None, :] * np.asarray(chroma_gain)[..., None] + residual * keep
    out = np.empty_like(lab)
    out[:, 0] = L
    out[:, 1:] = ab
    return out
