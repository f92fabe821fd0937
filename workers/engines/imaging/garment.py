"""Where the garment is: on a product shot (one garment on a plain background) or worn.

No package ships weights for clothes parsing here, so masks are built from what does run
offline: the image border's colour and GrabCut for product shots; for worn outfits mediapipe's
person segmentation, pose landmarks (shoulders, hips, knees, ankles) to place the garment's band,
colour clusters seeded inside that band, and a skin colour model (YCrCb, seeded from the face)
so arms, legs, neck and face never get edited.

Masks are computed at a working size (long side 512) and returned at full size as float32 in
[0, 1] with a soft, edge-aware rim: at 512 px a garment's outline is still a few pixels wide and
the whole step stays well under a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging import matte
from workers.engines.imaging.color import srgb8_to_oklab
from workers.engines.imaging.resize import limit_side

WORK_SIDE = 512

Region = Literal["upper", "lower", "full"]

UPPER = frozenset(
    {
        "blazer", "blouse", "cardigan", "hoodie", "jacket", "outerwear", "polo", "pullover",
        "shirt", "sweater", "sweatshirt", "top", "tshirt", "t-shirt",
    }
)
LOWER = frozenset({"jeans", "pants", "shorts", "skirt", "trousers", "trousers / pants"})
FULL = frozenset(
    {"coat", "dress", "full-garment", "full garment", "jumpsuit", "romper", "accessory"}
)


def garment_region(garment_type: str) -> Region:
    """Which part of a worn outfit a garment type covers."""
    key = str(garment_type or "").strip().lower().replace("_", "-")
    if key in UPPER:
        return "upper"
    if key in LOWER:
        return "lower"
    if key in FULL:
        return "full"
    raise EngineError(
        "invalid_garment_type",
        f"{garment_type!r} is not a garment type we know: use one of "
        + ", ".join(sorted(UPPER | LOWER | FULL)) + ".",
    )


@dataclass(frozen=True)
class Scene:
    """What the detectors saw: enough to tell a product shot from a worn outfit."""

    pose: Any | None  # pose.Pose in the working size, or None
    person: np.ndarray | None  # float32 HxW (working size)
    faces: list[tuple[int, int, int, int]]  # working-size boxes

    @property
    def worn(self) -> bool:
        return is_worn_pose(self.pose)


@dataclass(frozen=True)
class GarmentMask:
    mask: np.ndarray  # float32 HxW in [0, 1], full size
    skin: np.ndarray  # float32 HxW in [0, 1], full size (zeros on product shots)
    worn: bool
    runs_on: bool = False  # a worn top's (bottom's) colour runs on past its part: a dress
    # float32 HxW in [0, 1], full size: what the model holds in front of the garment (a bag, a
    # clutch), left out of ``mask``; None when nothing is held. Kept apart so that a step
    # which grows or fills the mask later leaves it out too.
    held: np.ndarray | None = None
    # The worn mask and skin (bool) and the photo in OKLab at the working size, as the mask's
    # step had them: what ``cut_across`` reads, without bringing the full-size mask back down.
    working: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    # Worn: the share of the body where the part surely is (its seed box), less what looks
    # like skin, that the mask covers (see ``found_share``); 1 on product shots.
    found: float = 1.0
    # Worn: the outfit's other part (a top's bottom, a bottom's top) where it meets this one,
    # bool, full size: a step that grows the mask later stays out of it.
    others: np.ndarray | None = None


def is_worn_pose(pose: Any | None) -> bool:
    """A body, not a garment: both shoulders and a hip, or a shoulder, a hip and the nose.

    Pose models fire on shirts lying flat now and then, but they rarely place a full torso
    with sensible proportions on one; the torso check below keeps those out.
    """
    if pose is None:
        return False
    pts = pose.points
    shoulders = [p for p in ("left_shoulder", "right_shoulder") if p in pts]
    hips = [p for p in ("left_hip", "right_hip") if p in pts]
    if not shoulders or not hips:
        return False
    if len(shoulders) < 2 and "nose" not in pts:
        return False
    sy = np.mean([pts[p][1] for p in shoulders])
    hy = np.mean([pts[p][1] for p in hips])
    # The torso has to point down and be a plausible share of the frame.
    return bool(hy - sy > 0.08 * pose.height)


# --- entry points -----------------------------------------------------------------------------


def working_copy(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    return limit_side(rgb, WORK_SIDE)


def look(small: np.ndarray) -> Scene:
    """Run the detectors once on the working copy."""
    from workers.engines.imaging import pose as pose_mod  # mediapipe is heavy: import on use

    p = pose_mod.detect_pose(small)
    if not is_worn_pose(p):
        return Scene(pose=p, person=None, faces=[])
    person = pose_mod.person_mask(small).astype(np.float32)
    faces = list(pose_mod.face_boxes(small))
    return Scene(pose=p, person=person, faces=faces)


def garment_mask(
    rgb: np.ndarray, garment_type: str, *, scene: Scene | None = None
) -> GarmentMask:
    """The garment of that type in the photo, product shot or worn, at full size."""
    region = garment_region(garment_type)
    small, _ = working_copy(rgb)
    if scene is None:
        scene = look(small)
    if scene.worn:
        person = scene.person
        if person is None:
            from workers.engines.imaging import pose as pose_mod

            person = pose_mod.person_mask(small).astype(np.float32)
        outfit = worn_outfit(small, scene.pose, person, scene.faces)
        mask_s, skin_s, others_s = worn_mask(small, region, scene.pose, person, scene.faces,
                                             outfit=outfit)
        runs_on = runs_past_its_part(outfit, region)
        found = found_share(outfit, region, mask_s, skin_s, person)
        held_s = held_in_hand(rgb, small, scene.pose, person, outfit.torso)
        if held_s is not None:
            mask_s = mask_s * ~held_s
        working = ((mask_s * (1.0 - np.clip(skin_s, 0, 1))) > 0.5, skin_s > 0.5, outfit.lab)
    else:
        mask_s = product_mask(small)
        skin_s = np.zeros(mask_s.shape, np.float32)
        runs_on = False
        found = 1.0
        held_s = None
        working = None
        others_s = None
    if mask_s.sum() < 0.002 * mask_s.size:
        raise EngineError(
            "garment_not_found",
            f"No {garment_type} was found in the image: send a product shot on a plain "
            "background or a photo of a person wearing it.",
        )
    full = upsample_mask(mask_s, rgb)
    skin = cv2.resize(skin_s, (rgb.shape[1], rgb.shape[0]), interpolation=cv2.INTER_LINEAR)
    # Skin stays untouched even where the garment rim was feathered over it.
    full = full * (1.0 - np.clip(skin, 0, 1))
    held = None
    if held_s is not None:
        held = upsample_mask(held_s.astype(np.float32), rgb)
        full = full * (1.0 - held)
    others = None
    if others_s is not None:
        others = cv2.resize(others_s.astype(np.uint8), (rgb.shape[1], rgb.shape[0]),
                            interpolation=cv2.INTER_NEAREST) > 0
    return GarmentMask(mask=full.astype(np.float32), skin=skin.astype(np.float32),
                       worn=scene.worn, runs_on=runs_on, held=held, working=working,
                       found=found, others=others)


# --- product shots ----------------------------------------------------------------------------


def border_distance(rgb: np.ndarray) -> np.ndarray:
    """OKLab distance of every pixel to the nearest of a few border colours (sweeps shade)."""
    lab = srgb8_to_oklab(rgb)
    h, w = rgb.shape[:2]
    b = max(2, min(h, w) // 60)
    border = np.concatenate(
        [lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3),
         lab[:, -b:].reshape(-1, 3)]
    )
    k = 3
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1e-3)
    cv2.setRNGSeed(0)  # the same photo gives the same mask, whatever ran before in the process
    _, labels, centres = cv2.kmeans(
        border.astype(np.float32), k, None, crit, 1, cv2.KMEANS_PP_CENTERS
    )
    # Clusters that cover little of the border are garment parts touching the edge, not sweep.
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    centres = centres[share > 0.15]
    d = np.min(
        np.linalg.norm(lab[:, :, None, :] - centres[None, None, :, :], axis=-1), axis=-1
    )
    return d.astype(np.float32)


def product_mask(rgb: np.ndarray) -> np.ndarray:
    """Garment on a plain background: border colour model, then GrabCut on its seeds."""
    h, w = rgb.shape[:2]
    d = border_distance(rgb)
    d = cv2.GaussianBlur(d, (3, 3), 0)
    # 0.035 OKLab is a little above JPEG noise and sweep shading; garments, even white ones,
    # differ from the sweep by their shadows and seams, which then close the outline.
    fg0 = (d > 0.035).astype(np.uint8)
    fg0 = cv2.morphologyEx(fg0, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    bg_connected = _border_connected(1 - fg0)
    inside = 1 - bg_connected  # the outline with its enclosed parts (white prints, labels)
    if inside.sum() < 0.01 * h * w:
        return np.zeros((h, w), np.float32)

    gc = np.full((h, w), cv2.GC_PR_BGD, np.uint8)
    gc[cv2.erode(inside, np.ones((7, 7), np.uint8)) > 0] = cv2.GC_PR_FGD
    gc[cv2.erode(fg0 & inside, np.ones((9, 9), np.uint8)) > 0] = cv2.GC_FGD
    sure_bg = cv2.erode(bg_connected.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    gc[sure_bg & (d < 0.02)] = cv2.GC_BGD
    m = 1 - bg_connected
    if (gc == cv2.GC_FGD).any() and (gc == cv2.GC_BGD).any():
        bgd = np.zeros((1, 65), np.float64)
        fgd = np.zeros((1, 65), np.float64)
        # GrabCut is the slow step (it scales with pixels): run it at 320 px, where a garment's
        # outline is still exact to a couple of working pixels, and bring the labels back up.
        gscale = min(1.0, 320 / max(h, w))
        size = (max(1, round(w * gscale)), max(1, round(h * gscale)))
        small_rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        small_gc = cv2.resize(gc, size, interpolation=cv2.INTER_NEAREST)
        try:
            cv2.setRNGSeed(0)  # GrabCut seeds its colour models from OpenCV's global RNG
            cv2.grabCut(small_rgb, small_gc, None, bgd, fgd, 2, cv2.GC_INIT_WITH_MASK)
            fg = ((small_gc == cv2.GC_FGD) | (small_gc == cv2.GC_PR_FGD)).astype(np.float32)
            m = (cv2.resize(fg, (w, h), interpolation=cv2.INTER_LINEAR) > 0.5).astype(np.uint8)
            m[gc == cv2.GC_FGD] = 1
            m[gc == cv2.GC_BGD] = 0
        except cv2.error:
            pass
    m = _keep_large(m, 0.02)
    m = _fill_holes(m)
    return m.astype(np.float32)


# --- worn outfits -----------------------------------------------------------------------------


def skin_probability(
    rgb: np.ndarray,
    faces: list[tuple[int, int, int, int]],
    *,
    not_like: np.ndarray | None = None,
    lab: np.ndarray | None = None,
    sample_from: np.ndarray | None = None,
    tone: tuple[np.ndarray, float] | None = None,
) -> np.ndarray:
    """Skin likelihood in [0, 1]: chroma close to the face's skin (YCrCb-equivalent test in
    OKLab's a/b plane, where reds and tans separate better from skin than in CrCb).

    ``not_like`` (OKLab colours) are the garment's own colours: a pixel is skin only when it is
    closer to skin than to every one of them, which keeps beige, tan and red garments clothed.
    Without a face, skin is seeded from pixels of ``sample_from`` passing a generic skin test.
    """
    if lab is None:
        lab = srgb8_to_oklab(rgb)
    centre, radius = tone or skin_tone(lab, faces, sample_from=sample_from)
    d_skin = np.hypot(lab[..., 1] - centre[1], lab[..., 2] - centre[2])
    p = np.clip((radius - d_skin) / (0.3 * radius) + 0.5, 0.0, 1.0)
    # Skin in shade keeps its hue but loses lightness; very dark or white pixels are not skin.
    p[(lab[..., 0] < 0.25) | (lab[..., 0] > 0.97)] = 0.0
    if not_like is not None and len(not_like):
        ones = np.ones(2, np.float32)
        ab = lab[..., 1:]
        d2 = _weighted_d2(ab, np.asarray(not_like[0, 1:], np.float32), ones)
        for c in not_like[1:]:
            np.minimum(d2, _weighted_d2(ab, np.asarray(c[1:], np.float32), ones), out=d2)
        d_garment = np.sqrt(d2)
        p[d_garment < d_skin] = 0.0
    return p.astype(np.float32)


def skin_tone(lab: np.ndarray, faces: list[tuple[int, int, int, int]], *,
              sample_from: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """The skin's OKLab colour (its a and b are what count) and how far from it in the a/b
    plane skin still is: read off the cheeks and nose of the faces, else off the pixels of
    ``sample_from`` that pass a generic skin test, else a typical skin."""
    samples = []
    for x0, y0, x1, y1 in faces:
        fw, fh = x1 - x0, y1 - y0
        # Cheeks and nose: no eyes, brows, hair or lips.
        sx0, sx1 = int(x0 + 0.25 * fw), int(x0 + 0.75 * fw)
        sy0, sy1 = int(y0 + 0.45 * fh), int(y0 + 0.8 * fh)
        patch = lab[max(sy0, 0):max(sy1, 0), max(sx0, 0):max(sx1, 0)].reshape(-1, 3)
        if len(patch) > 30:
            samples.append(patch)
    generic = None if samples or sample_from is None else _generic_skin(lab) & sample_from
    if samples:
        s = np.concatenate(samples)
    elif generic is not None and generic.sum() > 50:
        s = lab[generic]
    else:
        s = np.array([[0.75, 0.045, 0.055]], np.float32)
    centre = np.median(s, axis=0)
    gaps = np.hypot(s[:, 1] - centre[1], s[:, 2] - centre[2])
    spread = float(np.percentile(gaps, 90)) if len(s) > 1 else 0.0
    return centre, float(np.clip(spread * 1.8, 0.035, 0.07))


def _generic_skin(lab: np.ndarray) -> np.ndarray:
    """Skin tones of every complexion sit in a narrow hue wedge of moderate chroma."""
    a, b = lab[..., 1], lab[..., 2]
    hue = np.degrees(np.arctan2(b, a))
    chroma = np.hypot(a, b)
    return (hue > 25) & (hue < 80) & (chroma > 0.03) & (chroma < 0.16) & (lab[..., 0] > 0.3)


@dataclass(frozen=True)
class WornOutfit:
    """What a worn outfit's masks share whichever part is asked for: the body's landmarks,
    the photo in OKLab, the head, the seed boxes, the top's and the bottom's colours and the
    skin. Read once per photo (``worn_outfit``); each region's mask is a cheap step on it."""

    lm: dict[str, float]
    lab: np.ndarray
    torso: float
    neck_y: int
    top_seed: np.ndarray
    bottom_seed: np.ndarray
    top_c: np.ndarray | None
    bottom_c: np.ndarray | None
    skin: np.ndarray
    clothed: np.ndarray


