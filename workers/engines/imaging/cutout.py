"""Product cut-out on plain backgrounds (earrings, bags, garments shot on a sweep).

The background is modelled from the image border (a few Lab colour clusters, since sweeps are
rarely flat), pixels far from it seed GrabCut, and the edge gets a soft alpha from the colour
distance so thin chains, hoops and straps keep their antialiased rim. Edge colours are
decontaminated (the background's share removed) so a white sweep leaves no halo on skin.

Also hosts the image read/write helpers the placement engines share; they defer to
``workers.engines.imaging.decode`` when that module is present.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import cv2
import numpy as np

from workers.engines.base import EngineError, SizedImage
from workers.engines.imaging.resize import limit_side, on_reduced_copy

# Pixels above which we refuse to decode: far below Pillow's bomb limit, far above any photo
# a catalogue sends us (a 24 MP camera frame).
MAX_PIXELS = 40_000_000
# The long side of the working copy GrabCut runs on (see _matte_from_background).
CUT_SIDE = 480.0
# GrabCut's rounds of re-learning its colour models from the seeds (each round learns the
# models and runs one graph cut, the dearest step). The outline has settled after two: a third
# changes the matte by more than 0.1 at 0-280 pixels of 200,000-450,000 on our garment and
# shoe shots (3,900 on one: the outline of a white tee on a white sweep, which is refused as
# not separable either way). Callers whose objects are large smooth shapes may ask for one.
GRABCUT_ROUNDS = 2


@dataclass(frozen=True)
class Cutout(SizedImage):
    rgb: np.ndarray  # uint8 HxWx3, cropped to the object (plus a small margin), decontaminated
    alpha: np.ndarray  # float32 HxW in [0, 1], the size of rgb


# --- image I/O -------------------------------------------------------------------------------


def load_image(
    data: bytes, *, max_pixels: int = MAX_PIXELS
) -> tuple[np.ndarray, np.ndarray | None]:
    """Decoded RGB uint8 and alpha as float32 [0, 1] (None when the image has none)."""
    try:
        from workers.engines.imaging.decode import decode_image
    except ImportError:
        rgb, alpha = _decode_with_pillow(data, max_pixels)
    else:
        rgb, alpha = decode_image(data, max_pixels=max_pixels)
    if alpha is not None:
        alpha = np.asarray(alpha)
        alpha = (
            alpha.astype(np.float32) / 255.0
            if alpha.dtype == np.uint8
            else alpha.astype(np.float32)
        )
        if alpha.ndim == 3:
            alpha = alpha[..., 0]
    return np.ascontiguousarray(rgb[..., :3]), alpha


def png_bytes(rgb: np.ndarray, alpha: np.ndarray | None = None) -> bytes:
    try:
        from workers.engines.imaging.decode import encode_png
    except ImportError:
        return _encode_with_pillow(rgb, alpha, "PNG")
    if alpha is not None and alpha.dtype != np.uint8:
        alpha = np.clip(alpha * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return encode_png(rgb, alpha)


def jpeg_bytes(rgb: np.ndarray, quality: int = 92) -> bytes:
    try:
        from workers.engines.imaging.decode import encode_jpeg
    except ImportError:
        return _encode_with_pillow(rgb, None, "JPEG", quality=quality)
    return encode_jpeg(rgb, quality=quality)


def _decode_with_pillow(data: bytes, max_pixels: int) -> tuple[np.ndarray, np.ndarray | None]:
    import warnings

    from PIL import Image, ImageOps

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data))
            if im.width * im.height > max_pixels:
                raise EngineError("image_too_large", "The image has too many pixels.")
            im = ImageOps.exif_transpose(im)
            im.load()
    except EngineError:
        raise
    except Exception as exc:  # Pillow raises many types for broken files
        raise EngineError("bad_image", "The image could not be read.") from exc
    if im.mode in ("RGBA", "LA", "PA") or (im.mode == "P" and "transparency" in im.info):
        rgba = np.asarray(im.convert("RGBA"))
        return np.ascontiguousarray(rgba[..., :3]), rgba[..., 3].astype(np.float32) / 255.0
    return np.asarray(im.convert("RGB")).copy(), None


def _encode_with_pillow(rgb: np.ndarray, alpha: np.ndarray | None, fmt: str, **kw: int) -> bytes:
    from PIL import Image

    if alpha is not None:
        a = (
            alpha
            if alpha.dtype == np.uint8
            else np.clip(alpha * 255 + 0.5, 0, 255).astype(np.uint8)
        )
        im = Image.fromarray(np.dstack([rgb, a]), "RGBA")
    else:
        im = Image.fromarray(rgb, "RGB")
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


# --- cut-out ---------------------------------------------------------------------------------


def cut_out(rgb: np.ndarray, alpha: np.ndarray | None = None, *, what: str = "product",
            work_side: float = CUT_SIDE, rounds: int = GRABCUT_ROUNDS,
            outline: bool = False) -> Cutout:
    """The object on a plain background, cropped, with a soft alpha matte (GrabCut on a
    ``work_side`` px working copy, the soft edge at full resolution).

    ``outline``: the object is one solid shape (a garment), so what its outline encloses is
    taken for it even where it has the backdrop's colour (a white tee on a white sweep; see
    ``_enclosed_by_outline``). Not for hoops, chains or bag handles, whose holes are backdrop.

    An input that already carries real transparency (a PNG cut-out) is trusted as is.
    """
    if alpha is not None and float((alpha < 0.5).mean()) > 0.01:
        matte = alpha.astype(np.float32)
    else:
        matte = _matte_from_background(rgb, work_side, rounds, outline)
    ys, xs = np.nonzero(matte > 0.02)
    if len(ys) < max(30, 0.001 * matte.size):
        raise EngineError(f"no_{what}", f"No {what} could be separated from the background.")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return Cutout(
        rgb=np.ascontiguousarray(rgb[y0:y1, x0:x1]), alpha=np.ascontiguousarray(matte[y0:y1, x0:x1])
    )


def _matte_from_background(rgb: np.ndarray, work_side: float = CUT_SIDE,
                           rounds: int = GRABCUT_ROUNDS, outline: bool = False) -> np.ndarray:
    h, w = rgb.shape[:2]
    # GrabCut's cost grows with pixels; a 480 px working copy keeps it well under a second and
    # the soft edge is recomputed at full resolution afterwards.
    small, scale = limit_side(rgb, work_side, min_side=8)
    dist_small, thr = _background_distance(small)
    sh, sw = small.shape[:2]
    border = max(2, round(0.01 * max(sh, sw)))

    gc = np.full((sh, sw), cv2.GC_PR_BGD, np.uint8)
    gc[dist_small > thr] = cv2.GC_PR_FGD
    gc[dist_small > 3 * thr] = cv2.GC_FGD
    gc[:border, :] = cv2.GC_BGD
    gc[-border:, :] = cv2.GC_BGD
    gc[:, :border] = cv2.GC_BGD
    gc[:, -border:] = cv2.GC_BGD
    if outline:
        # Cloth of the backdrop's own colour inside the outline: GrabCut's colour models
        # cannot tell it from the sweep, so its inside is fixed as product and only a rim
        # along the outline is left for the cut to place.
        cloth = _enclosed_by_outline(small, dist_small, thr) & (gc == cv2.GC_PR_BGD)
        gc[cloth] = cv2.GC_PR_FGD
        gc[cv2.erode(cloth.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0] = cv2.GC_FGD
    if (gc == cv2.GC_FGD).sum() < 10:
        gc[dist_small > 1.5 * thr] = cv2.GC_FGD
    if ((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD)).sum() < 10:
        return np.zeros((h, w), np.float32)
    bgd = np.zeros((1, 65), np.float64)
    fgd = np.zeros((1, 65), np.float64)
    # GrabCut runs on the seeds' box and a margin round it: far beyond the last pixel that
    # stands out from the backdrop nothing is product, and GrabCut's cost grows with pixels
    # (a garment shot's seeds cover 33-75 % of our product photos). The box's own edge is
    # backdrop, as the photo's border is.
    y0, y1, x0, x1 = _box_with_margin((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD), 6 * border)
    box = gc[y0:y1, x0:x1].copy()
    box[:1, :] = box[-1:, :] = cv2.GC_BGD
    box[:, :1] = box[:, -1:] = cv2.GC_BGD
    try:
        cv2.setRNGSeed(0)  # GrabCut seeds its colour models from OpenCV's global RNG
        cv2.grabCut(
            np.ascontiguousarray(cv2.cvtColor(small[y0:y1, x0:x1], cv2.COLOR_RGB2BGR)),
            box, None, bgd, fgd, rounds, cv2.GC_INIT_WITH_MASK,
        )
    except cv2.error:
        pass  # degenerate colour models: keep the distance seeds
    gc[y0:y1, x0:x1] = box
    hard_small = ((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD)).astype(np.uint8)
    hard_small = _drop_specks(hard_small)

    hard = (
        cv2.resize(hard_small * 255, (w, h), interpolation=cv2.INTER_LINEAR)
        if scale < 1
        else hard_small * 255
    )
    hard = hard > 127
    # Soft edge: inside a band around the GrabCut boundary, alpha follows the colour distance
    # to the background (antialiased rims, fine chains); deep inside it is opaque, outside clear.
    band_r = max(2, round(0.006 * max(h, w)))
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * band_r + 1, 2 * band_r + 1))
    inner = cv2.erode(hard.astype(np.uint8), k) > 0
    outer = cv2.dilate(hard.astype(np.uint8), k) > 0
    band = outer & ~inner
    # The colour distance is read in the band alone: worked out there only.
    dist, thr_full = _background_distance(rgb, band)
    soft = np.clip((dist - 0.5 * thr_full) / (2.0 * thr_full), 0.0, 1.0)
    matte = inner.astype(np.float32)
    matte[band] = np.maximum(soft, 0.6 * hard[band])
    matte = cv2.GaussianBlur(matte, (0, 0), 0.6)
    matte[~outer] = 0.0
    return matte


# A garment's outline on a light sweep (a white tee on white) is a faint line: its fold shadows
# and seams, a hair darker or warmer than the sweep. A pixel is marked as outline or texture
# when the colour changes this many times faster than it does along the photo's border (Lab
# units a pixel, on a lightly blurred working copy; studio sweeps are often retouched flat, so
# there is a floor) ...
OUTLINE_GRADIENT = 3.0
OUTLINE_GRADIENT_FLOOR = 0.6
# ... or stands this far from the backdrop's colours (Lab units, well under the product
# threshold of 6-10: our white tees differ from their sweeps by 2-3) ...
OUTLINE_DISTANCE_FLOOR = 1.5
# ... and an area of backdrop colour enclosed by marks is cloth, not a gap between a trouser's
# legs, a sleeve and the body or the straps of a top, when its inside (past CLOTH_RIM px of the
# working copy from the marks round it) is wide enough to hold this share of the working
# copy and stands off the backdrop: its median distance to it above the marking floor. On our
# shots the white tees' bodies measure 2.0-6.6 Lab units off their sweeps, the gaps 0.0-0.1
# and under 100 px wide past the rim.
CLOTH_RIM = 4
# The mean colour change a pixel inside such an area (Lab units a pixel) must pass, this many
# times the border's median and at least the floor: our white tees' bodies measure 0.23-0.40,
# the flat retouched panel round one pair of jeans 0.01.
CLOTH_FOLDS = 2.0
CLOTH_FOLDS_FLOOR = 0.1
CLOTH_AREA = 0.002


def _enclosed_by_outline(small: np.ndarray, dist: np.ndarray, thr: float) -> np.ndarray:
    """The pixels of backdrop colour enclosed by a closed outline whose inside is textured
    like cloth (a white garment's body on a white sweep), on the working copy."""
    lab = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_RGB2LAB).astype(np.float32), (0, 0), 1.0)
    g2 = np.zeros(small.shape[:2], np.float32)
    for i in range(3):
        gx = cv2.Sobel(lab[..., i], cv2.CV_32F, 1, 0, ksize=3) / 8.0
        gy = cv2.Sobel(lab[..., i], cv2.CV_32F, 0, 1, ksize=3) / 8.0
        g2 += gx * gx + gy * gy
    grad = np.sqrt(g2)
    ring_grad = _border_ring(grad)
    ring_dist = _border_ring(dist)
    # The 75th and 95th percentiles: a garment touching the border is a few per cent of it.
    t_grad = max(OUTLINE_GRADIENT_FLOOR, OUTLINE_GRADIENT * float(np.percentile(ring_grad, 75)))
    t_dist = max(OUTLINE_DISTANCE_FLOOR, 1.5 * float(np.percentile(ring_dist, 95)))
    # Cloth has folds and weave, a retouched or printed backdrop panel has not: its inside
    # must change faster than the sweep along the border does (its median: a floor's edge or a
    # garment crossing the border is a few per cent of it).
    t_fold = max(CLOTH_FOLDS_FLOOR, CLOTH_FOLDS * float(np.median(ring_grad)))
    marked = ((grad > t_grad) | (dist > t_dist)).astype(np.uint8)
    # Bridge the outline's breaks where it fades for a few pixels.
    closed = cv2.morphologyEx(marked, cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    free = (1 - closed).astype(np.uint8)
    _, labels = cv2.connectedComponents(free, connectivity=4)
    h, w = free.shape
    b = max(2, round(0.01 * max(h, w)))
    edge = np.zeros((h, w), bool)
    edge[:b] = edge[-b:] = True
    edge[:, :b] = edge[:, -b:] = True
    # Flooded in from the border's backdrop only: a garment cut by the frame is not outside.
    out_labels = np.unique(labels[edge & (free > 0) & (dist <= thr)])
    enclosed = ~np.isin(labels, out_labels[out_labels > 0])
    cand = (enclosed & (dist <= thr)).astype(np.uint8)
    n, comp = cv2.connectedComponents(cand, connectivity=8)
    if n < 2:
        return np.zeros((h, w), bool)
    # Judged on each area's inside, off the outline that bounds it.
    k = 2 * CLOTH_RIM + 1
    core = cv2.erode(cand, np.ones((k, k), np.uint8)) > 0
    keep = np.zeros(n, bool)
    for i in range(1, n):
        inside = core & (comp == i)
        keep[i] = (inside.sum() >= CLOTH_AREA * h * w
                   and float(np.median(dist[inside])) > t_dist
                   and float(grad[inside].mean()) > t_fold
                   # An area running out to the frame is the backdrop, not cloth.
                   and not (comp[edge] == i).any())
    return keep[comp]


def _box_with_margin(mask: np.ndarray, margin: int) -> tuple[int, int, int, int]:
    """Rows y0:y1 and columns x0:x1 of ``mask``'s bounding box grown by ``margin`` px on
    each side, within the image."""
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    return (max(0, int(ys.min()) - margin), min(h, int(ys.max()) + 1 + margin),
            max(0, int(xs.min()) - margin), min(w, int(xs.max()) + 1 + margin))


def _background_distance(rgb: np.ndarray, where: np.ndarray | None = None
                         ) -> tuple[np.ndarray, float]:
    """Lab distance of every pixel to the nearest border colour cluster, and a noise threshold.

    ``where``: a mask of the only pixels wanted; the distances are then those pixels' alone,
    in mask order (the same figures as read off the whole image)."""
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    ring = _border_ring(lab)
    if where is not None:
        lab = lab[where]
    k = 3 if len(ring) > 60 else 1
    cv2.setRNGSeed(0)
    _, labels, centers = cv2.kmeans(
        ring,
        k,
        None,
        (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5),
        2,
        cv2.KMEANS_PP_CENTERS,
    )
    # The nearest centre by squared distance, one square root at the end (the same figures).
    # Channel by channel: the same sum in the same order as adding over the last axis, without
    # a strided reduction over (H, W, 3).
    d2 = np.full(lab.shape[:-1], np.inf, np.float32)
    for c in centers:
        diff = lab[..., 0] - c[0]
        s2 = diff * diff
        for i in (1, 2):
            diff = lab[..., i] - c[i]
            s2 += diff * diff
        np.minimum(d2, s2, out=d2)
    d = np.sqrt(d2)
    ring_d = np.min(np.linalg.norm(ring[:, None, :] - centers[None], axis=2), axis=1)
    # Sensor noise and JPEG ringing on the sweep set the floor; 10 Lab units is already a
    # visible difference, so never demand more than that for a pixel to count as product.
    thr = float(np.clip(np.percentile(ring_d, 99) * 1.5, 6.0, 10.0))
    return d, thr


def _drop_specks(mask: np.ndarray) -> np.ndarray:
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 2:
        return mask
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.zeros(n, bool)
    keep[1:] = areas >= max(12, 0.02 * areas.max())
    return keep[labels].astype(np.uint8)


def decontaminate(rgb: np.ndarray, alpha: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Foreground colour with the background's share removed where alpha is partial."""
    a = alpha[..., None].astype(np.float32)
    bg = background.astype(np.float32).reshape(1, 1, 3)
    fg = (rgb.astype(np.float32) - (1.0 - a) * bg) / np.maximum(a, 0.15)
    out = np.where(a > 0.98, rgb.astype(np.float32), fg)
    return np.clip(out, 0, 255).astype(np.uint8)


def _border_ring(img: np.ndarray) -> np.ndarray:
    """The pixels of the image's border, 1% of its long side deep (2 at least), one a row
    (of its channels; one value each for a single-channel image)."""
    h, w = img.shape[:2]
    b = max(2, round(0.01 * max(h, w)))
    tail = img.shape[2:]
    return np.concatenate(
        [
            img[:b].reshape(-1, *tail),
            img[-b:].reshape(-1, *tail),
            img[:, :b].reshape(-1, *tail),
            img[:, -b:].reshape(-1, *tail),
        ]
    )


def border_colour(rgb: np.ndarray) -> np.ndarray:
    return np.median(_border_ring(rgb), axis=0)


def cut_out_product(
    rgb: np.ndarray, alpha: np.ndarray | None = None, *, what: str = "product"
) -> Cutout:
    """``cut_out`` plus edge decontamination against the sweep colour."""
    has_alpha = alpha is not None and float((alpha < 0.5).mean()) > 0.01
    cut = cut_out(rgb, alpha, what=what)
    if has_alpha:
        return cut
    return Cutout(rgb=decontaminate(cut.rgb, cut.alpha, border_colour(rgb)), alpha=cut.alpha)


def wide_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; a wide one is run on a reduced copy (same result to the eye, a fraction
    of the cost: the kernel's size grows with sigma)."""
    if sigma <= 3.0:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    f = max(1, int(sigma / 1.5))
    return on_reduced_copy(img, f, lambda small: cv2.GaussianBlur(small, (0, 0), sigma / f))


def spread_colours(rgb: np.ndarray, solid: np.ndarray,
                   needed: np.ndarray | None = None) -> np.ndarray:
    """``rgb`` where ``solid`` is set, elsewhere the nearby solid pixels' colours (float32),
    spread outward by normalised blurs of growing width.

    ``needed``: the only pixels the caller reads (None: all). The spreading stops once they
    are filled; each keeps the colour it gets from the narrowest blur that reaches it, so
    theirs are the same figures, and the pixels outside are left unfilled."""
    src = rgb.astype(np.float32)
    out = src.copy()
    m = solid.astype(np.float32)
    if m.sum() < 1:
        return out
    todo = ~solid.astype(bool)
    wanted = todo if needed is None else todo & needed
    weighted = src * m[..., None]
    for sigma in (1.5, 4.0, 12.0, 40.0):
        if not wanted.any():
            return out
        den = wide_blur(m, sigma)
        num = wide_blur(weighted, sigma)
        ok = todo & (den > 0.02)
        # The quotients of the ok pixels alone, found once and indexed by position: ok is a
        # band along the solid part's edge, and a masked divide over the whole frame (each
        # pixel's three channels against a broadcast mask) costs twice as much as this.
        idx = np.nonzero(ok)
        out[idx] = num[idx] / den[idx][:, None]
        todo &= ~ok
        wanted &= ~ok
    if wanted.any():
        out[todo] = np.median(src[solid.astype(bool)], axis=0)
    return out


def refine_matte(
    rgb: np.ndarray, alpha: np.ndarray, background: np.ndarray, band: int = 3
) -> np.ndarray:
    """The matte's rim re-estimated from colour: each rim pixel's share of the way from the
    background colour to the object's colour just inside (never more than before).

    A product shot's contact shadow and the sweep's gradient under a hem pass the background
    test by a few levels and come out opaque; on a dark garment they are a light line.
    Where object and background are too alike to tell apart, the matte is left as it was.
    """
    solid = alpha > 0.5
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * band + 3, 2 * band + 3))
    inner = cv2.erode(solid.astype(np.uint8), k) > 0
    if inner.sum() < 16:
        return alpha
    # Only the rim's estimates are read: the object's colour is needed there alone.
    rim = (alpha > 0) & ~inner
    fg = spread_colours(rgb, inner, rim)
    bg = np.asarray(background, np.float32).reshape(1, 3)
    # The rim's pixels alone, channel by channel: the same sums as over the last axis, in the
    # same order.
    fb = fg[rim] - bg
    diff = rgb[rim].astype(np.float32) - bg
    denom = fb[:, 0] * fb[:, 0]
    dot = diff[:, 0] * fb[:, 0]
    for i in (1, 2):
        denom += fb[:, i] * fb[:, i]
        dot += diff[:, i] * fb[:, i]
    est = np.clip(1.25 * (dot / np.maximum(denom, 1.0)), 0.0, 1.0)
    out = alpha.astype(np.float32).copy()
    sure = denom > 30.0**2
    rim[rim] = sure
    out[rim] = np.minimum(out[rim], est[sure])
    return out


# A cast shadow on the sweep is the backdrop's own colour darkened: at most this much darker (a
# share of the backdrop's level; the soft drop shadows under a hem or a sleeve on our garment
# shots reach 0.80 of it, a grey garment sits far below) ...
SHADOW_DEPTH = 0.45
# ... within this many RGB levels of that darkened colour (JPEG noise and the sweep's own
# gradient: the shadow pixels on our shots lie within 6) ...
SHADOW_TOLERANCE = 12.0
# ... and no wider than this share of the cut-out's long side from its outline: a contact
# shadow is a few pixels (7 px of 760 on our shots), a trim in the backdrop's colour along a
# hem is not taken for one past it.
SHADOW_WIDTH = 0.02
# The fabric next to it must stand this far from any shade of the backdrop (RGB levels) for
# the two to be told apart: a white or grey garment's own shaded rim looks just like a shadow
# and is left alone.
SHADOW_CONTRAST = 45.0


def _shadow_distance(rgb: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """Each colour's RGB distance to the nearest shade of ``bg`` from 1 - SHADOW_DEPTH of it
    up to itself (``rgb`` float32 (..., 3))."""
    b = np.asarray(bg, np.float32).reshape(3)
    bb = float(b @ b)
    if bb < 1.0:
        return np.linalg.norm(rgb - b, axis=-1)
    s = np.clip((rgb @ b) / bb, 1.0 - SHADOW_DEPTH, 1.0)
    return np.linalg.norm(rgb - s[..., None] * b, axis=-1)


def drop_cast_shadow(rgb: np.ndarray, alpha: np.ndarray, background: np.ndarray) -> np.ndarray:
    """The matte without the backdrop's cast shadow along its outline (float32).

    A product shot's soft shadow under a hem or a sleeve is darker than the sweep, so the
    background test takes it for the product, and deeper than the rim ``refine_matte`` re-reads,
    so it stays opaque: laid on a model it is a grey line along the hem. A pixel is shadow when
    its colour is a shade of the backdrop, it lies near the outline, it is reached from outside
    through such pixels alone, and the fabric just inside it is clearly not a shade of the
    backdrop.
    """
    solid = alpha > 0.5
    if solid.sum() < 64:
        return alpha
    h, w = alpha.shape
    reach = max(2.0, SHADOW_WIDTH * max(h, w))
    depth = cv2.distanceTransform(solid.astype(np.uint8), cv2.DIST_L2, 3)
    near = solid & (depth <= reach)
    if not near.any():
        return alpha
    # Only the pixels near the outline are judged, so only theirs are worked out.
    cand = near.copy()
    cand[near] = _shadow_distance(rgb[near].astype(np.float32), background) <= SHADOW_TOLERANCE
    if not cand.any():
        return alpha
    # The fabric just past the widest shadow, carried out to the rim.
    inside = solid & (depth > reach)
    if inside.sum() < 16:
        return alpha
    fabric = spread_colours(rgb, inside, cand)
    cand[cand] = _shadow_distance(fabric[cand], background) > SHADOW_CONTRAST
    # Reached from outside through shadow alone: a patch of backdrop colour inside the garment
    # (a print, a trim with fabric round it) is not a shadow.
    open_ = (~solid | cand).astype(np.uint8)
    n, labels = cv2.connectedComponents(open_, connectivity=8)
    outside_labels = np.unique(labels[~solid])
    reached = np.isin(labels, outside_labels) & cand
    if not reached.any():
        return alpha
    out = alpha.astype(np.float32).copy()
    out[reached] = 0.0
    return out


# --- compositing -----------------------------------------------------------------------------


def _placed(base: np.ndarray, shape: tuple[int, ...], x: int,
            y: int) -> tuple[int, int, int, int] | None:
    """Where a patch of ``shape`` (h, w) with its top-left at x, y lands on base, clipped to
    it: (x0, y0, x1, y1), or None when it misses base."""
    h, w = shape[:2]
    bx0, by0 = max(0, x), max(0, y)
    bx1, by1 = min(base.shape[1], x + w), min(base.shape[0], y + h)
    if bx1 <= bx0 or by1 <= by0:
        return None
    return bx0, by0, bx1, by1


def composite(base: np.ndarray, fg: np.ndarray, alpha: np.ndarray, x: int, y: int) -> np.ndarray:
    """Alpha-composite fg (top-left at x, y) onto a copy of base, clipped to base."""
    out = base.copy()
    placed = _placed(base, alpha.shape, x, y)
    if placed is None:
        return out
    bx0, by0, bx1, by1 = placed
    fx0, fy0 = bx0 - x, by0 - y
    a = alpha[fy0 : fy0 + by1 - by0, fx0 : fx0 + bx1 - bx0, None]
    f = fg[fy0 : fy0 + by1 - by0, fx0 : fx0 + bx1 - bx0].astype(np.float32)
    region = out[by0:by1, bx0:bx1].astype(np.float32)
    out[by0:by1, bx0:bx1] = np.clip(f * a + region * (1 - a) + 0.5, 0, 255).astype(np.uint8)
    return out


def darken(base: np.ndarray, shade: np.ndarray, x: int, y: int, strength: float) -> np.ndarray:
    """Multiply base by (1 - strength * shade) where shade (float [0, 1]) lands at x, y."""
    out = base.copy()
    placed = _placed(base, shade.shape, x, y)
    if placed is None:
        return out
    bx0, by0, bx1, by1 = placed
    s = shade[by0 - y : by1 - y, bx0 - x : bx1 - x, None]
    region = out[by0:by1, bx0:bx1].astype(np.float32)
    out[by0:by1, bx0:bx1] = np.clip(region * (1 - strength * s) + 0.5, 0, 255).astype(np.uint8)
    return out


def soft_shadow(alpha: np.ndarray, blur_px: float, pad: int) -> np.ndarray:
    """The matte, padded and blurred: a contact shadow to offset below the object."""
    padded = cv2.copyMakeBorder(
        alpha.astype(np.float32), pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0
    )
    return cv2.GaussianBlur(padded, (0, 0), max(0.5, blur_px))
