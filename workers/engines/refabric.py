"""Refabric: the garment re-rendered in another fabric and finish, with its own shading.

Each fabric is a procedural surface (a lightness relief such as denim's diagonal twill, a
jersey's knit loops, leather grain or tweed flecks; a sheen; a transparency) and each finish a
change to how the surface takes light. The garment's own lightness is split into shading (the
low frequencies: folds, body shape, light fall-off) and its old texture (the high frequencies,
which are removed); the new surface is multiplied into the shading, so folds stay where they
were. The garment keeps its colour unless the finish dictates otherwise (metallic).

- Each fabric's repeat is stated in centimetres and drawn at the garment's real size: pixels per
  centimetre come from the pose on a person (shoulders 40 cm apart, or shoulders to hips 50 cm
  when the body is turned), else from the garment's height on a product shot and the length
  documented for its type (GARMENT_LENGTH_CM). The repeat's coordinates slide with the slope of
  the shading, so the weave bends over the folds.
- Each relief is drawn on a grid finer than the photo's pixels, bent over the folds there,
  averaged down and band-limited to what the pixels can show: a weave finer than that is not
  drawn as the grid, checkerboard or moiré it would alias into. Its yarns' irregularity (denim's
  slubs and heathered warp, a knit's wandering wales and fuzz, leather's fine grain, velvet's
  soft bloom) is noise, not a repeat, so nothing reads as a tiled pattern.
- Prints, logos and trims (crisp shapes of colours that are not the fabric or its shades) keep
  their own pixels; woven stripes and colour blocks are fabric and take the new surface.
- Highlights rise smoothly with the fold's light, as strong as the garment's own light allows,
  and roll off below white: a bright finish on a dark garment does not burn or posterise.
- At the outline each pixel is read as a mix of the garment and what is next to it; the
  garment's share is replaced by the new fabric, so no ring of the old fabric remains.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import color as colour
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import (
    gamut_map_oklab,
    linear_to_srgb,
    oklab_to_linear,
    soft_clip,
    srgb8_to_oklab,
)
from workers.engines.imaging.decode import png_engine_run

FINISHES = ("glossy", "matte", "metallic", "patterned", "sheer", "textured")


@dataclass(frozen=True)
class Fabric:
    texture: str  # name of the relief generator
    amount: float  # relief strength (relative lightness)
    period_cm: float  # the relief's visible repeat across the garment, in centimetres
    sheen: float  # 0 matte .. 1 satin: highlight boost along the shading
    opacity: float = 1.0  # < 1: the background shows through (sheer fabrics)
    velvet: bool = False  # pile: darker facing the light, bright at grazing edges
    weft: float = 0.0  # how much chroma the relief's light yarns lose (an undyed weft)


# The repeat a catalogue photo shows: a knit's loop column, a twill's wale, ripstop's grid,
# tweed's herringbone, leather's pebble. Drawn at the garment's real size (see pixels_per_cm);
# a repeat finer than MIN_PERIOD_PX cannot be drawn at all and is drawn at that size, and a
# lattice (a knit's loops, a plain weave's over-under) only where it has pixels enough to read
# as cloth rather than as a pixel grid (see _shown and _draw_relief).
FABRICS: dict[str, Fabric] = {
    "acrylic": Fabric("knit", 0.10, 0.9, 0.15),
    "alpaca": Fabric("fuzz", 0.06, 1.2, 0.0),
    "canvas": Fabric("plain", 0.12, 0.5, 0.0),
    "cashmere": Fabric("fine_knit", 0.05, 0.5, 0.05),
    "chiffon": Fabric("crepe", 0.05, 0.3, 0.1, opacity=0.62),
    "cotton": Fabric("plain", 0.06, 0.4, 0.0),
    "cupro": Fabric("smooth", 0.02, 0.8, 0.55),
    "denim": Fabric("twill", 0.055, 0.5, 0.0, weft=1.0),
    "fleece": Fabric("pills", 0.06, 1.0, 0.0),
    "jersey": Fabric("knit", 0.08, 0.45, 0.05),
    "leather": Fabric("grain", 0.018, 0.3, 0.5),
    "linen": Fabric("slub", 0.08, 0.5, 0.0),
    "lyocell": Fabric("smooth", 0.03, 0.6, 0.3),
    "modal": Fabric("fine_knit", 0.04, 0.4, 0.25),
    "mohair": Fabric("fuzz", 0.08, 1.4, 0.0),
    "nylon": Fabric("ripstop", 0.06, 0.7, 0.4),
    "organza": Fabric("grid", 0.05, 0.25, 0.5, opacity=0.5),
    "polyester": Fabric("plain", 0.03, 0.3, 0.3),
    "silk": Fabric("smooth", 0.015, 0.8, 0.8),
    "spandex": Fabric("fine_knit", 0.04, 0.4, 0.5),
    "suede": Fabric("nap", 0.05, 0.8, 0.0),
    "tulle": Fabric("net", 0.0, 0.35, 0.1, opacity=0.25),
    "tweed": Fabric("tweed", 0.11, 0.8, 0.0),
    "velvet": Fabric("pile", 0.035, 0.5, 0.0, velvet=True),
    "viscose": Fabric("smooth", 0.025, 0.6, 0.35),
    "wool": Fabric("knit", 0.07, 1.0, 0.0),
}

MIN_PERIOD_PX = 3.0  # finer, the sampled repeat and its fold-following resampling blur away
MOTIF_CM = 3.0  # the patterned finish's woven lozenge, tip to tip

# How big a garment is when no person gives the scale: a product shot's garment, size M, from
# its top to its hem as it lies (the mask's height), in centimetres.
GARMENT_LENGTH_CM: dict[str, float] = {
    "tshirt": 70.0, "t-shirt": 70.0, "top": 60.0, "blouse": 66.0, "shirt": 76.0, "polo": 72.0,
    "sweater": 68.0, "pullover": 68.0, "sweatshirt": 68.0, "hoodie": 70.0, "cardigan": 68.0,
    "blazer": 74.0, "jacket": 70.0, "outerwear": 90.0, "coat": 100.0,
    "trousers": 104.0, "trousers / pants": 104.0, "pants": 104.0, "jeans": 104.0,
    "shorts": 45.0, "skirt": 60.0, "dress": 100.0, "jumpsuit": 145.0, "romper": 85.0,
    "full-garment": 110.0, "full garment": 110.0, "accessory": 35.0,
}
# On a person: the distance between the pose's shoulder points of an adult, and from the
# shoulders' midpoint to the hips' (used when the shoulders are foreshortened by a turn).
SHOULDER_CM = 40.0
TORSO_CM = 50.0


@dataclass(frozen=True)
class RefabricResult:
    rgb: np.ndarray  # uint8 HxWx3
    mask: np.ndarray  # float32 HxW
    opacity: np.ndarray  # float32 HxW: 1 where the new fabric is opaque
    px_per_cm: float = 0.0  # the garment's scale the texture was drawn at
    scale_from: str = ""  # "shoulders", "torso" or "garment length"
    kept: np.ndarray | None = None  # float32 HxW: 1 on prints/logos/trims left as they were


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    return png_engine_run(params, progress, lambda rgb: refabric_image(
        rgb,
        fabric=str(params.get("re_fabric") or ""),
        finish=str(params.get("material_finish") or ""),
        garment_type=str(params.get("target_garment") or ""),
        progress=progress,
    ).rgb, "refabric.png")


def pixels_per_cm(
    rgb_shape: tuple[int, ...], mask: np.ndarray, garment_type: str, scene: Any | None
) -> tuple[float, str]:
    """The garment's scale: from the body when a person wears it, else from the garment's
    height on a product shot and the documented length of that garment type."""
    h, w = rgb_shape[:2]
    if scene is not None and scene.worn and scene.pose is not None:
        pose = scene.pose
        k = max(h, w) / max(pose.width, pose.height)  # working size to full size
        pts = {n: (x * k, y * k) for n, (x, y) in pose.points.items()}
        shoulders = ("left_shoulder", "right_shoulder")
        hips = ("left_hip", "right_hip")
        by_shoulders = by_torso = 0.0
        if all(p in pts for p in shoulders):
            (lx, ly), (rx, ry) = pts[shoulders[0]], pts[shoulders[1]]
            by_shoulders = float(np.hypot(lx - rx, ly - ry)) / SHOULDER_CM
        if all(p in pts for p in shoulders + hips):
            sx = (pts[shoulders[0]][0] + pts[shoulders[1]][0]) / 2
            sy = (pts[shoulders[0]][1] + pts[shoulders[1]][1]) / 2
            hx = (pts[hips[0]][0] + pts[hips[1]][0]) / 2
            hy = (pts[hips[0]][1] + pts[hips[1]][1]) / 2
            by_torso = float(np.hypot(sx - hx, sy - hy)) / TORSO_CM
        # A turned body foreshortens its shoulders, never its torso's length.
        if by_shoulders > 0 and by_shoulders >= 0.75 * by_torso:
            return by_shoulders, "shoulders"
        if by_torso > 0:
            return by_torso, "torso"
    ys = np.nonzero((mask > 0.5).any(axis=1))[0]
    length = GARMENT_LENGTH_CM.get(garment_type.strip().lower(), 70.0)
    return float(ys.max() - ys.min() + 1) / length, "garment length"


def refabric_image(
    rgb: np.ndarray,
    *,
    fabric: str,
    finish: str,
    garment_type: str,
    mask: np.ndarray | None = None,
    scene: garment_mod.Scene | None = None,
    seed: int = 7,
    progress: Progress | None = None,
) -> RefabricResult:
    """The array-level engine: uint8 RGB in, the garment in the new fabric out."""
    fab = FABRICS.get(fabric.strip().lower())
    if fab is None:
        raise EngineError(
            "invalid_fabric", f"{fabric!r} is not a fabric: use one of {', '.join(FABRICS)}."
        )
    fin = finish.strip().lower()
    if fin not in FINISHES:
        raise EngineError(
            "invalid_finish", f"{finish!r} is not a finish: use one of {', '.join(FINISHES)}."
        )
    garment_mod.garment_region(garment_type)
    if scene is None:
        scene = garment_mod.look(garment_mod.working_copy(rgb)[0])
    # The garment module's mask of a worn garment has the model's skin out already, judged
    # beside the fabric it touches; a mask from elsewhere gets the face-tone test below.
    skin_out = False
    if mask is None:
        found = garment_mod.garment_mask(rgb, garment_type, scene=scene)
        garment_mod.refuse_unclear(found, garment_type)
        mask = found.mask
        skin_out = found.worn
    if progress:
        progress(45)
    h, w = mask.shape
    ys, xs = np.nonzero(mask > 0.5)
    if len(ys) < 50:
        raise EngineError("garment_not_found", f"No {garment_type} was found in the image.")
    px_cm, scale_from = pixels_per_cm(rgb.shape, mask, garment_type, scene)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    pad = 8
    y0, x0 = max(0, y0 - pad), max(0, x0 - pad)
    y1, x1 = min(h, y1 + pad), min(w, x1 + pad)
    crop = rgb[y0:y1, x0:x1]
    m = mask[y0:y1, x0:x1]
    rng = np.random.default_rng(seed)
    garment_h = float(ys.max() - ys.min() + 1)

    lab = srgb8_to_oklab(crop)
    L = lab[..., 0]
    inside = m > 0.5
    # Prints, logos and trims are not the fabric: they are left exactly as they were, and the
    # fabric's shading and colour are read around them, not through them.
    kept = _kept_weight(crop, lab, inside)
    skin = None if skin_out else _skin_in_mask(rgb, scene, lab, inside, kept)
    if skin is not None:
        # Arms or a neck the garment mask took in stay skin.
        kept = np.maximum(kept, skin)
    # A print's antialiased fringe and JPEG halo are read as neither fabric nor print.
    near_print = cv2.dilate((kept > 0.05).astype(np.uint8), np.ones((5, 5), np.uint8))
    # The outline's own pixels are part background: they are no evidence of the fabric's light.
    d_in = cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3)
    fabric_w = (m * (1.0 - near_print) * (d_in > 1.5)).astype(np.float32)
    fabric_px = fabric_w > 0.5
    if fabric_px.sum() < 50:
        fabric_w, fabric_px, kept = m.astype(np.float32), inside, np.zeros_like(m)
    l_med = float(np.median(L[fabric_px]))
    # Shading = the garment's lightness without its old texture and prints' fine detail.
    sigma = max(1.5, garment_h * 0.006)
    inner = _masked_blur(L, fabric_w, 0.5)  # background and prints kept out before filtering
    wide = _masked_blur(L, fabric_w, max(3.0, garment_h * 0.03))
    inner = np.where(_masked_blur(fabric_w, m, 0.5) > 0.3, inner, wide)
    inner = inner + (wide - inner) * cv2.GaussianBlur(near_print.astype(np.float32), (0, 0), 1.0)
    # Edge-preserving: the old weave's small ripples go, a seam's edge stays sharp.
    shade = cv2.bilateralFilter(inner.astype(np.float32), int(2 * round(sigma) + 1), 0.06, sigma)
    ab = np.dstack([_masked_blur(lab[..., 1], fabric_w, sigma * 0.7),
                    _masked_blur(lab[..., 2], fabric_w, sigma * 0.7)])
    rel = shade / max(l_med, 1e-3)  # 1 at the garment's median lightness

    period = max(MIN_PERIOD_PX, fab.period_cm * px_cm)
    amount = fab.amount * (1.5 if fin == "textured" else 0.55 if fin == "matte" else 1.0)
    parts = [(1.0, fab.texture, period)]
    if fin == "textured":
        # A textured finish gives a flat cloth a tactile grain on top of its weave; a coarse
        # weave (denim, wool, tweed) is texture enough and would only turn noisy.
        grain = 0.6 if fab.texture == "smooth" else 0.35 if fab.amount < 0.08 else 0.0
        if grain:
            parts.append((grain, "crepe", period * 0.6))
    # The weave follows the folds: its coordinates slide with the slope of the shading (a fold's
    # flank turns away and squeezes the repeat), and the relief is lit by the shading below.
    # It is drawn finer than the pixels and band-limited to what they can show (no aliasing).
    relief = _draw_relief(parts, crop.shape[:2], rng, px_cm,
                          _fold_shift(shade, fabric_w, l_med, period, px_cm))
    new_L = shade * (1.0 + amount * relief)

    sheen = fab.sheen
    if fin == "glossy":
        sheen = max(sheen, 0.6) + 0.35
    elif fin == "matte":
        sheen = 0.0
    elif fin == "metallic":
        sheen = max(sheen, 0.5) + 0.6
    # Highlights are read from the shading away from the outline (where the rim mixes in the
    # background) and carried out to it: the outline is composited with its own alpha later.
    new_L, highlight = _apply_sheen(new_L, shade, fabric_px & (d_in > 3), l_med, sheen,
                                    garment_h)
    new_L = new_L + highlight
    if fin == "matte":
        # Matte cloth scatters: flatter shading, no hot spots.
        new_L = l_med + (new_L - l_med) * 0.7
        new_L = np.minimum(new_L, np.percentile(new_L[fabric_px], 92))
    if fab.velvet:
        new_L = _velvet(new_L, rel, m, l_med)

    new_ab = ab.copy()
    if fab.weft:
        # Denim's warp is dyed and its weft is not: where the white weft shows the cloth is
        # paler and greyer, where the warp's dye is deep it is richer (the heather of indigo).
        new_ab *= np.clip(1.0 - fab.weft * 4.0 * amount * relief, 0.5, 1.5)[..., None]
    if fin == "metallic":
        # Metal foil: chroma pulled down and lightness contrast up, hue kept as a tint.
        new_ab *= 0.55
        new_L = l_med * np.power(np.maximum(new_L, 1e-4) / max(l_med, 1e-3), 1.6) + 0.05
    if fin == "patterned":
        motif = _jacquard(crop.shape[:2], max(6.0 * MIN_PERIOD_PX, MOTIF_CM * px_cm))
        new_L = new_L * (1.0 + 0.14 * motif)
        chroma = np.hypot(ab[..., 0], ab[..., 1])
        # A tone-on-tone motif: hue rotated a little where the motif is raised.
        angle = 0.12 * motif
        ca, sa = np.cos(angle), np.sin(angle)
        new_ab = np.dstack([ab[..., 0] * ca - ab[..., 1] * sa, ab[..., 0] * sa + ab[..., 1] * ca])
        new_ab += (0.02 * motif * (chroma < 0.03))[..., None]

    if fab.texture == "tweed":
        new_L, new_ab = _tweed_flecks(new_L, new_ab, period, rng)

    # Highlights roll off below white instead of clipping into flat, posterised patches; only a
    # garment that was already that bright may reach it.
    top = max(0.94, min(float(np.percentile(L[fabric_px], 99.5)), 0.975))
    new_L = soft_clip(new_L, 0.02, top, knee=0.08)
    out_lab = np.dstack([new_L, new_ab[..., 0], new_ab[..., 1]]).astype(np.float32)
    new_rgb = _roll_off(_oklab_to_rgb(gamut_map_oklab(out_lab)).astype(np.float32),
                        float(crop[inside].max(axis=1).mean() > 250))

    opacity = np.full(m.shape, fab.opacity, np.float32)
    if fin == "sheer":
        opacity = opacity * 0.55
    if fab.texture == "net":
        # Tulle: the net's threads are opaque, its holes show what is behind.
        # A mesh of a few pixels reads as a pixel grid, not as tulle: finer than the pixels
        # can show as a mesh, the net is an even veil with the faint unevenness of its threads.
        net_p = max(period, 2 * MIN_PERIOD_PX)
        mesh = float(np.clip((net_p - 6.0) / 4.0, 0.0, 1.0))
        net = _draw_relief([(1.0, "net", net_p)], crop.shape[:2], rng, px_cm)
        veil = _draw_relief([(1.0, "crepe", net_p)], crop.shape[:2], rng, px_cm)
        net = np.clip(0.45 + mesh * 0.4 * net / (net.std() + 1e-6)
                      + (1.0 - mesh) * 0.06 * veil, 0.0, 1.0)
        opacity = np.clip(opacity + 0.55 * net, 0.0, 1.0)
    if progress:
        progress(75)
    if (opacity < 1).any():
        behind = _behind(crop, m)
        body = _body_behind(rgb, scene, (y0, y1, x0, x1), rel)
        if body is not None:
            # On a person a sheer fabric shows the body under it, lit like the garment, not a
            # smear of the backdrop.
            skin, person = body
            behind = skin * person[..., None] + behind.astype(np.float32) * (1 - person[..., None])
        a = opacity[..., None]
        new_rgb = new_rgb * a + behind.astype(np.float32) * (1 - a)

    # Prints and logos keep their own pixels.
    k3 = kept[..., None]
    new_rgb = new_rgb * (1 - k3) + crop.astype(np.float32) * k3
    out_crop = _composite_at_outline(crop, new_rgb, m, garment_h / max(h, w))
    # What is kept (prints, skin) is the photo's own pixels, and so is the outline's outer
    # side next to it (no fabric is mixed into what borders skin).
    near_kept = cv2.dilate((kept > 0.5).astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    keep_px = np.maximum(kept, (near_kept & ~inside).astype(np.float32))[..., None]
    out_crop = out_crop * (1 - keep_px) + crop.astype(np.float32) * keep_px
    out = rgb.copy()
    out[y0:y1, x0:x1] = np.clip(out_crop + 0.5, 0, 255).astype(np.uint8)
    full_opacity = np.ones((h, w), np.float32)
    full_opacity[y0:y1, x0:x1] = np.where(inside, opacity, 1.0)
    full_kept = np.zeros((h, w), np.float32)
    full_kept[y0:y1, x0:x1] = kept * m
    return RefabricResult(rgb=out, mask=mask.astype(np.float32), opacity=full_opacity,
                          px_per_cm=px_cm, scale_from=scale_from, kept=full_kept)


# --- prints, folds and the outline ------------------------------------------------------------

_W = colour.CLOTH_WEIGHTS


def _kept_weight(crop: np.ndarray, lab: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """1 on prints, logos and trims (colours that are not the fabric or its shades), else 0.

    The fabric is the largest colour cluster and the clusters that are its shades (same hue,
    lightness within what folds do). When the "other" colours cover much of the garment it is
    a woven pattern or stripes, not a print: then everything is fabric.
    """
    px = lab[inside]
    if len(px) < 200:
        return np.zeros(inside.shape, np.float32)
    k = 6
    _, labels, centres = colour.cloth_clusters(px, k)
    counts = np.bincount(labels.ravel(), minlength=k)
    c0 = centres[int(np.argmax(counts))]
    chroma0 = float(np.hypot(c0[1], c0[2]))
    is_base = np.zeros(k, bool)
    # Light on a fold lifts a dark cloth's lightness in proportion to it: a navy's highlight
    # stays dark, and a colour far lighter than that (a neck label, a light print) is no shade.
    lift = 0.6 * float(c0[0])
    for i, c in enumerate(centres):
        light_gap = abs(float(c[0] - c0[0]))
        if c[0] > c0[0]:
            light_gap *= max(1.0, 0.2 / max(lift, 1e-3))
        chroma = float(np.hypot(c[1], c[2]))
        if chroma0 > 0.04:
            hue_gap = colour.hue_gap_degrees(c, c0)
            is_base[i] = hue_gap < 20 and light_gap < 0.15 and 0.5 < chroma / chroma0 < 1.5
        elif c[0] < c0[0]:
            # In shade, as Recolor reads it: a cream's side beside the arms is warmer and as
            # much as 0.3 darker, and left as a "print" it kept its old surface in a stripe.
            is_base[i] = colour.neutral_shade(c, c0)
        else:
            is_base[i] = chroma < 0.045 and light_gap < 0.2
    # A colour covering a fifth of the garment is woven in (stripes, checks, a colour block):
    # it is fabric and takes the new surface, keeping its colour. k-means splits a big colour
    # into close neighbours, so each cluster counts with its direct neighbours (no chains from
    # white to grey to black). Neighbours in lightness too: a navy split in two is one colour,
    # a label far lighter than the darker half is not part of it.
    gaps = np.sqrt((((centres[:, None] - centres[None]) * _W) ** 2).sum(-1))
    light_gaps = np.abs(centres[:, None, 0] - centres[None, :, 0])
    family = (((gaps < 0.06) & (light_gaps < 0.1)) * counts[None, :]).sum(1)
    is_base |= family > 0.2 * counts.sum()
    # A colour lying between two fabric colours is their mix (a stripe's soft edge, a white
    # stripe greyed by a sleeve's shadow): as a print colour it would claim those pixels.
    cw = (centres * _W).astype(np.float32)
    fabric_c = np.nonzero(is_base)[0]
    for i in np.nonzero(~is_base)[0]:
        for a_i, a in enumerate(fabric_c):
            for b in fabric_c[a_i + 1:]:
                seg = cw[b] - cw[a]
                t = float(np.clip((cw[i] - cw[a]) @ seg / max(float(seg @ seg), 1e-6), 0, 1))
                if np.linalg.norm(cw[i] - cw[a] - t * seg) < 0.02:
                    is_base[i] = True
    other = centres[~is_base & (counts > 0)]
    if not len(other):
        return np.zeros(inside.shape, np.float32)
    smooth = srgb8_to_oklab(cv2.GaussianBlur(crop, (0, 0), 1.0))

    # Distances are taken on the garment's pixels only, one centre at a time (memory-light).
    px_s = (smooth[inside] * _W).astype(np.float32)

    def dist(centres_: np.ndarray) -> np.ndarray:
        best = np.full(len(px_s), np.inf, np.float32)
        for c in centres_ * _W:
            np.minimum(best, ((px_s - c) ** 2).sum(-1), out=best)
        return np.sqrt(best)

    d_base, d_other = dist(centres[is_base]), dist(other)
    # Where two fabric colours meet (a stripe's edge) the pixels mix them: the mix is fabric.
    base_w = (centres[is_base] * _W).astype(np.float32)
    for i in range(len(base_w)):
        for j in range(i + 1, len(base_w)):
            seg = base_w[j] - base_w[i]
            rel = px_s - base_w[i]
            t = np.clip((rel @ seg) / max(float(seg @ seg), 1e-6), 0.0, 1.0)
            d_mix = np.sqrt(((rel - t[:, None] * seg) ** 2).sum(-1))
            np.minimum(d_base, d_mix, out=d_base)
    kept = np.zeros(inside.shape, np.float32)
    kept[inside] = np.clip((d_base - d_other) / 0.03 + 0.5, 0.0, 1.0)
    # Specks are the fabric's own flecks or noise, not a print; a thin stroke of lettering is.
    solid = (kept > 0.5).astype(np.uint8)
    n0, lab0, st0, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    solid = (st0[:, cv2.CC_STAT_AREA] >= 8)[lab0].astype(np.uint8) * solid
    # A print has a crisp edge; a fade, a wash or a fold's shadow of another tone fades in
    # over many pixels: only the crisp shapes are kept.
    grad = np.zeros(inside.shape, np.float32)
    for c in range(3):
        ch = smooth[..., c] * _W[c]
        grad += (cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3) / 8) ** 2
        grad += (cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3) / 8) ** 2
    grad = np.sqrt(grad)
    n, labels_img, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    crisp = np.zeros(n, bool)
    # Its edge inside the garment, that is: the garment's own outline is crisp against any
    # backdrop.
    d_in = cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3)
    rim = ((solid - cv2.erode(solid, np.ones((3, 3), np.uint8))) > 0) & (d_in > 2.5)
    rim_strength = np.bincount(labels_img[rim], weights=grad[rim], minlength=n)
    rim_count = np.bincount(labels_img[rim], minlength=n)
    crisp[1:] = rim_strength[1:] / np.maximum(rim_count[1:], 1) > 0.018
    # A strip hugging the outline is the outline's own mix with the background, not a trim.
    depth = np.zeros(n, np.float32)
    np.maximum.at(depth, labels_img.ravel(), d_in.ravel())
    crisp &= depth >= 3.5
    solid = crisp[labels_img].astype(np.uint8) * solid
    # Thin strokes of small lettering are mostly antialiased pixels, half ink and half fabric,
    # nearer a shade of the fabric than the ink: beside the print's solid pixels, a pixel that
    # stands out from the fabric's local light is the print's too (so no letter loses a stroke).
    if solid.any():
        fab_w = (inside & (cv2.dilate(solid, np.ones((5, 5), np.uint8)) == 0)).astype(np.float32)
        local = np.dstack([_masked_blur(smooth[..., c], fab_w, 3.0) for c in range(3)])
        departs = (np.sqrt((((smooth - local) * _W) ** 2).sum(-1)) > 0.04) & (d_in > 2.5)
        for _ in range(4):
            solid |= (departs & (cv2.dilate(solid, np.ones((5, 5), np.uint8)) > 0)).astype(
                np.uint8)
    # Include the print's antialiased edge, so no half-tone of it is re-textured.
    grown = cv2.dilate(solid, np.ones((3, 3), np.uint8)).astype(np.float32)
    if grown.sum() > 0.35 * inside.sum():
        return np.zeros(inside.shape, np.float32)
    return np.clip(cv2.GaussianBlur(grown, (0, 0), 0.7) * 1.3, 0, 1) * inside


def _fold_shift(shade: np.ndarray, wgt: np.ndarray, l_med: float, period: float,
                px_cm: float) -> tuple[np.ndarray, np.ndarray]:
    """How far the relief's coordinates slide (x, y, in pixels) with the shading's slope, per
    centimetre of garment."""
    s = _masked_blur(shade / max(l_med, 1e-3), wgt, max(2.0, 1.5 * period))
    gx = cv2.Sobel(s, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(s, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    gain = 8.0 * period * px_cm  # a fold's flank (lightness -30 % over 4 cm) moves ~0.6 period
    dx = (np.clip(gx * gain, -period, period) * (wgt > 0.05)).astype(np.float32)
    dy = (np.clip(gy * gain, -period, period) * (wgt > 0.05)).astype(np.float32)
    # A fold bends the weave smoothly; a sharp change of lightness (a woven stripe, a seam)
    # would fold the coordinates over themselves, repeating one row of the weave over several
    # and smearing it into streaks. The slide's own slope is kept under 0.35 px per px.
    jac = np.zeros_like(dx)
    for d in (dx, dy):
        for ax in ((1, 0), (0, 1)):
            np.maximum(jac, np.abs(cv2.Sobel(d, cv2.CV_32F, *ax, ksize=3) / 8.0), out=jac)
    jac = cv2.dilate(jac, np.ones((5, 5), np.uint8))
    jac = cv2.GaussianBlur(jac, (0, 0), max(1.0, period))
    k = np.minimum(1.0, 0.35 / np.maximum(jac, 1e-6))
    return (dx * k).astype(np.float32), (dy * k).astype(np.float32)


def _composite_at_outline(crop: np.ndarray, new_rgb: np.ndarray, m: np.ndarray,
                          rel_size: float) -> np.ndarray:
    """Lay the new fabric in with an alpha refined at the outline.

    The mask's rim is a couple of pixels wide and a blend by it would leave part of the old
    fabric's colour in a ring. In a band around the outline each pixel is read as a mix of the
    garment's old colour next to it and the background next to it; its share of garment is its
    alpha, and the old colour's share is replaced by the new fabric. Where garment and background
    are too alike in colour to tell, the mask's own rim is used.
    """
    img = crop.astype(np.float32)
    hard = (m > 0.5).astype(np.uint8)
    d_in = cv2.distanceTransform(hard, cv2.DIST_L2, 3)
    d_out = cv2.distanceTransform(1 - hard, cv2.DIST_L2, 3)
    bw = 3.0
    band = ((d_in > 0) & (d_in <= bw)) | ((d_out > 0) & (d_out <= bw))
    f_w = (d_in > 1.5).astype(np.float32)
    b_w = (d_out > 1.5).astype(np.float32)
    old = np.dstack([_masked_blur(img[..., c], f_w, 2.0) for c in range(3)])
    bg = np.dstack([_masked_blur(img[..., c], b_w, 2.0) for c in range(3)])
    fb = old - bg
    norm2 = (fb**2).sum(-1)
    proj = ((img - bg) * fb).sum(-1) / np.maximum(norm2, 1e-3)
    conf = np.clip((np.sqrt(norm2) - 12.0) / 30.0, 0.0, 1.0)
    alpha = np.where(band, conf * np.clip(proj, 0, 1) + (1 - conf) * m, m)
    # Never reach past the mask's own soft rim into the background.
    alpha = np.minimum(alpha, (cv2.dilate((m > 0.004).astype(np.uint8),
                                          np.ones((3, 3), np.uint8)) > 0)).astype(np.float32)
    a = alpha[..., None]
    # What is behind a mixed pixel: the pixel without its garment share, or the background
    # next to it where that share is most of the pixel.
    behind = np.where(a < 0.6, (img - a * old) / np.maximum(1 - a, 1e-3), bg)
    behind = np.clip(behind, 0, 255)
    mixed = a * new_rgb + (1 - a) * behind
    return np.where(band[..., None], mixed, img * (1 - m[..., None]) + new_rgb * m[..., None])


# --- light ------------------------------------------------------------------------------------


def _apply_sheen(L: np.ndarray, shade: np.ndarray, fabric: np.ndarray, l_med: float,
                 sheen: float, garment_h: float) -> tuple[np.ndarray, np.ndarray]:
    """Satin-like light: shadows deepen and the lit crest of each fold gets a soft highlight
    (returned apart, as what to add, so the caller can keep it off the outline).

    Crests are found on the smooth shading relative to the garment's own spread of lightness,
    so a dark garment gets highlights on its folds (not on every ripple of JPEG noise), and a
    highlight adds a share of the way to white, never all of it.
    """
    if sheen <= 0:
        return L, np.zeros_like(L)
    s = _masked_blur(shade, fabric.astype(np.float32), max(1.5, garment_h * 0.015))
    vals = s[fabric]
    lo, mid, hi = np.percentile(vals, [10, 50, 90]) if len(vals) else (l_med, l_med, l_med)
    spread = max(float(hi - lo), 0.04)
    # Rises smoothly with the fold's light (no threshold that would draw contours), strongest
    # on the garment's brightest tenth.
    highlight = np.clip((s - lo) / (spread * 1.25), 0.0, 1.0) ** 1.5
    # Deeper shadows as a power of lightness: contrast grows without crushing a dark garment's
    # shadows into flat black.
    L = l_med * np.power(np.maximum(L, 1e-4) / max(l_med, 1e-3), 1.0 + 0.5 * sheen)
    # As strong as the garment's own light allows: a softly lit garment gets soft highlights,
    # not a grey wash over its folds.
    return L, min(sheen, 1.0) * highlight * np.minimum((1.0 - L) * 0.4, 2.5 * spread)


def _velvet(L: np.ndarray, rel: np.ndarray, m: np.ndarray, l_med: float) -> np.ndarray:
    """Pile catches light at grazing angles: bright rims along outlines and folds, deep body."""
    dist = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    rim = np.exp(-dist / max(2.0, 0.012 * m.shape[0]))
    # Folds from the smooth shading only: stripes or a print's edges are not folds.
    smooth = _masked_blur(rel, m, max(3.0, 0.012 * m.shape[0]))
    fold = np.clip(np.abs(cv2.Laplacian(smooth, cv2.CV_32F)) * 60, 0, 1)
    # The pile lies one way (down the garment): a fold's flank that turns the pile towards the
    # light looks paler and silkier than the flank that turns it away, so the sheen runs along
    # the folds on one side of each, read from the broad shading (stripes are not folds).
    broad = _masked_blur(rel, m, max(4.0, 0.03 * m.shape[0]))
    slope = cv2.Sobel(broad, cv2.CV_32F, 0, 1, ksize=3) / 8.0 * m.shape[0] * 0.1
    flank = np.clip(slope, 0.0, 1.0)
    L = L * 0.82
    return L + (0.3 * rim + 0.12 * fold + 0.12 * flank) * (1.0 - L) * 0.6


# --- reliefs (zero mean, about unit amplitude) ------------------------------------------------
#
# Each relief is drawn on a grid SS times finer than the photo's pixels (``shape`` and every
# length below are in those fine pixels), bent over the folds there, averaged down to the
# photo's pixels and band-limited to what they can show (see _draw_relief): a weave finer than
# that is not drawn as a grid or a checkerboard it would alias into, its yarns' irregularity
# (slubs, heather, fibre fuzz) is what remains, as it is in a catalogue photo. ``fine`` is the
# finest repeat the photo's pixels show (fine pixels); ``cm`` is one centimetre (fine pixels).

Relief = Callable[[tuple[int, int], float, np.random.Generator, float, float], np.ndarray]


def _grid(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    h, w = shape
    return np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))


def _band_noise(shape: tuple[int, int], sx: float, sy: float,
                rng: np.random.Generator) -> np.ndarray:
    """Gaussian-filtered white noise, features about ``sx`` by ``sy`` pixels (its Gaussian's
    sigmas), zero mean, unit std. Isotropic and aperiodic: no lattice of interpolated cells.
    Broad features are drawn on a grid coarser along their length and brought up smoothly."""
    h, w = shape
    kx, ky = max(1.0, sx / 3.0), max(1.0, sy / 3.0)
    sh, sw = max(2, int(np.ceil(h / ky)) + 2), max(2, int(np.ceil(w / kx)) + 2)
    n = rng.standard_normal((sh, sw), dtype=np.float32)
    n = cv2.GaussianBlur(n, (0, 0), sigmaX=max(0.3, sx / kx), sigmaY=max(0.3, sy / ky),
                         borderType=cv2.BORDER_REFLECT)
    if kx > 1.0 or ky > 1.0:
        n = cv2.resize(n, (int(round(sw * kx)), int(round(sh * ky))),
                       interpolation=cv2.INTER_CUBIC)
    n = n[:h, :w]
    return ((n - n.mean()) / (n.std() + 1e-6)).astype(np.float32)


def _shown(period: float, fine: float, lo: float = 5.0, hi: float = 9.0) -> float:
    """How much of a lattice (loops, an over-under weave) to draw, by its repeat in the photo's
    pixels: under ``lo`` pixels a lattice reads as a pixel grid, not as cloth, and is left out;
    from ``hi`` it is drawn whole."""
    px = period / (fine * F_PASS)
    return float(np.clip((px - lo) / (hi - lo), 0.0, 1.0))


def _unit(r: np.ndarray) -> np.ndarray:
    return ((r - r.mean()) / (r.std() + 1e-6)).astype(np.float32)


def _twill(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Denim: a 3/1 right-hand twill, its wales climbing steeply (about 63°) to the right,
    woven of an indigo warp whose dye is uneven (long vertical streaks, ring-spun slubs) and a
    white weft that peeps through in fine flecks (the heather)."""
    x, y = _grid(shape)
    a = np.deg2rad(27.0)  # the wale's normal, from the horizontal
    # The wale's horizontal repeat is the stated one; a wale finer than the pixels can show is
    # drawn at the finest they can (the twill's slant is what tells denim at catalogue size).
    d = max(period * np.cos(a), 1.05 * fine)
    wobble = 0.06 * _band_noise(shape, 0.8 * cm, 0.8 * cm, rng)  # a wale is not a ruled line
    phase = 2 * np.pi * ((x * np.cos(a) + y * np.sin(a)) / d + wobble)
    # 3/1: a broad warp float and a narrow weft line between floats.
    wale = np.sin(phase) + 0.35 * np.sin(2 * phase + 0.6)
    strength = np.clip(0.85 + 0.25 * _band_noise(shape, 0.3 * cm, 1.0 * cm, rng), 0.3, 1.4)
    # Warp yarns: one yarn wide, their dye varying over a few centimetres along the leg.
    yarn = max(0.5 * fine, 0.04 * cm)
    streaks = _band_noise(shape, 0.3 * yarn, 1.6 * cm, rng)
    # Ring-spun slubs: now and then a thicker, darker length of warp.
    slubs = np.maximum(_band_noise(shape, 0.3 * yarn, 0.3 * cm, rng) - 1.5, 0.0)
    # White weft peeping through: small, light flecks.
    flecks = np.maximum(_band_noise(shape, 0.15 * fine, 0.15 * fine, rng) - 1.0, 0.0)
    mottle = _band_noise(shape, 1.2 * cm, 2.0 * cm, rng)
    return (0.65 * _unit(wale * strength) + 0.35 * streaks - 0.35 * slubs + 0.5 * flecks
            + 0.08 * mottle).astype(np.float32)


