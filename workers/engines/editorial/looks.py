"""Film looks: the camera style templates of Editorial and Tonelab, implemented for real.

A look is a small set of physical-ish parameters (white balance, dye crosstalk, a tone curve,
saturation and split toning, halation, diffusion, vignetting, grain, sharpening) applied in a
fixed order that mimics how film and a print behave:

1. in linear light: exposure, white balance, halation (red light scattered back from the film
   base around highlights) and diffusion bloom — scattering adds light, so it is linear;
2. in display space: per-channel curves (cross-processing), the S-shaped tone curve with its
   faded blacks and rolled-off whites;
3. in OKLab: saturation, split toning (shadows and highlights tinted apart), monochrome;
4. vignetting, sharpening and grain last, as the lens and the emulsion would add them.

``strength`` scales every parameter from its neutral value, so 0 returns the photo untouched
and 0.5 is half the look (grain and halos included), not a cross-fade of two images.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import cv2
import numpy as np

from workers.engines.editorial.vocabulary import parse
from workers.engines.imaging.color import linear_to_srgb, srgb_to_linear
from workers.vocabularies import CAMERA_TEMPLATES

TITLES = [t["title"] for t in CAMERA_TEMPLATES]

_SRGB_TO_LINEAR = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0)


@dataclass(frozen=True)
class Look:
    """Every field's default is neutral: Look() changes nothing."""

    exposure: float = 0.0  # stops
    temperature: float = 0.0  # + warm / - cool; 1.0 is about a 1500 K shift
    tint: float = 0.0  # + magenta / - green
    contrast: float = 0.0  # S-curve amount, -0.5..1
    fade: float = 0.0  # black lift, 0..0.15
    rolloff: float = 0.0  # white compression, 0..1
    saturation: float = 1.0
    shadow_tint: tuple[float, float] = (0.0, 0.0)  # OKLab (a, b) added in the shadows
    highlight_tint: tuple[float, float] = (0.0, 0.0)
    mono: float = 0.0  # 0 colour .. 1 black and white
    mono_filter: tuple[float, float, float] = (0.2126, 0.7152, 0.0722)  # linear RGB weights
    channel_gamma: tuple[float, float, float] = (1.0, 1.0, 1.0)  # cross-processing
    halation: float = 0.0
    bloom: float = 0.0
    vignette: float = 0.0
    grain: float = 0.0
    grain_size: float = 1.0  # relative; 1 is fine 35mm at a 1024 px long side
    sharpen: float = 0.0
    soft_corners: float = 0.0
    notes: tuple[str, ...] = field(default=(), compare=False)

    def scaled(self, strength: float) -> Look:
        s = float(np.clip(strength, 0.0, 1.5))
        neutral = Look()
        values = {}
        for f in fields(self):
            if f.name in ("notes", "grain_size", "mono_filter"):
                continue
            a, b = getattr(neutral, f.name), getattr(self, f.name)
            if isinstance(a, tuple):
                values[f.name] = tuple(x + s * (y - x) for x, y in zip(a, b, strict=True))
            else:
                values[f.name] = a + s * (b - a)
        return replace(self, **values)

    def plus(self, other: Look) -> Look:
        """Both looks' departures from neutral added (saturation and gammas multiply)."""
        neutral = Look()
        values = {}
        for f in fields(self):
            if f.name == "notes":
                continue
            a, b, n = getattr(self, f.name), getattr(other, f.name), getattr(neutral, f.name)
            if f.name == "mono_filter":
                values[f.name] = b if b != n else a
            elif f.name == "grain_size":
                values[f.name] = max(a, b)
            elif f.name in ("saturation",):
                values[f.name] = a * b
            elif f.name == "channel_gamma":
                values[f.name] = tuple(x * y for x, y in zip(a, b, strict=True))
            elif isinstance(a, tuple):
                values[f.name] = tuple(x + y - z for x, y, z in zip(a, b, n, strict=True))
            else:
                values[f.name] = a + b - n
        values["mono"] = min(1.0, values["mono"])
        return replace(self, notes=self.notes + other.notes, **values)


