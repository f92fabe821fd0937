"""Earfit: an earring photographed on a plain background, hung at true size on a model's ears.

Scale comes from the model's own iris (about 11.7 mm across), so a 1.5 in drop is 1.5 in on
every model whatever the framing. Only a lobe that is really seen gets an earring: the lobe is
looked for in the picture beside the face's contour and verified as the model's own skin (not
hair, not backdrop); a hidden or turned-away ear gets none, and no visible lobe at all is a
refusal. The earring's top (its hook or stud) goes through the lobe, the piece follows the head's
roll, strands of hair in front of the ear stay in front of it, and it casts a soft contact shadow.
The other side gets the mirror image, as a pair is made.

An earring the model already wears is never hung over: a small one is retouched away (inpainted
from the skin, hair and backdrop round it) before ours goes on; one too large to retouch cleanly
is a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.cutout import (
    Cutout,
    composite,
    cut_out_product,
    darken,
    jpeg_bytes,
    load_image,
    soft_shadow,
)
from workers.engines.imaging.face import (
    CHEEKS,
    LOBE_FRAME_STEPS,
    LOBE_MIN_SKIN,
    EarFrame,
    Earlobe,
    Face,
    detect_face,
    ear_frame,
    ear_skin,
    find_earlobes,
    head_axes,
    head_person_mask,
    roll_degrees,
    sample,
    skin_probability,
)
from workers.engines.imaging.resize import limit_pixels

MIN_HEIGHT_IN = 0.5
MAX_HEIGHT_IN = 10.0
# Beyond this the product shot is only downscaled for the cut-out; earrings are small on the
# model anyway, and GrabCut at 24 MP would dominate the run time.
PRODUCT_MAX_PIXELS = 4_000_000

# A worn earring: glints (metal, stones, pearls) narrower than a wire-scale kernel and far
# brighter than what surrounds them, covering at least this share of the zone where a piece
# hangs from the lobe. Metal glints are crisp: most of what stands out a little stands out a
# lot; the sheen of hair (grey or blond strands) mostly stands out a little.
WORN_GLINT_LEVEL = 40.0  # Lab L (0-255) above the local surroundings
WORN_SHEEN_LEVEL = 25.0
WORN_GLINT_SHARE = 0.045
WORN_GLINT_CRISPNESS = 0.45
WORN_BRIGHT_SHARE = 0.25
# Beyond this size (in face widths) a retouch would repaint too much of jaw, hair and backdrop.
WORN_MAX_LENGTH = 0.36
WORN_MAX_WIDTH = 0.26
# A stud: a speck a few pixels across right at the lobe point, too small for the glint test
# (which looks below the lobe). Dark (black enamel, oxidised metal, a stone in shade) or bright
# (polished metal, a pearl), it stands out sharply from the lobe's own skin, not only from a
# light backdrop: its contrast is measured against the skin's lightness, so the lobe's tip
# against a white sweep is no stud. Black and metal are near grey where skin is coloured, and a
# mole or a shadow keeps the skin's colour. A speck is compact: a hair strand, the crease under
# the lobe or the jaw's edge runs on beyond it.
STUD_DARK_CONTRAST = 30.0  # Lab L (0-255) below the lobe's skin, at the least...
STUD_DARK_SHARE = 0.4  # ...and at least this share of the skin's lightness
STUD_BRIGHT_CONTRAST = 60.0  # above the lobe's skin
STUD_MAX_CHROMA = 0.55  # of the lobe skin's Lab chroma, at the speck's core
STUD_MAX_EXTENT = 0.06  # face widths, across the speck and all that is half as dark joined to it
# Of the ring round a bright speck: a stud on the lobe is ringed by the lobe's skin, while the
# light backdrop seen in the notch between the lobe and the neck has skin on two sides only.
STUD_MIN_SKIN_AROUND = 0.75


@dataclass(frozen=True)
class WornEarring:
    side: str
    mask: np.ndarray  # bool HxW, the pixels of the piece (image coordinates)
    highlight_share: float
    length: float  # extent down the face, in face widths
    width: float

    @property
    def removable(self) -> bool:
        return self.length <= WORN_MAX_LENGTH and self.width <= WORN_MAX_WIDTH


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    height_in = float(params.get("ring_height_in") or 0)
    if not MIN_HEIGHT_IN <= height_in <= MAX_HEIGHT_IN:
        raise EngineError("bad_height", "The ring height must be between 0.5 and 10 inches.")
    model_name = str(params.get("model_name") or "the model")
    progress(5)
    model_rgb, _ = load_image(params["model_image"])
    ring_rgb, ring_alpha = load_image(params["ring_image"])
    ring_rgb, ring_alpha = limit_pixels(ring_rgb, ring_alpha, PRODUCT_MAX_PIXELS)
    progress(15)
    face = detect_face(model_rgb)
    if face is None:
        raise EngineError("no_ear", f"No visible ear was found on {model_name}.")
    person = head_person_mask(model_rgb, face)
    candidates = find_earlobes(model_rgb, face, person)
    lobes = [lobe for lobe in candidates if lobe.visible]
    if not lobes:
        # A piece hanging from a lobe breaks the lobe's outline; skin with jewellery below it
        # is a model wearing earrings, not one without ears in sight.
        if any(
            lobe.skin_fraction >= LOBE_MIN_SKIN and worn_earring(model_rgb, face, lobe, person)
            for lobe in candidates
        ):
            raise EngineError("wears_earrings", _wears_message(model_name))
        raise EngineError(
            "no_ear",
            f"No visible ear was found on {model_name}: hair, the framing or a turned head "
            "hides both earlobes.",
        )
    progress(30)
    # Both ears are checked, the hidden one too: a pair half replaced is no pair.
    worn = [
        w for w in (worn_earring(model_rgb, face, p, person) for p in _both(face, candidates)) if w
    ]
    # Earrings come in pairs: one found on a seen lobe means its twin may hang from the other
    # ear, which can only be retouched when that lobe is seen too.
    seen = {lobe.side for lobe in lobes}
    if any(not w.removable or w.side not in seen for w in worn) or (worn and len(seen) < 2):
        raise EngineError("wears_earrings", _wears_message(model_name))
    clean = remove_earrings(model_rgb, face, worn) if worn else model_rgb
    progress(45)
    earring = cut_out_product(ring_rgb, ring_alpha, what="earring")
    progress(60)
    out = place_earrings(clean, face, lobes, earring, height_in, person)
    progress(95)
    slug = "".join(c if c.isalnum() else "-" for c in model_name.lower()).strip("-") or "model"
    return [EngineOutput(jpeg_bytes(out, quality=95), "image/jpeg", f"earfit-{slug}.jpg")]


# --- an earring the model already wears ----------------------------------------------------


def _wears_message(model_name: str) -> str:
    return (
        f"{model_name} already wears earrings that cannot be retouched away cleanly (too large, "
        f"or on an ear that is not fully in sight); choose a photo of {model_name} without "
        "earrings."
    )


def _both(face: Face, lobes: list[Earlobe]) -> list[Earlobe]:
    """Where to look for jewellery on each ear: the seen lobe; for a hidden one, where the seen
    one's twin sits beside its own contour (the search found nothing reliable there)."""
    seen = [lobe for lobe in lobes if lobe.visible]
    out = []
    for lobe in lobes:
        if lobe.visible or not seen:
            out.append(lobe)
            continue
        twin = seen[0]
        u, v = _lobe_uv(ear_frame(face, twin.side), twin)
        out.append(replace(lobe, point=ear_frame(face, lobe.side).to_pixel(u, v)))
    return out