def worn_outfit(
    rgb: np.ndarray,
    pose: Any | None,
    person: np.ndarray,
    faces: list[tuple[int, int, int, int]],
    *,
    lab: np.ndarray | None = None,
) -> WornOutfit:
    """The region-independent part of ``worn_mask`` (``lab``: ``rgb`` in OKLab, when known)."""
    h, w = rgb.shape[:2]
    body = person > 0.5
    if body.sum() < 0.01 * h * w:
        raise EngineError("garment_not_found", "No person was found wearing the garment.")
    lm = _landmarks(pose, body)
    if lab is None:
        lab = srgb8_to_oklab(rgb)
    torso = max(lm["hip_y"] - lm["shoulder_y"], 0.1 * h)

    head = np.zeros((h, w), bool)
    for x0, y0, x1, y1 in faces:
        fw, fh = x1 - x0, y1 - y0
        head[max(0, int(y0 - 0.7 * fh)):min(h, int(y1 + 0.1 * fh)),
             max(0, int(x0 - 0.35 * fw)):min(w, int(x1 + 0.35 * fw))] = True
    # Nothing above the neck is ever clothing we edit (hair, hats are not in the enumerations).
    neck_y = int(lm["shoulder_y"] - 0.22 * torso)
    head[: max(0, neck_y)] = True
    if "nose" in lm:
        head[: max(0, int(lm["nose"] + 0.05 * torso))] = True

    top_seed, bottom_seed = _seed_boxes(lm, torso, h, w)
    candidates = body & ~head
    # Necklines and midriffs show skin inside the seed boxes: leave it out of the garment's
    # colours, unless nearly the whole box looks like skin (a nude or beige garment).
    tone = skin_tone(lab, faces, sample_from=candidates)
    first_skin = skin_probability(rgb, faces, lab=lab, tone=tone) > 0.5
    if not faces:
        tone = None  # a tone guessed without a face is not sure enough to take colours out
    top_c = _not_skin(_clusters(_seed_pixels(lab, top_seed & candidates, first_skin)), tone)
    if not faces:
        top_c = _not_neckline_skin(lab, top_c, top_seed & candidates, body, pose, lm, torso)
    bottom_c = _not_skin(_clusters(_seed_pixels(lab, bottom_seed & candidates, first_skin)),
                         tone)
    garment_colours = [c for c in (top_c, bottom_c) if c is not None]
    seen = np.concatenate(garment_colours) if garment_colours else None
    skin = skin_probability(rgb, faces, not_like=seen, lab=lab,
                            sample_from=candidates & ~top_seed & ~bottom_seed)
    clothed = candidates & (skin < 0.5)
    return WornOutfit(lm, lab, torso, neck_y, top_seed, bottom_seed, top_c, bottom_c, skin,
                      clothed)


