"""Flats Ecommerce: front/back/side product flats composed into on-model and flat-lay images.

Params: ``shoes``, ``bottom``, ``top``, ``overlayer``, each a dict with optional "FRONT",
"BACK", "SIDE" image bytes (files suffixed _FRONT/_BACK/_SIDE), and ``model`` (bytes or None);
optionally ``model_back`` (bytes), a photo of the model from behind.

With a model: a front on-model image (bottom, then top, then overlayer dressed with the try-on
core; shoes at the feet), a back on-model image and a flat-lay. Without: a front and a back
flat-lay.
The back image dresses ``model_back`` when given; otherwise the back flats are shown on an
invisible mannequin in the model's (mirrored) pose, since a front photo has no back to dress.

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

CATEGORIES = ("shoes", "bottom", "top", "overlayer")
VIEWS = ("FRONT", "BACK", "SIDE")
STEP_ANALYSE = "Analyzing input clothing items"
STEP_COMPOSE = "Compositing outfit on model"
# The flat-lay sweep: a warm light grey, as catalogue flat-lays are shot.
FLATLAY_BG = (242, 240, 236)
FLATLAY_SIZE = (1024, 1280)  # w, h


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
    jobs = [(c, v, params[c][v]) for c in CATEGORIES if isinstance(params.get(c), dict)
            for v in VIEWS if params[c].get(v)]
    if not jobs:
        raise EngineError("no_items", "No clothing items were given: add at least one of "
                          "shoes, bottom, top or overlayer with a _FRONT image.")
    items: dict[str, Item] = {}
    for i, (cat, view, data) in enumerate(jobs):
        progress(int(40 * i / len(jobs)), STEP_ANALYSE)
        if cat == "shoes":
            rgb, alpha = tryon._load(data, f"{cat} {view.lower()}")
            obj: Any = cut_out_product(rgb, alpha, what="shoe")
        else:
            category = warp.LOWER if cat == "bottom" else warp.UPPER
            obj = tryon.prepare_garment(data, category)
        items.setdefault(cat, Item(cat, {})).views[view] = obj
    progress(40, STEP_ANALYSE)
    return [items[c] for c in CATEGORIES if c in items]


# --- on model ---------------------------------------------------------------------------------


def _place_shoes(out: np.ndarray, body: tryon.Body, shoes: Cutout) -> np.ndarray:
    """Each shoe of the pair (or the single shoe, twice) at its foot, sized from the ankle."""
    feet = []
    for chain in (body.left, body.right):
        if "ankle" not in chain:
            return out
        pts = [chain[k] for k in ("ankle", "heel", "foot_index") if k in chain]
        feet.append((chain["ankle"], max(p[1] for p in pts)))
    m = (shoes.alpha > 0.5).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    comps = sorted((i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] > 0.1 * m.sum()),
                   key=lambda i: stats[i, cv2.CC_STAT_LEFT])
    pieces = []
    for i in comps[:2]:
        x, y, w, h = stats[i, :4]
        pieces.append((shoes.rgb[y:y + h, x:x + w], np.where(labels[y:y + h, x:x + w] == i, shoes.alpha[y:y + h, x:x + w], 0)))
    if not pieces:
        return out
    if len(pieces) == 1:
        pieces = [(pieces[0][0][:, ::-1], pieces[0][1][:, ::-1]), pieces[0]]
    for (ankle, floor), (rgb, alpha) in zip(feet, pieces, strict=False):
        height = max(1.15 * (floor - ankle[1]), 0.06 * body.torso_len) + 0.03 * body.torso_len
        width = height * rgb.shape[1] / rgb.shape[0]
        width = min(width, 0.36 * body.shoulder_width)
        height = width * rgb.shape[0] / rgb.shape[1]
        size = (max(2, int(width)), max(2, int(height)))
        r = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        a = cv2.resize(alpha.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        x = int(ankle[0] - width / 2)
        y = int(floor + 0.05 * height - height)
        out = tryon._shadow(out, a, x, y + int(0.06 * height), 0.06 * width, 0.3)
        out = tryon._paste(out, r, a, x, y)
    return out


def _hide_under(out: np.ndarray, under: np.ndarray, top_a: np.ndarray, over_a: np.ndarray,
                body: tryon.Body, *, ghost: bool) -> np.ndarray:
    """The top worn under an overlayer shows at the neckline and below the overlayer's hem, not
    beside it: a wider sleeve or side of the top sticking out of a jacket is put back to what
    was under the top (the sweep, or the backdrop beside the model)."""
    h, w = over_a.shape
    covered = over_a > 0.5
    has = covered.any(axis=0)
    if not has.any():
        return out
    lowest = np.where(has, h - 1 - np.argmax(covered[::-1], axis=0), -1)
    hem = np.where(has, lowest, float(np.median(lowest[has])))
    above_hem = np.arange(h)[:, None] < hem[None, :]
    peek = (top_a > 0.02) & ~covered & above_hem
    if not ghost:
        peek &= body.mask < 0.5  # inside the person it is the top seen in the opening
    soft = cv2.GaussianBlur(peek.astype(np.float32), (0, 0), 1.0) * (1.0 - over_a)
    mix = out.astype(np.float32) * (1 - soft[..., None]) + under.astype(np.float32) * soft[..., None]
    return np.clip(mix + 0.5, 0, 255).astype(np.uint8)


def _dress_all(body: tryon.Body, items: list[Item], view: str, *, ghost: bool) -> np.ndarray:
    if ghost:
        out = np.empty_like(body.rgb)
        out[:] = FLATLAY_BG
    else:
        out = body.rgb.copy()
    by_cat = {it.category: it for it in items}
    first = True
    under_top: np.ndarray | None = None
    top_alpha: np.ndarray | None = None
    for cat in ("bottom", "top", "overlayer"):
        if cat not in by_cat:
            continue
        g = by_cat[cat].view(view)
        if cat == "overlayer":
            # Over the top: nothing of the old outfit to paint out, only the cover.
            out, info = tryon.dress(body, g, out, ghost=ghost, fill_old=False)
            if under_top is not None and top_alpha is not None:
                out = _hide_under(out, under_top, top_alpha, info["alpha"], body, ghost=ghost)
        else:
            if cat == "top":
                under_top = out
            out, info = tryon.dress(body, g, out, ghost=ghost, fill_old=first or cat == "top")
            if cat == "top":
                top_alpha = info["alpha"]
        first = False
    if "shoes" in by_cat:
        out = _place_shoes(out, body, _cutout(by_cat["shoes"].view("FRONT" if view == "FRONT" else "BACK", "SIDE")))
    return out


# --- flat-lay ---------------------------------------------------------------------------------


def _fit(cut: Cutout, box_w: int, box_h: int) -> Cutout:
    s = min(box_w / cut.width, box_h / cut.height)
    size = (max(2, int(cut.width * s)), max(2, int(cut.height * s)))
    return Cutout(rgb=cv2.resize(cut.rgb, size, interpolation=cv2.INTER_AREA),
                  alpha=cv2.resize(cut.alpha.astype(np.float32), size, interpolation=cv2.INTER_AREA))


def flat_lay(items: list[Item], view: str = "FRONT") -> tuple[np.ndarray, dict[str, tuple[int, int, int, int]]]:
    """The cut-out items on a light sweep: top above bottom, overlayer beside, shoes below,
    each with a soft contact shadow. Returns the image and each item's box."""
    w, h = FLATLAY_SIZE
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
    boxes = {}
    for cat in ("overlayer", "bottom", "top", "shoes"):
        if cat not in by_cat:
            continue
        cut = _fit(_cutout(by_cat[cat].view(view)), slots[cat][2], slots[cat][3])
        sx, sy, sw, sh = slots[cat]
        x = sx + (sw - cut.width) // 2
        y = sy + (sh - cut.height) // 2
        blur = 0.02 * max(cut.width, cut.height)
        canvas = tryon._shadow(canvas, cut.alpha, x + int(0.6 * blur), y + int(blur), blur, 0.28)
        canvas = tryon._paste(canvas, cut.rgb, cut.alpha, x, y)
        boxes[cat] = (x, y, cut.width, cut.height)
    return canvas, boxes