def _lobe_uv(frame: EarFrame, lobe: Earlobe) -> tuple[float, float]:
    q = np.asarray(lobe.point, np.float32) - frame.origin
    return float(q @ frame.out), float(q @ frame.down)


def _grid_to_image(frame: EarFrame) -> np.ndarray:
    """The affine map from the frame's grid (column, row) to image pixels."""
    o = frame.origin + frame.us[0] * frame.out + frame.vs[0] * frame.down
    return np.array(
        [
            [frame.step * frame.out[0], frame.step * frame.down[0], o[0]],
            [frame.step * frame.out[1], frame.step * frame.down[1], o[1]],
        ],
        np.float32,
    )


def worn_earring(
    rgb: np.ndarray, face: Face, lobe: Earlobe, person: np.ndarray | None = None
) -> WornEarring | None:
    """The piece hanging from this lobe, if there is one.

    Jewellery shows as highlights narrower than a few hundredths of the face width (a wire, a
    stone, a pearl's glint) that are brighter than what surrounds them and are not skin; they
    are looked for where a piece hangs, from the lobe down. The piece's pixels are those
    highlights with the dark rims beside them, joined into the blobs that reach the lobe.
    """
    fw = face.face_width
    frame = ear_frame(face, lobe.side, (-0.35, 0.45), (-0.25, 0.60))
    u0, v0 = _lobe_uv(frame, lobe)
    crop = sample(rgb, frame)
    L = cv2.cvtColor(crop, cv2.COLOR_RGB2LAB)[..., 0].astype(np.float32)
    U, V = np.meshgrid(frame.us, frame.vs)
    zone = (U > u0 - 0.07 * fw) & (U < u0 + 0.09 * fw) & (V > v0 + 0.02 * fw) & (V < v0 + 0.25 * fw)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
    tophat = cv2.morphologyEx(L, cv2.MORPH_TOPHAT, kernel)
    blackhat = cv2.morphologyEx(L, cv2.MORPH_BLACKHAT, kernel)
    lobe_disc = np.hypot(U - u0, V - v0) < 0.035 * fw
    zone &= ~lobe_disc
    if not zone.any():
        return None
    glints = tophat > WORN_GLINT_LEVEL
    share = float(glints[zone].mean())
    sheen = float((tophat > WORN_SHEEN_LEVEL)[zone].mean())
    crisp = share / max(sheen, 1e-6)
    # Glints, and either crisp ones (a wire, a stone) or bright structure all over the zone (a
    # ring round a lighter backdrop); grey hair's sheen is neither.
    if share < WORN_GLINT_SHARE or (crisp < WORN_GLINT_CRISPNESS and sheen < WORN_BRIGHT_SHARE):
        # Only a lobe really seen has a point where a stud would sit; the hidden ear's is a guess.
        return _stud(rgb, face, lobe, frame, crop, person) if lobe.visible else None
    bright = tophat > WORN_SHEEN_LEVEL
    dark = blackhat > WORN_SHEEN_LEVEL
    near = (U > u0 - 0.14 * fw) & (U < u0 + 0.18 * fw) & (V > v0 - 0.01 * fw) & (V < v0 + 0.55 * fw)
    parts = ((bright | dark) & near & ~lobe_disc).astype(np.uint8)
    parts = cv2.morphologyEx(parts, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, labels, _, _ = cv2.connectedComponentsWithStats(parts)
    attach = (np.hypot(U - u0, V - (v0 + 0.03 * fw)) < 0.07 * fw) & (parts > 0)
    keep = np.unique(labels[attach])
    keep = keep[keep > 0]
    piece = np.isin(labels, keep)
    if not piece.any():
        return None
    return _worn(piece, rgb, frame, fw, lobe.side, share)


def _stud(
    rgb: np.ndarray,
    face: Face,
    lobe: Earlobe,
    frame: EarFrame,
    crop: np.ndarray,
    person: np.ndarray | None,
) -> WornEarring | None:
    """A stud at the lobe point (see STUD_*), or None."""
    fw = face.face_width
    u0, v0 = _lobe_uv(frame, lobe)
    U, V = np.meshgrid(frame.us, frame.vs)
    lab = cv2.cvtColor(crop, cv2.COLOR_RGB2LAB).astype(np.float32)
    L = lab[..., 0]
    chroma = np.hypot(lab[..., 1] - 128.0, lab[..., 2] - 128.0)
    skin, _ = ear_skin(rgb, face, frame, person)
    d = np.hypot(U - u0, V - v0)
    lobe_skin = skin & (d < 0.06 * fw)
    if lobe_skin.sum() < 10:
        return None
    skin_l = float(np.median(L[lobe_skin]))
    skin_chroma = float(np.median(chroma[lobe_skin]))
    # At the lobe point or just below it, where a post goes through; the lobe point found
    # wanders by about its own radius (a stud breaks the lobe's outline, and the lobe may be
    # placed beside it), so the speck is looked for that far round it.
    where = (np.abs(U - u0) < 0.07 * fw) & (V > v0 - 0.07 * fw) & (V < v0 + 0.08 * fw)
    k = max(3, round(0.05 * LOBE_FRAME_STEPS) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    closed = cv2.morphologyEx(L, cv2.MORPH_CLOSE, kernel)
    opened = cv2.morphologyEx(L, cv2.MORPH_OPEN, kernel)
    # Darker than the skin and than everything round it (dark hair next to the lobe is not).
    dark = np.minimum(closed, skin_l) - L
    bright = L - np.maximum(opened, skin_l)
    dark_level = max(STUD_DARK_CONTRAST, STUD_DARK_SHARE * skin_l)
    neutral = chroma <= STUD_MAX_CHROMA * max(skin_chroma, 1.0)
    found = np.zeros(L.shape, bool)
    for strong, loose, is_dark in (
        (dark >= dark_level, dark >= 0.5 * dark_level, True),
        (bright >= STUD_BRIGHT_CONTRAST, bright >= 0.5 * STUD_BRIGHT_CONTRAST, False),
    ):
        n, labels = cv2.connectedComponents(loose.astype(np.uint8), connectivity=8)
        for c in np.unique(labels[strong & where]):
            if c == 0:
                continue
            blob = labels == c
            ys, xs = np.nonzero(blob)
            extent = max(ys.max() - ys.min() + 1, xs.max() - xs.min() + 1) * frame.step / fw
            if extent > STUD_MAX_EXTENT:
                continue  # a strand, a crease or an edge runs on
            core = blob & strong
            if is_dark and not neutral[core].any():
                continue  # a mole or a shadow: the skin's own colour, darker
            if not is_dark:
                ring = cv2.dilate(blob.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                ring &= ~blob
                if skin[ring].mean() < STUD_MIN_SKIN_AROUND:
                    continue
            found |= blob
    if not found.any():
        return None
    return _worn(found, rgb, frame, fw, lobe.side, 0.0)


def _worn(piece: np.ndarray, rgb: np.ndarray, frame: EarFrame, fw: float, side: str,
          share: float) -> WornEarring:
    """The worn earring found as ``piece`` on the lobe's grid, its mask in the photo's pixels
    (with the piece's soft rim, which the retouch takes too) and its size in face widths."""
    ys, xs = np.nonzero(piece)
    length = float((ys.max() - ys.min() + 1) * frame.step / fw)
    width = float((xs.max() - xs.min() + 1) * frame.step / fw)
    grid = cv2.dilate(piece.astype(np.uint8), np.ones((3, 3), np.uint8))
    H, W = rgb.shape[:2]
    mask = cv2.warpAffine(
        grid.astype(np.float32), _grid_to_image(frame), (W, H), flags=cv2.INTER_LINEAR
    )
    return WornEarring(side, mask > 0.2, share, length, width)


def remove_earrings(rgb: np.ndarray, face: Face, worn: list[WornEarring]) -> np.ndarray:
    """Retouch the worn pieces away: each is filled from the skin, hair and backdrop round it."""
    out = rgb.copy()
    radius = max(2, round(0.03 * face.face_width))
    for w in worn:
        m = cv2.dilate(w.mask.astype(np.uint8), np.ones((3, 3), np.uint8))
        ys, xs = np.nonzero(m)
        if len(ys) == 0:
            continue
        pad = 4 * radius
        y0, y1 = max(0, ys.min() - pad), min(rgb.shape[0], ys.max() + pad + 1)
        x0, x1 = max(0, xs.min() - pad), min(rgb.shape[1], xs.max() + pad + 1)
        patch = np.ascontiguousarray(out[y0:y1, x0:x1])
        filled = cv2.inpaint(patch, m[y0:y1, x0:x1], radius, cv2.INPAINT_TELEA)
        out[y0:y1, x0:x1] = filled
    return out


# --- placing ours ----------------------------------------------------------------------------


def place_earrings(
    rgb: np.ndarray,
    face: Face,
    lobes: list[Earlobe],
    earring: Cutout,
    height_in: float,
    person: np.ndarray | None = None,
) -> np.ndarray:
    target_h = max(4, round(height_in * face.ppi))
    scale = target_h / earring.height
    target_w = max(2, round(earring.width * scale))
    fg, alpha = _resize_premultiplied(earring.rgb, earring.alpha, target_w, target_h)
    anchor_x = _hook_x(alpha)
    roll = roll_degrees(face)
    side_light = _side_light(rgb, face)
    out = rgb
    for lobe in lobes:
        # The product shot shows the earring as worn on the subject's left ear seen from the
        # front, or symmetrical; the right ear wears the mirror image.
        f, a, ax = fg, alpha, anchor_x
        if lobe.side == "right":
            f, a, ax = fg[:, ::-1], alpha[:, ::-1], (target_w - 1) - anchor_x
        f, a, (hx, hy) = _rotate(np.ascontiguousarray(f), np.ascontiguousarray(a), (ax, 0.0), roll)
        x = round(lobe.point[0] - hx)
        y = round(lobe.point[1] - hy)
        front = _hair_in_front(out, face, lobe, a, x, y, person)
        f = _lit_like(rgb, face, lobe, f)
        before = out
        out = _contact_shadow(out, face, a, x, y, side_light, person)
        out = composite(out, f, a, x, y)
        if front is not None:
            m, (fx, fy) = front
            h, w = m.shape
            region = (slice(fy, fy + h), slice(fx, fx + w))
            blend = m[..., None]
            out[region] = np.clip(
                before[region].astype(np.float32) * blend
                + out[region].astype(np.float32) * (1 - blend)
                + 0.5,
                0,
                255,
            ).astype(np.uint8)
    return out


def _rotate(
    fg: np.ndarray, alpha: np.ndarray, hook: tuple[float, float], degrees: float
) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """The earring turned with the head's roll about its hook; returns the hook's new place."""
    if abs(degrees) < 0.5:
        return fg, alpha, hook
    h, w = alpha.shape
    # cv2 turns counter-clockwise on screen for a positive angle; the eye line's angle (image y
    # down) is clockwise on screen, so the earring turns by its negative.
    m = cv2.getRotationMatrix2D((float(hook[0]), float(hook[1])), -degrees, 1.0)
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], np.float32) @ m.T
    x0, y0 = np.floor(corners.min(axis=0))
    x1, y1 = np.ceil(corners.max(axis=0))
    m[0, 2] -= x0
    m[1, 2] -= y0
    size = (int(x1 - x0), int(y1 - y0))
    pm = fg.astype(np.float32) * alpha[..., None]
    pm = cv2.warpAffine(pm, m, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    a = np.clip(cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR, borderValue=0), 0, 1)
    colour = np.where(a[..., None] > 1e-3, pm / np.maximum(a[..., None], 1e-3), 0)
    hx = m[0, 0] * hook[0] + m[0, 1] * hook[1] + m[0, 2]
    hy = m[1, 0] * hook[0] + m[1, 1] * hook[1] + m[1, 2]
    return np.clip(colour, 0, 255).astype(np.uint8), a.astype(np.float32), (float(hx), float(hy))


def _hair_in_front(
    rgb: np.ndarray,
    face: Face,
    lobe: Earlobe,
    alpha: np.ndarray,
    x: int,
    y: int,
    person: np.ndarray | None,
) -> tuple[np.ndarray, tuple[int, int]] | None:
    """Strands of hair that cross the lobe lie in front of the ear, so in front of the earring
    too: the pixels of the earring's footprint with those strands' colour, joined to them.
    Returns a soft mask over the footprint and its top-left corner, or None."""
    fw = face.face_width
    H, W = rgb.shape[:2]
    h, w = alpha.shape
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return None
    lx, ly = lobe.point
    r = max(2.0, 0.05 * fw)
    bx0, by0 = int(max(0, min(x0, lx - r))), int(max(0, min(y0, ly - r)))
    bx1, by1 = int(min(W, max(x1, lx + r + 1))), int(min(H, max(y1, ly + r + 1)))
    box = (bx0, by0, bx1, by1)
    skin = skin_probability(rgb, face, box) > 0.3
    yy, xx = np.mgrid[by0:by1, bx0:bx1]
    disc = (xx - lx) ** 2 + (yy - ly) ** 2 <= r * r
    # Strands cross the ear: non-skin with skin on both sides of it. The backdrop or hair beside
    # the ear is not enclosed by skin and stays behind the earring.
    k = max(3, int(round(0.04 * fw)) | 1)
    enclosed = (
        cv2.morphologyEx(skin.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((k, k), np.uint8)) > 0
    )
    strands = disc & enclosed & ~skin
    if person is not None:
        # Strands are the person's: backdrop seen under a lobe is closed in by skin too, but an
        # earring hangs in front of it.
        on_person = _person_core(person, face, box) > 0.5
        strands &= on_person
    if strands.sum() < max(3, 0.06 * disc.sum()):
        return None
    lab = cv2.cvtColor(rgb[by0:by1, bx0:bx1], cv2.COLOR_RGB2LAB).astype(np.float32)
    hair = lab[strands]
    mean = hair.mean(axis=0)
    spread = np.maximum(hair.std(axis=0), [6.0, 3.0, 3.0])
    like = np.linalg.norm((lab - mean) / (2.5 * spread), axis=2) < 1.0
    like &= ~skin
    if person is not None:
        like &= on_person
    n, labels = cv2.connectedComponents(like.astype(np.uint8))
    keep = np.unique(labels[strands & like])
    keep = keep[keep > 0]
    front = np.isin(labels, keep)
    sub = front[y0 - by0 : y1 - by0, x0 - bx0 : x1 - bx0].astype(np.float32)
    if sub.sum() == 0:
        return None
    sub = cv2.GaussianBlur(sub, (0, 0), 0.6) * 0.9
    return sub, (x0, y0)


def _hook_x(alpha: np.ndarray) -> float:
    """Horizontal position of the earring's top (its hook or stud), alpha-weighted."""
    rows = max(1, round(0.06 * alpha.shape[0]))
    top = alpha[:rows]
    if top.sum() < 1e-3:
        return (alpha.shape[1] - 1) / 2
    xs = np.arange(alpha.shape[1], dtype=np.float32)
    return float((top.sum(axis=0) * xs).sum() / top.sum())


def _cheek_lightness(rgb: np.ndarray, face: Face) -> list[float]:
    """Median Lab lightness of each cheek patch (subject's right cheek first)."""
    r = max(2, int(0.05 * face.face_width))
    out = []
    for i in CHEEKS[:2]:
        x, y = face.points[i].astype(int)
        patch = np.ascontiguousarray(rgb[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1])
        L = cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0] if patch.size else None
        out.append(float(np.median(L)) if L is not None else 128.0)
    return out


