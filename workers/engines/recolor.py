"""Recolor: the garment's base colour becomes the partner's target colour, shading kept.

Work happens in OKLab. The garment's colours are clustered; the dominant cluster (with the
clusters that are only its shades) is the base, and only pixels that look like the base are
moved, with soft weights, so prints, logos, trims and other colour blocks keep their colours.
Lightness keeps its detail relative to the base's median (folds, seams, knit texture), scaled
when the target is much darker or lighter so a white shirt turned navy still has its folds and
a black one turned white does not come out flat grey. Background and skin are never touched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import (
    gamut_map_oklab,
    linear_to_srgb,
    oklab_to_linear,
    parse_hex,
    srgb8_to_oklab,
)
from workers.engines.imaging.decode import png_engine_run

# OKLab chroma under which a colour reads as grey, white or black.
NEUTRAL_CHROMA = 0.025


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
    if mask is None:
        mask = garment_mod.garment_mask(rgb, garment_type, scene=scene).mask
    if progress:
        progress(50)
    target = srgb8_to_oklab(target_rgb).astype(np.float32)

    idx = mask > 0.004
    if idx.sum() < 50:
        raise EngineError("garment_not_found", f"No {garment_type} was found in the image.")
    px_rgb = rgb[idx]
    lab = srgb8_to_oklab(px_rgb)
    m = mask[idx]

    base_groups, base = _base_colour(lab[m > 0.5] if (m > 0.5).sum() > 50 else lab)
    # Membership is decided on a slightly smoothed image: decided per noisy pixel, a weight
    # flickering between 0.9 and 1 would print the JPEG noise into the new colour as grain.
    smooth = srgb8_to_oklab(cv2.GaussianBlur(rgb, (0, 0), 1.2)[idx])
    share = _base_membership(smooth, base_groups["base"], base_groups["other"])
    share = np.clip((share - 0.05) / 0.8, 0.0, 1.0)  # snap the core to 1, strays to 0
    weight = m * share

    new = _shift(lab, base, target)
    blended = lab + (new - lab) * weight[:, None]
    lin = oklab_to_linear(gamut_map_oklab(blended))
    out_px = np.clip(linear_to_srgb(lin) * 255.0 + 0.5, 0, 255).astype(np.uint8)

    out = rgb.copy()
    out[idx] = out_px
    full_weight = np.zeros(mask.shape, np.float32)
    full_weight[idx] = weight
    if progress:
        progress(90)
    return RecolorResult(rgb=out, mask=mask.astype(np.float32), weight=full_weight,
                         base_oklab=base)


# --- the base colour --------------------------------------------------------------------------

_W = np.array([0.35, 1.0, 1.0], np.float32)  # lightness counts less: shading is not colour


def _base_colour(lab: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Cluster the garment; the largest cluster and its shades are the base."""
    rng = np.random.default_rng(0)
    sample = lab if len(lab) <= 20000 else lab[rng.choice(len(lab), 20000, replace=False)]
    k = 6
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 1e-4)
    cv2.setRNGSeed(0)
    _, labels, centres = cv2.kmeans(
        (sample * _W).astype(np.float32), k, None, crit, 2, cv2.KMEANS_PP_CENTERS
    )
    centres = centres / _W
    counts = np.bincount(labels.ravel(), minlength=k).astype(np.float64)
    main = int(np.argmax(counts))
    c0 = centres[main]
    is_base = np.zeros(k, bool)
    chroma0 = float(np.hypot(c0[1], c0[2]))
    for i, c in enumerate(centres):
        light_gap = abs(float(c[0] - c0[0]))
        chroma = float(np.hypot(c[1], c[2]))
        if chroma0 > 0.04:
            # A shade of a coloured base: same hue, chroma falling or rising with the light.
            hue = np.degrees(np.arctan2(c[2], c[1]) - np.arctan2(c0[2], c0[1]))
            hue_gap = abs((hue + 180) % 360 - 180)
            is_base[i] = hue_gap < 15 and light_gap < 0.3 and 0.35 < chroma / chroma0 < 1.4
        else:
            # A shade of a neutral base: still neutral, lightness within what folds do.
            is_base[i] = chroma < 0.04 and light_gap < 0.22
    is_base[main] = True
    base_px = sample[np.isin(labels.ravel(), np.nonzero(is_base)[0])]
    base = np.median(base_px, axis=0).astype(np.float32)
    groups = {"base": centres[is_base], "other": centres[~is_base & (counts > 0)]}
    return groups, base


def _base_membership(lab: np.ndarray, base_c: np.ndarray, other_c: np.ndarray) -> np.ndarray:
    d_base = _dist(lab, base_c)
    if len(other_c):
        d_other = _dist(lab, other_c)
        # Soft boundary between the base and a print colour: antialiased print edges get a part.
        w = np.clip((d_other - d_base) / 0.03 + 0.5, 0.0, 1.0)
    else:
        w = np.ones(len(lab), np.float32)
    # Far from every base shade (a tag, a button of a colour that was too rare to cluster).
    w *= np.clip((0.16 - d_base) / 0.06, 0.0, 1.0)
    return w.astype(np.float32)


def _dist(lab: np.ndarray, centres: np.ndarray) -> np.ndarray:
    diff = (lab[:, None, :] - centres[None, :, :]) * _W
    return np.sqrt((diff**2).sum(-1)).min(-1)


# --- the shift --------------------------------------------------------------------------------


def _shift(lab: np.ndarray, base: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each pixel's colour when the base becomes the target, shading and texture kept."""
    lb, lt = float(base[0]), float(target[0])
    # OKLab lightness is close to perceived, so detail mostly keeps its size; it follows the
    # lightness ratio only weakly (fourth root), enough that a black garment turned white gets
    # visible folds and a white one turned navy does not look creased.
    gain = float(np.clip(((lt + 0.05) / (lb + 0.05)) ** 0.25, 0.7, 1.5))
    L = lt + (lab[:, 0] - lb) * gain
    L = _soft_clip(L, 0.03, 0.985)

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


def _soft_clip(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Clip with a smooth knee so highlights and deep shadows keep some gradation."""
    knee = 0.06
    y = x.copy()
    top = x > hi - knee
    y[top] = hi - knee * np.exp(-(x[top] - (hi - knee)) / knee)
    bottom = x < lo + knee
    y[bottom] = lo + knee * np.exp((x[bottom] - (lo + knee)) / knee)
    return y