# --- entry point --------------------------------------------------------------------------------


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    progress(0, STEP_ANALYSE)
    items = analyse_items(params, progress)
    progress(40, STEP_COMPOSE)
    outputs: list[EngineOutput] = []
    model = params.get("model")
    if model:
        rgb, _ = tryon._load(model, "model")
        body = tryon.analyse_body(rgb)
        progress(48, STEP_COMPOSE)
        front = _dress_all(body, items, "FRONT", ghost=False)
        outputs.append(EngineOutput(encode_png(front), "image/png", "flats-front.png"))
        progress(60, STEP_COMPOSE)
        if params.get("model_back"):
            brgb, _ = tryon._load(params["model_back"], "back model")
            back = _dress_all(tryon.analyse_body(brgb), items, "BACK", ghost=False)
        else:
            mirrored = tryon.analyse_body(np.ascontiguousarray(rgb[:, ::-1]))
            back = _dress_all(mirrored, items, "BACK", ghost=True)
        outputs.append(EngineOutput(encode_png(back), "image/png", "flats-back.png"))
        progress(70, STEP_COMPOSE)
    lay, _ = flat_lay(items, "FRONT")
    outputs.append(EngineOutput(encode_png(lay), "image/png", "flats-flatlay.png"))
    if not model:
        # Without a model the back flats get their own flat-lay.
        progress(60, STEP_COMPOSE)
        back_lay, _ = flat_lay(items, "BACK")
        outputs.append(EngineOutput(encode_png(back_lay), "image/png", "flats-flatlay-back.png"))
    progress(80, STEP_COMPOSE)
    return outputs