def _side_light(rgb: np.ndarray, face: Face) -> float:
    """Where the key light comes from across the picture, -1 (from small x) to +1 (large x): the
    lit cheek is the lighter one. 0 for a frontal light."""
    right, left = _cheek_lightness(rgb, face)
    lateral, _ = head_axes(face)
    # A lightness step of about 30 (of 255) between the cheeks is a clearly one-sided light.
    return float(np.clip((left - right) / 30.0, -1, 1) * np.sign(lateral[0] or 1.0))


def _lit_like(rgb: np.ndarray, face: Face, lobe: Earlobe, colour: np.ndarray) -> np.ndarray:
    """The earring shaded mildly by the light where it hangs: a lobe in the jaw's shade is darker
    than the cheeks, and a piece hanging there would be too. The cheeks' light is the product
    shot's (taken as well lit); only part of the difference is applied, as metal and enamel keep
    their own highlights."""
    fw = face.face_width
    r = max(2, int(0.08 * fw))
    x, y = int(lobe.point[0]), int(lobe.point[1])
    H, W = rgb.shape[:2]
    box = (max(0, x - r), max(0, y - r), min(W, x + r + 1), min(H, y + r + 1))
    if box[2] <= box[0] or box[3] <= box[1]:
        return colour
    skin = skin_probability(rgb, face, box) > 0.3
    if skin.sum() < 4:
        return colour
    patch = rgb[box[1] : box[3], box[0] : box[2]]
    local = float(np.median(cv2.cvtColor(patch, cv2.COLOR_RGB2LAB)[..., 0][skin]))
    cheeks = max(1.0, *_cheek_lightness(rgb, face))
    gain = float(np.clip(local / cheeks, 0.6, 1.0)) ** 0.5
    if gain > 0.98:
        return colour
    return np.clip(colour.astype(np.float32) * gain + 0.5, 0, 255).astype(np.uint8)


