"""Open Lab: a chat prompt plus up to two images, answered with two result images.

There is no generative model here, so Open Lab does what its documented instructions say and
refuses anything else with a message that lists them (``parse_instruction``). The two templates
of the page are "Image to Flat" and "Sketch to Photo"; the plain instructions are recolour,
change fabric, remove or replace the background, try the garment of image 2 on the person of
image 1, and apply a film look. Each answer is two variants (result1, result2), described per
instruction in ``run``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines import flatdraw
from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging.color import (
    linear_to_srgb,
    oklab_to_linear,
    parse_hex,
    srgb8_to_oklab,
    to_hex,
)
from workers.engines.imaging.decode import decode_image, encode_png
from workers.engines.imaging.resize import decode_limited
from workers.engines.techpack import NAMED_COLOURS, garment_type_from_text

MAX_PROMPT = 4000
# Results are made at most this long on their long side: a catalogue image, and it keeps every
# instruction within a few seconds on one core.
MAX_SIDE = 1600

TEMPLATES: dict[str, str] = {
    "Image to Flat": (
        "Image to Flat: turn the garment in the attached image into a clean technical flat "
        "drawing, front and back. [REQUIRED: attach the garment image] "
        "[Optional: garment type, e.g. t-shirt, dress, trousers]"
    ),
    "Sketch to Photo": (
        "Sketch to Photo: render the attached sketch as a photo in [REQUIRED: colour, e.g. "
        "navy or #1c2541] [Optional: fabric, e.g. denim, silk, linen]"
    ),
}

CAPABILITIES = (
    "Image to Flat (a technical flat drawing of the garment in image 1); "
    "Sketch to Photo (fill a sketch's closed shapes with a colour and fabric); "
    "recolour the garment to a named colour or hex ('recolour to navy', 'make it #4a5d23'); "
    "change the fabric ('change the fabric to denim'); "
    "remove the background ('remove the background'); "
    "replace the background with a colour ('put it on a beige background'); "
    "put the garment of image 2 on the person of image 1 ('put this top on the model'); "
    "apply a film look by template name ('apply the Warm 70s Film Look')"
)

KINDS = (
    "image_to_flat",
    "sketch_to_photo",
    "recolour",
    "refabric",
    "remove_background",
    "replace_background",
    "try_on",
    "film_look",
)


@dataclass(frozen=True)
class Instruction:
    kind: str  # one of KINDS
    colour: str | None = None  # "#rrggbb"
    colour_name: str | None = None
    fabric: str | None = None  # a key of refabric.FABRICS
    finish: str | None = None  # one of refabric.FINISHES
    look: str | None = None  # a camera template title
    garment_type: str | None = None  # flatdraw's garment types


def _fabrics() -> tuple[str, ...]:
    try:
        from workers.engines.refabric import FABRICS
    except ImportError:  # pragma: no cover - refabric ships with the engines
        return ()
    return tuple(FABRICS)


def _finishes() -> tuple[str, ...]:
    try:
        from workers.engines.refabric import FINISHES
    except ImportError:  # pragma: no cover
        return ()
    return tuple(FINISHES)


def _look_titles() -> list[str]:
    try:
        from workers.engines.editorial.looks import TITLES
    except ImportError:  # pragma: no cover
        return []
    return [t for t in TITLES if t != "Custom"]


# Short names people use for the camera templates.
LOOK_ALIASES: list[tuple[str, str]] = [
    (r"70s|seventies|warm film", "Warm 70s Film Look"),
    (r"b\s*&\s*w|b/w|black\s*(?:and|&)\s*white|monochrome|grainy", "Grainy High-Contrast B&W"),
    (r"pastel", "Soft Pastel Portraits"),
    (r"night|red halo|halation", "Night Film with Red Halos"),
    (r"vivid|sharp", "Sharp & Vivid Color Film"),
    (r"lo-?fi|vignett|saturated", "Saturated Lo-Fi with Vignetting"),
    (r"natural|clean", "Clean & Natural Color Film"),
]


def _colour(text: str, *, exclude: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(hex, name) of the first colour named in the text: a #hex or a NAMED_COLOURS entry."""
    m = re.search(r"#([0-9a-f]{6}|[0-9a-f]{3})\b", text)
    best: tuple[int, str, str] | None = None
    if m:
        r, g, b = parse_hex(m.group(0))
        best = (m.start(), to_hex((r, g, b)), m.group(0))
    for name in sorted(NAMED_COLOURS, key=len, reverse=True):
        if name in exclude:
            continue
        mm = re.search(r"(?<![a-z])" + re.escape(name) + r"(?![a-z])", text)
        if mm and (best is None or mm.start() < best[0]):
            best = (mm.start(), NAMED_COLOURS[name], name)
    return (best[1], best[2]) if best else None


