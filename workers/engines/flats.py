"""Flats Ecommerce: front/back/side product flats composed into on-model and flat-lay images.

Params: ``shoes``, ``bottom``, ``top``, ``overlayer``, each a dict with optional "FRONT",
"BACK", "SIDE" image bytes (files suffixed _FRONT/_BACK/_SIDE), and ``model`` (bytes or None);
optionally ``model_back`` (bytes), a photo of the model from behind.

One job is one look (the sync groups a look's products: see drives.looks): its items are worn
together. With a model: a front on-model image (bottom, then top, then overlayer dressed with
the try-on core; the shoes worn at the feet, replacing the model's own, when the photo is
full-length), a back image and a flat-lay. Without: a front and a back flat-lay.
The back image dresses ``model_back`` when given; otherwise it lays the back views flat at the
model photo's size, since a front photo has no back to dress.
An output that would be blank or nearly uniform is refused (``blank_output``), and a look of
shoes alone on a photo without feet is refused (``no_feet``): neither is ever delivered.

Progress follows the page's three steps: 'Analyzing input clothing items' (0-40), 'Compositing
outfit on model' (40-80); 'Uploading to output drive' belongs to the worker (80-100).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines import tryon
from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import warp
from workers.engines.imaging.cutout import Cutout, cut_out_product
from workers.engines.imaging.decode import encode_png
from workers.engines.imaging.resize import limit_side
from workers.engines.tryon.body import crop_body, old_garment, skin_of
from workers.engines.tryon.core import BOX_MARGIN

CATEGORIES = ("shoes", "bottom", "top", "overlayer")
VIEWS = ("FRONT", "BACK", "SIDE")
STEP_ANALYSE = "Analyzing input clothing items"
STEP_COMPOSE = "Compositing outfit on model"
# The flat-lay sweep: a warm light grey, as catalogue flat-lays are shot.
FLATLAY_BG = (242, 240, 236)
FLATLAY_SIZE = (1024, 1280)  # w, h
# The crop the garments are dressed on: the person's box grown by this share of its width and
# height. The try-on's BOX_MARGIN, past which no garment reaches, and twice as much again, so
# the blurs near the garment's edge still read the photo, not the crop's edge (see _dress_all).
DRESS_MARGIN = 3 * BOX_MARGIN


@dataclass
class Item:
    category: str
    views: dict[str, Any]  # view -> tryon.Garment (clothes) or Cutout (shoes)

    def view(self, *prefer: str) -> Any:
        for v in prefer + VIEWS:
            if v in self.views:
                return self.views[v]
        return None


def _cutout(item: Any) -> Cutout:
    if isinstance(item, Cutout):
        return item
    a = item.alpha
    return Cutout(rgb=item.rgb, alpha=a)


def analyse_items(params: dict[str, Any], progress: Progress) -> list[Item]:
    """Each item's views: garments prepared for the try-on core (its matte also lays them
    flat cleanly), shoes cut out."""
    jobs = [(c, v, params[c][v]) for c in CATEGORIES if isinstance(params.get(c), dict)
            for v in VIEWS if params[c].get(v)]
    # A side view stands in for a missing front or back; with both, it is never shown.
    given = {(c, v) for c, v, _ in jobs}
    jobs = [(c, v, d) for c, v, d in jobs
            if v != "SIDE" or not {(c, "FRONT"), (c, "BACK")} <= given]
    if not jobs:
        raise EngineError("no_items", "No clothing items were given: add at least one of "
                          "shoes, bottom, top or overlayer with a _FRONT image.")
    items: dict[str, Item] = {}
    # The same photo given for two views (a product shot once, or a side standing in) is
    # prepared once: the cut-out is the costly part and the same bytes give the same result.
    done: dict[tuple[str, bytes], Any] = {}
    for i, (cat, view, data) in enumerate(jobs):
        progress(int(40 * i / len(jobs)), STEP_ANALYSE)
        key = (cat, bytes(data))
        obj: Any = done.get(key)
        if obj is None:
            if cat == "shoes":
                rgb, alpha = tryon._load(data, f"{cat} {view.lower()}")
                obj = cut_out_product(rgb, alpha, what="shoe")
            else:
                category = warp.LOWER if cat == "bottom" else warp.UPPER
                obj = tryon.prepare_garment(data, category)
            done[key] = obj
        items.setdefault(cat, Item(cat, {})).views[view] = obj
    progress(40, STEP_ANALYSE)
    return [items[c] for c in CATEGORIES if c in items]


# --- on model ---------------------------------------------------------------------------------


def _shoe_pieces(shoes: Cutout) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pair's two shoes, image-left first (a single shoe is used twice, mirrored)."""
    m = (shoes.alpha > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    comps = sorted((i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 0.1 * m.sum()),
                   key=lambda i: stats[i, cv2.CC_STAT_LEFT])
    # A pixel off the rim: a product shot's edge carries its sweep, a light halo on a darker
    # backdrop.
    alpha = cv2.erode(shoes.alpha.astype(np.float32), np.ones((3, 3), np.uint8))
    pieces = []
    for i in comps[:2]:
        x, y, w, h = stats[i, :4]
        pieces.append((shoes.rgb[y:y + h, x:x + w],
                       np.where(labels[y:y + h, x:x + w] == i, alpha[y:y + h, x:x + w], 0)))
    if len(pieces) == 1:
        pieces = [(pieces[0][0][:, ::-1], pieces[0][1][:, ::-1]), pieces[0]]
    return pieces


def feet_of(body: tryon.Body) -> list[tuple[np.ndarray, float]] | None:
    """(ankle, floor y) of each foot, image-left first, when the photo is full-length: both
    ankles found and the feet inside the frame. None otherwise."""
    feet = []
    for chain in (body.left, body.right):
        if "ankle" not in chain:
            return None
        pts = [chain[k] for k in ("ankle", "heel", "foot_index") if k in chain]
        floor = max(float(q[1]) for q in pts)
        if floor > body.h - 2 or chain["ankle"][1] < body.hip_mid[1]:
            return None
        feet.append((chain["ankle"], floor))
    return feet


def _backdrop(rgb: np.ndarray, y0: int, y1: int) -> np.ndarray:
    """The backdrop's colour at the height of the feet: the band's outer columns."""
    w = rgb.shape[1]
    band = rgb[y0:y1]
    side = max(2, w // 12)
    return np.median(np.concatenate([band[:, :side], band[:, -side:]], axis=1).reshape(-1, 3),
                     axis=0).astype(np.float32)


def _segment_distance(xs: np.ndarray, ys: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = b - a
    t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / max(float(d @ d), 1e-6), 0.0, 1.0)
    return np.hypot(xs - (a[0] + t * d[0]), ys - (a[1] + t * d[1]))


def _old_feet(out: np.ndarray, body: tryon.Body,
              feet: list[tuple[np.ndarray, float]]) -> list[tuple[int, int, int, int, np.ndarray]]:
    """Per foot, the box (x0, y0, x1, y1) of what the model wears on it now (the shoe: all that
    is not backdrop around that foot) and that region as a mask of the frame.

    Each pixel goes to the nearest of the two feet (ankle to heel and toe) and the two shins
    (knee to ankle), so a foot stepping behind the other, or the other leg passing by, is not
    taken for this foot's shoe."""
    h, w = out.shape[:2]
    t = body.torso_len
    y0 = int(max(0, min(a[1] for a, _ in feet) - 0.15 * t))
    y1 = int(min(h, max(f for _, f in feet) + 0.3 * t))
    x0 = int(max(0, min(a[0] for a, _ in feet) - 0.6 * t))
    x1 = int(min(w, max(a[0] for a, _ in feet) + 0.6 * t))
    empty = [(int(a[0] - 0.15 * t), int(a[1]), int(a[0] + 0.15 * t), int(f), np.zeros((h, w), bool))
             for a, f in feet]
    if x1 - x0 < 3 or y1 - y0 < 3:
        return empty
    crop = out[y0:y1, x0:x1].astype(np.float32)
    bg = _backdrop(out, y0, y1)
    foreign = (np.abs(crop - bg).max(axis=2) > 30) | (body.mask[y0:y1, x0:x1] > 0.5)
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    dists = []
    for chain, (ankle, floor) in zip((body.left, body.right), feet, strict=True):
        ends = [chain[k] for k in ("heel", "foot_index") if k in chain] or [
            np.array([ankle[0], floor], np.float32)]
        dists.append(np.min([_segment_distance(xs, ys, ankle, e) for e in ends], axis=0))
    for chain, (ankle, _) in zip((body.left, body.right), feet, strict=True):
        knee = chain.get("knee", ankle - np.array([0.0, 0.8 * t]))
        dists.append(_segment_distance(xs, ys, knee, ankle))
    nearest = np.argmin(np.stack(dists), axis=0)
    found = []
    for i, (ankle, _) in enumerate(feet):
        mine = foreign & (nearest == i) & (dists[i] < 0.45 * t)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mine.astype(np.uint8), connectivity=8)
        keep = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= 0.02 * mine.sum()]
        if not keep:
            found.append(empty[i])
            continue
        piece = np.isin(labels, keep)
        region = np.zeros((h, w), bool)
        region[y0:y1, x0:x1] = piece
        rows = np.flatnonzero(piece.any(axis=1))
        bottom = int(rows[-1])
        # The shoe's length shows in its sole rows: above them hang the trousers or the leg.
        sole_from = int(bottom - 0.4 * max(bottom - (ankle[1] - y0), 0.1 * t))
        cols = np.flatnonzero(piece[max(0, sole_from):bottom + 1].any(axis=0))
        found.append((x0 + int(cols[0]), y0 + int(rows[0]), x0 + int(cols[-1]) + 1,
                      y0 + bottom + 1, region))
    return found