LOOKS: dict[str, Look] = {
    "Custom": Look(),
    "Warm 70s Film Look": Look(
        temperature=0.55, tint=0.08, contrast=0.15, fade=0.07, rolloff=0.35, saturation=0.82,
        shadow_tint=(0.004, 0.012), highlight_tint=(0.006, 0.02),
        channel_gamma=(0.96, 1.0, 1.06), vignette=0.25, grain=0.35, grain_size=1.2,
    ),
    "Grainy High-Contrast B&W": Look(
        contrast=0.75, mono=1.0, mono_filter=(0.34, 0.54, 0.12), rolloff=0.15,
        vignette=0.3, grain=0.85, grain_size=1.5, sharpen=0.3,
    ),
    "Soft Pastel Portraits": Look(
        exposure=0.2, contrast=-0.3, fade=0.07, rolloff=0.5, saturation=0.75,
        shadow_tint=(0.008, -0.01), highlight_tint=(0.008, 0.004), bloom=0.35, grain=0.12,
    ),
    "Night Film with Red Halos": Look(
        exposure=-0.15, temperature=0.15, contrast=0.45, saturation=1.08,
        shadow_tint=(-0.02, -0.02), highlight_tint=(0.012, 0.025), halation=1.0,
        vignette=0.35, grain=0.6, grain_size=1.3,
    ),
    "Sharp & Vivid Color Film": Look(
        contrast=0.5, saturation=1.35, sharpen=0.6, grain=0.15, rolloff=0.1,
    ),
    "Saturated Lo-Fi with Vignetting": Look(
        contrast=0.5, saturation=1.4, channel_gamma=(0.95, 0.93, 1.1), tint=-0.08,
        shadow_tint=(-0.01, 0.01), vignette=0.9, grain=0.65, grain_size=1.8, soft_corners=0.6,
    ),
    "Clean & Natural Color Film": Look(
        contrast=0.12, rolloff=0.3, saturation=0.98, fade=0.015, grain=0.08,
    ),
}

# What single recognised words do when the text is not a template: small, composable deltas.
TERM_LOOKS: dict[tuple[str, str], Look] = {
    ("colour", "warm"): Look(temperature=0.4, highlight_tint=(0.004, 0.012)),
    ("colour", "cool"): Look(temperature=-0.4, shadow_tint=(-0.004, -0.01)),
    ("colour", "neutral"): Look(),
    ("colour", "pastel"): Look(contrast=-0.3, fade=0.06, saturation=0.75, exposure=0.2, bloom=0.2),
    ("colour", "teal-orange"): Look(shadow_tint=(-0.03, -0.025), highlight_tint=(0.012, 0.03), contrast=0.2, saturation=1.1),
    ("colour", "monochrome"): Look(mono=1.0, contrast=0.2),
    ("colour", "muted"): Look(saturation=0.65, fade=0.03),
    ("colour", "vivid"): Look(saturation=1.35, contrast=0.2),
    ("colour", "film"): Look(contrast=0.1, rolloff=0.3, fade=0.02, grain=0.2),
    ("colour", "high contrast"): Look(contrast=0.5),
    ("colour", "low contrast"): Look(contrast=-0.3, fade=0.04),
    ("colour", "cross processed"): Look(channel_gamma=(0.92, 0.9, 1.18), saturation=1.2, tint=-0.1),
    ("colour", "tonal"): Look(saturation=0.85),
    ("light", "low key"): Look(exposure=-0.45, contrast=0.25),
    ("light", "high key"): Look(exposure=0.4, contrast=-0.15, fade=0.02),
    ("light", "golden hour"): Look(temperature=0.45, highlight_tint=(0.005, 0.02)),
    ("light", "overcast"): Look(temperature=-0.15, contrast=-0.15),
    ("light", "tungsten"): Look(temperature=0.5),
    ("light", "night"): Look(exposure=-0.2, shadow_tint=(-0.01, -0.02)),
    ("light", "neon"): Look(saturation=1.15, shadow_tint=(0.01, -0.03)),
    ("camera", "grain"): Look(grain=0.6, grain_size=1.3),
    ("camera", "no grain"): Look(),
    ("camera", "halation"): Look(halation=0.9),
    ("camera", "vignette"): Look(vignette=0.5),
    ("camera", "bloom"): Look(bloom=0.4),
    ("camera", "sharp"): Look(sharpen=0.5),
    ("camera", "lo-fi"): Look(vignette=0.6, saturation=1.2, soft_corners=0.5, grain=0.3),
    ("camera", "pushed"): Look(contrast=0.35, grain=0.4),
    ("camera", "tungsten film"): Look(temperature=-0.2, halation=0.4),
    ("camera", "soft corners"): Look(soft_corners=0.5),
    ("camera", "medium format"): Look(grain=-0.1),
}