def _contact_shadow(
    rgb: np.ndarray,
    face: Face,
    alpha: np.ndarray,
    x: int,
    y: int,
    side_light: float,
    person: np.ndarray | None = None,
) -> np.ndarray:
    # Key light from the front-top, a little to the side where the lit cheek is: the drop's
    # shadow falls down and away from that side, and only the person catches it (the neck, and
    # the hair just behind the ear); a far backdrop would not show one.
    h = alpha.shape[0]
    blur = max(1.0, 0.05 * h)
    pad = int(3 * blur) + 1
    shade = soft_shadow(alpha, blur, pad)
    sx = round(x - pad - side_light * 0.06 * h)
    sy = round(y - pad + 0.06 * h)
    H, W = rgb.shape[:2]
    x0, y0 = max(0, sx), max(0, sy)
    x1, y1 = min(W, sx + shade.shape[1]), min(H, sy + shade.shape[0])
    if x1 <= x0 or y1 <= y0:
        return rgb
    skin = skin_probability(rgb, face, (x0, y0, x1, y1))
    shade = shade.copy()
    catch = np.clip(skin * 1.5, 0, 1)
    if person is not None:
        core = _person_core(person, face, (x0, y0, x1, y1))
        catch = np.maximum(catch, np.clip((core - 0.5) * 2, 0, 1))
    shade[y0 - sy : y1 - sy, x0 - sx : x1 - sx] *= catch
    shade[: y0 - sy] = 0
    shade[y1 - sy :] = 0
    shade[:, : x0 - sx] = 0
    shade[:, x1 - sx :] = 0
    return darken(rgb, shade, sx, sy, 0.35)