# A shoe is about this share of the torso (shoulder joints to hip joints) long: an adult's
# foot is 15-16 % of the stature, the torso about a third of it. The photo's own shoes are no
# measure: trousers over them, a stiletto's heel or a boot's shaft make them look longer.
SHOE_PER_TORSO = 0.46
# A shoe seen from the front is about this share of its length wide.
SHOE_WIDTH = 0.38
# A product shot of a shoe seen from the side is at least this much wider than tall; a view of
# its toe is narrower.
SIDE_ASPECT = 1.6
# A foot whose heel-to-toe line spans at least this share of a shoe's length across the picture
# is seen from the side; a shorter one points at the camera and wears the front view.
PROFILE = 0.55


def _toe_right(alpha: np.ndarray) -> bool:
    """Whether a shoe seen from the side points right: its heel end, where the collar is, is
    taller than its toe."""
    heights = (alpha > 0.5).sum(axis=0).astype(np.float32)
    third = max(1, len(heights) // 3)
    return float(heights[-third:].mean()) < float(heights[:third].mean())


def _shoe_for(foot: dict[str, np.ndarray], rise: float, length: float,
              pieces: list[tuple[np.ndarray, np.ndarray]], image_left: bool
              ) -> tuple[np.ndarray, np.ndarray, float]:
    """The view of the pair that suits one foot, scaled to it: (rgb, alpha, centre x). A foot
    seen from the side wears a side view pointing its way, as long as the foot shows; a foot
    pointing at the camera wears the toe view, as wide as a shoe is."""
    heel, toe = foot.get("heel"), foot.get("foot_index")
    if heel is not None and toe is not None:
        dx = float(toe[0] - heel[0])
        centre = float(heel[0] + toe[0]) / 2
    else:
        dx = 0.0
        centre = float((toe if toe is not None else heel)[0])
    profile = abs(dx) / max(length, 1.0)
    sides = [p for p in pieces if p[0].shape[1] >= SIDE_ASPECT * p[0].shape[0]]
    fronts = [p for p in pieces if p[0].shape[1] < SIDE_ASPECT * p[0].shape[0]]
    if fronts and (profile < PROFILE or not sides):
        # The pair's toe view, turned for the image-left foot (the other foot of the pair).
        rgb, alpha = fronts[-1]
        if image_left and len(fronts) == 1:
            rgb, alpha = rgb[:, ::-1], alpha[:, ::-1]
        # A foot turned a little shows more of its side: a little wider. Tall enough to
        # reach from the sole to the ankle (a toe view's top is its tongue going up the leg),
        # within what a shoe's width can be.
        wide = SHOE_WIDTH * length * (1.0 + 0.8 * profile)
        scale = min(max(wide / rgb.shape[1], 1.05 * rise / rgb.shape[0]),
                    1.5 * wide / rgb.shape[1])
    else:
        rgb, alpha = sides[0] if sides else pieces[0]
        if dx != 0.0 and _toe_right(alpha) != (dx > 0):
            rgb, alpha = rgb[:, ::-1], alpha[:, ::-1]
        # Its length as the foot shows it across the picture, never shorter than a shoe seen
        # three-quarters on.
        scale = length * float(np.clip(profile + 0.15, 0.75, 1.0)) / rgb.shape[1]
    size = (max(2, int(round(rgb.shape[1] * scale))), max(2, int(round(rgb.shape[0] * scale))))
    r = cv2.resize(np.ascontiguousarray(rgb), size, interpolation=cv2.INTER_AREA)
    a = np.clip(cv2.resize(np.ascontiguousarray(alpha, np.float32), size,
                           interpolation=cv2.INTER_AREA), 0, 1)
    return r, a, centre


def _place_shoes(out: np.ndarray, body: tryon.Body, shoes: Cutout,
                 boxes: list[tuple[int, int, int, int]] | None = None,
                 legs: np.ndarray | None = None) -> np.ndarray:
    """The pair worn at the model's feet: each shoe sized from the body (the torso's length),
    the view that suits its foot (side or toe), standing on the model's own sole line and
    centred on the foot; the model's own shoes are painted out to the floor and the leg, all
    but what ``legs`` (``legs_now``) says carries the leg on down into the new shoe.
    Nothing is placed when the photo is not full-length (see ``feet_of``); a foot the pose
    cannot place (neither heel nor toe found) is refused (``shoes_unfit``)."""
    feet = feet_of(body)
    if feet is None:
        return out
    pieces = _shoe_pieces(shoes)
    if not pieces:
        return out
    chains = (body.left, body.right)
    if any("heel" not in c and "foot_index" not in c for c in chains):
        raise EngineError("shoes_unfit", "The shoes cannot be fitted: the model's feet are not "
                          "clear enough in the photo to tell where each foot points. Use a "
                          "full-length photo with both feet visible on the floor.")
    t = body.torso_len
    length = SHOE_PER_TORSO * t
    old = _old_feet(out, body, feet)
    h, w = out.shape[:2]
    plan = []
    for i, ((ankle, _), (_, _, _, oy1, _), chain) in enumerate(zip(feet, old, chains, strict=True)):
        r, a, centre = _shoe_for(chain, oy1 - float(ankle[1]), length, pieces, image_left=i == 0)
        x = int(round(centre - r.shape[1] / 2))
        y = int(round(oy1 - r.shape[0]))
        plan.append((r, a, x, y))
    # The old shoes go back to the floor and the leg, all of them at once and under the new
    # ones too: what is painted in is read off the backdrop and the leg round the old shoes,
    # never off another old shoe. Above the ankle only what the shin is not.
    fill = np.zeros((h, w), bool)
    leg = np.zeros((h, w), bool)
    for (ankle, _), (_, _, _, _, region), (r, _, _, y) in zip(feet, old, plan, strict=True):
        band = region.copy()
        band[:max(0, int(ankle[1] - 0.02 * t))] = False
        # The old shoe's antialiased rim goes too, but not above the band's first row: that is
        # where it was cut off from the leg, not the shoe's edge.
        grown = cv2.dilate(band.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        rows = np.flatnonzero(band.any(axis=1))
        grown[:int(rows[0]) if len(rows) else h] = False
        if legs is not None:
            leg |= _leg_above_the_shoe(out, legs, grown, y + int(LEG_INTO_SHOE * r.shape[0]))
        fill |= grown
    fill &= ~leg
    if fill.any():
        out = _paint_out(out, fill, max(3, int(0.04 * t)))
    for r, a, x, y in sorted(plan, key=lambda q: q[3] + q[0].shape[0]):
        out = tryon._shadow(out, a, x, y + int(0.04 * a.shape[0]), 0.05 * a.shape[1], 0.3)
        out = tryon._paste(out, r, a, x, y)
    if boxes is not None:
        boxes += [(x, y, r.shape[1], r.shape[0]) for r, _, x, y in plan]
    return out


# What comes down to the old shoe from above (a trouser's hem, a bare ankle) stays as the
# dressed photo shows it, down to this share of the new shoe's height from its top (into its
# collar); further down the new shoe covers the foot, and what it leaves of the old shoe is
# painted out.
LEG_INTO_SHOE = 0.35
# A pixel within this of one of the old shoe's colours (CIELAB on OpenCV's 8-bit scale) is the
# shoe's, whatever the masks of the legs say.
SHOE_NEAR = 14.0


def legs_now(body: tryon.Body, dressed: np.ndarray) -> np.ndarray:
    """What is or covers the legs in ``dressed`` (``body``'s photo with the look's garments
    on): a garment the look put on (the pixels the dressing changed), the trousers or skirt
    the model wears where the dressing left them, and her bare skin (bool)."""
    changed = (dressed != body.rgb).any(axis=2)
    return changed | old_garment(body, warp.LOWER) | (skin_of(body) > 0.5)


def _leg_above_the_shoe(out: np.ndarray, legs: np.ndarray, band: np.ndarray,
                        until: int) -> np.ndarray:
    """The pixels of an old shoe's region ``band`` down to row ``until`` that carry on the
    legs (``legs_now``) from the band's first rows: a trouser's hem or a bare ankle above the
    shoe, not in the old shoe's own colours. Painting them out cut the hem off and smeared it
    down onto the new shoe."""
    found = np.zeros(band.shape, bool)
    rows = np.flatnonzero(band.any(axis=1))
    if len(rows) < 4 or until <= rows[0]:
        return found
    # Worked out on the band's box and a margin for the closing below: the rest is never read.
    h, w = band.shape
    cols = np.flatnonzero(band.any(axis=0))
    first, last = int(rows[0]), int(rows[-1])
    y0, y1 = max(0, first - 3), min(h, last + 4)
    x0, x1 = max(0, int(cols[0]) - 3), min(w, int(cols[-1]) + 4)
    box = (slice(y0, y1), slice(x0, x1))
    inside, legs = band[box], legs[box]
    leg = legs & inside
    leg[until - y0:] = False
    # The old shoe's colours, read in the lower half of the band where nothing is the leg's:
    # the masks of the legs reach a little past the ankle, onto a shoe's collar.
    lower = inside & ~legs
    lower[:(first + last) // 2 - y0] = False
    if lower.sum() >= 16:
        lab = cv2.cvtColor(np.ascontiguousarray(out[box]), cv2.COLOR_RGB2LAB).astype(np.float32)
        shoe = _colours(lab[lower], k=5)
        leg &= np.min([np.linalg.norm(lab - c, axis=-1) for c in shoe], axis=0) >= SHOE_NEAR
    # A print's spot in the shoe's colour is closed over (a hem is one piece), and only what
    # hangs from the band's first rows is the leg's: a patch lower down that the skin test
    # takes (a tan shoe's upper) is the old shoe.
    leg = (cv2.morphologyEx(leg.astype(np.uint8), cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))) > 0) & inside
    leg[until - y0:] = False
    _, labels = cv2.connectedComponents(leg.astype(np.uint8), connectivity=8)
    top = slice(first - y0, first - y0 + 2)
    joined = np.unique(labels[top][leg[top]])
    found[box] = np.isin(labels, joined[joined > 0])
    return found


def _colours(px: np.ndarray, k: int = 3) -> np.ndarray:
    """A few main colours of ``px`` (N, 3): k-means centres, fewer for few pixels."""
    k = max(1, min(k, len(px) // 8))
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5)
    _, _, centres = cv2.kmeans(np.ascontiguousarray(px, np.float32), k, None, crit, 1,
                               cv2.KMEANS_PP_CENTERS)
    return centres


def _paint_out(img: np.ndarray, hole: np.ndarray, radius: int) -> np.ndarray:
    """``img`` with ``hole`` painted in from its rim (cv2.inpaint), at half size on the hole's
    box: the fill's cost grows with the hole's pixels times the radius squared, and what it
    paints here (floor, backdrop, the edge of a shin) is smooth. Only the hole's pixels change."""
    ys, xs = np.nonzero(hole)
    h, w = hole.shape
    m = 2 * radius + 4
    y0, y1 = max(0, int(ys.min()) - m), min(h, int(ys.max()) + m + 1)
    x0, x1 = max(0, int(xs.min()) - m), min(w, int(xs.max()) + m + 1)
    crop, inside = img[y0:y1, x0:x1], hole[y0:y1, x0:x1] > 0
    size = (max(1, (x1 - x0) // 2), max(1, (y1 - y0) // 2))
    small = cv2.resize(crop, size, interpolation=cv2.INTER_AREA)
    small_hole = cv2.dilate(cv2.resize(inside.astype(np.uint8), size,
                                       interpolation=cv2.INTER_NEAREST), np.ones((3, 3), np.uint8))
    filled = cv2.inpaint(small, small_hole, max(2, radius // 2), cv2.INPAINT_TELEA)
    up = cv2.resize(filled, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    out = img.copy()
    out[y0:y1, x0:x1][inside] = up[inside]
    return out


def _hide_under(out: np.ndarray, under: np.ndarray, top_a: np.ndarray, over_a: np.ndarray,
                body: tryon.Body) -> np.ndarray:
    """The top worn under an overlayer shows at the neckline and below the overlayer's hem, not
    beside it: a wider sleeve or side of the top sticking out of a jacket is put back to what
    was under the top (the backdrop beside the model)."""
    h, w = over_a.shape
    covered = over_a > 0.5
    has = covered.any(axis=0)
    if not has.any():
        return out
    lowest = np.where(has, h - 1 - np.argmax(covered[::-1], axis=0), -1)
    hem = np.where(has, lowest, float(np.median(lowest[has])))
    above_hem = np.arange(h)[:, None] < hem[None, :]
    # Inside the person it is the top seen in the opening.
    peek = (top_a > 0.02) & ~covered & above_hem & (body.mask < 0.5)
    soft = cv2.GaussianBlur(peek.astype(np.float32), (0, 0), 1.0) * (1.0 - over_a)
    mix = out.astype(np.float32) * (1 - soft[..., None]) + under.astype(np.float32) * soft[..., None]
    return np.clip(mix + 0.5, 0, 255).astype(np.uint8)


# The largest hole in the person's silhouette, as a share of the shoulders' width squared, that
# a top covers: 0.003 to 0.021 under the arms of our studio photos; the gap between an arm held
# away and the waist is 0.044 and more, and stays open.
SLEEVE_GAP = 0.025


def _small_holes_filled(mask: np.ndarray, largest: float) -> np.ndarray:
    """``mask`` (uint8) with its holes (background it closes round, not reaching the frame's
    edge) of at most ``largest`` pixels set."""
    h, w = mask.shape
    _, labels, stats, _ = cv2.connectedComponentsWithStats((mask == 0).astype(np.uint8), 4)
    x, y, bw, bh, area = (stats[:, i] for i in range(5))
    small = (area <= largest) & (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    small[0] = False  # label 0: the mask's own set pixels
    if not small.any():
        return mask
    return np.where(small[labels] & (mask == 0), 1, mask).astype(mask.dtype)


def _tidy_top(out: np.ndarray, under: np.ndarray, body: tryon.Body, alpha: np.ndarray
              ) -> np.ndarray:
    """The top as worn, not pasted: what of it stands off the silhouette (squared shoulders,
    straight sides) goes back to what was there (the backdrop), with a soft edge; strips of
    the old garment left beside it above its hem (between the tee and an arm) are painted
    over from their surroundings, the tee and the arm."""
    h, w = alpha.shape
    person = (body.mask > 0.5).astype(np.uint8)
    # A narrow gap between a hanging arm and the torso is under a loose tee, not a line of
    # backdrop cut into it.
    gap = max(3, int(round(0.06 * body.shoulder_width)) | 1)
    closed = cv2.morphologyEx(person, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (gap, gap)))
    # So is a small hole the person closes round (the armpit's gap under a loose sleeve): put
    # back, the photo showed through the sleeve as a round pale spot.
    closed = _small_holes_filled(closed, SLEEVE_GAP * body.shoulder_width ** 2)
    # Elsewhere the top ends where the person does, as the old garment did: a tee's flat
    # outline (its shoulder points squared out, its sides cut straight) does not hang beyond
    # the body it is worn on. Everything off the silhouette goes back to the photo, the
    # garment's own feathered rim included: a margin of the new colour faded over the backdrop
    # shows as a pale ghost round the shoulders and arms. The cut is the segmentation's half-way
    # line, which follows the photo's edge (its matte fades over several pixels), antialiased.
    allowed = cv2.GaussianBlur(closed.astype(np.float32), (0, 0), 0.7)
    off = (1.0 - allowed) * (~body.head)
    res = out
    if off.max() > 0.02:
        k = off[..., None]
        res = np.clip(out.astype(np.float32) * (1 - k) + under.astype(np.float32) * k + 0.5,
                      0, 255).astype(np.uint8)
    covered = alpha > 0.5
    has = covered.any(axis=0)
    if not has.any():
        return res
    hem = np.where(has, h - 1 - np.argmax(covered[::-1], axis=0), -1)
    top = np.where(has, np.argmax(covered, axis=0), h)
    rows = np.arange(h)[:, None]
    # Columns beside the garment (an arm's width at most) take its nearest hem and collar.
    span = max(2, int(0.12 * body.shoulder_width))
    hem = cv2.dilate(hem.astype(np.float32)[None, :], np.ones((1, 2 * span + 1), np.uint8))[0]
    top = cv2.erode(top.astype(np.float32)[None, :], np.ones((1, 2 * span + 1), np.uint8))[0]
    # The old garment as its mask reads it, or anything on the person there that is not skin
    # (the mask misses a dress's darker side panel) and the photo still shows as it was; not
    # the bottom worn under the top, whose side shows beside a longer top as it is (painted
    # over, its print smeared into a blotch between the top and the arm).
    old = old_garment(body, warp.UPPER) | ((skin_of(body) < 0.5) & ~old_garment(body, warp.LOWER))
    same = np.abs(res.astype(np.int16) - body.rgb.astype(np.int16)).max(axis=2) < 6
    near = cv2.dilate(covered.astype(np.uint8), np.ones((2 * span + 1, 2 * span + 1), np.uint8)) > 0
    strip = (old & same & near & ~covered & (body.mask > 0.5) & ~body.head
             & (rows > top[None, :]) & (rows < hem[None, :] - 1))
    if strip.sum() >= 4:
        fill = cv2.dilate(strip.astype(np.uint8), np.ones((3, 3), np.uint8))
        res = cv2.inpaint(res, fill, 3, cv2.INPAINT_TELEA)
    return res


def _dress_all(body: tryon.Body, items: list[Item], view: str) -> np.ndarray:
    by_cat = {it.category: it for it in items}
    # The garments are dressed on a crop round the person: no garment reaches past the
    # person's box and the try-on's margin, so every mask, blur and fill of the dressing over
    # the rest of the photo was work for pixels that came out unchanged. The shoes are worn on
    # the whole photo: their backdrop is read off its sides.
    crop, (rows, cols) = crop_body(body, DRESS_MARGIN)
    out = body.rgb.copy()
    out[rows, cols] = _dress_garments(crop, by_cat, view)
    if "shoes" in by_cat:
        legs = np.zeros(out.shape[:2], bool)
        legs[rows, cols] = legs_now(crop, out[rows, cols])
        out = _place_shoes(out, body, _cutout(by_cat["shoes"].view("FRONT" if view == "FRONT" else "BACK", "SIDE")),
                           legs=legs)
    return out


def _dress_garments(body: tryon.Body, by_cat: dict[str, Item], view: str) -> np.ndarray:
    """The photo of ``body`` wearing the look's bottom, top and overlayer, in that order."""
    out = body.rgb.copy()
    first = True
    under_top: np.ndarray | None = None
    top_alpha: np.ndarray | None = None
    for cat in ("bottom", "top", "overlayer"):
        if cat not in by_cat:
            continue
        g = by_cat[cat].view(view)
        if cat == "overlayer":
            # Over the top: nothing of the old outfit to paint out, only the cover.
            out, info = tryon.dress(body, g, out, fill_old=False)
            if under_top is not None and top_alpha is not None:
                out = _hide_under(out, under_top, top_alpha, info["alpha"], body)
        else:
            if cat == "top":
                under_top = out
            out, info = tryon.dress(body, g, out, fill_old=first or cat == "top")
            if cat == "top":
                top_alpha = info["alpha"]
                out = _tidy_top(out, under_top, body, top_alpha)
        first = False
    return out


# --- flat-lay ---------------------------------------------------------------------------------


def _fit(cut: Cutout, box_w: int, box_h: int) -> Cutout:
    s = min(box_w / cut.width, box_h / cut.height)
    size = (max(2, int(cut.width * s)), max(2, int(cut.height * s)))
    return Cutout(rgb=cv2.resize(cut.rgb, size, interpolation=cv2.INTER_AREA),
                  alpha=cv2.resize(cut.alpha.astype(np.float32), size, interpolation=cv2.INTER_AREA))


def flat_lay(items: list[Item], view: str = "FRONT", size: tuple[int, int] = FLATLAY_SIZE
             ) -> tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]:
    """The cut-out items on a light sweep: top above bottom, overlayer beside, shoes below,
    each with a soft contact shadow; shoes alone fill the frame. Returns the image and each
    item's box."""
    w, h = size
    canvas = np.empty((h, w, 3), np.uint8)
    canvas[:] = FLATLAY_BG
    by_cat = {it.category: it for it in items}
    has_over = "overlayer" in by_cat
    col_w = int(w * (0.5 if has_over else 0.7))
    col_x = int(w * (0.04 if has_over else 0.15))
    slots = {
        "top": (col_x, int(0.04 * h), col_w, int(0.36 * h)),
        "bottom": (col_x, int(0.42 * h), col_w, int(0.4 * h)),
        "overlayer": (int(0.56 * w), int(0.1 * h), int(0.4 * w), int(0.55 * h)),
        "shoes": (int(0.3 * w) if not has_over else int(0.58 * w), int(0.84 * h), int(0.36 * w), int(0.13 * h)),
    }
    if "top" not in by_cat:
        slots["bottom"] = (col_x, int(0.08 * h), col_w, int(0.72 * h))
    if "bottom" not in by_cat:
        slots["top"] = (col_x, int(0.08 * h), col_w, int(0.6 * h))
    if set(by_cat) == {"shoes"}:
        slots["shoes"] = (int(0.1 * w), int(0.25 * h), int(0.8 * w), int(0.5 * h))
    boxes = {}
    for cat in ("overlayer", "bottom", "top", "shoes"):
        if cat not in by_cat:
            continue
        prefer = (view, "SIDE") if cat == "shoes" and view == "BACK" else (view,)
        cut = _fit(_cutout(by_cat[cat].view(*prefer)), slots[cat][2], slots[cat][3])
        sx, sy, sw, sh = slots[cat]
        x = sx + (sw - cut.width) // 2
        y = sy + (sh - cut.height) // 2
        blur = 0.02 * max(cut.width, cut.height)
        canvas = tryon._shadow(canvas, cut.alpha, x + int(0.6 * blur), y + int(blur), blur, 0.28)
        canvas = tryon._paste(canvas, cut.rgb, cut.alpha, x, y)
        boxes[cat] = (x, y, cut.width, cut.height)
    return canvas, boxes


# --- entry point --------------------------------------------------------------------------------

# An output with less than this share of pixels apart from its backdrop, or a luminance spread
# under BLANK_STD, shows nothing a catalogue can use: it is refused, never delivered.
BLANK_SHARE = 0.02
BLANK_STD = 8.0


def visible_content(rgb: np.ndarray) -> tuple[float, float]:
    """(luminance standard deviation, share of pixels that are not the backdrop) of an image;
    the backdrop is the median colour of its outer frame."""
    rgb, _ = limit_side(rgb, 512)  # the same figures, read off a reduced copy
    h, w = rgb.shape[:2]
    m = max(2, min(h, w) // 40)
    frame = np.concatenate([rgb[:m].reshape(-1, 3), rgb[-m:].reshape(-1, 3),
                            rgb[:, :m].reshape(-1, 3), rgb[:, -m:].reshape(-1, 3)])
    bg = np.median(frame, axis=0).astype(np.float32)
    share = float((np.abs(rgb.astype(np.float32) - bg).max(axis=2) > 24).mean())
    lum = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(lum.std()), share


def _deliverable(rgb: np.ndarray, what: str) -> np.ndarray:
    std, share = visible_content(rgb)
    if std < BLANK_STD or share < BLANK_SHARE:
        raise EngineError("blank_output", f"The {what} came out nearly blank (only {share:.1%} "
                          f"of it stands out from the backdrop, contrast {std:.0f}): check that "
                          "the product photos show the whole item, clearly, on a plain backdrop.")
    return rgb


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    progress(0, STEP_ANALYSE)
    items = analyse_items(params, progress)
    progress(40, STEP_COMPOSE)
    images: list[tuple[np.ndarray, str, str]] = []
    model = params.get("model")
    if model:
        rgb, _ = tryon._load(model, "model")
        body = tryon.analyse_body(rgb)
        if {it.category for it in items} == {"shoes"} and feet_of(body) is None:
            raise EngineError("no_feet", "The model photo does not show both feet, so the "
                              "shoes cannot be worn: use a full-length photo of the model, or "
                              "sync the shoes with a garment of the look.")
        progress(48, STEP_COMPOSE)
        front = _dress_all(body, items, "FRONT")
        images.append((front, "flats-front.png", "front on-model image"))
        progress(60, STEP_COMPOSE)
        if params.get("model_back"):
            brgb, _ = tryon._load(params["model_back"], "back model")
            back = _dress_all(tryon.analyse_body(brgb), items, "BACK")
        else:
            # A front photo has no back to dress: the back views, laid flat at the photo's size.
            back, _ = flat_lay(items, "BACK", size=(rgb.shape[1], rgb.shape[0]))
        images.append((back, "flats-back.png", "back image"))
        progress(70, STEP_COMPOSE)
    lay, _ = flat_lay(items, "FRONT")
    images.append((lay, "flats-flatlay.png", "flat-lay"))
    if not model:
        # Without a model the back flats get their own flat-lay.
        progress(60, STEP_COMPOSE)
        back_lay, _ = flat_lay(items, "BACK")
        images.append((back_lay, "flats-flatlay-back.png", "back flat-lay"))
    # Run-length deflate: on Flats' outputs (the model photo dressed, flat lays on a plain
    # sweep) 30 % less encoding time than the default strategy, the files mostly smaller (from
    # 16 % smaller to 1 % larger on our looks).
    outputs = [EngineOutput(encode_png(_deliverable(im, what), run_length=True), "image/png", name)
               for im, name, what in images]
    progress(80, STEP_COMPOSE)
    return outputs
