"""Refabric: the garment re-rendered in another fabric and finish, with its own shading.

Each fabric is a procedural surface (a lightness relief such as denim's diagonal twill, a
jersey's knit loops, leather grain or tweed flecks; a sheen; a transparency) and each finish a
change to how the surface takes light. The garment's own lightness is split into shading (the
low frequencies: folds, body shape, light fall-off) and its old texture (the high frequencies,
which are removed); the new surface is multiplied into the shading, so folds stay where they
were. The garment keeps its colour unless the finish dictates otherwise (metallic).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import linear_to_srgb, oklab_to_linear, srgb8_to_oklab
from workers.engines.imaging.decode import png_engine_run

FINISHES = ("glossy", "matte", "metallic", "patterned", "sheer", "textured")


@dataclass(frozen=True)
class Fabric:
    texture: str  # name of the relief generator
    amount: float  # relief strength (relative lightness)
    scale: float  # relief period as a share of the garment's height
    sheen: float  # 0 matte .. 1 satin: highlight boost along the shading
    opacity: float = 1.0  # < 1: the background shows through (sheer fabrics)
    velvet: bool = False  # pile: darker facing the light, bright at grazing edges


FABRICS: dict[str, Fabric] = {
    "acrylic": Fabric("knit", 0.10, 0.012, 0.15),
    "alpaca": Fabric("fuzz", 0.06, 0.014, 0.0),
    "canvas": Fabric("plain", 0.12, 0.009, 0.0),
    "cashmere": Fabric("fine_knit", 0.05, 0.008, 0.05),
    "chiffon": Fabric("crepe", 0.05, 0.004, 0.1, opacity=0.62),
    "cotton": Fabric("plain", 0.06, 0.006, 0.0),
    "cupro": Fabric("smooth", 0.02, 0.01, 0.55),
    "denim": Fabric("twill", 0.16, 0.007, 0.0),
    "fleece": Fabric("pills", 0.06, 0.012, 0.0),
    "jersey": Fabric("knit", 0.08, 0.007, 0.05),
    "leather": Fabric("grain", 0.10, 0.010, 0.45),
    "linen": Fabric("slub", 0.08, 0.007, 0.0),
    "lyocell": Fabric("smooth", 0.03, 0.008, 0.3),
    "modal": Fabric("fine_knit", 0.04, 0.006, 0.25),
    "mohair": Fabric("fuzz", 0.08, 0.016, 0.0),
    "nylon": Fabric("ripstop", 0.06, 0.02, 0.4),
    "organza": Fabric("grid", 0.05, 0.003, 0.5, opacity=0.5),
    "polyester": Fabric("plain", 0.03, 0.004, 0.3),
    "silk": Fabric("smooth", 0.015, 0.01, 0.8),
    "spandex": Fabric("fine_knit", 0.03, 0.005, 0.5),
    "suede": Fabric("nap", 0.05, 0.01, 0.0),
    "tulle": Fabric("net", 0.0, 0.008, 0.1, opacity=0.25),
    "tweed": Fabric("tweed", 0.16, 0.012, 0.0),
    "velvet": Fabric("nap", 0.05, 0.006, 0.0, velvet=True),
    "viscose": Fabric("smooth", 0.025, 0.008, 0.35),
    "wool": Fabric("knit", 0.14, 0.013, 0.0),
}


@dataclass(frozen=True)
class RefabricResult:
    rgb: np.ndarray  # uint8 HxWx3
    mask: np.ndarray  # float32 HxW
    opacity: np.ndarray  # float32 HxW: 1 where the new fabric is opaque


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    return png_engine_run(params, progress, lambda rgb: refabric_image(
        rgb,
        fabric=str(params.get("re_fabric") or ""),
        finish=str(params.get("material_finish") or ""),
        garment_type=str(params.get("target_garment") or ""),
        progress=progress,
    ).rgb, "refabric.png")


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
    if mask is None:
        mask = garment_mod.garment_mask(rgb, garment_type, scene=scene).mask
    if progress:
        progress(45)
    h, w = mask.shape
    ys, xs = np.nonzero(mask > 0.5)
    if len(ys) < 50:
        raise EngineError("garment_not_found", f"No {garment_type} was found in the image.")
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    pad = 4
    y0, x0 = max(0, y0 - pad), max(0, x0 - pad)
    y1, x1 = min(h, y1 + pad), min(w, x1 + pad)
    crop = rgb[y0:y1, x0:x1]
    m = mask[y0:y1, x0:x1]
    rng = np.random.default_rng(seed)
    garment_h = float(y1 - y0)

    lab = srgb8_to_oklab(crop)
    L = lab[..., 0]
    inside = m > 0.5
    l_med = float(np.median(L[inside]))
    # Shading = the garment's lightness without its old texture and prints' fine detail.
    sigma = max(1.5, garment_h * 0.006)
    # Edge-preserving: the old weave's small ripples go, a print's or a seam's edge stays sharp.
    inner = _masked_blur(L, m, 0.5)  # background kept out of the rim before filtering
    shade = cv2.bilateralFilter(inner.astype(np.float32), int(2 * round(sigma) + 1), 0.06, sigma)
    ab = np.dstack([_masked_blur(lab[..., 1], m, sigma * 0.7),
                    _masked_blur(lab[..., 2], m, sigma * 0.7)])
    # Keep prints and colour blocks: only the fine texture goes, not the garment's colours.
    rel = shade / max(l_med, 1e-3)  # 1 at the garment's median lightness

    period = max(3.0, fab.scale * garment_h)
    amount = fab.amount * (1.5 if fin == "textured" else 0.55 if fin == "matte" else 1.0)
    relief = TEXTURES[fab.texture](crop.shape[:2], period, rng)
    if fin == "textured" and fab.texture in ("smooth",):
        relief = relief + 0.6 * TEXTURES["crepe"](crop.shape[:2], period * 0.6, rng)
    new_L = shade * (1.0 + amount * relief)

    sheen = fab.sheen
    if fin == "glossy":
        sheen = max(sheen, 0.6) + 0.35
    elif fin == "matte":
        sheen = 0.0
    elif fin == "metallic":
        sheen = max(sheen, 0.5) + 0.6
    # Highlights stay off the last pixels of the outline, where the rim mixes in the background.
    rim_fade = np.clip(cv2.distanceTransform(inside.astype(np.uint8), cv2.DIST_L2, 3) / 4.0, 0, 1)
    new_L = new_L + (_apply_sheen(new_L, rel, l_med, sheen) - new_L) * rim_fade
    if fin == "matte":
        # Matte cloth scatters: flatter shading, no hot spots.
        new_L = l_med + (new_L - l_med) * 0.7
        new_L = np.minimum(new_L, np.percentile(new_L[inside], 92))
    if fab.velvet:
        new_L = _velvet(new_L, rel, m, l_med)

    new_ab = ab.copy()
    if fin == "metallic":
        # Metal foil: chroma pulled down and lightness contrast up, hue kept as a tint.
        new_ab *= 0.55
        new_L = l_med + (new_L - l_med) * 1.6 + 0.05
    if fin == "patterned":
        motif = _jacquard(crop.shape[:2], period * 6.0)
        new_L = new_L * (1.0 + 0.14 * motif)
        chroma = np.hypot(ab[..., 0], ab[..., 1])
        # A tone-on-tone motif: hue rotated a little where the motif is raised.
        angle = 0.12 * motif
        ca, sa = np.cos(angle), np.sin(angle)
        new_ab = np.dstack([ab[..., 0] * ca - ab[..., 1] * sa, ab[..., 0] * sa + ab[..., 1] * ca])
        new_ab += (0.02 * motif * (chroma < 0.03))[..., None]

    if fab.texture == "tweed":
        new_L, new_ab = _tweed_flecks(new_L, new_ab, period, rng)

    new_L = np.clip(new_L, 0.0, 1.0)
    out_lab = np.dstack([new_L, new_ab[..., 0], new_ab[..., 1]]).astype(np.float32)
    new_rgb = _oklab_to_rgb(out_lab)

    opacity = np.full(m.shape, fab.opacity, np.float32)
    if fin == "sheer":
        opacity = opacity * 0.55
    if fab.texture == "net":
        # Tulle: the net's threads are opaque, its holes show what is behind.
        net = TEXTURES["net"](crop.shape[:2], period, rng)
        opacity = np.clip(opacity + 0.55 * net, 0.0, 1.0)
    if progress:
        progress(75)
    if (opacity < 1).any():
        behind = _behind(crop, m)
        a = opacity[..., None]
        new_rgb = new_rgb.astype(np.float32) * a + behind.astype(np.float32) * (1 - a)

    wt = m[..., None]
    out_crop = crop.astype(np.float32) * (1 - wt) + new_rgb.astype(np.float32) * wt
    out = rgb.copy()
    out[y0:y1, x0:x1] = np.clip(out_crop + 0.5, 0, 255).astype(np.uint8)
    full_opacity = np.ones((h, w), np.float32)
    full_opacity[y0:y1, x0:x1] = np.where(inside, opacity, 1.0)
    return RefabricResult(rgb=out, mask=mask.astype(np.float32), opacity=full_opacity)


# --- light ------------------------------------------------------------------------------------


def _apply_sheen(L: np.ndarray, rel: np.ndarray, l_med: float, sheen: float) -> np.ndarray:
    """Satin-like light: the lit side of each fold gets a sharp highlight, shadows deepen."""
    if sheen <= 0:
        return L
    lit = np.clip((rel - 1.0) / 0.12, 0.0, None)
    highlight = 1.0 - np.exp(-(lit**2))
    contrast = 1.0 + 0.5 * sheen
    L = l_med + (L - l_med) * contrast
    return L + sheen * highlight * (1.0 - L) * 0.85


def _velvet(L: np.ndarray, rel: np.ndarray, m: np.ndarray, l_med: float) -> np.ndarray:
    """Pile catches light at grazing angles: bright rims along outlines and folds, deep body."""
    dist = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    rim = np.exp(-dist / max(2.0, 0.02 * m.shape[0]))
    fold = np.clip(np.abs(cv2.Laplacian(cv2.GaussianBlur(rel, (0, 0), 3), cv2.CV_32F)) * 60, 0, 1)
    L = L * 0.82
    return L + (0.35 * rim + 0.25 * fold) * (1.0 - L) * 0.6


# --- reliefs (zero mean, about unit amplitude) ------------------------------------------------

Relief = Callable[[tuple[int, int], float, np.random.Generator], np.ndarray]


def _grid(shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    h, w = shape
    return np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))


def _noise(shape: tuple[int, int], cell: float, rng: np.random.Generator) -> np.ndarray:
    """Smooth value noise with features about ``cell`` pixels wide, zero mean, unit std."""
    h, w = shape
    gh, gw = max(2, int(h / max(cell, 1.0)) + 2), max(2, int(w / max(cell, 1.0)) + 2)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    n = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    return (n - n.mean()) / (n.std() + 1e-6)


def _twill(shape, period, rng):  # type: ignore[no-untyped-def]
    x, y = _grid(shape)
    # 3/1 twill: ridges climbing at 45° to the right, warp yarns slubbed along their length.
    phase = 2 * np.pi * (x + y) / period
    ridges = np.sign(np.sin(phase)) * np.abs(np.sin(phase)) ** 0.5
    slub = 0.12 * _noise(shape, period * 4, rng) + 0.25 * np.sin(2 * np.pi * x / (period * 0.5))
    return (0.8 * ridges + slub).astype(np.float32)


def _plain(shape, period, rng):  # type: ignore[no-untyped-def]
    x, y = _grid(shape)
    weave = np.sin(2 * np.pi * x / period) * np.sin(2 * np.pi * y / period)
    return (weave + 0.12 * _noise(shape, period * 3, rng)).astype(np.float32)


def _slub(shape, period, rng):  # type: ignore[no-untyped-def]
    # Linen: plain weave with thick-and-thin weft yarns (horizontal slubs).
    h, w = shape
    grid = (max(2, int(h / period)), max(2, int(w / (period * 12))))
    streaks = cv2.resize(rng.standard_normal(grid).astype(np.float32), (w, h),
                         interpolation=cv2.INTER_LINEAR)
    return (0.6 * _plain(shape, period, rng) + 0.5 * streaks).astype(np.float32)


def _knit(shape, period, rng):  # type: ignore[no-untyped-def]
    # Jersey face: columns of V-shaped loops.
    x, y = _grid(shape)
    col = (x / period) % 1.0
    v = np.abs(col - 0.5) * 2.0  # 1 at the column edges, 0 at its middle
    rows = np.sin(2 * np.pi * (y / (period * 0.8) + 0.6 * v))
    loops = (1.0 - v) * 0.6 + 0.8 * rows * (1.0 - v)
    return (loops - loops.mean() + 0.1 * _noise(shape, period * 2, rng)).astype(np.float32)


def _fine_knit(shape, period, rng):  # type: ignore[no-untyped-def]
    return (0.9 * _knit(shape, period, rng) + 0.1 * _noise(shape, period * 5, rng)).astype(
        np.float32
    )


def _fuzz(shape, period, rng):  # type: ignore[no-untyped-def]
    # Brushed hair fibres (mohair, alpaca): soft knit under a hazy, streaky halo.
    fibres = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0),
                              sigmaX=period * 0.25, sigmaY=period * 0.6)
    fibres /= fibres.std() + 1e-6
    return (0.5 * cv2.GaussianBlur(_knit(shape, period, rng), (0, 0), period * 0.2)
            + 0.9 * fibres).astype(np.float32)


def _pills(shape, period, rng):  # type: ignore[no-untyped-def]
    # Fleece: a soft nap with small pills.
    base = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), period * 0.3)
    base /= base.std() + 1e-6
    pills = (rng.random(shape) > 0.995).astype(np.float32)
    pills = cv2.GaussianBlur(pills, (0, 0), period * 0.25)
    pills /= pills.max() + 1e-6
    return (0.6 * base + 1.2 * pills - 0.3).astype(np.float32)


def _grain(shape, period, rng):  # type: ignore[no-untyped-def]
    # Leather: pebbled cells separated by creases.
    n = _noise(shape, period, rng)
    creases = -np.exp(-(n**2) / 0.05)  # dark lines where the noise crosses zero
    return (creases + 0.4 + 0.3 * _noise(shape, period * 0.5, rng)).astype(np.float32)


def _nap(shape, period, rng):  # type: ignore[no-untyped-def]
    # Suede and velvet: short fibres brushed one way.
    fibres = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0),
                              sigmaX=period * 0.15, sigmaY=period * 0.8)
    fibres /= fibres.std() + 1e-6
    return (0.8 * fibres + 0.2 * _noise(shape, period * 6, rng)).astype(np.float32)


def _smooth(shape, period, rng):  # type: ignore[no-untyped-def]
    return 0.5 * _noise(shape, period * 8, rng)


def _crepe(shape, period, rng):  # type: ignore[no-untyped-def]
    c = cv2.GaussianBlur(rng.standard_normal(shape).astype(np.float32), (0, 0), 0.6)
    return (c / (c.std() + 1e-6)).astype(np.float32)


def _ripstop(shape, period, rng):  # type: ignore[no-untyped-def]
    x, y = _grid(shape)
    lines = (np.abs(((x / period) % 1.0) - 0.5) > 0.46) | (
        np.abs(((y / period) % 1.0) - 0.5) > 0.46
    )
    return (0.3 * _plain(shape, max(2.0, period / 6), rng) + 1.2 * lines - 0.2).astype(np.float32)


def _grid_weave(shape, period, rng):  # type: ignore[no-untyped-def]
    x, y = _grid(shape)
    weave = np.cos(2 * np.pi * x / period) + np.cos(2 * np.pi * y / period)
    return (0.5 * weave).astype(np.float32)


def _net(shape, period, rng):  # type: ignore[no-untyped-def]
    # Hexagonal tulle mesh: 1 on the threads, 0 in the holes.
    x, y = _grid(shape)
    k = 2 * np.pi / period
    field = (np.cos(k * x) + np.cos(k * (0.5 * x + 0.866 * y)) + np.cos(k * (-0.5 * x + 0.866 * y)))
    return np.clip((1.2 - field) / 1.5, 0.0, 1.0).astype(np.float32)


def _tweed(shape, period, rng):  # type: ignore[no-untyped-def]
    # Coarse 2/2 twill (herringbone-ish) with a rough hand; flecks are added in colour later.
    x, y = _grid(shape)
    band = np.floor(x / (period * 6)) % 2 * 2 - 1
    phase = 2 * np.pi * (x * band + y) / period
    return (0.7 * np.sin(phase) + 0.5 * _noise(shape, period, rng)).astype(np.float32)


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
    "smooth": _smooth,
    "crepe": _crepe,
    "ripstop": _ripstop,
    "grid": _grid_weave,
    "net": _net,
    "tweed": _tweed,
}


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
    L = L + flecks * np.where(kind == 0, 0.25, np.where(kind == 1, -0.2, 0.05))
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


def _oklab_to_rgb(lab: np.ndarray) -> np.ndarray:
    return np.clip(linear_to_srgb(oklab_to_linear(lab)) * 255.0 + 0.5, 0, 255).astype(np.uint8)