def _person_core(person: np.ndarray, face: Face, box: tuple[int, int, int, int]) -> np.ndarray:
    """The person probability over box (x0, y0, x1, y1), narrowed back by the widening the head's
    mask got to keep the ears' rims: its pixels are the person's (hair included), not the
    backdrop beside them."""
    x0, y0, x1, y1 = box
    k = max(1, int(0.06 * face.face_width))
    pad_k = k + 1
    px0, py0 = max(0, x0 - pad_k), max(0, y0 - pad_k)
    region = person[py0 : y1 + pad_k, px0 : x1 + pad_k]
    core = cv2.erode(region, np.ones((k, k), np.uint8))
    return core[y0 - py0 : y0 - py0 + (y1 - y0), x0 - px0 : x0 - px0 + (x1 - x0)]


def _resize_premultiplied(
    rgb: np.ndarray, alpha: np.ndarray, w: int, h: int
) -> tuple[np.ndarray, np.ndarray]:
    # Resizing premultiplied colour keeps the (decontaminated) rim from bleeding dark or light.
    interp = cv2.INTER_AREA if w < rgb.shape[1] else cv2.INTER_CUBIC
    pm = rgb.astype(np.float32) * alpha[..., None]
    pm = cv2.resize(pm, (w, h), interpolation=interp)
    a = np.clip(cv2.resize(alpha, (w, h), interpolation=interp), 0, 1)
    colour = np.where(a[..., None] > 1e-3, pm / np.maximum(a[..., None], 1e-3), 0)
    return np.clip(colour, 0, 255).astype(np.uint8), a.astype(np.float32)