def _plain(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Plain weave: over-under yarns (shown only where the pixels can show them), and yarns
    of uneven thickness running both ways."""
    x, y = _grid(shape)
    weave = np.cos(2 * np.pi * x / period) * np.cos(2 * np.pi * y / period)
    yarn = max(0.35 * period, 0.35 * fine)
    warp = _band_noise(shape, 0.5 * yarn, 0.3 * cm, rng)
    weft = _band_noise(shape, 0.3 * cm, 0.5 * yarn, rng)
    fibre = _band_noise(shape, 0.15 * fine, 0.15 * fine, rng)
    return (0.9 * _shown(period, fine) * weave + 0.25 * warp + 0.25 * weft
            + 0.5 * fibre).astype(np.float32)


def _slub(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Linen: plain weave with thick-and-thin weft yarns (short horizontal slubs)."""
    slubs = _band_noise(shape, 0.6 * cm, max(0.3 * period, 0.3 * fine), rng)
    return _unit(0.6 * _plain(shape, period, rng, fine, cm) + 0.7 * slubs)


def _knit(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Jersey face: columns (wales) of V-shaped loops, one wale per stated repeat. Wales wander
    a little and loops vary in size; where the pixels cannot show the loops, the wales' fine
    ribbing and the yarn's fuzz are what shows."""
    x, y = _grid(shape)
    u = (x + 0.08 * period * _band_noise(shape, 0.6 * cm, 1.5 * cm, rng)) / period
    col = u % 1.0
    v = np.abs(col - 0.5) * 2.0  # 1 at the wale's edges, 0 at its middle
    rows = np.sin(2 * np.pi * (y / (period * 0.8) + 0.6 * v))
    loops = (1.0 - v) * 0.9 + 0.5 * rows * (1.0 - v)  # the wale first, its V loops on it
    # The loops need pixels to read as loops; under that the wales' ribs alone are drawn.
    wales = np.cos(2 * np.pi * u)
    shown = _shown(period, fine)
    loops = shown * _unit(loops) + (1.0 - shown) * wales
    loops = loops * np.clip(1.0 + 0.35 * _band_noise(shape, 0.3 * period, 0.6 * period, rng),
                            0.2, 1.8)
    fuzz = _band_noise(shape, 0.15 * fine, 0.15 * fine, rng)
    heather = _band_noise(shape, 0.8 * cm, 0.8 * cm, rng)
    return (0.7 * loops + 0.3 * fuzz + 0.1 * heather).astype(np.float32)


def _fine_knit(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    return _unit(0.9 * _knit(shape, period, rng, fine, cm)
                 + 0.3 * _band_noise(shape, 1.2 * cm, 1.2 * cm, rng))


def _fuzz(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Brushed hair fibres (mohair, alpaca): a soft knit under a haze of fine, short hairs (a
    # few millimetres: thin streaks, never blotches the size of a stitch).
    fibres = _band_noise(shape, max(0.3 * fine, 0.05 * period), max(0.6 * fine, 0.2 * period),
                         rng)
    return _unit(0.7 * cv2.GaussianBlur(_knit(shape, period, rng, fine, cm), (0, 0),
                                        period * 0.12) + 0.5 * fibres)


def _pills(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Fleece: a soft nap with small pills.
    base = _band_noise(shape, period * 0.3, period * 0.3, rng)
    pills = (rng.random(shape) > 0.995).astype(np.float32)
    pills = cv2.GaussianBlur(pills, (0, 0), max(period * 0.25, 0.4 * fine))
    pills /= pills.max() + 1e-6
    return _unit(0.6 * base + 1.2 * pills)


def _grain(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Leather: a smooth hide pebbled by a network of fine creases between rounded pebbles
    about a stated repeat across. Finer than the pixels, the pebbles average out into a fine,
    even grain; there is no mottle at the scale of centimetres (a hide is evenly finished)."""
    n = _band_noise(shape, 0.3 * period, 0.3 * period, rng)
    creases = np.exp(-((n / 0.35) ** 2))  # the level set between pebbles: a crease network
    domes = np.tanh(np.abs(n) * 2.0)  # each pebble rounded, its middle catching the light
    pebbles = _shown(period, fine, 3.0, 6.0) * _unit(0.6 * domes - 0.8 * creases)
    return (pebbles + 0.5 * _band_noise(shape, 0.15 * fine, 0.15 * fine, rng)).astype(
        np.float32)


def _nap(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Suede: short fibres brushed one way, in soft patches brushed a little differently.
    fibres = _band_noise(shape, max(0.2 * fine, period * 0.2), max(0.5 * fine, period * 0.5),
                         rng)
    return _unit(0.7 * fibres + 0.5 * _band_noise(shape, 1.0 * cm, 1.6 * cm, rng))


def _pile(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Velvet: a dense, even pile, too fine to show its fibres; what shows is a soft, even
    bloom and a few patches where the pile lies a little flatter (crushed). Its light (deep
    body, sheen along folds and outline) is laid on by _velvet."""
    bloom = _band_noise(shape, 0.15 * fine, 0.15 * fine, rng)
    crush = _band_noise(shape, 0.4 * cm, 0.6 * cm, rng)
    return (0.4 * bloom + 0.4 * crush).astype(np.float32)


def _smooth(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    return 0.5 * _band_noise(shape, period * 3, period * 3, rng)


def _crepe(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    return _band_noise(shape, max(0.15 * fine, 0.15 * period), max(0.15 * fine, 0.15 * period),
                       rng)


def _ripstop(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    """Nylon ripstop: a fine plain weave reinforced by a grid of heavier yarns every repeat."""
    x, y = _grid(shape)
    jitter = 0.05 * period * _band_noise(shape, 1.0 * cm, 1.0 * cm, rng)
    # The grid's crossing yarns only where the pixels can show a grid as cloth: finer, a
    # lattice of a few pixels reads as a pixel grid, and the warp's ribs alone are drawn.
    lines = (np.maximum(np.cos(2 * np.pi * (x + jitter) / period), 0) ** 4
             + _shown(period, fine) * np.maximum(np.cos(2 * np.pi * (y - jitter) / period),
                                                 0) ** 4)
    base = _plain(shape, max(fine, period / 6), rng, fine, cm)
    return _unit(1.1 * _unit(lines) + 0.45 * base)


def _grid_weave(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Organza: an open plain weave of fine, stiff yarns.
    return _plain(shape, period, rng, fine, cm)


def _net(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Hexagonal tulle mesh: 1 on the threads, 0 in the holes.
    x, y = _grid(shape)
    k = 2 * np.pi / period
    field = (np.cos(k * x) + np.cos(k * (0.5 * x + 0.866 * y)) + np.cos(k * (-0.5 * x + 0.866 * y)))
    return np.clip((1.2 - field) / 1.5, 0.0, 1.0).astype(np.float32)


def _tweed(shape, period, rng, fine, cm):  # type: ignore[no-untyped-def]
    # Coarse 2/2 twill (herringbone-ish) with a rough hand; flecks are added in colour later.
    x, y = _grid(shape)
    # The herringbone's turns need pixels: finer, its two slants read as a pixel zigzag, and
    # one slant (a plain twill) under the rough hand is what shows.
    band = np.floor(x / (period * 6)) % 2 * 2 - 1
    band = 1.0 + _shown(period, fine) * (band - 1.0)
    p = max(period, 1.05 * fine * np.sqrt(2))
    phase = 2 * np.pi * (x * band + y) / p
    return _unit(0.7 * np.sin(phase) + 0.5 * _band_noise(shape, 0.4 * period, 0.4 * period, rng)
                 + 0.3 * _band_noise(shape, 0.15 * fine, 0.15 * fine, rng))


TEXTURES: dict[str, Relief] = {
    "twill": _twill,
    "plain": _plain,
    "slub": _slub,
    "knit": _knit,
    "fine_knit": _fine_knit,
    "fuzz": _fuzz,
    "pills": _pills,
    "grain": _grain,
    "nap": _nap,
    "pile": _pile,
    "smooth": _smooth,
    "crepe": _crepe,
    "ripstop": _ripstop,
    "grid": _grid_weave,
    "net": _net,
    "tweed": _tweed,
}

# What a photo's pixels can show: a repeat passes whole up to F_PASS cycles per pixel and
# fades out by F_STOP (finer detail would alias into grids, checkerboards and moiré).
F_PASS, F_STOP = 0.34, 0.44
FINE_PX = 8.0  # a repeat is drawn with at least this many fine pixels


def _band_limit(img: np.ndarray) -> np.ndarray:
    """Low-pass to what the pixels can show: a radial raised-cosine from F_PASS to F_STOP."""
    h, w = img.shape
    spec = np.fft.rfft2(img)
    fy = np.fft.fftfreq(h)[:, None]
    fx = np.fft.rfftfreq(w)[None, :]
    f = np.hypot(fx, fy)
    t = np.clip((f - F_PASS) / (F_STOP - F_PASS), 0.0, 1.0)
    return np.fft.irfft2(spec * (0.5 + 0.5 * np.cos(np.pi * t)), s=(h, w)).astype(np.float32)


def _draw_relief(parts: list[tuple[float, str, float]], shape: tuple[int, int],
                 rng: np.random.Generator, px_cm: float,
                 shift: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Draw reliefs (weight, name, repeat in pixels) on a finer grid, bend them over the folds
    there (``shift``: per-pixel displacement in pixels), average them down to the pixels and
    band-limit them to what the pixels can show.

    What the pixels cannot show fades, as in a photo; only part of that fading is kept, so a
    fabric whose weave is too fine for the photo still shows its yarns' grain."""
    h, w = shape
    finest = min(p for _, _, p in parts)
    ss = int(np.clip(np.ceil(FINE_PX / max(finest, 1.0)), 1, 4))
    while ss > 1 and h * w * ss * ss > 2_500_000:  # within the speed bar at 1024 px
        ss -= 1
    hs, ws = h * ss, w * ss
    fine = ss / F_PASS
    hi = np.zeros((hs, ws), np.float32)
    for weight, name, period in parts:
        hi += weight * TEXTURES[name]((hs, ws), period * ss, rng, fine, px_cm * ss)
    if shift is not None:
        dx = cv2.resize(shift[0], (ws, hs), interpolation=cv2.INTER_LINEAR) * ss
        dy = cv2.resize(shift[1], (ws, hs), interpolation=cv2.INTER_LINEAR) * ss
        gx, gy = _grid((hs, ws))
        hi = cv2.remap(hi, gx + dx, gy + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    full_std = float(hi.std()) + 1e-6
    lo = cv2.resize(hi, (w, h), interpolation=cv2.INTER_AREA) if ss > 1 else hi
    lo = _band_limit(lo - lo.mean())
    kept = float(lo.std()) / full_std
    lo = lo / max(np.sqrt(max(kept, 1e-3)), 1e-3) / full_std
    # No yarn or crease darker or lighter than the weave allows: rare extremes of the noise
    # would read as stains or holes.
    return (2.0 * np.tanh(lo / 2.0)).astype(np.float32)


def _tweed_flecks(
    L: np.ndarray, ab: np.ndarray, period: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Tweed's nubs of other-coloured wool: light, dark and a contrasting hue."""
    h, w = L.shape
    seeds = rng.random((h, w))
    flecks = cv2.GaussianBlur((seeds > 0.985).astype(np.float32), (0, 0), max(0.7, period * 0.12))
    flecks = np.clip(flecks / (flecks.max() + 1e-6) * 2.5, 0, 1)
    kind = cv2.resize(rng.integers(0, 3, (max(2, h // 4), max(2, w // 4))).astype(np.float32),
                      (w, h), interpolation=cv2.INTER_NEAREST)
    L = L * (1.0 + flecks * np.where(kind == 0, 0.22, np.where(kind == 1, -0.22, 0.05)))
    contrast = np.array([0.08, 0.06], np.float32)  # an orange-ish nub reads on any base
    ab = ab + (flecks * (kind == 2))[..., None] * contrast
    return L, ab


def _jacquard(shape: tuple[int, int], period: float) -> np.ndarray:
    """A woven lozenge motif (tone on tone), in [-1, 1]."""
    x, y = _grid(shape)
    u = np.abs(((x / period) % 1.0) - 0.5) + np.abs(((y / (period * 1.3)) % 1.0) - 0.5)
    return np.tanh((0.32 - u) * 18).astype(np.float32)


# --- helpers ----------------------------------------------------------------------------------


def _masked_blur(ch: np.ndarray, m: np.ndarray, sigma: float) -> np.ndarray:
    """Blur inside the mask only (normalised), so the background does not bleed in."""
    wgt = (m > 0.5).astype(np.float32)
    num = cv2.GaussianBlur(ch * wgt, (0, 0), sigma)
    den = cv2.GaussianBlur(wgt, (0, 0), sigma)
    out = num / np.maximum(den, 1e-4)
    return np.where(den > 1e-3, out, ch).astype(np.float32)


def _behind(crop: np.ndarray, m: np.ndarray) -> np.ndarray:
    """What a sheer fabric lets through: the surroundings continued under the garment."""
    h, w = m.shape
    scale = min(1.0, 160.0 / max(h, w))
    small = cv2.resize(crop, (max(1, int(w * scale)), max(1, int(h * scale))),
                       interpolation=cv2.INTER_AREA)
    ms = cv2.resize((m > 0.3).astype(np.uint8), (small.shape[1], small.shape[0]),
                    interpolation=cv2.INTER_NEAREST)
    ms = cv2.dilate(ms, np.ones((3, 3), np.uint8))
    filled = cv2.inpaint(small, ms, 5, cv2.INPAINT_TELEA)
    filled = cv2.GaussianBlur(filled, (0, 0), 2)
    return cv2.resize(filled, (w, h), interpolation=cv2.INTER_LINEAR)


def _roll_off(rgb: np.ndarray, white_garment: float) -> np.ndarray:
    """Bright colours keep their hue and gradation below the top of the range: the largest
    channel rolls off from 230 towards 252, so a highlight never becomes a flat, clipped patch
    (a garment that was white to begin with may stay white)."""
    if white_garment:
        return rgb
    peak = rgb.max(axis=-1, keepdims=True)
    rolled = soft_clip(peak / 255.0, -1.0, 252 / 255.0, knee=0.08) * 255.0
    return rgb * (rolled / np.maximum(peak, 1e-3))




def _face_tone(rgb: np.ndarray, scene: Any) -> np.ndarray | None:
    """The skin colour of the person's cheeks (uint8-range RGB, float32), or None."""
    if scene is None or not scene.worn or not scene.faces:
        return None
    small, _ = garment_mod.working_copy(rgb)
    x0, y0, x1, y1 = scene.faces[0]
    fw, fh = x1 - x0, y1 - y0
    patch = small[int(y0 + 0.45 * fh):int(y0 + 0.8 * fh), int(x0 + 0.25 * fw):int(x0 + 0.75 * fw)]
    if patch.size < 90:
        return None
    return np.median(patch.reshape(-1, 3), axis=0).astype(np.float32)


def _skin_in_mask(rgb: np.ndarray, scene: Any, lab: np.ndarray, inside: np.ndarray,
                  kept: np.ndarray) -> np.ndarray | None:
    """Skin a garment mask from elsewhere took in (a bare arm beside a top): pixels of the
    face's skin tone, when the garment itself is clearly not of that tone (a beige garment
    stays fabric). By hue and chroma alone it also takes a cream's side in shade and a white
    print's pale parts on a pale model for skin: the garment module's own masks, which judge
    skin beside the fabric it touches, do without it."""
    tone = _face_tone(rgb, scene)
    if tone is None:
        return None
    # Skin is told by its hue and chroma; its lightness swings with the light (a lit shoulder,
    # a shadowed collarbone).
    w_skin = np.array([0.15, 1.0, 1.0], np.float32)
    t = srgb8_to_oklab(tone.astype(np.uint8)[None, None])[0, 0] * w_skin
    d = np.sqrt((((lab * w_skin) - t) ** 2).sum(-1))
    skin = (d < 0.06) & inside
    # The garment must be clearly another colour over a good part of the mask; else the mask
    # may be a skin-toned garment, and it stays fabric.
    t_full = srgb8_to_oklab(tone.astype(np.uint8)[None, None])[0, 0] * _W
    far = np.sqrt((((lab * _W) - t_full) ** 2).sum(-1)) > 0.14
    if not skin.any() or (far & inside).sum() < 0.25 * inside.sum():
        return None
    skin = cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # A specular highlight on skin (collarbone, shoulder) is lighter and nearly colourless.
    tone_lab = srgb8_to_oklab(tone.astype(np.uint8)[None, None])[0, 0]
    shine = (lab[..., 0] > tone_lab[0] + 0.03) & (
        np.hypot(lab[..., 1], lab[..., 2]) < 0.5 * float(np.hypot(*tone_lab[1:])) + 0.02)
    near = cv2.dilate(skin, np.ones((15, 15), np.uint8)) > 0
    skin = (skin | (shine & near & inside)).astype(np.uint8)
    # Shadowed skin between lit patches (a crease, a collarbone) is skin too.
    k = max(3, int(round(0.012 * max(inside.shape))) | 1)
    skin = cv2.morphologyEx(skin, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    skin = cv2.dilate(skin, np.ones((3, 3), np.uint8))
    return np.clip(cv2.GaussianBlur(skin.astype(np.float32), (0, 0), 1.0) * 1.5, 0, 1) * inside


def _body_behind(
    rgb: np.ndarray, scene: Any, box: tuple[int, int, int, int], rel: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """The skin under a sheer garment on a person: the face's skin tone (cheeks) shaded by the
    garment's own relative light, and where the person is (their segmentation), or None."""
    tone = _face_tone(rgb, scene)
    if tone is None or scene.person is None:
        return None
    cy0, cy1, cx0, cx1 = box
    h, w = rgb.shape[:2]
    person = cv2.resize(scene.person.astype(np.float32), (w, h),
                        interpolation=cv2.INTER_LINEAR)[cy0:cy1, cx0:cx1]
    skin = tone[None, None, :] * np.clip(rel, 0.55, 1.25)[..., None]
    return np.clip(skin, 0, 255), np.clip(person, 0.0, 1.0)


def _oklab_to_rgb(lab: np.ndarray) -> np.ndarray:
    return np.clip(linear_to_srgb(oklab_to_linear(lab)) * 255.0 + 0.5, 0, 255).astype(np.uint8)