def look_from_text(camera_details: str | None, *extra_texts: str | None) -> Look:
    """The look the texts ask for.

    A template named by its title, or whose text is pasted unchanged, gives that template's
    look; any further recognised words add their own small deltas on top. Free text is built
    from the words alone. ``extra_texts`` (the colour and lighting boxes) only add deltas.
    """
    text = (camera_details or "").strip()
    look = Look()
    consumed: set[tuple[str, str]] = set()
    norm = " ".join(text.lower().split())
    for tpl in CAMERA_TEMPLATES[1:]:
        title, body = tpl["title"], tpl["camera_details"]
        if title.lower() in norm or (body and " ".join(body.lower().split()) in norm):
            look = look.plus(replace(LOOKS[title], notes=(f"template: {title}",)))
            settings, _ = parse(body)
            consumed |= {(c, t) for c, ts in settings.items() for t in ts if isinstance(t, str)}
    for source in (text, *extra_texts):
        settings, _ = parse(source)
        for category, terms in settings.items():
            for term in terms:
                key = (category, term) if isinstance(term, str) else None
                if key is None or key in consumed or key not in TERM_LOOKS:
                    continue
                consumed.add(key)
                look = look.plus(replace(TERM_LOOKS[key], notes=(f"{category}: {term}",)))
    # "no grain"/"no vignette" win over anything that added them.
    all_terms = {t for s in (text, *extra_texts) for ts in parse(s)[0].values() for t in ts}
    if "no grain" in all_terms and "grain" not in all_terms:
        look = replace(look, grain=min(look.grain, 0.05))
    if "no vignette" in all_terms and "vignette" not in all_terms:
        look = replace(look, vignette=0.0)
    return look


def apply_look(rgb: np.ndarray, title: str, strength: float = 1.0, *, seed: int = 7) -> np.ndarray:
    """One of the camera templates, by title, at ``strength`` (0..1)."""
    if title not in LOOKS:
        raise KeyError(f"unknown camera template {title!r}; known: {', '.join(LOOKS)}")
    return render_look(rgb, LOOKS[title], strength, seed=seed)


