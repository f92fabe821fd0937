"""Editorial generation, local engine: cut out, stage, relight, grade; three variants.

What a local engine can honestly do with one catalogue photo and five texts:

- cut the model out (mediapipe's person mask, snapped to the photo's edges with a guided
  filter; on a plain sweep the colour distance to the sweep gives the fine edge);
- stage them on a procedural backdrop the scene text asks for (seamless studio sweep with its
  floor gradient, a painted wall, or a defocused street, garden, beach or interior made of
  blurred shapes and bokeh — no stock photos), with a contact shadow and a cast shadow;
- relight as the lighting text asks: a directional ramp and a wrap term from the silhouette's
  normals, a warm or cool key, rim light along the mask edge, low or high key exposure;
- grade with the film look from the camera and colour texts;
- frame three variants: full, three-quarter and close crop, each with its own strength.

Pose, outfit and model changes need a generative model; they are listed in the notes as not
applied, as are words the vocabulary does not know.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.editorial.looks import look_from_text, render_look
from workers.engines.editorial.vocabulary import COLOUR_NAMES, parse
from workers.engines.imaging.color import linear_to_srgb, srgb_to_linear
from workers.engines.imaging.resize import decode_limited

MAX_SIDE = 1600  # working and output cap: editorial outputs are for screens and drives
TEXT_FIELDS = ("scene_composition", "lighting", "color_style", "camera_details")
GENERATIVE_FIELDS = {
    "pose_action": "changing the pose needs a generative model",
    "outfit_changes": "changing the outfit needs a generative model",
    "model_features": "changing the model's features needs a generative model",
}
VARIANTS = (("full", 1.0), ("three-quarter", 0.85), ("close", 0.7))


@dataclass(frozen=True)
class LightPlan:
    direction: float = -0.6  # -1 from camera left .. +1 from camera right; 0 frontal
    from_above: bool = False
    strength: float = 0.35  # depth of the directional ramp
    hardness: float = 0.3  # 0 soft .. 1 hard (shadow sharpness, ramp steepness)
    warmth: float = 0.0  # key colour: + warm, - cool
    rim: float = 0.0
    rim_warmth: float = 0.0
    exposure: float = 0.0  # stops on the subject
    backdrop_exposure: float = 0.0
    backlit: bool = False
    flash: bool = False
    label: str = "studio softbox from camera left"


@dataclass(frozen=True)
class ScenePlan:
    kind: str = "studio seamless"
    colour: tuple[int, int, int] | None = None
    label: str = "light grey seamless studio sweep"


def image_bytes(params: dict[str, Any], keys: tuple[str, ...], missing: str) -> bytes:
    """The image under the first of ``keys`` that holds one; ``missing_image`` says
    ``missing`` when none does."""
    data = next((params[k] for k in keys if params.get(k)), None)
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_image", missing)
    return bytes(data)


def parse_texts(texts: dict[str, str]) -> tuple[dict[str, dict[str, list]], dict[str, list[str]]]:
    """Each field's text read against the vocabulary: (the settings it gave, per field that
    gave any; the words it did not know, per field that had any)."""
    recognised: dict[str, dict[str, list]] = {}
    unknown: dict[str, list[str]] = {}
    for key, text in texts.items():
        settings, words = parse(text)
        if settings:
            recognised[key] = settings
        if words:
            unknown[key] = words
    return recognised, unknown


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    from workers.engines.imaging.decode import encode_png

    data = image_bytes(params, ("image", "outfit"), "A catalogue outfit image is needed.")
    progress(3)
    rgb, _ = decode_limited(data, MAX_SIDE)
    texts = {k: str(params.get(k) or "") for k in (*TEXT_FIELDS, *GENERATIVE_FIELDS)}
    progress(8)

    recognised, unknown = parse_texts(texts)
    merged = _merge(recognised[k] for k in TEXT_FIELDS if k in recognised)

    light = light_plan(merged)
    scene = scene_plan(merged)
    look = look_from_text(texts["camera_details"], texts["color_style"], texts["lighting"])
    progress(12)

    alpha, pose_points = cut_out_person(rgb)
    progress(35)
    canvas_fg, canvas_alpha, points, layout = _place(rgb, alpha, pose_points, merged)
    h, w = canvas_alpha.shape
    progress(45)
    backdrop = make_backdrop(h, w, scene, light, floor_y=layout.get("floor_y"))
    progress(55)
    staged = stage_and_relight(canvas_fg, canvas_alpha, backdrop, light, floor_y=layout.get("floor_y"))
    progress(70)

    outputs: list[EngineOutput] = []
    variants = []
    boxes = _variant_boxes(points, canvas_alpha, w, h)
    for i, ((name, strength), box) in enumerate(zip(VARIANTS, boxes, strict=True)):
        x0, y0, x1, y1 = box
        crop = staged[y0:y1, x0:x1]
        if crop.shape[:2] != (h, w):
            crop = cv2.resize(crop, (w, h), interpolation=cv2.INTER_LANCZOS4 if crop.shape[0] < h else cv2.INTER_AREA)
            crop = np.clip(crop, 0, 255).astype(np.uint8)
        graded = render_look(crop, look, strength, seed=11 + i)
        outputs.append(EngineOutput(encode_png(graded), "image/png", f"editorial_{i + 1}.png"))
        variants.append({"file": f"editorial_{i + 1}.png", "framing": name, "look_strength": strength, "crop": [int(v) for v in box]})
        progress(72 + 8 * (i + 1))

    notes = {
        "engine": "editorial.local",
        "recognised": recognised,
        "unknown_words": unknown,
        "applied": {
            "backdrop": scene.label,
            "lighting": light.label,
            "look": list(look.notes) or ["neutral (no camera or colour words recognised)"],
            "placement": layout.get("label", ""),
        },
        "not_applied": [
            {"field": k, "text": texts[k], "note": f"not applied by the local engine: {why}"}
            for k, why in GENERATIVE_FIELDS.items()
            if texts[k].strip()
        ],
        "variants": variants,
    }
    outputs.append(
        EngineOutput(json.dumps(notes, ensure_ascii=False, indent=2).encode("utf-8"), "application/json", "notes.json")
    )
    progress(100)
    return outputs


# --- reading the texts -----------------------------------------------------------------------


def _merge(parts: Any) -> dict[str, list]:
    out: dict[str, list] = {}
    for settings in parts:
        for k, vs in settings.items():
            for v in vs:
                if v not in out.setdefault(k, []):
                    out[k].append(v)
    return out


def light_plan(settings: dict[str, list]) -> LightPlan:
    light = set(settings.get("light", []))
    direction = set(settings.get("direction", []))
    colour = set(settings.get("colour", []))
    p: dict[str, Any] = {}
    label = []
    if "golden hour" in light:
        p.update(direction=-0.9, strength=0.45, hardness=0.5, warmth=0.8, rim=0.5, rim_warmth=1.0)
        label.append("golden hour: low warm key with a warm rim")
    if "window light" in light:
        p.update(direction=-0.9, strength=0.5, hardness=0.25, warmth=-0.05)
        label.append("window light: soft side key with falloff")
    if "studio softbox" in light or not light:
        p.setdefault("direction", -0.55)
        p.setdefault("strength", 0.3)
        p.setdefault("hardness", 0.25)
        label.append("studio softbox key")
    if "overcast" in light:
        p.update(direction=-0.2, strength=0.15, hardness=0.1, warmth=-0.25)
        label.append("overcast: soft, cool and even")
    if "hard flash" in light:
        p.update(direction=0.0, strength=0.1, hardness=1.0, exposure=0.2, flash=True)
        label.append("hard on-camera flash with a crisp shadow behind")
    if "hard light" in light:
        p.update(hardness=0.9, strength=max(p.get("strength", 0.3), 0.45))
        label.append("hard light")
    if "soft light" in light:
        p.update(hardness=0.1)
    if "side light" in light:
        p.update(direction=-1.0 if p.get("direction", -1) <= 0 else 1.0, strength=0.6)
        label.append("side light")
    if "front light" in light:
        p.update(direction=0.0, strength=0.1)
    if "top light" in light:
        p.update(from_above=True)
    if "backlit" in light:
        p.update(backlit=True, rim=max(p.get("rim", 0.0), 0.9), exposure=p.get("exposure", 0.0) - 0.25, backdrop_exposure=0.5, strength=0.15)
        label.append("backlit with a bright rim")
    if "rim light" in light:
        p.update(rim=max(p.get("rim", 0.0), 0.7))
        label.append("rim light on the edges")
    if "low key" in light or "night" in light:
        p.update(exposure=p.get("exposure", 0.0) - 0.25, backdrop_exposure=-2.0 if "night" in light else -1.6, strength=max(p.get("strength", 0.3), 0.55), rim=max(p.get("rim", 0.0), 0.35))
        label.append("low key: dark backdrop, deep shadow side")
    if "high key" in light:
        p.update(exposure=p.get("exposure", 0.0) + 0.15, backdrop_exposure=0.6, strength=min(p.get("strength", 0.3), 0.15))
        label.append("high key: bright backdrop, open shadows")
    if "tungsten" in light or "neon" in light:
        p.update(warmth=p.get("warmth", 0.0) + (0.6 if "tungsten" in light else -0.2))
    if "warm" in colour:
        p["warmth"] = p.get("warmth", 0.0) + 0.3
    if "cool" in colour:
        p["warmth"] = p.get("warmth", 0.0) - 0.3
    if "left" in direction:
        p["direction"] = -abs(p.get("direction", -0.6)) or -0.6
    elif "right" in direction:
        p["direction"] = abs(p.get("direction", 0.6)) or 0.6
    elif "front" in direction:
        p["direction"] = 0.0
    if "above" in direction:
        p["from_above"] = True
    if "behind" in direction:
        p.update(backlit=True, rim=max(p.get("rim", 0.0), 0.8))
    d = p.get("direction", -0.55)
    side = "camera left" if d < -0.2 else ("camera right" if d > 0.2 else "the front")
    return LightPlan(**p, label=", ".join(label) + f"; key from {side}")


def scene_plan(settings: dict[str, list]) -> ScenePlan:
    scenes = settings.get("scene", [])
    names = settings.get("colour name", [])
    colour = COLOUR_NAMES[names[0]] if names else None
    kind = next((s for s in ("street", "garden", "beach", "interior", "desert", "rooftop", "colour wall", "studio seamless") if s in scenes), "studio seamless")
    if kind == "desert":
        kind = "beach"
    if kind == "rooftop":
        kind = "street"
    if colour is not None and kind == "studio seamless" and "colour wall" not in scenes:
        label = f"{names[0]} seamless studio sweep"
    elif kind == "colour wall":
        colour = colour or (214, 165, 150)
        label = f"{names[0] if names else 'terracotta'} painted wall, procedural"
    elif kind == "studio seamless":
        label = "light grey seamless studio sweep"
    else:
        label = f"defocused {kind} backdrop, procedural (blurred shapes and bokeh, not a photograph)"
    return ScenePlan(kind=kind, colour=colour, label=label)


# --- cut-out ---------------------------------------------------------------------------------


def cut_out_person(rgb: np.ndarray) -> tuple[np.ndarray, dict[str, tuple[float, float]]]:
    """Soft person alpha (float32 HxW) and the pose landmarks in the same pixels."""
    from workers.engines.imaging.pose import detect_pose, person_mask

    seg = person_mask(rgb)
    if float((seg > 0.5).mean()) < 0.01:
        raise EngineError("no_person", "No person was found in the catalogue image.")
    pose = detect_pose(rgb)
    points = dict(pose.points) if pose is not None else {}
    return refine_mask(rgb, seg), points


def refine_mask(rgb: np.ndarray, seg: np.ndarray) -> np.ndarray:
    h, w = seg.shape
    unit = max(h, w) / 1024.0
    guide = rgb.astype(np.float32) / 255.0
    r = max(2, round(6 * unit))
    try:
        snapped = cv2.ximgproc.guidedFilter(guide, seg.astype(np.float32), r, 2e-3)
    except AttributeError:  # no contrib build: a plain feathered mask
        snapped = cv2.GaussianBlur(seg, (0, 0), 1.5 * unit)
    alpha = np.clip((snapped - 0.35) / 0.3, 0.0, 1.0)

    # On a plain sweep the colour distance to the sweep is the better edge (hair, fingers).
    ring = np.concatenate([rgb[:4].reshape(-1, 3), rgb[:, :4].reshape(-1, 3), rgb[:, -4:].reshape(-1, 3)])
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).astype(np.float32)
    ring_lab = cv2.cvtColor(ring.reshape(-1, 1, 3), cv2.COLOR_RGB2LAB).reshape(-1, 3).astype(np.float32)
    if float(ring_lab.std(axis=0).max()) < 6.0:
        bg = np.median(ring_lab, axis=0)
        d = np.linalg.norm(lab - bg, axis=2)
        # JPEG ringing on the sweep sits within a few units; start the edge above it.
        colour_alpha = np.clip((d - 8.0) / 12.0, 0.0, 1.0)
        k_out = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(12 * unit) + 1,) * 2)
        k_in = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(8 * unit) + 1,) * 2)
        near = cv2.dilate((seg > 0.3).astype(np.uint8), k_out) > 0
        inside = cv2.erode((seg > 0.6).astype(np.uint8), k_in).astype(np.float32)
        inside = cv2.GaussianBlur(inside, (0, 0), 3 * unit)
        alpha = np.where(near, np.maximum(colour_alpha, inside), 0.0).astype(np.float32)
        alpha = _largest_components(alpha)
    # Choke by about a pixel: the outermost ring holds the old backdrop's light, which reads
    # as a bright outline on a darker new backdrop.
    alpha = cv2.erode(alpha.astype(np.float32), np.ones((3, 3), np.uint8))
    alpha = np.clip((alpha - 0.15) / 0.85, 0.0, 1.0)
    return cv2.GaussianBlur(alpha, (0, 0), 0.6 * unit)


def _largest_components(alpha: np.ndarray) -> np.ndarray:
    hard = (alpha > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(hard, connectivity=8)
    if n <= 2:
        return alpha
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.zeros(n, bool)
    keep[1:] = areas >= 0.05 * areas.max()
    keep_mask = cv2.dilate(keep[labels].astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    return np.where(keep_mask, alpha, 0.0).astype(np.float32)


def _decontaminate(rgb: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The old backdrop's share removed from partly transparent edge pixels."""
    h, w = alpha.shape
    bgmask = alpha < 0.02
    if bgmask.sum() < 100:
        return rgb.astype(np.float32) / 255.0
    small = cv2.resize(rgb, (w // 8 or 1, h // 8 or 1), interpolation=cv2.INTER_AREA).astype(np.float32)
    sm = cv2.resize(bgmask.astype(np.float32), (w // 8 or 1, h // 8 or 1), interpolation=cv2.INTER_AREA)
    # Background colour spread inwards by normalised blurring (a cheap push-pull).
    num = cv2.GaussianBlur(small * sm[..., None], (0, 0), 6)
    den = cv2.GaussianBlur(sm, (0, 0), 6)[..., None] + 1e-4
    bg = cv2.resize(num / den, (w, h), interpolation=cv2.INTER_LINEAR) / 255.0
    a = alpha[..., None]
    x = rgb.astype(np.float32) / 255.0
    fg = (x - (1 - a) * bg) / np.maximum(a, 0.2)
    return np.where(a > 0.97, x, np.clip(fg, 0, 1)).astype(np.float32)


# --- staging ---------------------------------------------------------------------------------


def _place(
    rgb: np.ndarray, alpha: np.ndarray, points: dict[str, tuple[float, float]], settings: dict[str, list]
) -> tuple[np.ndarray, np.ndarray, dict[str, tuple[float, float]], dict[str, Any]]:
    """The subject on a canvas of the same size; moved and scaled only when it is whole."""
    h, w = alpha.shape
    fg = _decontaminate(rgb, alpha)
    ys, xs = np.nonzero(alpha > 0.5)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    margin = 3
    touches = y0 <= margin or x0 <= margin or x1 >= w - margin or y1 >= h - margin
    framing = settings.get("framing", [])
    if touches:
        # A catalogue crop (head or legs cut by the frame) must keep its cut on the frame edge.
        floor_y = None if y1 >= h - margin else float(y1)
        return fg, alpha, points, {"floor_y": floor_y, "label": "kept as photographed (subject cut by the frame)"}
    target_h = 0.66 if "wide" in framing else 0.84
    s = min(1.0, target_h * h / (y1 - y0))
    cx = float(xs.mean())
    tx = w / 2
    if "rule of thirds" in framing:
        tx = w / 3 if cx > w / 2 else 2 * w / 3
    feet_y = 0.94 * h
    m = np.array([[s, 0, tx - s * cx], [0, s, feet_y - s * y1]], np.float32)
    fg2 = cv2.warpAffine(fg, m, (w, h), flags=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR, borderValue=(0, 0, 0))
    a2 = cv2.warpAffine(alpha, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    pts = {k: (s * x + m[0, 2], s * y + m[1, 2]) for k, (x, y) in points.items()}
    label = f"full figure at {round(100 * s * (y1 - y0) / h)}% of the frame height, " + (
        "on a third" if tx != w / 2 else "centred"
    )
    return fg2, a2, pts, {"floor_y": float(feet_y), "label": label}


def _value_noise(h: int, w: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    g = rng.random((max(2, cells * h // max(h, w)) + 1, max(2, cells * w // max(h, w)) + 1)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _col(rgb: tuple[int, int, int]) -> np.ndarray:
    return srgb_to_linear(np.array(rgb, np.float32) / 255.0)


def make_backdrop(h: int, w: int, scene: ScenePlan, light: LightPlan, *, floor_y: float | None) -> np.ndarray:
    """Linear-light backdrop HxWx3, lit from the key's side."""
    rng = np.random.default_rng(5)
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None]
    xx = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    horizon = (floor_y / h - 0.1) if floor_y is not None else 1.15
    unit = max(h, w) / 1024.0
    if scene.kind in ("studio seamless", "colour wall"):
        base = _col(scene.colour or (205, 205, 202))
        # Sweep: the wall bends into the floor over a band; the floor runs darker towards
        # the camera-far line and picks up the light pool under the subject.
        t = np.clip((yy - horizon) / 0.12, 0, 1)
        t = t * t * (3 - 2 * t)
        wall = 0.92 + 0.12 * np.exp(-((xx / 0.9) ** 2) - ((yy - 0.45) / 0.5) ** 2)
        floor = 0.78 + 0.18 * np.clip((yy - horizon) / (1.0 - horizon + 1e-3), 0, 1)
        shade = wall * (1 - t) + floor * t
        if scene.kind == "colour wall":
            shade = shade * (1 + 0.05 * (_value_noise(h, w, 40, rng) - 0.5))
            floor_col = _col((150, 140, 130))
            img = base[None, None] * shade[..., None] * (1 - t[..., None]) + floor_col * shade[..., None] * t[..., None]
        else:
            img = base[None, None] * shade[..., None]
    else:
        img = _location(h, w, scene.kind, horizon, rng, night=light.backdrop_exposure < -1.0)
        img = _blur(img, 18 * unit)
        img = _bokeh(img, scene.kind, horizon, rng, unit, night=light.backdrop_exposure < -1.0)
    # The key light reaches the backdrop too: brighter on its side.
    ramp = 1.0 + 0.18 * light.strength * light.direction * xx
    img = img * ramp[..., None] * (2.0 ** light.backdrop_exposure)
    if light.backlit:
        glow = np.exp(-((xx / 0.6) ** 2) - ((yy - 0.35) / 0.35) ** 2)
        img = img + 0.6 * glow[..., None] * _col((255, 236, 205))[None, None]
    return img.astype(np.float32)


def _location(h: int, w: int, kind: str, horizon: float, rng: np.random.Generator, *, night: bool = False) -> np.ndarray:
    yy = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    img = np.zeros((h, w, 3), np.float32)
    hz = min(horizon, 0.8)
    if kind == "beach":
        sky = _col((150, 195, 230)) * (1 - yy) + _col((235, 235, 228)) * yy
        sea_line = hz - 0.12
        img[:] = sky
        sea = (yy > sea_line) & (yy <= hz - 0.02)
        img = np.where(sea, _col((70, 150, 165)), img)
        img = np.where(yy > hz - 0.02, _col((225, 205, 170)) * (0.9 + 0.1 * yy), img)
        return img
    if kind == "garden":
        img[:] = _col((95, 135, 80)) * (0.7 + 0.4 * (1 - yy))
        blobs = _value_noise(h, w, 14, rng)
        tone = np.stack([0.7 + 0.6 * blobs, 0.8 + 0.4 * blobs, 0.6 + 0.3 * blobs], axis=2)
        img = img * tone
        img = np.where(yy > hz + 0.02, _col((120, 125, 80)) * (0.7 + 0.3 * yy), img)
        return img
    if kind == "interior":
        img[:] = _col((200, 180, 155))
        xs = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
        window = ((xs > 0.08) & (xs < 0.38) & (yy > 0.12) & (yy < hz - 0.1)).astype(np.float32)
        img = img + 2.2 * window * _col((255, 250, 240))
        img = np.where(yy > hz, _col((140, 100, 70)) * (0.8 + 0.2 * yy), img)
        return img
    # street: building blocks of different tones above a pavement
    img[:] = _col((28, 32, 52) if night else (170, 175, 185)) * (1 - 0.3 * yy)
    x = 0
    while x < w:
        bw = int(rng.integers(w // 8, w // 3))
        top = int(h * rng.uniform(0.0, 0.25))
        tone = _col(tuple(int(v) for v in rng.integers(60, 170, 3)))  # type: ignore[arg-type]
        img[top:, x : x + bw] = tone * rng.uniform(0.7, 1.1)
        # window grid
        for wy in range(top + 10, int(hz * h) - 20, max(12, h // 14)):
            for wx in range(x + 6, x + bw - 10, max(12, w // 12)):
                if rng.random() < 0.7:
                    img[wy : wy + max(4, h // 40), wx : wx + max(4, w // 40)] = tone * 0.5
        x += bw
    img = np.where(yy > hz, _col((110, 110, 115)) * (0.8 + 0.3 * yy), img)
    return img


def _bokeh(img: np.ndarray, kind: str, horizon: float, rng: np.random.Generator, unit: float, night: bool) -> np.ndarray:
    h, w = img.shape[:2]
    layer = np.zeros((h, w), np.float32)
    n = {"street": 26, "garden": 40, "interior": 10, "beach": 8}.get(kind, 12)
    if night:
        n = int(n * 1.5)
    top = min(horizon, 0.85) * h
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, top)
        r = rng.uniform(6, 20) * unit
        cv2.circle(layer, (int(cx), int(cy)), int(r), float(rng.uniform(0.3, 1.0)), -1, lineType=cv2.LINE_AA)
    layer = cv2.GaussianBlur(layer, (0, 0), 1.5 * unit)
    colour = {"street": (255, 200, 140), "garden": (255, 245, 200), "interior": (255, 220, 170), "beach": (255, 255, 240)}.get(kind, (255, 240, 220))
    gain = 0.9 if night else 0.35
    return img + gain * layer[..., None] * _col(colour)[None, None]


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    h, w = img.shape[:2]
    f = max(1, int(sigma // 4))
    small = cv2.resize(img, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _key_colour(warmth: float) -> np.ndarray:
    t = float(np.clip(warmth, -1.5, 1.5))
    return np.array([2 ** (0.22 * t), 2 ** (0.02 * t), 2 ** (-0.38 * t)], np.float32)


def relight_subject(fg_lin: np.ndarray, alpha: np.ndarray, light: LightPlan) -> np.ndarray:
    """Directional ramp, silhouette wrap, key colour and rim light, in linear light."""
    h, w = alpha.shape
    ys, xs = np.nonzero(alpha > 0.5)
    if xs.size == 0:
        return fg_lin
    x0, x1 = xs.min(), xs.max() + 1
    y0, y1 = ys.min(), ys.max() + 1
    pw = max(8, x1 - x0)
    unit = max(h, w) / 1024.0
    xn = (np.arange(w, dtype=np.float32) - (x0 + x1) / 2) / (pw / 2)
    xn = np.clip(xn, -1.2, 1.2)[None, :]
    d = light.direction
    # Silhouette normals from a blurred alpha: the surface turns away from the camera near the
    # edges, so the key's side catches light and the far side falls into shadow (wrap).
    sigma = max(2.0, 0.06 * pw)
    soft = cv2.GaussianBlur(alpha, (0, 0), sigma)
    gx = cv2.Sobel(soft, cv2.CV_32F, 1, 0, ksize=3) * sigma
    gy = cv2.Sobel(soft, cv2.CV_32F, 0, 1, ksize=3) * sigma
    nx = -gx  # outward normal points down the alpha gradient
    ny = -gy
    lx = d
    ly = -0.7 if light.from_above else -0.2
    lam = np.clip(nx * lx + ny * ly, -1.0, 1.0)
    hard = light.hardness
    ramp = 1.0 + light.strength * d * xn * (0.8 + 0.6 * hard)
    wrap = 1.0 + (0.35 + 0.5 * hard) * light.strength * 2.0 * lam
    gain = np.clip(ramp * wrap, 0.25, 2.0) * (2.0 ** light.exposure)
    if light.from_above:
        yn = (np.arange(h, dtype=np.float32) - y0) / max(1, y1 - y0)
        gain = gain * (1.1 - 0.25 * np.clip(yn, 0, 1))[:, None]
    out = fg_lin * gain[..., None]
    if light.warmth:
        # The key's colour on the lit side, its complement faintly in the shadows.
        lit = np.clip(0.5 + 0.5 * d * xn, 0, 1)[..., None] if abs(d) > 0.1 else np.ones((1, w, 1), np.float32)
        kc = _key_colour(light.warmth)
        sc = _key_colour(-0.3 * light.warmth)
        out = out * (lit * kc + (1 - lit) * sc)
    if light.flash:
        # On-axis flash: flatter shading, brighter centre, a little hot-spot falloff at the edges.
        r = np.hypot(xn, (np.arange(h, dtype=np.float32)[:, None] - (y0 + y1) / 2) / ((y1 - y0) / 2 + 1))
        out = out * (1.15 - 0.2 * np.clip(r, 0, 1.2))[..., None]
    if light.rim > 0:
        band = np.clip(alpha - cv2.GaussianBlur(alpha, (0, 0), 2.5 * unit + 0.01 * pw), 0, 1)
        band = cv2.GaussianBlur(band, (0, 0), 1.0 * unit) * 2.2
        if not light.backlit and abs(d) > 0.1:
            # The rim comes from behind on the side opposite the key.
            side = np.clip(0.5 - 0.9 * d * xn, 0.15, 1.0)
            band = band * side
        rc = _col((255, 214, 160)) if light.rim_warmth > 0.5 else _col((255, 246, 235))
        out = out + light.rim * 1.0 * band[..., None] * rc[None, None]
    return out.astype(np.float32)


def stage_and_relight(
    fg: np.ndarray, alpha: np.ndarray, backdrop: np.ndarray, light: LightPlan, *, floor_y: float | None
) -> np.ndarray:
    """Composite (uint8 RGB) of the relit subject over the backdrop with its shadows."""
    h, w = alpha.shape
    unit = max(h, w) / 1024.0
    fg_lin = srgb_to_linear(fg)
    fg_lin = relight_subject(fg_lin, alpha, light)
    bg = backdrop.copy()
    ys, xs = np.nonzero(alpha > 0.5)
    d = light.direction
    # Cast shadow on the wall: the silhouette shifted away from the key, softer when soft.
    shift_x = int(round(-d * 0.06 * w)) if not light.backlit else 0
    shift_y = int(round(0.015 * h))
    if light.flash:
        shift_x, shift_y = int(round(0.025 * w)), int(round(0.012 * h))
    m = np.float32([[1, 0, shift_x], [0, 1, shift_y]])
    cast = cv2.warpAffine(alpha, m, (w, h), borderValue=0)
    cast = cv2.GaussianBlur(cast, (0, 0), (1.5 + 22 * (1 - light.hardness)) * unit)
    depth = 0.45 if light.flash else 0.22 + 0.2 * light.hardness
    bg = bg * (1 - depth * cast[..., None])
    if floor_y is not None and xs.size:
        # Contact shadow: a flat dark ellipse where the feet meet the floor.
        contact = np.zeros((h, w), np.float32)
        feet = alpha[int(max(0, floor_y - 0.04 * h)) : int(min(h, floor_y + 2))]
        fx = np.nonzero(feet.max(axis=0) > 0.5)[0] if feet.size else np.array([])
        if fx.size:
            cx = int((fx.min() + fx.max()) / 2)
            ax = int(max(8, (fx.max() - fx.min()) * 0.75 + 0.03 * w))
            cv2.ellipse(contact, (cx - int(d * 0.02 * w), int(floor_y)), (ax, max(3, int(0.012 * h))), 0, 0, 360, 1.0, -1)
            contact = cv2.GaussianBlur(contact, (0, 0), 6 * unit)
            bg = bg * (1 - 0.55 * contact[..., None])
    # Light wrap: a little of the backdrop's light spills over the subject's edges.
    edge = np.clip(cv2.GaussianBlur(1 - alpha, (0, 0), 3 * unit) * alpha, 0, 1)
    wrap = _blur(bg, 6 * unit)
    fg_lin = fg_lin + 0.35 * edge[..., None] * (wrap - fg_lin).clip(min=0)
    a = alpha[..., None]
    out = fg_lin * a + bg * (1 - a)
    # Dither before quantising so smooth sweeps do not band.
    srgb = linear_to_srgb(out)
    srgb += (np.random.default_rng(3).random((h, w, 1), dtype=np.float32) - 0.5) / 255.0
    return np.clip(srgb * 255.0 + 0.5, 0, 255).astype(np.uint8)


# --- framing ---------------------------------------------------------------------------------


def _variant_boxes(
    points: dict[str, tuple[float, float]], alpha: np.ndarray, w: int, h: int
) -> list[tuple[int, int, int, int]]:
    full = (0, 0, w, h)
    ys, xs = np.nonzero(alpha > 0.5)
    if xs.size == 0:
        return [full, full, full]
    top = float(ys.min())
    cx = float(np.median(xs))
    aspect = w / h

    def get(*names: str) -> list[tuple[float, float]]:
        return [points[n] for n in names if n in points and 0 <= points[n][1] < h]

    shoulders = get("left_shoulder", "right_shoulder")
    hips = get("left_hip", "right_hip")
    knees = get("left_knee", "right_knee")
    head = get("nose", "left_eye", "right_eye", "left_ear", "right_ear")
    if shoulders:
        cx = float(np.mean([p[0] for p in shoulders]))
    sh_y = float(np.mean([p[1] for p in shoulders])) if shoulders else top + 0.2 * (ys.max() - top)
    sh_w = abs(shoulders[0][0] - shoulders[1][0]) if len(shoulders) == 2 else 0.25 * w
    torso = (float(np.mean([p[1] for p in hips])) - sh_y) if hips else 1.6 * sh_w
    head_top = top if head or top > 2 else top
    margin = 0.06 * torso

    def box(y_top: float, y_bottom: float) -> tuple[int, int, int, int]:
        # Never enlarge more than 2.6 times: beyond that the crop is visibly soft.
        ch = max(h / 2.6, y_bottom - y_top)
        ch = min(ch, float(h))
        cw = ch * aspect
        if cw > w:
            cw, ch = float(w), w / aspect
        bx0 = min(max(0.0, cx - cw / 2), w - cw)
        by0 = min(max(0.0, y_top), h - ch)
        return (int(round(bx0)), int(round(by0)), int(round(bx0 + cw)), int(round(by0 + ch)))

    hip_y = sh_y + torso
    knee_y = float(np.mean([p[1] for p in knees])) if knees else hip_y + 0.9 * torso
    three_q = box(head_top - margin, hip_y + 0.55 * (knee_y - hip_y) if knees else hip_y + 0.5 * torso)
    close = box(head_top - 0.5 * margin, sh_y + 0.95 * sh_w)
    return [full, three_q, close]