def worn_mask(
    rgb: np.ndarray,
    region: Region,
    pose: Any | None,
    person: np.ndarray,
    faces: list[tuple[int, int, int, int]],
    *,
    outfit: WornOutfit | None = None,
    snap: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(garment mask, skin probability, the other part's fabric where the hem between them says
    it is) on the working copy of a worn outfit. ``outfit``:
    ``worn_outfit`` of the same photo, when another region's mask already read it. ``snap``:
    the outline moved onto the photo's edges (`snap_outline`), for the tools that edit the
    garment in place; Try-on and Flats replace it and cover its outline, and skip the cost."""
    h, w = rgb.shape[:2]
    if outfit is None:
        outfit = worn_outfit(rgb, pose, person, faces)
    lm, lab, torso, neck_y = outfit.lm, outfit.lab, outfit.torso, outfit.neck_y
    top_seed, bottom_seed = outfit.top_seed, outfit.bottom_seed
    top_c, bottom_c, skin, clothed = outfit.top_c, outfit.bottom_c, outfit.skin, outfit.clothed

    ankle_y = lm.get("ankle_y")
    floor = h if ankle_y is None else min(h, int(ankle_y + 0.02 * h))
    waist = lm["hip_y"]
    rows = np.arange(h)[:, None]
    if region == "upper":
        band = (rows >= neck_y) & (rows < waist + 0.45 * torso)
        own, other = top_c, bottom_c
    elif region == "lower":
        band = (rows >= waist - 0.45 * torso) & (rows < floor)
        own, other = bottom_c, top_c
    else:
        band = (rows >= neck_y) & (rows < floor)
        own = _merge(top_c, bottom_c)
        other = None
    if own is None:
        raise EngineError("garment_not_found", "The garment's area is not visible in the photo.")
    others = np.zeros((h, w), bool)

    d_own = _nearest(lab, own)
    mask = clothed & band & (d_own < 0.16)
    if other is not None:
        # Around the waist a pixel belongs to whichever outfit part it looks like.
        d_other = _nearest(lab, other)
        transition = (rows >= waist - 0.45 * torso) & (rows < waist + 0.45 * torso)
        # Except along the arms, where a colour both parts have (a leopard skirt's black spots,
        # a black top's sleeve) is the top's: a sleeve hangs over the bottom, never under it.
        theirs = transition & (d_other < d_own - 0.01)
        arms = _arm_zone(pose, (h, w), torso)
        if region == "upper":
            theirs &= ~_sleeve_on(mask, transition, arms,
                                  (d_own < SLEEVE_FIT) & (d_own - d_other < SLEEVE_SHARED))
        # Across the torso, one hem parts them (`_hem`): a patch of the top's colours below it
        # (a bottom's lit side, a print) is the bottom's, and the other way round. Not when
        # their main colours are one: a dress has no hem there.
        apart = _main_colours_apart(outfit)
        if apart is not None and apart > ONE_COLOUR:
            theirs = _across_hem(region, lab, own, other, clothed & (d_own < 0.16),
                                 clothed & (d_other < 0.16) & (d_other < d_own),
                                 clothed & (d_own < (HEM_OWN_IN_PLACE if snap else HEM_OWN))
                                 & (person >= BACKDROP_UNSURE),
                                 theirs, mask, transition, skin > 0.5, arms, pose, lm, torso,
                                 (top_seed & clothed, bottom_seed & clothed))
        mask &= ~theirs
        others = clothed & theirs & (d_other < 0.16)
        # Away from the waist, the other part's band is out of bounds.
        if region == "upper":
            mask &= rows < waist + 0.45 * torso
        else:
            mask &= rows >= waist - 0.45 * torso
    bare = _skin_at_outline(lab, mask, _body_skin(skin > 0.5, pose, neck_y), torso, own)
    mask &= ~bare
    # The backdrop seen between an arm and the body, which the person's outline takes in
    # unsurely: of the backdrop's colour where the segmentation hesitates. (A garment's shaded
    # side can take the backdrop's colour too, but the segmentation is sure of it.)
    mask &= ~(_backdrop_like(lab, person, own, d_own) & (person < BACKDROP_UNSURE))
    # A light garment on a backdrop of its colour: the backdrop between an arm and the body,
    # or between the neck and the hair, is told by the backdrop's own smooth shading.
    # What they leave of the mask beside them in strips under 5 px wide goes with them: the
    # soft edge of the hair or the neck around a pocket, not the garment's edge against it.
    # (For the tools that edit the garment in place: Try-on and Flats cover and paint over
    # what the mask holds, and a garment's edge left out would show.)
    field = _backdrop_field(lab, person) if snap else None
    pockets = _backdrop_pockets(lab, person, mask, field)
    mask &= ~pockets
    if pockets.any():
        beside = cv2.dilate(pockets.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        kept = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
        mask &= ~beside | (kept > 0)
    mask8 = mask.astype(np.uint8)
    mask8 = cv2.morphologyEx(mask8, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask8 = _keep_touching(mask8, (top_seed if region == "upper" else bottom_seed)
                           if region != "full" else (top_seed | bottom_seed))
    # Prints, logos and buttons the colour or skin test missed, when the garment surrounds
    # them; a large enclosed hole is only filled where it is not skin (a keyhole neckline).
    holes = (_fill_holes(mask8) > 0) & (mask8 == 0)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(holes.astype(np.uint8), 8)
    small = 1 + np.nonzero(stats[1:, cv2.CC_STAT_AREA] < 0.02 * max(1, mask8.sum()))[0]
    mask8[(np.isin(labels, small) | (holes & clothed & ~bare)) & ~pockets] = 1
    # What the outline may grow into: not skin, the backdrop, nor beyond the part's own rows.
    grow_ok = band & ~bare & (skin < 0.5) & ~pockets
    if other is not None:
        grow_ok &= ~theirs
    snapped = np.zeros(mask8.shape, bool)
    if snap:
        mask8, snapped = snap_outline(rgb, lab, mask8, grow_ok)
    if field is not None:
        # A light garment on a backdrop of nearly its colour: the segmentation hesitates along
        # its outline, and a shoulder's taper was cut off with it. What stands off the
        # backdrop's shading there, on the garment's side of it, is the garment's.
        off = _off_the_backdrop(lab, mask8 > 0, field, own, d_own,
                                grow_ok & (person >= BACKDROP_PERSON))
        mask8[off] = 1
        snapped |= off
    # The person segmentation's doubt softens the mask, except along the outline the snap
    # has decided on the photo's own edges.
    m = mask8.astype(np.float32) * np.where(snapped, 1.0, np.clip(person * 1.25, 0, 1))
    return m, np.maximum(skin, bare.astype(np.float32)), others


# Along the arms, a pixel this near (OKLab) to one of the top's colours, and nearer to one of
# the bottom's by less than SLEEVE_SHARED (a colour both have), is the top's sleeve.
SLEEVE_FIT = 0.05
SLEEVE_SHARED = 0.02
# The width of the zone along an arm's bones (shoulder, elbow, wrist) that a sleeve covers, as a
# share of the torso's length.
ARM_ZONE = 0.15


def _sleeve_on(mask: np.ndarray, transition: np.ndarray, arms: np.ndarray, shared: np.ndarray
               ) -> np.ndarray:
    """The pixels of ``mask`` in the ``transition`` band along the ``arms`` of a colour both
    parts have (``shared``) that carry on a sleeve from above the band: the top's."""
    above = mask & arms & (np.cumsum(transition, axis=0) == 0)  # the rows above the band
    if not above.any():
        return np.zeros(mask.shape, bool)
    ok = mask & arms & transition & shared
    # Joined through more than a pixel's touch: a print's spot beside the sleeve is not it.
    body = cv2.morphologyEx((ok | above).astype(np.uint8), cv2.MORPH_OPEN,
                            np.ones((3, 3), np.uint8))
    _, labels = cv2.connectedComponents(body, connectivity=4)
    joined = np.unique(labels[above & (body > 0)])
    sleeve = np.isin(labels, joined[joined > 0])
    return ok & (cv2.dilate(sleeve.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)


def _arm_zone(pose: Any | None, shape: tuple[int, int], torso: float,
              covered: np.ndarray | None = None) -> np.ndarray:
    """Where the arms are: their bones drawn ARM_ZONE of the torso wide. With ``covered`` (a
    mask), only the arms whose elbow it mostly covers: the arms in a long sleeve."""
    out = np.zeros(shape, np.uint8)
    pts = getattr(pose, "points", None) or {}
    width = max(2, int(round(ARM_ZONE * torso)))
    for a, b in LIMBS[:4]:
        elbow = pts.get(a if a.endswith("elbow") else b)
        if covered is not None and (elbow is None or _share_around(
                covered, elbow, width / 2) < 0.5):
            continue
        if a in pts and b in pts:
            cv2.line(out, (int(round(pts[a][0])), int(round(pts[a][1]))),
                     (int(round(pts[b][0])), int(round(pts[b][1]))), 1, width)
    return out > 0


# The hem between a top and a bottom: a jump of a pixel in it, from one column to the next,
# costs as much as HEM_STEP_COST pixels given to the wrong part; it moves at most HEM_MAX_STEP
# pixels a column, and strays at most HEM_BEND of the torso's length from the line it follows
# between the hip joints. A bare midriff is skin across at least HEM_MIDRIFF of the shoulders'
# width (a hand in a pocket is not one).
HEM_STEP_COST = 2.0
HEM_MAX_STEP = 2
HEM_BEND = 0.1
HEM_MIDRIFF = 0.5
# The half-width of the box the hem's colours are averaged over, as a share of the torso.
HEM_BLUR = 0.02
# Weighted OKLab distance by which a pixel is nearer one part's colours than the other's for
# it to count fully as that part's; within HEM_OWN of its own part's colours, a pixel on that
# part's side of the hem is that part's whichever it is nearer.
HEM_SURE = 0.04
HEM_OWN = 0.08
# For the tools that edit the garment in place (``snap``): a white top's creases in shade by the
# arm lie 0.08-0.11 off its colours, nearer light jeans' grey-blue, and were left white in the
# recolour. (Try-on and Flats keep HEM_OWN: there more of the old top's mask left more of it
# beside the new one, 1.41 % -> 1.60 % of the band on one fidelity pair. At 0.12 a grey
# sweatshirt's deepest crease joined the mask as a dark print and stayed grey.)
HEM_OWN_IN_PLACE = 0.10


def _across_hem(region: Region, lab: np.ndarray, own: np.ndarray, other: np.ndarray,
                 fabric: np.ndarray, other_fabric: np.ndarray, near_own: np.ndarray,
                 theirs: np.ndarray, mask: np.ndarray, transition: np.ndarray,
                 skin: np.ndarray, arms: np.ndarray, pose: Any | None, lm: dict[str, float],
                 torso: float, seeds: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``theirs`` (the pixels of the waist's band that are the other part's, each by its own
    colour) with the hem's word across the torso: on the other part's side of it, all of them;
    on this part's side, none ``near_own`` (a white top's shaded hem beside a zebra skirt's
    white; the backdrop between the legs stays out).

    Along the arms and hands, only that no bottom is above it and, where no sleeve comes down
    (its elbow covered by the top's ``mask``, or for a bottom by the ``other_fabric``), no top
    below it (light jeans beside the forearm of a model in a tank).

    The hem is read on the photo blurred over a print's element: a print's white triangles
    beside a white tee are not the tee's, but their mix of colours is the bottom's; and a
    print's colours, as the top's hem reads them, are those of its seed box (``seeds``: the
    top's and the bottom's) blurred alike (`_as_blurred`). Right at the hem, which the blur places to
    within its box, each pixel keeps its own colour's word.
    """
    h, w = mask.shape
    limbs = arms | _hands(pose, (h, w), torso)
    size = 2 * max(1, round(HEM_BLUR * torso)) + 1
    # Only the band's rows are read (``_hem``): the blur and the distances are worked out on
    # them and the blur's reach around them, the same figures as over the whole photo.
    d_own, d_other = np.zeros((h, w), np.float32), np.zeros((h, w), np.float32)
    rows = np.flatnonzero(transition.any(axis=1))
    if len(rows):
        r0, r1 = int(rows[0]), int(rows[-1]) + 1
        s0, s1 = max(0, r0 - size), min(h, r1 + size)
        blurred = cv2.blur(lab[s0:s1], (size, size))[r0 - s0:r1 - s0]
        # (For the top's mask only: a bottom's mask read so moved its own print's colours in
        # the recolour, a zebra skirt's black stripes half greyed.)
        read = (own, other)
        if region == "upper":
            read = tuple(_as_blurred(lab, seed, size, c) for seed, c in zip(seeds, read,
                                                                            strict=True))
        d_own[r0:r1], d_other[r0:r1] = _nearest(blurred, read[0]), _nearest(blurred, read[1])
    below, span = _hem(fabric, d_own, d_other, transition, skin, limbs, lm, torso,
                       upper=region == "upper")
    edge = np.zeros((h, w), np.uint8)
    edge[1:] = below[1:] != below[:-1]
    span &= cv2.dilate(edge, np.ones((size, 1), np.uint8)) == 0
    decided = span & ~limbs
    if region == "upper":
        sleeved = _arm_zone(pose, (h, w), torso, covered=mask)
        decided |= span & limbs & below & ~_sleeve_on(mask, transition, sleeved, mask)
    else:
        sleeved = _arm_zone(pose, (h, w), torso, covered=other_fabric)
        decided |= span & limbs & (~below | ~sleeved)
    beyond = below if region == "upper" else ~below
    return (theirs & ~(decided & ~beyond & near_own)) | (decided & beyond)


# A part whose colours' lightness spans this much (OKLab) is a print of far-apart colours (a
# zebra's black and white): blurred, it is none of them.
PRINT_SPREAD = 0.3


def _as_blurred(lab: np.ndarray, seed: np.ndarray, size: int, colours: np.ndarray
                ) -> np.ndarray:
    """A part's colours as the photo blurred over ``size`` px shows them: for a print of
    far-apart colours, the main colours of its seed box blurred so; a plain garment's own.
    Unblurred, a zebra skirt's white is a white top's shaded hem, and the skirt took the top's
    corner beside the arm."""
    if float(np.ptp(colours[:, 0])) < PRINT_SPREAD or seed.sum() < 50:
        return colours
    ys, xs = np.nonzero(seed)
    h, w = seed.shape
    y0, y1 = max(0, int(ys.min()) - size), min(h, int(ys.max()) + size + 1)
    x0, x1 = max(0, int(xs.min()) - size), min(w, int(xs.max()) + size + 1)
    blurred = cv2.blur(lab[y0:y1, x0:x1], (size, size))
    px = blurred[seed[y0:y1, x0:x1]]
    mix = _clusters(px[:: max(1, len(px) // 4000)])
    return colours if mix is None else mix


def _hem(fabric: np.ndarray, d_own: np.ndarray, d_other: np.ndarray, transition: np.ndarray,
         skin: np.ndarray, limbs: np.ndarray, lm: dict[str, float], torso: float, *,
         upper: bool) -> tuple[np.ndarray, np.ndarray]:
    """Where the top ends and the bottom begins across the torso: (the pixels below the hem,
    the pixels of the band in the columns it crosses). The hem is the path across the torso's
    columns that leaves the fewest of the top's colours below it and of the bottom's above it,
    moving smoothly from column to column (dynamic programming); where a bare midriff shows
    above the hips, it runs through it. The ``limbs`` (arms, hands) do not count as midriff."""
    h, w = fabric.shape
    rows = np.nonzero(transition.any(axis=1))[0]
    x0, x1 = lm.get("hx0", lm["x0"]), lm.get("hx1", lm["x1"])
    pad = 0.6 * max(1.0, x1 - x0)  # the hip joints lie well inside the hips' outline
    c0, c1 = max(0, int(x0 - pad)), min(w, int(np.ceil(x1 + pad)))
    none = np.zeros((h, w), bool)
    if len(rows) < 2 or c1 - c0 < 2:
        return none, none
    r0, r1 = int(rows[0]), int(rows[-1]) + 1
    zone = (slice(r0, r1), slice(c0, c1))
    d_top, d_bot = (d_own, d_other) if upper else (d_other, d_own)
    # How surely each pixel is the top's or the bottom's: a colour both parts have (a white top
    # over a zebra skirt's white) weighs little either way.
    lean = np.where(fabric, (d_bot - d_top) / HEM_SURE, 0)[zone]
    top = np.clip(lean, 0, 1).astype(np.float32)
    bottom = np.clip(-lean, 0, 1).astype(np.float32)
    # cost[k, x]: the hem at row r0 + k (the bottom's first row) in column c0 + x
    zeros = np.zeros((1, c1 - c0), np.float32)
    cost = (np.concatenate([zeros, np.cumsum(bottom, axis=0)]) +
            np.concatenate([np.cumsum(top[::-1], axis=0)[::-1], zeros]))
    # (above the hips: below them, bare legs under a short skirt are as wide)
    midriff = _wide((skin & ~limbs)[zone] & (np.arange(r0, r1) < lm["hip_y"])[:, None],
                    HEM_MIDRIFF * max(1.0, lm["x1"] - lm["x0"]))
    has = midriff.any(axis=0)
    if has.any():
        ks = np.arange(r1 - r0 + 1)[:, None]
        first = np.argmax(midriff, axis=0)
        last = (r1 - r0) - np.argmax(midriff[::-1], axis=0)
        cost += np.where(has & ((ks < first) | (ks > last)), 1e6, 0).astype(np.float32)
    seam = _cheapest_path(cost)
    # To the sides it keeps near the line it follows in the middle: a bottom's lit side in the
    # top's colours (light jeans under a white tank) does not draw it down.
    mid = np.arange(max(0, int(x0) - c0), min(c1, int(np.ceil(x1))) - c0)
    if len(mid) >= 5:
        slope, at = np.polyfit(mid, seam[mid], 1)
        line = slope * np.arange(c1 - c0) + at
        off = np.abs(np.arange(r1 - r0 + 1)[:, None] - line[None, :]) > HEM_BEND * torso
        seam = _cheapest_path(cost + np.where(off, 1e6, 0).astype(np.float32))
    below = none.copy()
    below[r0:r1, c0:c1] = np.arange(r1 - r0)[:, None] >= seam[None, :]
    below[r1:, c0:c1] = True
    span = none.copy()
    span[zone] = True
    return below, span & transition


def _hands(pose: Any | None, shape: tuple[int, int], torso: float) -> np.ndarray:
    """Where the hands are: from each wrist to its fingers' landmarks, a fifth of the torso's
    length wide."""
    out = np.zeros(shape, np.uint8)
    pts = getattr(pose, "points", None) or {}
    width = max(2, int(round(0.2 * torso)))
    for side in ("left", "right"):
        wrist = pts.get(f"{side}_wrist")
        if wrist is None:
            continue
        for finger in ("index", "pinky", "thumb"):
            tip = pts.get(f"{side}_{finger}", wrist)
            cv2.line(out, (int(round(wrist[0])), int(round(wrist[1]))),
                     (int(round(tip[0])), int(round(tip[1]))), 1, width)
    return out > 0


def _cheapest_path(cost: np.ndarray) -> np.ndarray:
    """The row in each column of the path across ``cost`` (rows x columns) of least total, moving
    at most HEM_MAX_STEP rows a column at HEM_STEP_COST a row."""
    n, m = cost.shape
    total = cost[:, 0].copy()
    came = np.zeros((n, m), np.int8)
    for x in range(1, m):
        best = np.full(n, np.inf, np.float32)
        step = np.zeros(n, np.int8)
        for d in range(-HEM_MAX_STEP, HEM_MAX_STEP + 1):
            shifted = np.full(n, np.inf, np.float32)
            if d >= 0:
                shifted[: n - d] = total[d:]
            else:
                shifted[-d:] = total[: n + d]
            shifted += HEM_STEP_COST * abs(d)
            better = shifted < best
            best[better], step[better] = shifted[better], d
        total = best + cost[:, x]
        came[:, x] = step
    path = np.zeros(m, np.int64)
    path[-1] = int(np.argmin(total))
    for x in range(m - 1, 0, -1):
        path[x - 1] = path[x] + came[path[x], x]
    return path


def _wide(skin: np.ndarray, width: float) -> np.ndarray:
    """The parts of a skin map at least ``width`` pixels across."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(skin.astype(np.uint8), 8)
    keep = 1 + np.nonzero(stats[1:, cv2.CC_STAT_WIDTH] >= width)[0]
    return np.isin(labels, keep)


def _share_around(mask: np.ndarray, point: tuple[float, float], radius: float) -> float:
    """The share of a disc of ``mask`` that is set."""
    disc = np.zeros(mask.shape, np.uint8)
    cv2.circle(disc, (int(round(point[0])), int(round(point[1]))), max(1, int(round(radius))),
               1, -1)
    return float(mask[disc > 0].mean()) if disc.any() else 0.0


# Half-width of the band around a worn garment's outline that `snap_outline` decides, as a
# share of the working copy's long side (4 px at 512).
SNAP_BAND = 0.008


def snap_outline(rgb: np.ndarray, lab: np.ndarray, mask8: np.ndarray,
                 grow_ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A worn garment's mask with its outline moved onto the photo's edges (GrabCut, its
    colour models learnt from the garment inside and from what lies around it), and the band
    it decided in (bool). The colour tests that made the mask decide pixel by pixel: where the
    garment's side in shade has the backdrop's colour (a cream skirt on a beige sweep) or the
    person segmentation hesitates (the fabric beside an arm), they leave bumps of backdrop in
    the mask and slivers of the garment out of it; the edge between them is still in the
    photo, and the cut follows it. Only a band a few pixels wide around the outline moves;
    it grows only into `grow_ok`."""
    inside = mask8 > 0
    if inside.sum() < 64:
        return mask8, np.zeros(mask8.shape, bool)
    h, w = mask8.shape
    reach = max(2, round(SNAP_BAND * max(h, w)))
    k = np.ones((3, 3), np.uint8)
    core = cv2.erode(mask8, k, iterations=reach) > 0
    near = (cv2.dilate(mask8, k, iterations=reach) > 0) & (grow_ok | inside)
    trimap = np.full((h, w), cv2.GC_BGD, np.uint8)
    trimap[near] = cv2.GC_PR_BGD
    trimap[inside] = cv2.GC_PR_FGD
    trimap[core] = cv2.GC_FGD
    # Along a print the cut would follow the print's own edges into the garment: where the
    # fabric beside the outline is patterned, the mask keeps its word (`kept`).
    ring = core & ~(cv2.erode(core.astype(np.uint8), k, iterations=reach) > 0)
    kept = _patterned(lab, ring, reach) & near
    # A part too thin to have a core (a strap, a ruffle) has no colour of its own to learn:
    # it stays as the mask has it too.
    kept |= near & ~(cv2.dilate(core.astype(np.uint8), k, iterations=reach + 1) > 0) & inside
    kept |= near & ~(cv2.dilate(core.astype(np.uint8), k, iterations=2 * reach + 1) > 0)
    trimap[kept & inside] = cv2.GC_FGD
    trimap[kept & ~inside] = cv2.GC_BGD
    ys, xs = np.nonzero(near)
    pad = 4 * reach  # enough of the surroundings for the backdrop's colour model
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    sub = np.ascontiguousarray(trimap[y0:y1, x0:x1])
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    cv2.grabCut(np.ascontiguousarray(rgb[y0:y1, x0:x1, ::-1]), sub, None, bgd, fgd, 3,
                cv2.GC_INIT_WITH_MASK)
    out = np.zeros((h, w), np.uint8)
    out[y0:y1, x0:x1] = (sub == cv2.GC_FGD) | (sub == cv2.GC_PR_FGD)
    # The cut settles on the strongest edge it finds, which on a garment's side in shade can
    # be a fold's a pixel or two inside the outline. A band pixel whose colour is found on the
    # garment close by and not so closely outside it is garment all the same; one found
    # outside and not on the garment (the backdrop in a gap by the arm, which the shaded side
    # of a cream skirt only nearly matches) is not.
    undecided = near & ~kept
    grow = _nearer_inside(lab, undecided, core, ~(cv2.dilate(mask8, k, iterations=reach) > 0),
                          2 * reach)
    out[undecided & (grow > 0)] = 1
    out[undecided & (grow < 0)] = 0
    # The cut may leave crumbs of the band on their own: only what joins the garment stays.
    out = _keep_touching(out, core) if core.any() else out
    return out, near & ~core & ~kept


# Weighted OKLab distance (``_nearest``) by which a band pixel's colour must be nearer what
# lies on one side of the outline than on the other for ``_nearer_inside`` to decide it.
NEARER_BY = 0.01


def _nearer_inside(lab: np.ndarray, band: np.ndarray, inside: np.ndarray,
                   outside: np.ndarray, radius: int) -> np.ndarray:
    """For each pixel of `band`, +1 when a pixel of `inside` within `radius` has its colour
    (nearer than any pixel of `outside` within it, by NEARER_BY), -1 when an outside pixel
    does, 0 otherwise (int8). Nearest exemplars, not local means: beside an arm and a
    backdrop at once a mean would be a colour that is neither."""
    h, w = band.shape
    ys, xs = np.nonzero(band)
    result = np.zeros((h, w), np.int8)
    if not len(ys):
        return result
    # The two sides' colours, weighted, on a canvas padded by `radius` with a colour too far
    # from any to be chosen, gathered by flat index: no bounds checks, no masks per offset.
    far = np.float32(100.0)
    weighted = (lab * NEAREST_WEIGHTS).astype(np.float32)
    sides = []
    for side in (inside, outside):
        canvas = np.full((h + 2 * radius, w + 2 * radius, 3), far, np.float32)
        canvas[radius:radius + h, radius:radius + w][side] = weighted[side]
        sides.append(canvas.reshape(-1, 3))
    px = weighted[ys, xs]
    stride = w + 2 * radius
    at = (ys + radius) * stride + (xs + radius)
    best = [np.full(len(ys), np.inf, np.float32), np.full(len(ys), np.inf, np.float32)]
    # Every other offset: the colours beside an outline change slowly at this scale.
    for dy in range(-radius, radius + 1, 2):
        for dx in range(-radius, radius + 1, 2):
            if dy * dy + dx * dx > radius * radius:
                continue
            for canvas, found in zip(sides, best):
                diff = canvas[at + dy * stride + dx] - px
                np.minimum(found, np.einsum("ij,ij->i", diff, diff), out=found)
    best_in, best_out = best
    d_in, d_out = np.sqrt(best_in), np.sqrt(best_out)
    result[ys[d_in + NEARER_BY < d_out], xs[d_in + NEARER_BY < d_out]] = 1
    result[ys[d_out + NEARER_BY < d_in], xs[d_out + NEARER_BY < d_in]] = -1
    return result


# Local spread (standard deviation over a few pixels) of OKLab lightness above which a
# garment's fabric is patterned (a print, stripes) rather than plain with folds.
PATTERNED = 0.04


def _patterned(lab: np.ndarray, fabric: np.ndarray, reach: int) -> np.ndarray:
    """Where the garment's fabric near a pixel (`fabric`: the garment's pixels a little inside
    its outline, clear of the outline's own edge) is patterned (bool)."""
    L = lab[..., 0].astype(np.float32)
    mean = cv2.blur(L, (5, 5))
    spread_ = np.sqrt(np.maximum(cv2.blur(L * L, (5, 5)) - mean * mean, 0.0))
    local, support = matte.spread(spread_, fabric, 2.0 * reach)
    return (support > 0.01) & (local > PATTERNED)


# The backdrop's colours are read where the person segmentation is this sure there is no one;
# below BACKDROP_UNSURE it hesitates (0.4-0.9 over the backdrop between an arm and the hips).
BACKDROP_PERSON = 0.1
BACKDROP_UNSURE = 0.8
# A pixel is backdrop when it lies within this weighted OKLab distance (``_nearest``) of a
# backdrop colour and nearer it than the garment's colours; and only when every garment colour
# lies at least BACKDROP_APART from the backdrop's (a white tee on a white sweep keeps its mask).
BACKDROP_NEAR = 0.03
BACKDROP_APART = 0.05


def _backdrop_like(lab: np.ndarray, person: np.ndarray, own: np.ndarray,
                   d_own: np.ndarray) -> np.ndarray:
    """The pixels of the backdrop's colour (bool), where the garment's colours are far from
    it; nothing otherwise."""
    outside = person < BACKDROP_PERSON
    px = lab[outside]
    if len(px) < 200:
        return np.zeros(person.shape, bool)
    back = _clusters(px[:: max(1, len(px) // 4000)], k=3)
    if back is None or float(_nearest(np.asarray(own, np.float32)[None], back).min()) < BACKDROP_APART:
        return np.zeros(person.shape, bool)
    d_back = _nearest(lab, back)
    return (d_back < BACKDROP_NEAR) & (d_back < d_own)


# The backdrop's shading is fitted (a quadratic in x and y per OKLab channel) where the person
# segmentation is sure nobody is; it is a plain backdrop when FIELD_FITS of those pixels lie
# within FIELD_NEAR (OKLab) of the fit. A pixel on the person is the backdrop's when it lies as
# near and its lightness is as flat (spread under FIELD_FLAT in a 5 px box) as the backdrop's,
# in a pocket at least FIELD_MIN_AREA of the image joined to the outside or bordered less than
# FIELD_ENCLOSED by the garment (a flat patch inside a shirt is the shirt).
FIELD_NEAR = 0.012
FIELD_FITS = 0.9
FIELD_FLAT = 0.004
FIELD_MIN_AREA = 0.0001
FIELD_ENCLOSED = 0.6


class Field(NamedTuple):
    """A plain backdrop's shading fitted over the photo (``_backdrop_field``)."""

    away: np.ndarray  # each pixel's OKLab distance to the fit
    grain: np.ndarray  # the backdrop's own largest distance to it nearby
    light: np.ndarray  # the fit's lightness


# The reach (px at 512) over which the backdrop's own departures from the fit are its grain.
GRAIN_REACH = 7


def _backdrop_field(lab: np.ndarray, person: np.ndarray) -> Field | None:
    """A plain backdrop's shading fitted over the photo: each pixel's OKLab distance to it, the
    largest such distance of the backdrop itself within GRAIN_REACH (its grain there), and the
    fit's lightness. None when the backdrop is no plain one (a room, a street) or too little of
    it shows."""
    h, w = person.shape
    outside = person < BACKDROP_PERSON
    if outside.sum() < 0.05 * h * w:
        return None
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    xx /= w
    yy /= h
    terms = np.stack([np.ones_like(xx), xx, yy, xx * xx, yy * yy, xx * yy], axis=-1)
    step = max(1, int(outside.sum() // 20000))
    a, b = terms[outside][::step], lab[outside][::step]
    coef = np.linalg.lstsq(a, b, rcond=None)[0]
    # once more without the tenth that fits worst (a shadow on the floor, a stray object)
    fit = np.linalg.norm(a @ coef - b, axis=-1)
    keep = fit <= np.percentile(fit, 90)
    coef = np.linalg.lstsq(a[keep], b[keep], rcond=None)[0]
    fit = terms @ coef
    away = np.linalg.norm(fit - lab, axis=-1)
    if float((away[outside] < FIELD_NEAR).mean()) < FIELD_FITS:
        return None
    k = np.ones((2 * GRAIN_REACH + 1, 2 * GRAIN_REACH + 1), np.uint8)
    grain = cv2.dilate(np.where(outside, away, 0.0).astype(np.float32), k)
    return Field(away, grain, fit[..., 0])


def _backdrop_pockets(lab: np.ndarray, person: np.ndarray, mask: np.ndarray,
                      field: Field | None) -> np.ndarray:
    """The backdrop seen on the person's side of the segmentation, where it is a plain one
    (``field``: ``_backdrop_field``)."""
    h, w = mask.shape
    none = np.zeros((h, w), bool)
    if field is None:
        return none
    away = field.away
    outside = person < BACKDROP_PERSON
    light = lab[..., 0]
    mean = cv2.blur(light, (5, 5))
    spread = np.sqrt(np.maximum(cv2.blur(light * light, (5, 5)) - mean * mean, 0))
    like = (away < FIELD_NEAR) & (spread < FIELD_FLAT) & ~outside
    n, labels, stats, _ = cv2.connectedComponentsWithStats(like.astype(np.uint8), 8)
    if n <= 1:
        return none
    out_ring = cv2.dilate(outside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    ring = (cv2.dilate(like.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0) & ~like
    found = none.copy()
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < FIELD_MIN_AREA * h * w:
            continue
        x, y, bw, bh = stats[i, :4]
        box = (slice(max(0, y - 1), y + bh + 1), slice(max(0, x - 1), x + bw + 1))
        part = labels[box] == i
        if (part & out_ring[box]).any():
            found[box] |= part
            continue
        rim = ring[box] & (cv2.dilate(part.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
        if rim.any() and float(mask[box][rim].mean()) < FIELD_ENCLOSED:
            found[box] |= part
    return found


# A pixel beside a garment's mask on a plain backdrop is the garment's when it stands off the
# backdrop's fitted shading by OFF_FIELD times the backdrop's own grain nearby (at least
# OFF_FIELD_FLOOR, OKLab), towards the garment's lightness (a white tee is lighter than its grey
# sweep; a shadow cast on the sweep is darker), within OFF_OWN of the garment's colours
# (``_nearest``); reached from the mask over at most OFF_REACH px of such pixels (at 512).
OFF_FIELD = 2.0
OFF_FIELD_FLOOR = 0.004
OFF_OWN = 0.05
OFF_REACH = 4


def _off_the_backdrop(lab: np.ndarray, mask: np.ndarray, field: Field, own: np.ndarray,
                      d_own: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """The pixels ``allowed`` next to ``mask`` (bool) that the garment's outline holds though
    the person segmentation doubted them: see OFF_FIELD."""
    away, grain, back_l = field.away, field.grain, field.light
    own_l = float(np.median(np.asarray(own)[:, 0]))
    toward = (lab[..., 0] - back_l) * (own_l - back_l) > 0
    cand = allowed & toward & (d_own < OFF_OWN) & (away > np.maximum(OFF_FIELD_FLOOR,
                                                                     OFF_FIELD * grain))
    grown = mask.copy()
    k = np.ones((3, 3), np.uint8)
    for _ in range(OFF_REACH):
        more = (cv2.dilate(grown.astype(np.uint8), k) > 0) & cand & ~grown
        if not more.any():
            break
        grown |= more
    return grown & ~mask


# Weighted OKLab distance (``_nearest``) within which the top's and the bottom's main colours
# are one colour.
ONE_COLOUR = 0.04


def _main_colours_apart(outfit: WornOutfit) -> float | None:
    """How far apart (``_nearest``) the top's and the bottom's main colours are, read in their
    seed boxes; None when too little of either shows."""
    tops = outfit.lab[outfit.top_seed & outfit.clothed]
    bottoms = outfit.lab[outfit.bottom_seed & outfit.clothed]
    if len(tops) < 20 or len(bottoms) < 20:
        return None
    gap = _nearest(np.median(tops, axis=0)[None, None, :], np.median(bottoms, axis=0)[None, :])
    return float(gap[0, 0])


def runs_past_its_part(outfit: WornOutfit, region: Region) -> bool:
    """Whether the top's colour runs on below the hip as far as a top's mask may reach, or
    the bottom's above the waist: one garment from the shoulders down (a dress, a jumpsuit,
    a long tunic) or a top and a bottom of one colour. A top's mask would stop across it in
    a straight line."""
    if region == "full" or outfit.top_c is None or outfit.bottom_c is None:
        return False
    waist, torso = outfit.lm["hip_y"], outfit.torso
    if region == "upper":
        own, other = outfit.top_c, outfit.bottom_c
        at, past = (waist - 0.1 * torso, waist), (waist + 0.45 * torso, waist + 0.6 * torso)
    else:
        own, other = outfit.bottom_c, outfit.top_c
        at, past = (waist, waist + 0.1 * torso), (waist - 0.6 * torso, waist - 0.45 * torso)
    h = outfit.lab.shape[0]

    def rows(span: tuple[float, float]) -> slice:
        return slice(int(np.clip(span[0], 0, h)), int(np.clip(span[1], 0, h)))

    def looks_own(band: slice) -> float:
        lab = outfit.lab[band]
        d_own = _nearest(lab, own)
        mine = outfit.clothed[band] & (d_own < 0.16) & ~(_nearest(lab, other) < d_own - 0.01)
        return float(mine.sum()) / max(1, band.stop - band.start)

    # A print or a pattern sharing a colour with the other part (white in a patterned
    # trouser under a white tee) does not make one garment: the two parts' main colours must
    # be one.
    gap = _main_colours_apart(outfit)
    if gap is None or gap > ONE_COLOUR:
        return False
    width_at = looks_own(rows(at))
    # Under a few pixels a row, the part does not reach the waist (a crop top): nothing to run.
    if width_at < 0.05 * outfit.lab.shape[1]:
        return False
    return looks_own(rows(past)) >= 0.5 * width_at


# Where a worn top's mask ends at the bottom (a bottom's at the top), the share of its width at
# which the same fabric carries on past the end (OKLab distance under CUT_SAME between the
# rows just inside and just outside). A top's mask on a dress, or trousers asked on one, cut
# across one fabric: 0.95 to 0.98 on our photos, and the rest of the dress was left in the old
# colour under a straight line. Separates: 0.46 at most; 0.74 to 0.82 where the mask stops a
# little short of a crop top's or a skirt's own edge, which are not refused.
CUT_ACROSS = 0.9
CUT_SAME = 0.05


def cut_across(working: tuple[np.ndarray, np.ndarray, np.ndarray], region: str) -> bool:
    """Whether a worn top's (bottom's) mask ends across fabric that carries on past it.

    ``working``: the mask and skin (bool) and the photo in OKLab at the working size, as the
    mask's step had them (``GarmentMask.working``)."""
    if region == "full":
        return False
    m, bare, lab = working
    h, w = m.shape
    cols = np.nonzero(m.any(axis=0))[0]
    if len(cols) < 10:
        return False
    k = max(2, round(0.012 * h))
    same = seen = 0
    for x in cols:
        ys = np.nonzero(m[:, x])[0]
        y = int(ys[-1]) if region == "upper" else int(ys[0])
        step = 1 if region == "upper" else -1
        inside = [y - step * i for i in range(1, k + 1)]
        outside = [y + step * i for i in range(2, k + 2)]
        if min(inside + outside) < 0 or max(inside + outside) >= h:
            continue
        if bare[outside, x].any() or not m[inside, x].all():
            continue
        seen += 1
        d = np.linalg.norm(lab[inside, x].mean(axis=0) - lab[outside, x].mean(axis=0))
        same += bool(d < CUT_SAME)
    return seen >= 10 and same / seen >= CUT_ACROSS


# A worn part's mask covers at least this share of where the part surely is (see
# ``found_share``): 0.81 to 1.00 for every part of the 28 model photos. A leopard skirt whose
# tan and brown read as the wearer's skin had 0, its mask the black top above it.
FOUND_AT_LEAST = 0.65


def found_share(outfit: WornOutfit, region: Region, mask: np.ndarray, skin: np.ndarray,
                person: np.ndarray) -> float:
    """The share of the part's seed box (where the part surely is: the chest, the thighs) on
    the body and not skin that ``mask`` covers, at the working size; 1 when too little of
    the box is left to tell."""
    seed = {"upper": outfit.top_seed, "lower": outfit.bottom_seed}.get(
        region, outfit.top_seed | outfit.bottom_seed)
    body = seed & (person > 0.5) & (skin < 0.5)
    if body.sum() < 50:
        return 1.0
    return float((mask[body] > 0.5).mean())


def refuse_unclear(found: GarmentMask, garment_type: str) -> None:
    """Refuse a worn part that cannot be told from what is worn with it: its colour runs on
    into the other part (``runs_on``), or its mask ends across one fabric (``cut_across``).
    Recoloured or refabricked, the rest of a dress was left as it was under a straight line.
    Refuse one whose mask misses where it surely is (``found_share``): only bits of it would
    change."""
    if not found.worn or found.working is None:
        return
    if found.found < FOUND_AT_LEAST:
        raise EngineError(
            "garment_unclear",
            f"The {garment_type} cannot be told apart in the photo: where it is worn, most of "
            "it looks like the wearer's skin or like another garment, so only parts of it "
            f"would change. Send a photo where the {garment_type} stands out from the skin "
            "and the rest of the outfit.",
        )
    if found.runs_on or cut_across(found.working, garment_region(garment_type)):
        raise EngineError(
            "garment_unclear",
            f"The {garment_type} cannot be told from what is worn with it (a dress, a "
            "jumpsuit, or a top and a bottom of one colour?): ask for the dress or the "
            f"jumpsuit, or send a photo where the {garment_type} ends.",
        )


# A standing adult's drop from the shoulders' line to the hips' (cm): baghold's torso share of a
# 168 cm stature. Only sizes the windows below, which are generous.
TORSO_CM = 48.0
# Where a held object is looked for around the hand (cm): above the hand's centre (a clutch
# gripped at its middle), below the wrist (a bag hanging from its handle) and to either side.
HELD_ABOVE_CM, HELD_BELOW_CM, HELD_SIDE_CM = 15.0, 30.0, 28.0


def held_in_hand(rgb: np.ndarray, small: np.ndarray, pose: Any | None, person: np.ndarray,
                 torso: float) -> np.ndarray | None:
    """What a hand holds in front of the clothes (a bag, a clutch), as a bool mask on the
    working copy ``small``; None when no hand holds anything.

    A hand holds something when the silhouette reaches out past its outer edge below the wrist
    (``held_object``, as Baghold tells a model already holding a bag). The object itself is cut
    from what is around it by GrabCut in a window around the hand, with everything outside the
    window (the rest of the garment, the backdrop) as the background: a bag differs from the
    fabric around it by its colour and its outline even when it is of the garment's colour
    family (a cream bag on an ivory dress). What GrabCut keeps must touch the fingers and lie
    within the window: a part reaching the window's edge runs on into the clothes and is no
    compact object, and is left to the garment."""
    from workers.engines.imaging import hands as hands_mod  # mediapipe: import on use

    pts = getattr(pose, "points", None) or {}
    wrists = [pts[n] for n in ("left_wrist", "right_wrist") if n in pts]
    if not wrists:
        return None
    h, w = small.shape[:2]
    k = rgb.shape[0] / h
    ppcm = torso / TORSO_CM  # working pixels per cm
    # The crop is centred a little below the wrist, where the palm and fingers are.
    centres = [(x * k, (y + 7.0 * ppcm) * k) for x, y in wrists]
    found = hands_mod.detect_hands_near(rgb, centres, 32.0 * ppcm * k)
    body_x = float(np.mean([p[0] for n, p in pts.items() if n.endswith(("shoulder", "hip"))]
                           or [w / 2]))
    out = np.zeros((h, w), bool)
    for hd in found:
        hand = hands_mod.Hand(points=hd.points / k, score=hd.score)
        if not hands_mod.looks_like_skin(small, hand):
            continue
        fingers = hands_mod.finger_mask(small, hand) > 0.5
        outward = 1.0 if float(hand.points[0][0]) >= body_x else -1.0
        if hands_mod.held_object(small, person, fingers, hand, outward, ppcm) is None:
            continue
        obj = _held_cut(small, hand, fingers, ppcm)
        if obj is not None:
            out |= obj
    return out if out.any() else None


def _held_cut(small: np.ndarray, hand: Any, fingers: np.ndarray, ppcm: float
              ) -> np.ndarray | None:
    """The object in ``hand``'s window that GrabCut tells from all around it (bool, working
    size), or None."""
    from workers.engines.imaging.hands import HELD_MIN_CM2

    h, w = small.shape[:2]
    cx, cy = (float(v) for v in hand.centre)
    wy = float(hand.points[0][1])
    x0, x1 = int(max(0, cx - HELD_SIDE_CM * ppcm)), int(min(w, cx + HELD_SIDE_CM * ppcm))
    y0 = int(max(0, min(cy, wy) - HELD_ABOVE_CM * ppcm))
    y1 = int(min(h, wy + HELD_BELOW_CM * ppcm))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    # A margin of what surrounds the window gives GrabCut the colours that are not the object.
    m = max(4, round(8 * ppcm))
    cy0, cy1, cx0, cx1 = max(0, y0 - m), min(h, y1 + m), max(0, x0 - m), min(w, x1 + m)
    gc = np.full((cy1 - cy0, cx1 - cx0), cv2.GC_BGD, np.uint8)
    gc[y0 - cy0:y1 - cy0, x0 - cx0:x1 - cx0] = cv2.GC_PR_FGD
    gc[fingers[cy0:cy1, cx0:cx1]] = cv2.GC_PR_BGD
    bgd = np.zeros((1, 65), np.float64)
    fgd = np.zeros((1, 65), np.float64)
    try:
        cv2.setRNGSeed(0)
        cv2.grabCut(np.ascontiguousarray(small[cy0:cy1, cx0:cx1]), gc, None, bgd, fgd, 4,
                    cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        return None
    fg = ((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD)).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(fg, connectivity=8)
    if n <= 1:
        return None
    near = cv2.dilate(fingers[cy0:cy1, cx0:cx1].astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    rim = np.zeros(fg.shape, bool)
    ry0, ry1, rx0, rx1 = y0 - cy0, y1 - cy0, x0 - cx0, x1 - cx0
    # The window's sides inside the frame: an object reaching them runs on past the window.
    if y0 > 0:
        rim[ry0, rx0:rx1] = True
    if y1 < h:
        rim[ry1 - 1, rx0:rx1] = True
    if x0 > 0:
        rim[ry0:ry1, rx0] = True
    if x1 < w:
        rim[ry0:ry1, rx1 - 1] = True
    keep = np.zeros(fg.shape, bool)
    for i in np.unique(labels[near & (fg > 0)]):
        if i == 0:
            continue
        part = labels == i
        if (part & rim).any() or part.sum() < HELD_MIN_CM2 * ppcm * ppcm:
            continue
        keep |= part
    if not keep.any():
        return None
    out = np.zeros((h, w), bool)
    out[cy0:cy1, cx0:cx1] = _fill_holes(keep.astype(np.uint8)) > 0
    return out


# Bones along which bare skin is the body's own (forearms, upper arms, shins, thighs).
LIMBS = (
    ("left_shoulder", "left_elbow"), ("left_elbow", "left_wrist"),
    ("right_shoulder", "right_elbow"), ("right_elbow", "right_wrist"),
    ("left_hip", "left_knee"), ("left_knee", "left_ankle"),
    ("right_hip", "right_knee"), ("right_knee", "right_ankle"),
)
EXTREMITIES = ("nose", "mouth_left", "mouth_right", "left_wrist", "right_wrist", "left_index",
               "right_index", "left_pinky", "right_pinky", "left_thumb", "right_thumb")


def _body_skin(skin: np.ndarray, pose: Any | None, neck_y: int) -> np.ndarray:
    """The parts of a skin map joined to the body: the face and neck, the hands, and the
    arms and legs where the pose runs their bones. A print's skin-coloured letters (an orange
    'e', a yellow 'a' on a grey sweatshirt) are islands on the garment, joined to none of them."""
    h, w = skin.shape
    anchors = np.zeros((h, w), np.uint8)
    anchors[: max(0, neck_y)] = 1
    pts = getattr(pose, "points", None) or {}
    for a, b in LIMBS:
        if a in pts and b in pts:
            pa = (int(round(pts[a][0])), int(round(pts[a][1])))
            pb = (int(round(pts[b][0])), int(round(pts[b][1])))
            cv2.line(anchors, pa, pb, 1, 3)
    for name in EXTREMITIES:
        if name in pts:
            cv2.circle(anchors, (int(round(pts[name][0])), int(round(pts[name][1]))), 3, 1, -1)
    n, labels = cv2.connectedComponents(skin.astype(np.uint8), connectivity=8)
    if n <= 1:
        return skin.astype(bool)
    ids = np.unique(labels[(anchors > 0) & skin])
    return np.isin(labels, ids[ids > 0])


# Reach (share of the torso's height) of the skin beside the garment that is decided against the
# colours around it rather than the face's: a neckline's or an armhole's rim of pale skin.
SKIN_RIM = 0.08
# OKLab lightness under the skin beside it below which a pixel is not taken for skin in the light.
SKIN_SHADE = 0.03


def _skin_at_outline(lab: np.ndarray, mask: np.ndarray, skin: np.ndarray,
                     torso: float, own: np.ndarray | None = None) -> np.ndarray:
    """The pixels of a garment mask that are the model's own skin beside it.

    Pale skin in the light (a chest above a white neckline, a shoulder beside a cream strap)
    is nearer white than the face's tone in hue, so the skin test gives it to a white, cream or
    beige garment. Beside the skin the test is sure of, a pixel is judged against the colours
    on either side of it instead, lightness included: the sure skin's colour around it and the
    garment's colour around it, whichever it is nearer. Only what joins the sure skin is skin:
    a beige garment's pixels lie nearer its own colour, and a strap or a hem too narrow to
    show its own colour away from the skin keeps the mask's word. ``own``: the garment's
    colours, each of which counts as the garment's too.
    """
    reach = max(3, round(SKIN_RIM * torso))
    grow = np.ones((3, 3), np.uint8)
    near = (cv2.dilate(skin.astype(np.uint8), grow, iterations=reach) > 0) & mask
    if not near.any():
        return near
    sigma = max(2.0, reach / 2)
    fabric = mask & ~near
    own_skin, skin_support = matte.spread(lab, skin, sigma)
    own_fabric, fabric_support = matte.spread(lab, fabric, 2 * sigma)
    # Hue decides: a white garment's side in shadow is as dark as the skin beside it, but it
    # keeps the fabric's hue. Lightness only breaks near ties (pale skin is a little darker
    # than white in the light).
    wts = np.array([0.25, 1.0, 1.0], np.float32)
    px = lab[near]  # only the pixels beside the skin are judged
    d_skin = np.linalg.norm((px - own_skin[near]) * wts, axis=-1)
    d_fabric = np.linalg.norm((px - own_fabric[near]) * wts, axis=-1)
    if own is not None:
        # A print's colours average out around it (a zebra skirt's black and white to grey),
        # and its white beside a hand would be nearer the skin than that grey: each of the
        # garment's own colours counts too.
        for c in np.asarray(own, np.float32):
            np.minimum(d_fabric, np.linalg.norm((px - c) * wts, axis=-1), out=d_fabric)
    bare = np.zeros(near.shape, bool)
    # Only skin in the light loses its hue towards white; skin in shade keeps it and the skin
    # test has it already. A pixel darker than the skin beside it that looks like skin there is
    # the garment's side in shadow, warmed by the arm's reflected light.
    bare[near] = ((d_skin < d_fabric) & (skin_support[near] > 0.02)
                  & (fabric_support[near] > 0.02)
                  & (px[:, 0] > own_skin[near][:, 0] - SKIN_SHADE))
    # Joined to the sure skin, a pixel at a time: a patch of fabric that only looks like skin
    # (a fold's shade) and is cut off from it by fabric stays garment.
    n, labels = cv2.connectedComponents(bare.astype(np.uint8), connectivity=8)
    if n <= 1:
        return bare
    touching = np.unique(labels[(cv2.dilate(skin.astype(np.uint8), grow) > 0) & bare])
    return np.isin(labels, touching[touching > 0])


# --- helpers ----------------------------------------------------------------------------------


def upsample_mask(mask_small: np.ndarray, rgb: np.ndarray) -> np.ndarray:
    """Working-size mask to full size with a soft rim about 1.5 working pixels wide."""
    h, w = rgb.shape[:2]
    m = cv2.GaussianBlur(mask_small.astype(np.float32), (0, 0), 0.8)
    full = cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
    scale = max(h, w) / max(mask_small.shape)
    if scale > 1.2:
        full = cv2.GaussianBlur(full, (0, 0), 0.5 * scale)
    # Re-steepen so the interior is 1 and only the rim is soft.
    return np.clip((full - 0.5) * 2.2 + 0.5, 0.0, 1.0).astype(np.float32)


def _oklab_to_rgb8(lab: np.ndarray) -> np.ndarray:
    from workers.engines.imaging.color import oklab_to_srgb8

    return oklab_to_srgb8(lab)


def _landmarks(pose: Any | None, body: np.ndarray) -> dict[str, float]:
    """Shoulder, hip, knee and ankle rows and the torso's columns, from pose or the body box."""
    ys, xs = np.nonzero(body)
    top, bottom = float(ys.min()), float(ys.max())
    left, right = float(xs.min()), float(xs.max())
    height = bottom - top
    out: dict[str, float] = {
        "shoulder_y": top + 0.2 * height,
        "hip_y": top + 0.5 * height,
        "x0": left + 0.3 * (right - left),
        "x1": left + 0.7 * (right - left),
    }
    if pose is None:
        return out
    pts = pose.points

    def mean(names: tuple[str, ...], axis: int) -> float | None:
        vals = [pts[n][axis] for n in names if n in pts]
        return float(np.mean(vals)) if vals else None

    sy = mean(("left_shoulder", "right_shoulder"), 1)
    hy = mean(("left_hip", "right_hip"), 1)
    ky = mean(("left_knee", "right_knee"), 1)
    ay = mean(("left_ankle", "right_ankle"), 1)
    if sy is not None:
        out["shoulder_y"] = sy
    if hy is not None:
        out["hip_y"] = hy
    if ky is not None:
        out["knee_y"] = ky
    if ay is not None and ay < body.shape[0]:
        out["ankle_y"] = ay
    xs_sh = [pts[n][0] for n in ("left_shoulder", "right_shoulder") if n in pts]
    xs_hip = [pts[n][0] for n in ("left_hip", "right_hip") if n in pts]
    if len(xs_sh) == 2:
        out["x0"], out["x1"] = float(min(xs_sh)), float(max(xs_sh))
    if len(xs_hip) == 2:
        out["hx0"], out["hx1"] = float(min(xs_hip)), float(max(xs_hip))
    if "nose" in pts:
        out["nose"] = float(pts["nose"][1])
    return out


def _seed_boxes(
    lm: dict[str, float], torso: float, h: int, w: int
) -> tuple[np.ndarray, np.ndarray]:
    """Where the top surely is (the chest) and where the bottom surely is (the thighs)."""
    top = np.zeros((h, w), bool)
    bottom = np.zeros((h, w), bool)
    x0, x1 = lm["x0"], lm["x1"]
    inset = 0.2 * (x1 - x0)
    ty0 = int(lm["shoulder_y"] + 0.15 * torso)
    ty1 = int(lm["hip_y"] - 0.3 * torso)
    top[max(0, ty0):max(ty0 + 1, ty1), max(0, int(x0 + inset)):max(1, int(x1 - inset))] = True
    hx0, hx1 = lm.get("hx0", x0), lm.get("hx1", x1)
    pad = 0.25 * (hx1 - hx0)
    by0 = int(lm["hip_y"] + 0.2 * torso)
    by1 = int(lm.get("knee_y", lm["hip_y"] + 0.9 * torso) - 0.1 * torso)
    bottom[max(0, by0):min(h, max(by0 + 1, by1)),
           max(0, int(hx0 - pad)):min(w, int(hx1 + pad))] = True
    return top, bottom


def _seed_pixels(lab: np.ndarray, seed: np.ndarray, skin: np.ndarray) -> np.ndarray:
    clothed = seed & ~skin
    if clothed.sum() >= 0.3 * max(1, seed.sum()):
        return lab[clothed]
    return lab[seed]


def _clusters(px: np.ndarray, k: int = 4) -> np.ndarray | None:
    if len(px) < 20:
        return None
    k = min(k, len(px) // 10)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1e-3)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(px.astype(np.float32), k, None, crit, 1,
                                    cv2.KMEANS_PP_CENTERS)
    share = np.bincount(labels.ravel(), minlength=k) / len(labels)
    # Specks (a strand of hair over the chest, a hand) do not define the garment.
    return centres[share > 0.06]


# A colour of a seed box within this share of the skin's radius of the face's own tone is the
# skin the box takes in (a bare chest and midriff round a crop top), not the garment's: 0.21 to
# 0.37 on our photos, where the garments' own colours lie 0.48 and further out, beige and cream
# ones included. Kept as the garment's, it made every bit of skin read as clothing.
SKIN_CLUSTER = 0.42


def _not_skin(colours: np.ndarray | None, tone: tuple[np.ndarray, float] | None
              ) -> np.ndarray | None:
    """The seed box's colours less those of the face's skin (all of them kept when every one
    is: a garment of the skin's own colour)."""
    if colours is None or tone is None:
        return colours
    centre, radius = tone
    far = np.hypot(colours[:, 1] - centre[1], colours[:, 2] - centre[2]) > SKIN_CLUSTER * radius
    return colours[far] if far.any() else colours


# How far (OKLab a/b) a seed box's colour may lie from the neck's skin and still be that skin
# running on down a low neckline, lit: 0.020 for a V-neck's chest on our photos; a cream
# garment's colour lies 0.054 from the neck's, white ones' 0.06 and further. The tests of
# where the colour lies do most of the work: with 0.06 here, still only that chest went.
NECKLINE_SKIN = 0.035
# How much darker than the neck's skin (OKLab L) such a colour may be: the chest in the light is
# as light as the neck or lighter; skin in shade keeps its hue and the skin test has it already.
NECKLINE_SHADE = 0.08


def _bare_parts(lab: np.ndarray, body: np.ndarray, pose: Any | None, lm: dict[str, float],
                torso: float) -> dict[str, np.ndarray]:
    """Pixels (bool masks) of the parts of the body that are bare in most photos and that the
    generic skin test agrees are skin: the neck below the chin and the forearms above the
    wrists. Read when no face is in frame (a photo cropped at the mouth or the nose)."""
    h, w = body.shape
    pts = getattr(pose, "points", None) or {}
    skinlike = _generic_skin(lab) & body
    parts: dict[str, np.ndarray] = {}
    thick = max(2, round(0.04 * torso))
    shoulders = [pts[n] for n in ("left_shoulder", "right_shoulder") if n in pts]
    if len(shoulders) == 2:
        cx = (shoulders[0][0] + shoulders[1][0]) / 2
        half = max(2.0, 0.1 * abs(shoulders[0][0] - shoulders[1][0]))
        y0 = int(max(0, lm["shoulder_y"] - 0.3 * torso))
        y1 = int(max(0, lm["shoulder_y"] - 0.08 * torso))
        neck = np.zeros((h, w), bool)
        neck[y0:y1, int(max(0, cx - half)):int(min(w, cx + half + 1))] = True
        parts["neck"] = neck & skinlike
    for side in ("left", "right"):
        a, b = f"{side}_elbow", f"{side}_wrist"
        if a in pts and b in pts:
            arm = np.zeros((h, w), np.uint8)
            pa, pb = np.asarray(pts[a]), np.asarray(pts[b])
            mid = pa + 0.5 * (pb - pa)
            cv2.line(arm, (int(round(mid[0])), int(round(mid[1]))),
                     (int(round(pb[0])), int(round(pb[1]))), 1, thick)
            parts[f"{side}_forearm"] = (arm > 0) & skinlike
    # Too few pixels is a sleeve's or a collar's speck of skin colour, not the part.
    least = max(15, round(0.002 * torso * torso))
    return {k: v for k, v in parts.items() if v.sum() >= least}


def _not_neckline_skin(lab: np.ndarray, colours: np.ndarray | None, seed: np.ndarray,
                       body: np.ndarray, pose: Any | None, lm: dict[str, float],
                       torso: float) -> np.ndarray | None:
    """The top seed box's colours less the lit skin of a low neckline, when no face gave the
    skin's tone.

    Pale skin in the light is near white in hue, so the generic skin test misses it and the
    seed box keeps it as a garment colour: the mask then takes in the chest inside a V-neck.
    A colour is that skin when it is the neck's own (in hue, and as light or lighter), is not
    the box's main colour, lies above the main colour's mass, and its pixels in the box are
    joined to the neck's skin through pixels of the same colour. A white, cream or beige
    garment is the box's main colour, and a white shirt under a jacket is whiter than skin."""
    if colours is None or len(colours) < 2:
        return colours
    parts = _bare_parts(lab, body, pose, lm, torso)
    if "neck" not in parts:
        return colours
    neck = np.median(lab[parts["neck"]], axis=0)
    others = [np.median(lab[m], axis=0) for k, m in parts.items() if k != "neck"]
    # The neck's sample is the skin only when some other bare part agrees with it (a beige
    # turtleneck would pass the generic test too, and is then the box's main colour anyway).
    if others and min(float(np.hypot(o[1] - neck[1], o[2] - neck[2])) for o in others) > 0.03:
        return colours
    ys, xs = np.nonzero(seed)
    if len(ys) < 20:
        return colours
    px = lab[ys, xs]
    near = np.argmin(np.stack([_weighted_d2(px, c, NEAREST_WEIGHTS) for c in colours], axis=-1),
                     axis=-1)
    counts = np.bincount(near, minlength=len(colours))
    main = int(np.argmax(counts))
    main_y = float(np.mean(ys[near == main]))
    h = body.shape[0]
    keep = np.ones(len(colours), bool)
    for i, c in enumerate(colours):
        if i == main or counts[i] < 10:
            continue
        if float(np.hypot(c[1] - neck[1], c[2] - neck[2])) > NECKLINE_SKIN:
            continue
        if c[0] < neck[0] - NECKLINE_SHADE:
            continue
        mine = near == i
        if float(np.mean(ys[mine])) >= main_y:
            continue
        # The colour's pixels over the whole top (not just the box), joined to the neck.
        own = (_nearest(lab, c[None, :]) < _nearest(lab, np.delete(colours, i, axis=0))) & body
        own &= np.arange(h)[:, None] < ys.max() + 1
        joined = (own | parts["neck"]).astype(np.uint8)
        n, labels = cv2.connectedComponents(joined, connectivity=8)
        at_neck = np.unique(labels[parts["neck"]])
        at_neck = at_neck[at_neck > 0]
        linked = np.isin(labels[ys[mine], xs[mine]], at_neck)
        if linked.mean() >= 0.5:
            keep[i] = False
    return colours[keep]


def _merge(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    parts = [c for c in (a, b) if c is not None]
    return np.concatenate(parts) if parts else None


# Lightness counts half: shading and folds move L far more than they move hue.
NEAREST_WEIGHTS = np.array([0.5, 1.0, 1.0], np.float32)


def _nearest(lab: np.ndarray, centres: np.ndarray) -> np.ndarray:
    # One centre at a time, the nearest kept in place: no (H, W, K, 3) temporaries, the same
    # figures (the square root is monotonic, so it is taken once, at the end).
    best: np.ndarray | None = None
    for c in np.asarray(centres, np.float32):
        d2 = _weighted_d2(lab, c, NEAREST_WEIGHTS)
        best = d2 if best is None else np.minimum(best, d2, out=best)
    assert best is not None
    return np.sqrt(best, out=best)


def _weighted_d2(lab: np.ndarray, centre: np.ndarray, wts: np.ndarray) -> np.ndarray:
    """Squared weighted distance of every pixel of ``lab`` (H, W, C) to one colour: the
    channels' squares added in channel order, as a sum over the last axis adds them."""
    d = (lab[..., 0] - centre[0]) * wts[0]
    d2 = d * d
    for i in range(1, lab.shape[-1]):
        d = (lab[..., i] - centre[i]) * wts[i]
        d2 += d * d
    return d2


def _border_connected(mask: np.ndarray) -> np.ndarray:
    """The parts of a binary mask connected to the image border."""
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=4)
    edge = np.unique(
        np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])
    )
    edge = edge[edge != 0]
    return np.isin(labels, edge).astype(np.uint8) & mask.astype(np.uint8)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    m = mask.astype(np.uint8)
    return (1 - _border_connected(1 - m)).astype(np.uint8)


def _keep_large(mask: np.ndarray, share: float) -> np.ndarray:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), 8)
    if n <= 1:
        return mask.astype(np.uint8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = 1 + np.nonzero(areas >= share * areas.max())[0]
    return np.isin(labels, keep).astype(np.uint8)


def _keep_touching(mask: np.ndarray, seed: np.ndarray) -> np.ndarray:
    n, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask.astype(np.uint8)
    ids = np.unique(labels[seed & (mask > 0)])
    ids = ids[ids != 0]
    if len(ids) == 0:
        return _keep_large(mask, 0.2)
    # A sleeve cut off from the body by a print or a crease is still the garment.
    areas = np.bincount(labels.ravel())
    big = np.nonzero(areas >= 0.08 * areas[ids].max())[0]
    keep = np.union1d(ids, big[big != 0])
    return np.isin(labels, keep).astype(np.uint8)