def render_look(rgb: np.ndarray, look: Look, strength: float = 1.0, *, seed: int = 7) -> np.ndarray:
    """``look`` applied at ``strength`` to a uint8 RGB image; returns uint8 RGB."""
    lk = look.scaled(strength)
    h, w = rgb.shape[:2]
    scale = max(h, w) / 1024.0  # effects are sized for a 1024 px long side
    x = rgb.astype(np.float32) * (1.0 / 255.0)

    # 1. Linear light.
    if lk.exposure or lk.temperature or lk.tint or lk.halation > 0 or lk.bloom > 0:
        lin = _SRGB_TO_LINEAR[rgb]  # a 256-entry table: the input is 8-bit
        if lk.exposure:
            lin *= 2.0 ** lk.exposure
        if lk.temperature or lk.tint:
            lin *= _wb_gains(lk.temperature, lk.tint)
        if lk.halation > 0 or lk.bloom > 0:
            lum = lin @ np.array([0.2126, 0.7152, 0.0722], np.float32)
            if lk.halation > 0:
                # Light that crosses the emulsion, bounces off the base and comes back red:
                # only the brightest parts contribute, and the halo is wide and red-orange.
                # Inside a large bright area the halo only tints; it reads as a halo where it
                # spills over darker surroundings, so most of its weight goes there.
                hot = np.clip((lum - 0.55) / 0.45, 0.0, 1.0) ** 1.5
                spread = _blur(hot, 22.0 * scale) + 0.6 * _blur(hot, 7.0 * scale)
                halo = np.maximum(spread - 1.2 * hot, 0.0) + 0.12 * spread
                lin += (lk.halation * 1.3) * halo[..., None] * np.array([1.0, 0.16, 0.04], np.float32)
            if lk.bloom > 0:
                glow = _blur(lin * np.clip((lum - 0.3) / 0.7, 0, 1)[..., None], 10.0 * scale)
                lin = lin * (1.0 - 0.35 * lk.bloom) + glow * (0.9 * lk.bloom)
        x = linear_to_srgb(lin)

    # 2. Curves in display space.
    if lk.channel_gamma != (1.0, 1.0, 1.0):
        x = np.power(np.clip(x, 0, 1), np.array(lk.channel_gamma, np.float32))
    if lk.contrast or lk.fade or lk.rolloff:
        lut = _tone_lut(lk.contrast, lk.fade, lk.rolloff)
        x = lut[np.clip(x * 4095.0 + 0.5, 0, 4095).astype(np.int32)]

    # 3. OKLab: saturation, split toning, monochrome.
    needs_lab = (
        abs(lk.saturation - 1.0) > 1e-3 or lk.mono > 0 or any(lk.shadow_tint) or any(lk.highlight_tint)
    )
    if needs_lab:
        from workers.engines.imaging.color import linear_to_oklab, oklab_to_linear

        lin = srgb_to_linear(x)
        lab = linear_to_oklab(lin)
        L = lab[..., 0]
        if lk.mono > 0:
            grey = np.cbrt(np.maximum(lin @ np.array(lk.mono_filter, np.float32), 0.0))
            L = L + lk.mono * (grey - L)
            lab[..., 0] = L
        chroma_scale = lk.saturation * (1.0 - lk.mono)
        lab[..., 1:] *= chroma_scale
        if any(lk.shadow_tint) or any(lk.highlight_tint):
            ws = np.clip(1.0 - L / 0.55, 0.0, 1.0)[..., None]
            wh = np.clip((L - 0.5) / 0.45, 0.0, 1.0)[..., None]
            lab[..., 1:] += ws * np.array(lk.shadow_tint, np.float32) + wh * np.array(
                lk.highlight_tint, np.float32
            )
        x = linear_to_srgb(oklab_to_linear(lab))

    # 4. Lens and emulsion.
    if lk.soft_corners > 0 or lk.vignette > 0:
        r = _radius(h, w)
        if lk.soft_corners > 0:
            soft = _blur(x, 3.0 * scale)
            t = np.clip((r - 0.45) / 0.55, 0.0, 1.0)[..., None] * min(1.0, lk.soft_corners)
            x = x + t * (soft - x)
        if lk.vignette > 0:
            fall = 1.0 - min(lk.vignette, 1.2) * 0.62 * np.clip((r - 0.3) / 0.7, 0.0, 1.0) ** 1.8
            x = x * fall[..., None]
    if lk.sharpen > 0:
        x = x + lk.sharpen * 0.9 * (x - _blur(x, 1.2 * max(scale, 0.5)))
    if lk.grain > 0:
        x = _add_grain(x, lk.grain, lk.grain_size * max(scale, 0.5), lk.mono, seed)
    return np.clip(x * 255.0 + 0.5, 0, 255).astype(np.uint8)