def parse_instruction(prompt: str) -> Instruction:
    """What the prompt asks for, or EngineError("unsupported_instruction") listing what Open Lab
    can do.

    Vocabulary (case-insensitive; checked in this order):

    * image_to_flat: "image to flat", "technical flat", "flat drawing", "flat sketch",
      "line drawing", "turn/convert ... into a flat". Optional garment word (t-shirt, shirt,
      dress, skirt, trousers, jacket...).
    * sketch_to_photo: "sketch to photo", "sketch into a photo", "render the sketch",
      "photo from (this|the) sketch", "make the sketch real/realistic". Optional colour (a name
      from techpack.NAMED_COLOURS or #hex) and fabric (a refabric.FABRICS key).
    * try_on: "try on", "try-on", "put/dress/place ... on the model/person/her/him",
      "wear(ing) ...", "dress the model in".
    * film_look: a camera template title ("Warm 70s Film Look"...) or "look/film/grade/filter"
      together with an alias: 70s, black and white / b&w / monochrome / grainy, pastel, night /
      red halo, vivid / sharp, lo-fi / vignette, natural / clean.
    * remove_background: "remove the background", "background removal", "cut out",
      "white background", "on white", "transparent background", "no background".
    * replace_background: "background" with a colour ("put it on a beige background",
      "change the background to #e8e2d6", "sage backdrop").
    * refabric: a refabric.FABRICS name with "fabric", "material", "refabric", "make it",
      "in", "change ... to" ("change the fabric to denim", "make it in silk"); optional finish
      (glossy, matte, metallic, patterned, sheer, textured).
    * recolour: "recolo(u)r", "colo(u)r", "dye", "make it", "turn it", "change it" with a
      colour name or #hex ("recolour to navy", "make it #4a5d23").
    """
    text = " ".join(str(prompt or "").lower().split())
    if not text:
        raise EngineError(
            "unsupported_instruction", "Tell Open Lab what to do. It can: " + CAPABILITIES + "."
        )
    if len(text) > MAX_PROMPT:
        raise EngineError("prompt_too_long", f"The prompt is longer than {MAX_PROMPT} characters.")
    # Placeholders left unfilled in a template carry no meaning.
    text = re.sub(r"\[(?:required|optional):[^\]]*\]", " ", text)
    gtype = garment_type_from_text(text)
    fabrics = _fabrics()
    fabric = next((f for f in fabrics if re.search(r"(?<![a-z])" + f + r"(?![a-z])", text)), None)
    finish = next(
        (f for f in _finishes() if re.search(r"(?<![a-z])" + f + r"(?![a-z])", text)), None
    )

    if re.search(
        r"image\s*(?:to|2|->|→)\s*(?:a\s+)?flat|technical flat|flat (?:drawing|sketch)|"
        r"line drawing|(?:turn|convert|make)\b.*\binto a (?:technical )?flat",
        text,
    ):
        return Instruction("image_to_flat", garment_type=gtype)
    if re.search(
        r"sketch\s*(?:to|into|->|→)\s*(?:a\s+)?(?:photo|picture|image)|render (?:the|this|my) "
        r"sketch|photo (?:from|of) (?:the|this|my) sketch|sketch (?:look )?(?:real|realistic)",
        text,
    ):
        c = _colour(text)
        return Instruction(
            "sketch_to_photo",
            colour=c[0] if c else None,
            colour_name=c[1] if c else None,
            fabric=fabric,
            finish=finish,
        )
    if re.search(
        r"try[\s-]?on|\b(?:put|place|dress|fit)\b.*\bon (?:the |this |my )?(?:model|person|her|him|them|woman|man)\b|"
        r"dress (?:the |this )?(?:model|person) in|\bwear(?:ing)?\b",
        text,
    ):
        return Instruction("try_on", garment_type=gtype)
    titles = _look_titles()
    for t in titles:
        if t.lower() in text:
            return Instruction("film_look", look=t)
    if re.search(r"\b(?:look|film|grade|grading|filter|tone)\b", text):
        for pattern, title in LOOK_ALIASES:
            if re.search(pattern, text) and (not titles or title in titles):
                return Instruction("film_look", look=title)
    if re.search(r"background|backdrop|\bcut ?out\b|\bon white\b", text):
        c = _colour(text, exclude=())
        removing = re.search(
            r"remov|delete|no background|transparent|cut ?out|erase|"
            r"background removal|\bon white\b",
            text,
        )
        if c and not removing and c[1] not in ("white", "optic white"):
            return Instruction("replace_background", colour=c[0], colour_name=c[1])
        if removing or (c and c[1] in ("white", "optic white")):
            return Instruction("remove_background")
    if re.search(r"recolou?r|colou?r|\bdye\b|\bpaint\b|\btint\b", text):
        c = _colour(text)
        if c:
            return Instruction("recolour", colour=c[0], colour_name=c[1], garment_type=gtype)
    if fabric and re.search(
        r"fabric|material|refabric|\bmake\b|\bin\b|\bchange\b|\bturn\b|"
        r"\bswap\b|\bas\b",
        text,
    ):
        return Instruction("refabric", fabric=fabric, finish=finish, garment_type=gtype)
    if re.search(r"\bmake\b|\bturn\b|\bchange\b", text):
        c = _colour(text)
        if c:
            return Instruction("recolour", colour=c[0], colour_name=c[1], garment_type=gtype)
    raise EngineError(
        "unsupported_instruction",
        "Open Lab cannot do that yet. It can: " + CAPABILITIES + ".",
    )


