"""Tonelab, local engine: a base photo graded to a reference's tone, then a camera look.

With a reference, the base's colour statistics move to the reference's in OKLab: lightness by
histogram matching (the reference's tone curve, not just its mean and spread), a and b by mean
and standard deviation (Reinhard-style transfer; the spread ratio is clamped so a nearly grey
base is not blown into false colour). The lighting text then shapes the light on the subject
(the same relighting as Editorial, without restaging), and the camera and colour texts add the
film look. Three outputs at strengths 0.5, 0.8 and 1.0 of the whole grade.

Without a reference the texts alone drive the grade. Tonelab's analyse step (``analyze_run``)
reads a reference into the three texts it uses, with Editorial's measuring (``analysis``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from workers.engines.base import EngineOutput, Progress
from workers.engines.editorial.analysis import read_reference
from workers.engines.editorial.generate import (
    LightPlan,
    image_bytes,
    light_plan,
    parse_texts,
    relight_subject,
)
from workers.engines.editorial.looks import look_from_text, render_look
from workers.engines.imaging.color import (
    linear_to_oklab,
    linear_to_srgb,
    oklab_to_linear,
    srgb_to_linear,
)
from workers.engines.imaging.resize import decode_limited, limit_side

STRENGTHS = (0.5, 0.8, 1.0)
MAX_SIDE = 1600
STATS_SIDE = 256  # statistics are read on a small copy: the histogram does not need more
FIELDS = ("lighting", "color_style", "camera_details")


def analyze_run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params {image: bytes} -> one JSON output with the three texts Tonelab grades from."""
    return read_reference(params, progress, FIELDS)


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    from workers.engines.imaging.decode import encode_png

    data = image_bytes(params, ("image", "base"), "A base editorial image is needed.")
    progress(3)
    base, _ = decode_limited(data, MAX_SIDE)
    ref_data = params.get("reference")
    reference = None
    if isinstance(ref_data, (bytes, bytearray)) and ref_data:
        reference, _ = decode_limited(bytes(ref_data), MAX_SIDE)
    texts = {k: str(params.get(k) or "") for k in FIELDS}
    progress(10)

    recognised, unknown = parse_texts(texts)
    look = look_from_text(texts["camera_details"], texts["color_style"], texts["lighting"])
    light_settings = recognised.get("lighting", {})
    light = light_plan(light_settings) if light_settings.get("light") or light_settings.get("direction") else None

    alpha = None
    if light is not None:
        from workers.engines.editorial.generate import refine_mask
        from workers.engines.imaging.pose import person_mask

        alpha = refine_mask(base, person_mask(base))
    progress(30)

    transfer = ToneTransfer.fit(base, reference) if reference is not None else None
    progress(40)
    outputs: list[EngineOutput] = []
    for i, strength in enumerate(STRENGTHS):
        out = grade(base, transfer=transfer, light=light, alpha=alpha, look=look, strength=strength, seed=21 + i)
        outputs.append(EngineOutput(encode_png(out), "image/png", f"tonelab_{i + 1}.png"))
        progress(40 + 18 * (i + 1))
    notes = {
        "engine": "tonelab.local",
        "reference": "tone transferred (OKLab: L by histogram, a/b by mean and spread)" if transfer else "none: the texts alone drive the grade",
        "recognised": recognised,
        "unknown_words": unknown,
        "applied": {
            "lighting": light.label if light else "unchanged (no lighting words recognised)",
            "look": list(look.notes) or ["neutral (no camera or colour words recognised)"],
        },
        "not_applied": [
            {"field": k, "text": str(params.get(k)), "note": "not applied by the local engine: it needs a generative model"}
            for k in ("outfit_changes", "model_features")
            if str(params.get(k) or "").strip()
        ],
        "strengths": list(STRENGTHS),
    }
    outputs.append(EngineOutput(json.dumps(notes, ensure_ascii=False, indent=2).encode("utf-8"), "application/json", "notes.json"))
    progress(100)
    return outputs