def _wb_gains(temperature: float, tint: float) -> np.ndarray:
    # Gains close to a Planckian shift: warmer raises red and lowers blue in linear light.
    t, g = float(temperature), float(tint)
    return np.array(
        [2.0 ** (0.32 * t + 0.05 * g), 2.0 ** (0.02 * t - 0.12 * g), 2.0 ** (-0.5 * t + 0.05 * g)],
        np.float32,
    )


def _tone_lut(contrast: float, fade: float, rolloff: float) -> np.ndarray:
    x = np.linspace(0.0, 1.0, 4096, dtype=np.float32)
    if contrast:
        k = 4.0 + 6.0 * abs(contrast)
        pivot = 0.46
        s = 1.0 / (1.0 + np.exp(-k * (x - pivot)))
        s0, s1 = 1.0 / (1.0 + np.exp(k * pivot)), 1.0 / (1.0 + np.exp(-k * (1 - pivot)))
        s = (s - s0) / (s1 - s0)
        if contrast > 0:
            y = x + min(contrast, 1.0) * (s - x)
        else:
            # Flattening: pull towards the inverse S, i.e. towards mid-grey at both ends.
            y = x + max(contrast, -1.0) * (s - x) * 0.8
    else:
        y = x
    if rolloff:
        # Shoulder: compress the top fifth so whites never clip hard.
        knee = 0.75
        over = np.clip(y - knee, 0, None)
        top = 1.0 - 0.06 * rolloff
        span = top - knee
        y = np.where(y > knee, knee + span * (1 - np.exp(-over / span * (1 + 0.5 * rolloff))) / (1 - np.exp(-(1 - knee) / span * (1 + 0.5 * rolloff))), y)
    if fade:
        y = fade + (1.0 - fade * 0.6 - fade) * y + 0.0
    return np.clip(y, 0.0, 1.0).astype(np.float32)


def _radius(h: int, w: int) -> np.ndarray:
    yy = (np.arange(h, dtype=np.float32) - (h - 1) / 2.0) / ((h - 1) / 2.0 or 1.0)
    xx = (np.arange(w, dtype=np.float32) - (w - 1) / 2.0) / ((w - 1) / 2.0 or 1.0)
    return np.sqrt(yy[:, None] ** 2 + xx[None, :] ** 2) / np.sqrt(2.0)


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    sigma = max(0.3, float(sigma))
    # A blur of a downscaled copy: same look as a wide Gaussian at a fraction of the cost.
    if sigma > 6:
        f = int(sigma // 3)
        h, w = img.shape[:2]
        small = cv2.resize(img, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
        small = cv2.GaussianBlur(small, (0, 0), sigma / f)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.GaussianBlur(img, (0, 0), sigma)


def _add_grain(x: np.ndarray, amount: float, size: float, mono: float, seed: int) -> np.ndarray:
    h, w = x.shape[:2]
    rng = np.random.default_rng(seed)
    # Grain is generated at a lower resolution for coarse stocks, then upsampled: clumps.
    f = max(1.0, size)
    gh, gw = max(2, int(h / f)), max(2, int(w / f))
    lum = rng.standard_normal((gh, gw), dtype=np.float32)
    lum = cv2.GaussianBlur(lum, (0, 0), 0.55)
    lum /= lum.std() + 1e-6
    if (gh, gw) != (h, w):
        lum = cv2.resize(lum, (w, h), interpolation=cv2.INTER_CUBIC)
    # Film grain shows most in the midtones and least in clipped blacks and whites.
    y = x.mean(axis=2)
    weight = 0.35 + 2.6 * y * (1.0 - y)
    noise = (0.045 * amount) * lum * weight
    out = x + noise[..., None]
    if mono < 0.5:
        chroma = rng.standard_normal((gh, gw, 3), dtype=np.float32) * 0.25
        if (gh, gw) != (h, w):
            chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_CUBIC)
        out += (0.045 * amount) * chroma * weight[..., None]
    return out