# --- helpers ----------------------------------------------------------------------------------


def _load(data: Any, what: str) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise EngineError("missing_image", f"This instruction needs {what}: attach it with '+'.")
    return decode_limited(bytes(data), MAX_SIDE)


def product_matte(rgb: np.ndarray) -> np.ndarray:
    """Float [0, 1] matte of the product on a plain background, full size, soft rim."""
    from workers.engines.imaging import garment as garment_mod

    small, _ = garment_mod.working_copy(rgb)
    m = garment_mod.product_mask(small)
    if m.sum() < 0.005 * m.size:
        raise EngineError(
            "no_product", "No garment or product could be separated from the background."
        )
    return garment_mod.upsample_mask(m, rgb)


def _contact_shadow(base: np.ndarray, matte: np.ndarray, strength: float = 0.35) -> np.ndarray:
    """A soft shadow under the object's lower edge (its matte squashed onto the floor)."""
    h, w = matte.shape
    ys, xs = np.nonzero(matte > 0.5)
    if len(ys) == 0:
        return base
    bottom = ys.max()
    oh = ys.max() - ys.min() + 1
    band = np.zeros_like(matte)
    # The lowest tenth of the object, flattened into an ellipse-ish pool just below it.
    low = matte[max(0, bottom - oh // 10) : bottom + 1]
    pool = cv2.resize(low, (w, max(2, low.shape[0] // 3)), interpolation=cv2.INTER_AREA)
    y0 = min(h - pool.shape[0], bottom - pool.shape[0] // 2)
    band[y0 : y0 + pool.shape[0]] = pool
    band = cv2.GaussianBlur(band, (0, 0), max(2.0, 0.012 * max(h, w)))
    band = band / max(float(band.max()), 1e-6)
    out = base.astype(np.float32) * (1 - strength * band[..., None])
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _over(fg: np.ndarray, matte: np.ndarray, bg: np.ndarray) -> np.ndarray:
    a = matte[..., None].astype(np.float32)
    return np.clip(
        fg.astype(np.float32) * a + bg.astype(np.float32) * (1 - a) + 0.5, 0, 255
    ).astype(np.uint8)


def _backdrop(shape: tuple[int, int], rgb: tuple[int, int, int], sweep: bool) -> np.ndarray:
    h, w = shape
    bg = np.empty((h, w, 3), np.float32)
    bg[:] = np.array(rgb, np.float32)
    if sweep:
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        bg *= 1.06 - 0.14 * t  # lighter at the top, a studio sweep falling off to the floor
    return np.clip(bg, 0, 255).astype(np.uint8)


# --- the instructions -------------------------------------------------------------------------


def image_to_flat(
    rgb: np.ndarray, garment_type: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(front, back, mask): flats in the photo's frame, so the outline lies on the garment."""
    from workers.engines.techpack import garment_mask_small

    _, small_mask = garment_mask_small(rgb)
    h, w = rgb.shape[:2]
    mask = cv2.resize(small_mask.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR) > 0.5
    front = flatdraw.flat_from_mask(mask, view="front", garment_type=garment_type)
    back = flatdraw.flat_from_mask(mask, view="back", garment_type=garment_type)
    return front.rgb, back.rgb, mask


def sketch_regions(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lines, inside): the sketch's dark strokes and the union of its closed regions."""
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    thr = min(160, int(cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0]))
    lines = (gray < thr).astype(np.uint8)
    k = max(3, int(round(0.004 * max(gray.shape))) | 1)
    closed = cv2.morphologyEx(lines, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(1 - closed, 4)
    h, w = gray.shape
    inside = np.zeros((h, w), bool)
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
        if not touches and area >= 0.0005 * h * w:
            inside |= labels == i
    return lines.astype(bool), inside


def sketch_to_photo(
    rgb: np.ndarray, colour: str, fabric: str | None, finish: str | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(soft, photographic, garment mask): the sketch's closed regions filled with the colour
    (and fabric), shaded by the distance to the garment's outline."""
    lines, inside = sketch_regions(rgb)
    if inside.sum() < 0.01 * inside.size:
        raise EngineError(
            "no_closed_shape",
            "The sketch has no closed shape to fill: close the outline and send it again.",
        )
    # The garment is its regions plus the strokes between them.
    garment = cv2.morphologyEx(
        inside.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8)
    ).astype(bool) | (
        lines & cv2.dilate(inside.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    )
    dist = cv2.distanceTransform(garment.astype(np.uint8), cv2.DIST_L2, 5)
    dmax = max(float(dist.max()), 1.0)
    rel = np.sqrt(np.clip(dist / (0.6 * dmax), 0, 1))
    # Seams inside the garment read as soft folds: the distance to the nearest stroke too.
    seam = cv2.distanceTransform((~lines).astype(np.uint8), cv2.DIST_L2, 5)
    seam_rel = np.clip(seam / max(4.0, 0.02 * max(rgb.shape[:2])), 0, 1)
    target = srgb8_to_oklab(np.array(parse_hex(colour), np.uint8)).astype(np.float32)
    h, w = inside.shape
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    outs = []
    for variant in (0, 1):
        if variant == 0:
            shade = 0.80 + 0.20 * rel * (0.85 + 0.15 * seam_rel)
        else:
            light = 1.0 - 0.22 * ((xx / w) * 0.6 + (yy / h) * 0.4)  # key light from upper left
            shade = (0.68 + 0.32 * rel * (0.75 + 0.25 * seam_rel)) * light
        lab = np.empty((h, w, 3), np.float32)
        lab[..., 0] = np.clip(target[0] * shade + 0.04 * (shade - 1.0), 0, 1)
        lab[..., 1] = target[1]
        lab[..., 2] = target[2]
        fill = (np.clip(linear_to_srgb(oklab_to_linear(lab)) * 255 + 0.5, 0, 255)).astype(np.uint8)
        out = np.full_like(rgb, 255)
        m = cv2.GaussianBlur(garment.astype(np.float32), (0, 0), 0.8)
        out = _over(fill, m, out)
        if fabric:
            from workers.engines.refabric import refabric_image

            out = refabric_image(
                out, fabric=fabric, finish=finish or "matte", garment_type="top", mask=m
            ).rgb
        # The sketch's strokes stay as seams: full ink on the soft variant, a fold on the other.
        ink = 0.85 if variant == 0 else 0.35
        line_a = cv2.GaussianBlur(lines.astype(np.float32), (0, 0), 0.7) * ink
        out = (out.astype(np.float32) * (1 - line_a[..., None] * 0.85)).astype(np.uint8)
        if variant == 1:
            out = _contact_shadow(out, m, 0.25)
        outs.append(out)
    return outs[0], outs[1], garment


def _garment_kind(gtype: str | None) -> str:
    return {
        "top": "top",
        "shirt": "shirt",
        "dress": "dress",
        "skirt": "skirt",
        "trousers": "trousers",
        "jacket": "jacket",
    }.get(gtype or "top", "top")


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: prompt (str, ≤ 4000), image (bytes, optional), image_2 (bytes, optional).

    Returns result1 and result2 (PNG):

    * image_to_flat: the front flat, the back flat (both in the photo's frame).
    * sketch_to_photo: soft shading with the sketch's lines, photographic shading with a key
      light and a contact shadow.
    * recolour: the recoloured photo; the recoloured garment cut out on white.
    * refabric: the new fabric in the finish asked for (matte by default); in another finish.
    * remove_background: on pure white; on white with a soft contact shadow.
    * replace_background: on the flat colour; on a sweep of that colour with a contact shadow.
    * try_on: the garment of image 2 on the person of image 1; the same with a natural film grade.
    * film_look: the look at full strength; at 60 %.
    """
    prompt = params.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise EngineError("invalid_prompt", "The prompt must be text.")
    if prompt and len(prompt) > MAX_PROMPT:
        raise EngineError("prompt_too_long", f"The prompt is longer than {MAX_PROMPT} characters.")
    progress(2)
    ins = parse_instruction(prompt or "")
    progress(8)
    r1, r2 = _execute(ins, params, progress)
    progress(92)
    outs = [
        EngineOutput(encode_png(r1), "image/png", "result-1.png"),
        EngineOutput(encode_png(r2), "image/png", "result-2.png"),
    ]
    progress(100)
    return outs


def _execute(
    ins: Instruction, params: dict[str, Any], progress: Progress
) -> tuple[np.ndarray, np.ndarray]:
    if ins.kind == "try_on":
        return _try_on(params, progress)
    rgb, alpha = _load(params.get("image"), "an image")
    progress(15)
    if ins.kind == "image_to_flat":
        front, back, _ = image_to_flat(rgb, ins.garment_type)
        return front, back
    if ins.kind == "sketch_to_photo":
        colour = ins.colour or NAMED_COLOURS["stone"]
        soft, photo, _ = sketch_to_photo(rgb, colour, ins.fabric, ins.finish)
        return soft, photo
    if ins.kind == "film_look":
        from workers.engines.editorial.looks import apply_look

        return apply_look(rgb, ins.look or "", 1.0), apply_look(rgb, ins.look or "", 0.6)
    if ins.kind in ("remove_background", "replace_background"):
        matte = (
            alpha.astype(np.float32) / 255.0
            if alpha is not None and (alpha < 128).mean() > 0.01
            else product_matte(rgb)
        )
        progress(60)
        colour = (
            (255, 255, 255)
            if ins.kind == "remove_background"
            else parse_hex(ins.colour or "#ffffff")
        )
        flat = _over(rgb, matte, _backdrop(matte.shape, colour, sweep=False))
        sweep = _contact_shadow(
            _backdrop(matte.shape, colour, sweep=ins.kind == "replace_background"), matte
        )
        return flat, _over(rgb, matte, sweep)
    if ins.kind == "recolour":
        from workers.engines.recolor import recolor_image

        res = recolor_image(
            rgb,
            target_color=ins.colour or "#000000",
            garment_type=_garment_kind(ins.garment_type),
            progress=None,
        )
        progress(70)
        white = _backdrop(res.mask.shape, (255, 255, 255), sweep=False)
        return res.rgb, _over(res.rgb, res.mask, white)
    if ins.kind == "refabric":
        from workers.engines.refabric import refabric_image

        first = ins.finish or "matte"
        second = "textured" if first != "textured" else "matte"
        kind = _garment_kind(ins.garment_type)
        a = refabric_image(rgb, fabric=ins.fabric or "", finish=first, garment_type=kind)
        progress(55)
        b = refabric_image(
            rgb, fabric=ins.fabric or "", finish=second, garment_type=kind, mask=a.mask
        )
        return a.rgb, b.rgb
    raise EngineError(
        "unsupported_instruction", "Open Lab cannot do that yet. It can: " + CAPABILITIES + "."
    )


def _try_on(params: dict[str, Any], progress: Progress) -> tuple[np.ndarray, np.ndarray]:
    try:
        from workers.engines import tryon
    except ImportError:
        raise EngineError(
            "unsupported_instruction",
            "Try-on is not available on this server. Open Lab can: " + CAPABILITIES + ".",
        ) from None
    if not params.get("image") or not params.get("image_2"):
        raise EngineError(
            "missing_image", "Try-on needs the person as image 1 and the garment as image 2."
        )
    outs = tryon.virtual_try_on({"model": params["image"], "garment": params["image_2"]}, progress)
    rgb = decode_image(outs[0].data).rgb
    try:
        from workers.engines.editorial.looks import apply_look

        graded = apply_look(rgb, "Clean & Natural Color Film", 0.7)
    except (ImportError, KeyError):
        graded = rgb
    return rgb, graded