class ToneTransfer:
    """The reference's OKLab statistics, fitted once and applied at any strength."""

    def __init__(self, l_lut_x: np.ndarray, l_lut_y: np.ndarray, ab_mean: tuple[np.ndarray, np.ndarray], ab_scale: np.ndarray) -> None:
        self.l_x = l_lut_x
        self.l_y = l_lut_y
        self.base_mean, self.ref_mean = ab_mean
        self.ab_scale = ab_scale

    @classmethod
    def fit(cls, base: np.ndarray, reference: np.ndarray) -> ToneTransfer:
        b = _oklab(limit_side(base, STATS_SIDE)[0]).reshape(-1, 3)
        r = _oklab(limit_side(reference, STATS_SIDE)[0]).reshape(-1, 3)
        # L: the reference's tone curve by quantile matching, half-and-half with a mean/spread
        # map, then smoothed with its slope held between 0.4 and 2.2. Raw histogram matching
        # stretches a flat sweep's few grey levels over a wide range (posterised blotches at
        # the edges); the slope limit keeps gradations smooth.
        q = np.linspace(0, 100, 257)
        bx = np.round(np.percentile(b[:, 0], q), 5)
        ry = np.percentile(r[:, 0], q)
        ux, inv = np.unique(bx, return_inverse=True)
        uy = np.bincount(inv, weights=ry) / np.bincount(inv)
        grid = np.linspace(0.0, 1.0, 257)
        if ux.size >= 2:
            hist_curve = np.interp(grid, ux, uy)
        else:
            hist_curve = grid - ux[0] + uy[0]
        mb, sb = float(b[:, 0].mean()), float(b[:, 0].std())
        mr, sr = float(r[:, 0].mean()), float(r[:, 0].std())
        lin_curve = (grid - mb) * (sr / max(sb, 1e-3)) + mr
        curve = 0.5 * hist_curve + 0.5 * lin_curve
        step = grid[1] - grid[0]
        dy = np.clip(np.diff(curve), 0.4 * step, 2.2 * step)
        limited = np.concatenate([[0.0], np.cumsum(dy)])
        from scipy.ndimage import gaussian_filter1d  # scikit-image depends on scipy

        limited = gaussian_filter1d(limited, 3.0, mode="nearest")
        # Land the base's mean lightness on the reference's (the limits above move it).
        limited += mr - float(np.interp(b[:, 0], grid, limited).mean())
        bx, ry = grid, np.clip(limited, 0.0, 1.0)
        b_mean, r_mean = b[:, 1:].mean(axis=0), r[:, 1:].mean(axis=0)
        b_std, r_std = b[:, 1:].std(axis=0), r[:, 1:].std(axis=0)
        # A near-grey base cannot gain much spread without inventing colour (skin beside a
        # white tee turns red at 3x), so the gain is capped at 1.5; a
        # black-and-white reference (spread ~0) legitimately takes the colour out.
        scale = np.clip(r_std / np.maximum(b_std, 1e-4), 0.0, 1.5)
        return cls(bx.astype(np.float32), ry.astype(np.float32), (b_mean, r_mean), scale.astype(np.float32))

    def apply(self, lab: np.ndarray, strength: float) -> np.ndarray:
        s = float(np.clip(strength, 0.0, 1.0))
        out = lab.copy()
        mapped = np.interp(lab[..., 0], self.l_x, self.l_y).astype(np.float32)
        out[..., 0] = lab[..., 0] + s * (mapped - lab[..., 0])
        moved = (lab[..., 1:] - self.base_mean) * self.ab_scale + self.ref_mean
        out[..., 1:] = lab[..., 1:] + s * (moved - lab[..., 1:])
        return out


def grade(
    base: np.ndarray,
    *,
    transfer: ToneTransfer | None,
    light: LightPlan | None,
    alpha: np.ndarray | None,
    look: Any,
    strength: float,
    seed: int = 21,
) -> np.ndarray:
    img = base
    if transfer is not None:
        lab = _oklab(img)
        img = _srgb8(oklab_to_linear(transfer.apply(lab, strength)))
    if light is not None and alpha is not None:
        lin = srgb_to_linear(img.astype(np.float32) / 255.0)
        relit = relight_subject(lin, alpha, _scaled_light(light, strength))
        a = alpha[..., None]
        lin = relit * a + lin * (1 - a) * (2.0 ** (light.backdrop_exposure * 0.5 * strength))
        img = _srgb8(lin)
    return render_look(img, look, strength, seed=seed)


def _scaled_light(light: LightPlan, s: float) -> LightPlan:
    from dataclasses import replace

    return replace(light, strength=light.strength * s, warmth=light.warmth * s, rim=light.rim * s, exposure=light.exposure * s)


def _oklab(rgb: np.ndarray) -> np.ndarray:
    return linear_to_oklab(srgb_to_linear(rgb.astype(np.float32) / 255.0))


def _srgb8(lin: np.ndarray) -> np.ndarray:
    return np.clip(linear_to_srgb(lin) * 255.0 + 0.5, 0, 255).astype(np.uint8)


