"""Editorial Product: the partner's canvas layout staged as a product photograph, two variants.

The canvas arrives as one image: a PNG whose alpha marks the products, or the layout flattened
on the canvas's white background (then the products are what is not white). Staging follows
one of six photography presets (``PHOTO_PRESETS``; chosen by the ``preset`` parameter, else by
the prompt's words, else Studio Catalog):

1. backdrop: a procedural wall and floor (a sweep gradient, linen, concrete, stone or paper
   texture) in the preset's colours, or in a colour the prompt names for the backdrop;
2. floor: a contact shadow pooled under each product's lower edge and a softer cast shadow
   away from the light; Luxury Fashion adds a fading mirror reflection;
3. light: a key-light gradient across the frame from the preset's side (a spot for Luxury);
4. grade: the preset's film look from the editorial looks (``editorial/looks.py``), if present.

Variant 2 is the same staging with the alternative tones and the key light from the other side.
Both come back at the canvas's own size, so the aspect ratio the partner chose is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.color import parse_hex
from workers.engines.imaging.decode import decode_image, encode_png
from workers.vocabularies import PHOTO_PRESETS

MAX_PROMPT = 4000
# The largest canvas option is 1920 px on its long side; anything larger is refused upstream by
# the decoder's pixel limit, and we cap work at this size.
MAX_SIDE = 2400

PRESET_TITLES = [p["title"] for p in PHOTO_PRESETS]
DEFAULT_PRESET = "Studio Catalog"


@dataclass(frozen=True)
class Staging:
    wall: tuple[str, str]  # variant 1, variant 2 (hex)
    floor: tuple[str, str]
    texture: str  # none, linen, concrete, stone, paper
    texture_amount: float
    light_from: float  # -1 left, +1 right
    light_amount: float
    shadow: float  # contact shadow strength
    cast: float  # cast shadow strength
    cast_blur: float  # share of the product height
    reflection: float
    spot: bool
    vignette: float
    look: str | None
    look_strength: float
    words: tuple[str, ...]


STAGING: dict[str, Staging] = {
    "Minimalist White": Staging(
        ("#ffffff", "#f6f3ee"),
        ("#f7f7f7", "#eeeae3"),
        "none",
        0.0,
        -0.3,
        0.03,
        0.40,
        0.10,
        0.10,
        0.0,
        False,
        0.0,
        None,
        0.0,
        ("minimal", "white", "clean", "simple"),
    ),
    "Lifestyle Editorial": Staging(
        ("#e9e1d4", "#dfe3dc"),
        ("#d8ccb9", "#cfd3c8"),
        "linen",
        0.05,
        -1.0,
        0.10,
        0.45,
        0.22,
        0.14,
        0.0,
        False,
        0.18,
        "Clean & Natural Color Film",
        0.6,
        ("lifestyle", "home", "table", "linen", "natural", "cozy"),
    ),
    "Luxury Fashion": Staging(
        ("#2a2725", "#1f2226"),
        ("#3a3633", "#2b2e33"),
        "stone",
        0.05,
        -0.5,
        0.0,
        0.55,
        0.10,
        0.10,
        0.22,
        True,
        0.35,
        None,
        0.0,
        ("luxury", "premium", "marble", "high-end", "elegant", "dark"),
    ),
    "Studio Catalog": Staging(
        ("#ececec", "#f6f6f6"),
        ("#dedede", "#e9e9e9"),
        "none",
        0.0,
        -0.4,
        0.05,
        0.45,
        0.12,
        0.10,
        0.0,
        False,
        0.08,
        None,
        0.0,
        ("catalog", "catalogue", "studio", "ecommerce", "e-commerce"),
    ),
    "Urban Street": Staging(
        ("#9a9894", "#7d8186"),
        ("#6f6e6b", "#5c5f63"),
        "concrete",
        0.06,
        1.0,
        0.14,
        0.55,
        0.35,
        0.06,
        0.0,
        False,
        0.2,
        "Sharp & Vivid Color Film",
        0.7,
        ("urban", "street", "concrete", "city", "graffiti", "pavement"),
    ),
    "Vintage Editorial": Staging(
        ("#eadcc0", "#e6cfc4"),
        ("#d9c6a3", "#d6b9ab"),
        "paper",
        0.05,
        -0.7,
        0.10,
        0.40,
        0.15,
        0.14,
        0.0,
        False,
        0.4,
        "Warm 70s Film Look",
        0.8,
        ("vintage", "retro", "70s", "film", "nostalgic"),
    ),
}


def choose_preset(preset: str | None, prompt: str) -> str:
    if preset:
        for t in PRESET_TITLES:
            if t.lower() == str(preset).strip().lower():
                return t
        raise EngineError(
            "invalid_preset", f"{preset!r} is not a preset: use one of {', '.join(PRESET_TITLES)}."
        )
    low = prompt.lower()
    for p in PHOTO_PRESETS:
        if p["title"].lower() in low or p["sentence"].lower()[:60] in low:
            return p["title"]
    scores = {
        t: sum(len(re.findall(r"(?<![a-z])" + w, low)) for w in s.words) for t, s in STAGING.items()
    }
    best = max(scores, key=lambda t: scores[t])
    return best if scores[best] > 0 else DEFAULT_PRESET


def backdrop_colour(prompt: str) -> str | None:
    """A colour the prompt names for the backdrop ("on a sage green backdrop"), as hex."""
    from workers.engines.techpack import NAMED_COLOURS

    low = prompt.lower()
    m = re.search(r"(#[0-9a-f]{6})\s+(?:backdrop|background|wall|sweep|set)", low)
    if m:
        return m.group(1)
    for name in sorted(NAMED_COLOURS, key=len, reverse=True):
        if re.search(
            r"(?<![a-z])" + re.escape(name) + r"\s+(?:backdrop|background|wall|sweep|set|paper)",
            low,
        ):
            return NAMED_COLOURS[name]
    return None


# --- products ---------------------------------------------------------------------------------


def product_alpha(rgb: np.ndarray, alpha: np.ndarray | None) -> np.ndarray:
    """Float [0, 1]: the products. Real transparency is trusted; a flattened layout is split
    from its white canvas (what differs from white, holes filled, specks dropped)."""
    if alpha is not None and float((alpha < 128).mean()) > 0.01:
        return alpha.astype(np.float32) / 255.0
    dist = 255.0 - rgb.astype(np.float32).min(axis=2)
    fg = (dist > 12).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Holes: white prints and labels inside a product belong to it.
    inv = (1 - fg).copy()
    ff = np.zeros((inv.shape[0] + 2, inv.shape[1] + 2), np.uint8)
    cv2.floodFill(inv, ff, (0, 0), 0)
    fg = fg | inv
    n, labels, stats, _ = cv2.connectedComponentsWithStats(fg, 8)
    keep = np.zeros(n, bool)
    keep[1:] = stats[1:, cv2.CC_STAT_AREA] >= 0.0005 * fg.size
    fg = keep[labels].astype(np.float32)
    # Inside the outline the product is opaque; on its rim (2 px) the alpha follows how far the
    # pixel is from white, so pixels blended with the canvas do not come back as a white halo.
    core = cv2.erode(fg.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    soft = np.clip(dist / 60.0, 0, 1)
    edge = cv2.GaussianBlur(fg, (0, 0), 1.0)
    return np.where(core, 1.0, edge * soft).astype(np.float32)


@dataclass(frozen=True)
class Item:
    x0: int
    x1: int
    y0: int
    y1: int
    label: int


def items(alpha: np.ndarray) -> tuple[list[Item], np.ndarray]:
    n, labels, stats, _ = cv2.connectedComponentsWithStats((alpha > 0.5).astype(np.uint8), 8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if area >= 0.0005 * alpha.size:
            out.append(Item(int(x), int(x + w), int(y), int(y + h), i))
    return out, labels


# --- staging ----------------------------------------------------------------------------------


def _hex(c: str) -> np.ndarray:
    return np.array(parse_hex(c), np.float32)


def _noise(h: int, w: int, cell: float, rng: np.random.Generator) -> np.ndarray:
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _texture(kind: str, h: int, w: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "none":
        return np.zeros((h, w), np.float32)
    if kind == "linen":
        t = 0.6 * _noise(h, w, 2.0, rng)
        t += 0.5 * cv2.resize(rng.standard_normal((h, 1)).astype(np.float32), (w, h))
        t += 0.5 * cv2.resize(rng.standard_normal((1, w)).astype(np.float32), (w, h))
        return t / 1.2
    if kind == "concrete":
        return (
            0.5 * _noise(h, w, 3, rng) + 0.6 * _noise(h, w, 24, rng) + 0.8 * _noise(h, w, 120, rng)
        ) / 1.1
    if kind == "stone":
        return (0.4 * _noise(h, w, 40, rng) + 0.9 * _noise(h, w, 220, rng)) / 1.0
    if kind == "paper":
        return (0.5 * _noise(h, w, 1.5, rng) + 0.7 * _noise(h, w, 180, rng)) / 1.0
    return np.zeros((h, w), np.float32)


def backdrop(
    h: int, w: int, s: Staging, variant: int, horizon: int, wall_hex: str | None
) -> np.ndarray:
    wall = _hex(wall_hex) if wall_hex else _hex(s.wall[variant])
    floor = wall * 0.9 if wall_hex else _hex(s.floor[variant])
    y = np.arange(h, dtype=np.float32)[:, None]
    # A sweep: wall to floor through a soft curve a few per cent of the height tall.
    t = 1.0 / (1.0 + np.exp(-(y - horizon) / max(4.0, 0.03 * h)))
    bg = wall[None, None, :] * (1 - t[..., None]) + floor[None, None, :] * t[..., None]
    bg = np.broadcast_to(bg, (h, w, 3)).copy()
    # Wall lighter at the top; the floor darker toward the camera.
    falloff = 1.04 - 0.06 * (y / h)
    bg *= falloff[..., None]
    tex = _texture(s.texture, h, w, 11 + variant)
    if s.texture_amount:
        bg *= (1.0 + s.texture_amount * tex)[..., None]
    return bg


def _shadows(
    alpha: np.ndarray, its: list[Item], labels: np.ndarray, s: Staging, light_from: float
) -> np.ndarray:
    """Float [0, 1] darkening map: contact pools under each item's lower edge and cast shadows
    thrown away from the light along the floor."""
    h, w = alpha.shape
    contact = np.zeros((h, w), np.float32)
    cast = np.zeros((h, w), np.float32)
    for it in its:
        ih = it.y1 - it.y0
        m = (labels[it.y0 : it.y1, it.x0 : it.x1] == it.label).astype(np.float32)
        # Contact: the lowest 6% of the item, squashed to a thin pool centred on its bottom.
        low = m[max(0, ih - max(3, ih // 16)) :]
        ph = max(3, int(0.035 * ih))
        pool = cv2.resize(low, (it.x1 - it.x0, ph), interpolation=cv2.INTER_AREA)
        pool = (pool > 0.05).astype(np.float32)
        ya = it.y1 - ph // 2
        ya0, ya1 = max(0, ya), min(h, ya + ph)
        if ya1 > ya0:
            contact[ya0:ya1, it.x0 : it.x1] = np.maximum(
                contact[ya0:ya1, it.x0 : it.x1], pool[ya0 - ya : ya1 - ya]
            )
        # Cast: the silhouette flattened onto the floor, sheared away from the light.
        if s.cast > 0:
            sh_h = max(3, int(0.18 * ih))
            flat = cv2.resize(m, (it.x1 - it.x0, sh_h), interpolation=cv2.INTER_AREA)
            shear = -light_from * 0.6
            M = np.float32([[1, shear, -shear * sh_h + it.x0], [0, 1, it.y1 - sh_h * 0.15]])
            cast = np.maximum(cast, cv2.warpAffine(flat, M, (w, h)))
    big = max((it.y1 - it.y0 for it in its), default=h // 3)
    contact = _soft(contact, max(2.0, 0.02 * big))
    if contact.max() > 0:
        contact /= contact.max()
    if s.cast > 0:
        cast = _soft(cast, max(3.0, s.cast_blur * big))
    return np.clip(s.shadow * contact + s.cast * cast, 0, 0.85)


def _soft(m: np.ndarray, sigma: float) -> np.ndarray:
    """A wide Gaussian blur done at a quarter of the size: shadows have no detail to lose, and
    a 100 px blur on a full 1920 px frame costs half a second."""
    f = 4 if sigma >= 8 else 1
    if f == 1:
        return cv2.GaussianBlur(m, (0, 0), sigma)
    h, w = m.shape
    small = cv2.resize(m, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _reflection(
    rgb: np.ndarray, alpha: np.ndarray, its: list[Item], labels: np.ndarray, amount: float
) -> tuple[np.ndarray, np.ndarray]:
    h, w = alpha.shape
    refl = np.zeros((h, w, 3), np.float32)
    ra = np.zeros((h, w), np.float32)
    for it in its:
        ih = it.y1 - it.y0
        length = min(h - it.y1, int(0.35 * ih))
        if length <= 2:
            continue
        src = rgb[it.y1 - length : it.y1, it.x0 : it.x1][::-1].astype(np.float32)
        a = alpha[it.y1 - length : it.y1, it.x0 : it.x1][::-1] * (
            labels[it.y1 - length : it.y1, it.x0 : it.x1][::-1] == it.label
        )
        fade = amount * (1 - np.linspace(0, 1, length, dtype=np.float32)) ** 1.6
        refl[it.y1 : it.y1 + length, it.x0 : it.x1] = src
        ra[it.y1 : it.y1 + length, it.x0 : it.x1] = np.maximum(
            ra[it.y1 : it.y1 + length, it.x0 : it.x1], a * fade[:, None]
        )
    return refl, cv2.GaussianBlur(ra, (0, 0), 1.5)


def stage(rgb: np.ndarray, alpha: np.ndarray, preset: str, prompt: str, variant: int) -> np.ndarray:
    s = STAGING[preset]
    h, w = alpha.shape
    its, labels = items(alpha)
    if not its:
        raise EngineError(
            "empty_canvas", "The canvas has no product on it: add at least one image."
        )
    bottoms = sorted(it.y1 for it in its)
    horizon = int(np.clip(bottoms[len(bottoms) // 2] - 0.12 * h, 0.3 * h, 0.85 * h))
    light_from = s.light_from if variant == 0 else -s.light_from
    bg = backdrop(h, w, s, variant, horizon, backdrop_colour(prompt))
    shade = _shadows(alpha, its, labels, s, light_from)
    bg *= (1 - shade)[..., None]
    if s.reflection > 0:
        refl, ra = _reflection(rgb, alpha, its, labels, s.reflection)
        bg = refl * ra[..., None] + bg * (1 - ra[..., None])
    a = alpha[..., None]
    out = rgb.astype(np.float32) * a + bg * (1 - a)
    xx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    yy = np.linspace(-1, 1, h, dtype=np.float32)[:, None]
    gain = 1.0 + s.light_amount * light_from * xx * 0.5 + 0 * yy
    if s.spot:
        cx = 0.25 * light_from
        r2 = (xx - cx) ** 2 + (yy + 0.15) ** 2 * (h / w) ** 2
        gain = gain * (0.75 + 0.45 * np.exp(-r2 / 0.35))
    if s.vignette:
        r2 = xx**2 + yy**2
        gain = gain * (1 - s.vignette * 0.35 * np.clip(r2 - 0.4, 0, None))
    out *= gain[..., None]
    out = np.clip(out + 0.5, 0, 255).astype(np.uint8)
    if s.look:
        try:
            from workers.engines.editorial.looks import apply_look
        except ImportError:
            return out
        out = apply_look(out, s.look, s.look_strength * (1.0 if variant == 0 else 0.8))
    return out


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: image (bytes: the canvas, PNG with alpha or flattened on white), prompt (str),
    preset (str | None: one of PHOTO_PRESETS' titles). Returns result1, result2 (PNG, canvas size)."""
    data = params.get("image")
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_image", "No canvas image was given.")
    prompt = params.get("prompt") or ""
    if not isinstance(prompt, str):
        raise EngineError("invalid_prompt", "The prompt must be text.")
    if len(prompt) > MAX_PROMPT:
        raise EngineError("prompt_too_long", f"The prompt is longer than {MAX_PROMPT} characters.")
    preset = choose_preset(params.get("preset"), prompt)
    progress(5)
    dec = decode_image(bytes(data))
    rgb, alpha_raw = dec.rgb, dec.alpha
    h, w = rgb.shape[:2]
    if max(h, w) > MAX_SIDE:
        raise EngineError(
            "canvas_too_large", f"The canvas is {w}x{h}; the largest is {MAX_SIDE} px on a side."
        )
    alpha = product_alpha(rgb, alpha_raw)
    clear = alpha < 0.02
    if clear.any() and float(np.median(rgb[clear].min(axis=1))) > 240:
        # Edges blended with the white canvas would leave a white halo on a darker backdrop.
        from workers.engines.imaging.cutout import decontaminate

        rgb = decontaminate(rgb, alpha, np.array([255, 255, 255], np.float32))
    progress(20)
    outs = []
    for variant in (0, 1):
        out = stage(rgb, alpha, preset, prompt, variant)
        outs.append(
            EngineOutput(encode_png(out), "image/png", f"editorial-product-{variant + 1}.png")
        )
        progress(55 + 40 * variant)
    progress(100)
    return outs
