"""Reshape: change a garment's length, width, sleeves or neckline from plain instructions.

Each change (a place and an instruction such as "shorter by 20%", "to the knee", "tighter",
"sleeves removed", "deeper V") is parsed into one geometric edit of the garment mask, applied to
the photo in order:

- length: shortening cuts the garment and moves its original hem band (the stitched edge, a lace
  trim, a ruffle) up to the new hem, fitted to the garment's width there; lengthening stretches
  the lower part of the garment down with ``cv2.remap``, so the hem comes along;
- width: a smooth horizontal scale about the garment's centre line over the rows of that place
  (the whole garment, the waist, the shoulders), falling off outside the garment so the backdrop
  gives way without a seam;
- sleeves: sleeve pixels beyond the new length are removed; the cuff band moves up to the new
  end on product shots; extensions stretch the cuff band along the sleeve; on a model the
  upper arm a shorter or removed sleeve uncovers is drawn along the pose's bones, as wide,
  as lit and in the same skin as the bare arm below the old sleeve;
- neckline: refused (implausible_fill): a new opening needs the chest or the garment's inside
  under it and its binding or trim along it drawn, which flat shapes cut into the photo did
  not do convincingly.

What an edit uncovers is filled cleanly: backdrop by inpainting from the backdrop only (never
smearing the garment into it), skin where the uncovered part lies on the body of a person
wearing the garment (arms, legs). Product shots and worn outfits are told apart, and the
garment found, by ``imaging.garment``; distances in cm use the body (worn) or the garment's
usual length (product shot) as the scale.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.engines.imaging import garment as garment_mod
from workers.engines.imaging.color import srgb8_to_oklab
from workers.engines.imaging.decode import png_engine_run
from workers.engines.imaging.resize import limit_side
from workers.engines.rebody import person_weight

PLACES = (
    "back",
    "collar",
    "fit",
    "hem",
    "length",
    "neckline",
    "shoulders",
    "silhouette",
    "sleeves",
    "waist",
)
MAX_CHANGES = 10
# A bare forearm just below the elbow, front view, is about a fifth of the shoulders' span
# (biacromial ~38 cm, forearm ~8 cm).
ARM_WIDTH_SW = 0.21
FILL_SIDE = 512  # inpainting works on this long side: fills are smooth, full size costs 10x

UNDERSTOOD = (
    "length or hem: shorter or longer by N cm or N %, or to the knee, ankle, mid-thigh, hip or "
    "waist (also mini, midi, maxi); fit, silhouette, waist, shoulders or back: wider, narrower, "
    "looser or tighter, optionally by N % or N cm; sleeves: removed, short, long, three-quarter, "
    "or shorter/longer by N % or N cm; neckline or collar: deeper or higher (optionally by N cm), "
    "V, round or square"
)

# A body landmark's drop below the shoulder line, cm, for a woman of about 170 cm. Used on
# product shots, where there is no body to measure, and for "to the knee" on upper garments.
LANDMARK_BELOW_SHOULDER_CM = {
    "waist": 33.0,
    "hip": 52.0,
    "mid-thigh": 72.0,
    "knee": 92.0,
    "mid-calf": 112.0,
    "ankle": 132.0,
}
# A garment's usual length laid flat, cm: the scale for "by N cm" on a product shot.
TYPICAL_LENGTH_CM = {
    "dress": 100.0,
    "full garment": 100.0,
    "full-garment": 100.0,
    "jumpsuit": 140.0,
    "romper": 80.0,
    "coat": 100.0,
    "outerwear": 80.0,
    "skirt": 55.0,
    "shorts": 40.0,
    "jeans": 100.0,
    "trousers / pants": 100.0,
    "trousers": 100.0,
    "pants": 100.0,
}
DEFAULT_TOP_LENGTH_CM = 65.0
TORSO_CM = 52.0  # shoulder to hip joint, vertical: the scale on a worn outfit


# --- the parser -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    place: str
    kind: str  # "length", "width", "sleeves", "neckline"
    direction: int = 0  # +1 longer / wider / higher; -1 shorter / narrower / deeper
    amount: float | None = None
    unit: str | None = None  # "%" or "cm"
    landmark: str | None = None  # length: "knee", "ankle", ...
    sleeve: str | None = None  # sleeves: "removed", "short", "three-quarter", "long"
    shape: str | None = None  # neckline: "v", "round", "square"


_AMOUNT = re.compile(
    r"(\d+(?:[.,]\d+)?)\s*(%|percent|per\s*cent|cm|centimet(?:er|re)s?|mm|millimet(?:er|re)s?"
    r"|inch(?:es)?|in\b|\")"
)
_LANDMARKS = (
    (r"mid[\s-]*thighs?|upper\s+thighs?|\bmini\b", "mid-thigh"),
    (r"mid[\s-]*calf|calf|calves|\bmidi\b", "mid-calf"),
    (r"knees?", "knee"),
    (r"ankles?|floor|\bmaxi\b|full[\s-]*length", "ankle"),
    (r"\bhips?\b", "hip"),
    (r"waist(?:line)?|navel|belly\s*button", "waist"),
)
_SHORTER = r"shorter|shorten|\bcrop(?:ped)?\b|raise|higher|\bup\b|less\s+long|trim"
_LONGER = r"longer|lengthen|extend|lower|\bdown\b|drop|more\s+length"
_WIDER = (
    r"wider|widen|looser|loosen|loose|relaxed|roomier|oversized?|broader|broaden|fuller"
    r"|flared?|boxier|baggier|bigger|larger|\bexpand"
)
_NARROWER = (
    r"narrower|narrow|tighter|tighten|tight|slimmer|slim|fitted|skinny|taper(?:ed)?"
    r"|snug|cinch(?:ed)?|nipped|smaller|closer|\btake\s+in|form[\s-]*fitting"
)


def _amount(text: str) -> tuple[float | None, str | None]:
    m = _AMOUNT.search(text)
    if not m:
        return None, None
    value = float(m.group(1).replace(",", "."))
    unit = m.group(2).lower()
    if unit.startswith(("%", "per")):
        return value, "%"
    if unit.startswith(("mm", "milli")):
        return value / 10.0, "cm"
    if unit.startswith(("in", '"')):
        return value * 2.54, "cm"
    return value, "cm"


def _landmark(text: str) -> str | None:
    for pattern, name in _LANDMARKS:
        if re.search(pattern, text):
            return name
    return None


def _has(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None


def _unsupported(place: str, instruction: str) -> EngineError:
    return EngineError(
        "unsupported_instruction",
        f"Reshape did not understand {instruction!r} for {place or 'that place'}. It "
        f"understands: {UNDERSTOOD}.",
    )


def parse_change(place: Any, instruction: Any) -> Edit:
    """One change card (place, plain-language instruction) as an edit, or EngineError."""
    p = str(place or "").strip().lower()
    raw = str(instruction or "").strip()
    text = " " + raw.lower().replace("–", "-").replace("—", "-") + " "
    if p not in PLACES:
        raise EngineError(
            "unsupported_instruction",
            f"{place!r} is not a place Reshape knows: use one of {', '.join(PLACES)}.",
        )
    if not raw or len(raw) > 300:
        raise _unsupported(p, raw)
    amount, unit = _amount(text)
    if amount is not None and not (0 < amount <= (90 if unit == "%" else 150)):
        raise EngineError(
            "unsupported_instruction",
            f"{raw!r}: the amount is out of range (up to 90 % or 150 cm).",
        )

    if p in ("length", "hem"):
        lm = _landmark(text)
        shorter, longer = _has(_SHORTER, text), _has(_LONGER, text)
        if lm is not None and (
            _has(r"\bto\b|length|\bat\b|\bmini\b|\bmidi\b|\bmaxi\b|level", text)
            or not (shorter or longer)
        ):
            return Edit(p, "length", landmark=lm, direction=(1 if longer else -1 if shorter else 0))
        if shorter != longer:
            return Edit(
                p,
                "length",
                direction=-1 if shorter else 1,
                amount=amount if amount is not None else 10.0,
                unit=unit or "%",
            )
        raise _unsupported(p, raw)

    if p == "sleeves":
        if _has(
            r"remove|sleeveless|no\s+sleeves?|without|\bdrop\s+the\b|\bcut\s+off|\bnone\b"
            r"|tank|strapless",
            text,
        ):
            return Edit(p, "sleeves", sleeve="removed")
        if _has(r"shorter|shorten", text):
            return Edit(p, "sleeves", direction=-1, amount=amount or 25.0, unit=unit or "%")
        if _has(r"longer|lengthen|extend", text):
            return Edit(p, "sleeves", direction=1, amount=amount or 25.0, unit=unit or "%")
        if _has(r"three[\s-]*quarters?|3/4|elbow", text):
            return Edit(p, "sleeves", sleeve="three-quarter")
        if _has(r"\bshort|\bcap\b|t-shirt", text):
            return Edit(p, "sleeves", sleeve="short")
        if _has(r"\blong|full[\s-]*length|wrist", text):
            return Edit(p, "sleeves", sleeve="long")
        raise _unsupported(p, raw)

    if p in ("neckline", "collar"):
        shape = None
        if _has(r"\bv\b|v[\s-]*neck|plunge|plunging", text):
            shape = "v"
        elif _has(r"round|crew|scoop|\bu[\s-]*neck|boat", text):
            shape = "round"
        elif _has(r"square", text):
            shape = "square"
        direction = 0
        if _has(r"deeper|deepen|lower|plung|\bdeep\b|open(?:er)?\b", text):
            direction = -1
        elif _has(r"higher|raise|shallower|close[dr]?\b|modest|\bhigh\b", text):
            direction = 1
        if shape is not None or direction != 0:
            return Edit(p, "neckline", direction=direction, shape=shape, amount=amount, unit=unit)
        if p == "collar":
            wider, narrower = _has(_WIDER, text), _has(_NARROWER, text)
            if wider != narrower:
                return _width_edit(p, wider, amount, unit)
        raise _unsupported(p, raw)

    # fit, silhouette, waist, shoulders, back
    wider, narrower = _has(_WIDER, text), _has(_NARROWER, text)
    if wider and narrower:
        # "less tight" / "not so loose": the negation flips the word it qualifies.
        if _has(r"less\s+(tight|fitted|slim|narrow)", text):
            narrower = False
        elif _has(r"less\s+(loose|wide|baggy|relaxed)", text):
            wider = False
    elif _has(r"\bless\s+", text):
        wider, narrower = narrower, wider
    if wider != narrower:
        return _width_edit(p, wider, amount, unit)
    raise _unsupported(p, raw)


def _width_edit(place: str, wider: bool, amount: float | None, unit: str | None) -> Edit:
    """Wider or narrower at ``place``, by 10% unless the instruction says how much."""
    return Edit(
        place,
        "width",
        direction=1 if wider else -1,
        amount=amount if amount is not None else 10.0,
        unit=unit or "%",
    )


def parse_changes(changes: Any) -> list[Edit]:
    if not isinstance(changes, list | tuple) or not changes:
        raise EngineError(
            "invalid_changes", "Give at least one change (a place and an instruction)."
        )
    if len(changes) > MAX_CHANGES:
        raise EngineError("invalid_changes", f"At most {MAX_CHANGES} changes per image.")
    edits = []
    for c in changes:
        if not isinstance(c, dict):
            raise EngineError("invalid_changes", "Each change needs a place and an instruction.")
        edits.append(parse_change(c.get("place"), c.get("instruction")))
    return edits


# --- scene: the garment and the body around it ------------------------------------------------


@dataclass
class Scene:
    rgb: np.ndarray  # full size, edited in place as edits apply
    mask: np.ndarray  # bool, the garment as it is now
    garment: str
    region: str  # "upper", "lower", "full"
    worn: bool
    body: np.ndarray | None  # bool: where skin would show if clothing were removed (worn)
    skin: np.ndarray  # bool: skin seen in the photo (worn; empty on product shots)
    person: np.ndarray | None  # bool: the person (worn)
    skin_rgb: np.ndarray  # the wearer's skin colour (worn)
    points: dict[str, tuple[float, float]]  # pose landmarks at full size (worn)
    ppcm: float  # pixels per cm

    @property
    def shape(self) -> tuple[int, int]:
        return self.mask.shape  # type: ignore[return-value]


def _mean_point(pts: dict[str, tuple[float, float]], *names: str) -> np.ndarray | None:
    got = [pts[n] for n in names if n in pts]
    return np.array(got, np.float64).mean(axis=0) if got else None


def _capsules(shape: tuple[int, int], chain: list[np.ndarray], radii: list[float]) -> np.ndarray:
    """A limb: circles swept along a polyline with linearly changing radius."""
    m = np.zeros(shape, np.uint8)
    for (a, ra), (b, rb) in zip(
        zip(chain, radii, strict=False), zip(chain[1:], radii[1:], strict=False), strict=False
    ):
        n = max(2, int(np.hypot(*(b - a)) / max(1.0, min(ra, rb) * 0.5)))
        for t in np.linspace(0.0, 1.0, n):
            c = a + (b - a) * t
            cv2.circle(
                m, (int(round(c[0])), int(round(c[1]))), max(1, int(ra + (rb - ra) * t)), 1, -1
            )
    return m > 0


def _limbs(
    pts: dict[str, tuple[float, float]], shape: tuple[int, int], sw: float
) -> dict[str, np.ndarray]:
    out = {}
    for side in ("left", "right"):
        arm = [
            np.array(pts[f"{side}_{j}"])
            for j in ("shoulder", "elbow", "wrist")
            if f"{side}_{j}" in pts
        ]
        if len(arm) >= 2:
            out[f"{side}_arm"] = _capsules(
                shape, arm, [0.15 * sw, 0.12 * sw, 0.09 * sw][: len(arm)]
            )
        leg = [
            np.array(pts[f"{side}_{j}"]) for j in ("hip", "knee", "ankle") if f"{side}_{j}" in pts
        ]
        if len(leg) >= 2:
            out[f"{side}_leg"] = _capsules(
                shape, leg, [0.22 * sw, 0.13 * sw, 0.08 * sw][: len(leg)]
            )
    return out


def _torso_polygon(
    pts: dict[str, tuple[float, float]], shape: tuple[int, int], sw: float
) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    names = ("left_shoulder", "right_shoulder", "right_hip", "left_hip")
    if all(n in pts for n in names):
        poly = np.array([pts[n] for n in names], np.float64)
        # Out to the body's sides: the landmarks are joints, the skin is a little outside them.
        c = poly.mean(axis=0)
        poly = c + (poly - c) * np.array([1.15, 1.0])
        poly[:2, 1] -= 0.15 * sw  # up to the top of the shoulders and the base of the neck
        cv2.fillPoly(m, [np.round(poly).astype(np.int32)], 1)
    return m > 0


SKIRTED = ("dress", "skirt", "full garment", "full-garment", "coat", "romper")


def _trim_below_hem(mask: np.ndarray) -> np.ndarray:
    """A skirt or dress ends at its hem: specks of mask below it, on the legs (pale skin
    beside a white dress), are legs, not garment."""
    rows = np.nonzero(mask.any(axis=1))[0]
    if len(rows) < 10:
        return mask
    width = mask.sum(axis=1).astype(np.float64)
    wmax = float(np.percentile(width[rows], 90))
    wide = np.nonzero(width >= 0.45 * wmax)[0]
    hem = int(wide[-1]) + 2
    below = mask[hem + 1 :].sum()
    if below == 0 or below > 0.15 * mask.sum():
        return mask
    out = mask.copy()
    out[hem + 1 :] = False
    return out


def build_scene(rgb: np.ndarray, garment: str) -> Scene:
    h, w = rgb.shape[:2]
    small, scale = garment_mod.working_copy(rgb)
    looked = garment_mod.look(small)
    gm = garment_mod.garment_mask(rgb, garment, scene=looked)
    mask = gm.mask > 0.5
    region = garment_mod.garment_region(garment)
    if gm.worn and garment.strip().lower() in SKIRTED:
        mask = _trim_below_hem(mask)
    rows = np.nonzero(mask.any(axis=1))[0]
    if len(rows) < 4:
        raise EngineError("garment_not_found", f"No {garment} was found in the image.")
    points: dict[str, tuple[float, float]] = {}
    body = person = None
    skin_rgb = np.array([196, 150, 124], np.float64)
    if gm.worn and looked.pose is not None:
        points = {k: (x / scale, y / scale) for k, (x, y) in looked.pose.points.items()}
        ps = cv2.resize(
            looked.person if looked.person is not None else np.zeros(small.shape[:2], np.float32),
            (w, h),
            interpolation=cv2.INTER_LINEAR,
        )
        person = ps > 0.5
        sh = _mean_point(points, "left_shoulder", "right_shoulder")
        hp = _mean_point(points, "left_hip", "right_hip")
        sw = (
            float(np.hypot(*(np.array(points["left_shoulder"]) - points["right_shoulder"])))
            if "left_shoulder" in points and "right_shoulder" in points
            else 0.25 * w
        )
        torso = float(hp[1] - sh[1]) if sh is not None and hp is not None else 1.5 * sw
        ppcm = max(torso, 1.0) / TORSO_CM
        limbs = _limbs(points, (h, w), sw)
        body = _torso_polygon(points, (h, w), sw)
        for m in limbs.values():
            body |= m
        body &= cv2.dilate(person.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        skin = (gm.skin > 0.6) & ~mask
        if skin.sum() > 200:
            skin_rgb = np.median(rgb[skin].reshape(-1, 3), axis=0)
    else:
        length = float(rows[-1] - rows[0] + 1)
        typical = TYPICAL_LENGTH_CM.get(garment.strip().lower(), DEFAULT_TOP_LENGTH_CM)
        ppcm = length / typical
    return Scene(
        rgb=rgb.copy(),
        mask=mask,
        garment=garment.strip().lower(),
        region=region,
        worn=bool(gm.worn),
        body=body,
        skin=gm.skin > 0.5,
        person=person,
        skin_rgb=skin_rgb,
        points=points,
        ppcm=ppcm,
    )


# --- fills ------------------------------------------------------------------------------------


def _small(img: np.ndarray, side: int = FILL_SIDE) -> tuple[np.ndarray, float]:
    return limit_side(img, side)


def inpaint_from(rgb: np.ndarray, region: np.ndarray, source: np.ndarray) -> np.ndarray | None:
    """Colours for ``region`` inpainted from the pixels of ``source`` only, full size.

    Works on a crop around the region at the fill size; None when the crop holds nothing of
    ``source`` to continue.
    """
    h, w = region.shape
    ys, xs = np.nonzero(region)
    if not len(ys):
        return None
    margin = int(0.12 * max(h, w)) + 4
    y0, y1 = max(0, ys.min() - margin), min(h, ys.max() + margin + 1)
    x0, x1 = max(0, xs.min() - margin), min(w, xs.max() + margin + 1)
    known = source[y0:y1, x0:x1] & ~region[y0:y1, x0:x1]
    if known.sum() < 20:
        return None
    crop, s = _small(rgb[y0:y1, x0:x1], side=int(FILL_SIDE * max(y1 - y0, x1 - x0) / max(h, w)) + 8)
    ch, cw = crop.shape[:2]
    known_s = cv2.resize(known.astype(np.uint8), (cw, ch), interpolation=cv2.INTER_AREA) > 0
    known_s = cv2.erode(known_s.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if known_s.sum() < 5:
        return None
    fill = cv2.inpaint(crop, (~known_s).astype(np.uint8), max(3, int(6 * s)), cv2.INPAINT_TELEA)
    fill = cv2.GaussianBlur(fill, (0, 0), 1.0)
    out = rgb.copy()
    out[y0:y1, x0:x1] = cv2.resize(fill, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    return out


def _composite(
    dst: np.ndarray,
    src: np.ndarray,
    region: np.ndarray,
    feather: float,
    protect: np.ndarray | None = None,
) -> None:
    """``src`` over ``dst`` in ``region``, its edge feathered a pixel outwards, never into
    ``protect``."""
    a = region.astype(np.float32)
    if feather > 0:
        a = np.clip(cv2.GaussianBlur(a, (0, 0), feather) * 1.5, 0, 1) * (
            cv2.dilate(region.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        )
        a = np.maximum(a, region.astype(np.float32))
        if protect is not None:
            a[protect & ~region] = 0.0
    ys, xs = np.nonzero(a > 0)
    if not len(ys):
        return
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    aa = a[y0:y1, x0:x1, None]
    blended = dst[y0:y1, x0:x1] * (1 - aa) + src[y0:y1, x0:x1] * aa
    dst[y0:y1, x0:x1] = np.clip(blended + 0.5, 0, 255).astype(np.uint8)


def _skin_fill(scene: Scene, region: np.ndarray) -> np.ndarray:
    """Skin-coloured limbs, shaded round across their width like the real ones."""
    h, w = region.shape
    body = scene.body if scene.body is not None else region
    dist = cv2.distanceTransform(body.astype(np.uint8), cv2.DIST_L2, 5)
    ref = np.percentile(dist[body], 90) if body.any() else 1.0
    shade = 0.78 + 0.22 * np.sqrt(np.clip(dist / max(ref, 1.0), 0, 1))
    fill = scene.skin_rgb[None, None, :] * shade[:, :, None]
    return np.clip(fill, 0, 255).astype(np.uint8)


# --- limbs continued from where they show -----------------------------------------------------

# How wide a limb is along its bones, relative to its width at the knee / upper arm, front view
# (adult proportions): the upper thigh is about 1.6 times the knee, the calf a little fuller
# than the knee and the ankle about two thirds of it; the arm fullest at the deltoid.


def _leg_taper(s: np.ndarray, joints: list[float]) -> np.ndarray:
    s_k = max(joints[1], 1.0)
    s_a = joints[2] if len(joints) > 2 else s_k * 1.9
    u = np.clip((s - s_k) / max(s_a - s_k, 1.0), 0.0, 1.0)
    upper = 1.0 + 0.6 * np.clip(1.0 - s / s_k, 0.0, 1.0)
    lower = 1.0 + 0.08 * np.sin(np.pi * u) - 0.35 * u**2
    return np.where(s < s_k, upper, lower)


def _arm_taper(s: np.ndarray, joints: list[float]) -> np.ndarray:
    s_e = max(joints[1], 1.0)
    s_w = joints[2] if len(joints) > 2 else s_e * 1.8
    u = np.clip((s - s_e) / max(s_w - s_e, 1.0), 0.0, 1.0)
    # The upper arm keeps the deltoid's full, round width over its top quarter, then narrows
    # smoothly to the elbow (no straight, even-width tube; no kink where the deltoid ends).
    t = np.clip((s / s_e - 0.25) / 0.75, 0.0, 1.0)
    upper = 1.0 + 0.075 * (1.0 + np.cos(np.pi * t))
    return np.where(s < s_e, upper, 1.0 - 0.25 * u)


def _chain_coords(
    chain: list[np.ndarray], xx: np.ndarray, yy: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[float]]:
    """Per pixel: distance along the polyline, signed offset across it, distance to it; and
    the joints' distances along it."""
    best = np.full(xx.shape, np.inf, np.float32)
    along = np.zeros(xx.shape, np.float32)
    across = np.zeros(xx.shape, np.float32)
    acc, joints = 0.0, [0.0]
    for k, (a, b) in enumerate(zip(chain, chain[1:], strict=False)):
        seg = b - a
        ln = float(np.hypot(*seg)) or 1.0
        t_raw = ((xx - a[0]) * seg[0] + (yy - a[1]) * seg[1]) / (ln * ln)
        t = np.clip(t_raw, 0, 1)
        dist = np.hypot(xx - (a[0] + t * seg[0]), yy - (a[1] + t * seg[1]))
        n = np.array([-seg[1], seg[0]]) / ln
        off = (xx - a[0]) * n[0] + (yy - a[1]) * n[1]
        if k == 0:
            # Before the first joint the limb ends round (a shoulder), not in a strip.
            off = np.where(t_raw < 0, np.sign(off) * dist, off)
        closer = dist < best
        best[closer] = dist[closer]
        along[closer] = acc + t[closer] * ln
        across[closer] = off[closer]
        acc += ln
        joints.append(acc)
    return along, across, best, joints


@dataclass
class LimbFill:
    box: tuple[int, int, int, int]  # y0, y1, x0, x1
    rgb: np.ndarray  # float32, the limb's colours over the box
    alpha: np.ndarray  # float32 0..1 over the box: where the limb is drawn
    zone: np.ndarray  # bool over the box: the pixels this limb answers for (skin or backdrop)
    width: float  # the limb's width at its reference, px
    invented: float  # how far along the limb the fill runs, px
    keep: np.ndarray | None = None  # bool over the box: uncovered, yet garment again
    scraps: np.ndarray | None = None  # bool over the box: left-over fabric, to backdrop


def _limb_width_at(occupied: np.ndarray, centre: int) -> tuple[int, int] | None:
    """The run of ``occupied`` holding the occupied cell nearest to ``centre`` (1-px gaps
    closed)."""
    idx = np.nonzero(occupied)[0]
    if not len(idx):
        return None
    occ = occupied.copy()
    gaps = np.nonzero(~occ[1:-1] & occ[:-2] & occ[2:])[0] + 1
    occ[gaps] = True
    start = int(idx[np.argmin(np.abs(idx - centre))])
    lo = hi = start
    while lo > 0 and occ[lo - 1]:
        lo -= 1
    while hi < len(occ) - 1 and occ[hi + 1]:
        hi += 1
    return lo, hi


def _visible_body(
    scene: Scene, region: np.ndarray, box: tuple[int, int, int, int] | None = None
) -> np.ndarray:
    """The person outside the garment and the edit, without the backdrop that the person
    mask's soft outline takes in (a gap between an arm and the body, between the legs).
    Worked out over ``box`` (y0, y1, x0, x1) only; False elsewhere."""
    h, w = region.shape
    y0, y1, x0, x1 = box if box is not None else (0, h, 0, w)
    person = scene.person if scene.person is not None else np.ones_like(region)
    out = np.zeros_like(region)
    sl = (slice(y0, y1), slice(x0, x1))
    vis = person[sl] & ~scene.mask[sl] & ~region[sl]
    back = ~person[sl] & ~scene.mask[sl]
    if back.sum() > 50:
        lab = srgb8_to_oklab(scene.rgb[sl])
        ref = np.median(lab[back][:: max(1, int(back.sum()) // 4000)], axis=0)
        vis &= np.linalg.norm(lab - ref, axis=-1) > 0.04
    out[sl] = vis
    return out


# A garment edge lying on skin darkens it by this share right at the edge, falling off over
# this share of the shoulders' width.
CONTACT_SHADOW = 0.25
CONTACT_REACH = 0.01


# Skin texture bands, (inner, outer) Gaussian sigmas in px: pores and fine hair, then the
# blotches a few pixels across. A drawn limb gets noise with the visible skin's own strength in
# each band: lit-cylinder shading alone reads as plastic.
SKIN_BANDS = ((0.7, 2.5), (2.5, 6))
# The share of each band's measure that is drawn: the measure takes in the visible arm's light
# changing along it (the elbow's fold, a vein, hair) as well as its grain.
GRAIN_SHARE = 0.5


def _skin_grain(lum: np.ndarray, sample: np.ndarray, fallback: float,
                rng: np.random.Generator) -> np.ndarray:
    """Noise over ``lum``'s shape with, in each of SKIN_BANDS, the strength (robust spread)
    of ``lum``'s band-passed detail over ``sample``; with too little sample, a fine grain of
    ``fallback``."""
    out = np.zeros(lum.shape, np.float32)
    for inner, outer in SKIN_BANDS:
        if sample.sum() >= 40:
            band = cv2.GaussianBlur(lum, (0, 0), inner) - cv2.GaussianBlur(lum, (0, 0), outer)
            vals = band[sample]
            want = 1.4826 * float(np.median(np.abs(vals - np.median(vals))))
        else:
            want = fallback if inner == SKIN_BANDS[0][0] else 0.0
        noise = rng.normal(0, 1, lum.shape).astype(np.float32)
        noise = cv2.GaussianBlur(noise, (0, 0), inner) - cv2.GaussianBlur(noise, (0, 0), outer)
        out += noise * (GRAIN_SHARE * min(want, 6.0) / max(float(noise.std()), 1e-3))
    return out


def continue_arm(
    scene: Scene,
    region: np.ndarray,
    chain: list[np.ndarray],
    rival: list[np.ndarray] | None,
    sw: float,
) -> LimbFill | None:
    """The upper arm under a removed or shortened sleeve, drawn into ``region`` (what the edit
    uncovered).

    Its outline follows the pose's bones: as wide as the bare arm just below the old sleeve,
    widening a little up to the deltoid and ending round at the shoulder joint. Its colour is
    the bare arm's own skin, shaded as a lit cylinder fitted to the light across the visible
    arm (its lit side, its falloff to the edges), with the visible arm's own grain; it fades
    into the real arm past the old sleeve's edge. Its round at the shoulder rises to meet the
    garment's shoulder line, and the cut garment edge casts a soft shadow on it. An arm half
    hidden by a turned body keeps its outer edge; the garment the sleeve lay over inside it
    stays garment (``keep``). None when the
    region holds nothing of this arm; EngineError (``implausible_fill``) when too little bare
    arm shows below the sleeve to read its width and skin."""
    h, w = region.shape
    length = sum(float(np.hypot(*(b - a))) for a, b in zip(chain, chain[1:], strict=False))
    max_half = 0.28 * sw
    pts = np.array(chain)
    cy0, cx0 = (pts.min(axis=0)[::-1] - 1.5 * max_half).astype(int)
    cy1, cx1 = (pts.max(axis=0)[::-1] + 1.5 * max_half).astype(int)
    near = np.zeros_like(region)
    near[max(0, cy0) : max(0, cy1), max(0, cx0) : max(0, cx1)] = True
    region = region & near
    ys, xs = np.nonzero(region)
    if not len(ys):
        return None
    pad = int(max_half + 0.12 * length) + 2
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    s, d, dist, joints = _chain_coords(chain, xx, yy)
    own = dist <= max_half
    if rival is not None:
        _, _, rdist, _ = _chain_coords(rival, xx, yy)
        own &= dist <= rdist
    reg = region[y0:y1, x0:x1] & own
    if reg.sum() < max(20, 0.002 * length * length):
        return None
    centre_x = _mean_point(scene.points, "left_shoulder", "right_shoulder")
    s_edge = float(np.percentile(s[reg], 99.5))
    s_start = float(np.percentile(s[reg], 0.5))
    # The bare arm is read a little below the old edge (past the sleeve's shadow) over a
    # stretch long enough for its light not to hang on one fold.
    off, lref = max(3.0, 0.05 * length), max(8.0, 0.12 * length)
    # The bare arm just below the old sleeve: skin, not garment, not the edit.
    sub = (slice(y0, y1), slice(x0, x1))
    bare = scene.skin[sub] & ~scene.mask[sub] & ~region[sub]
    if scene.person is not None:
        bare &= cv2.dilate(scene.person[sub].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    # The skin finder misses an arm's shaded side: the person there, unlike the backdrop,
    # is arm too.
    bare |= _visible_body(scene, region, (y0, y1, x0, x1))[sub]
    band = own & bare & (s >= s_edge + off) & (s < s_edge + off + lref)
    span = int(np.ceil(max_half))
    b_s, b_d = s[band], d[band]
    b_bin = np.floor(b_s - (s_edge + off)).astype(int)
    runs = []
    for i_bin, b0 in enumerate(np.arange(s_edge + off, s_edge + off + lref, 1.0)):
        sel = b_bin == i_bin
        if sel.sum() < 3:
            continue
        occupied = np.zeros(2 * span + 1, bool)
        occupied[np.clip(np.round(b_d[sel]).astype(int) + span, 0, 2 * span)] = True
        run = _limb_width_at(occupied, span)
        if run is not None and run[1] - run[0] >= 3:
            runs.append((run[0] - span, run[1] - span + 1, b0 + 0.5))
    if len(runs) < 4:
        raise EngineError(
            "implausible_fill",
            "The arms do not show below the sleeves, so the skin and width of the upper arm "
            "this change uncovers would have to be invented: Reshape only continues arms it "
            "can see.",
        )
    arr = np.array(runs, np.float64)
    dl, dr, s_r = (float(np.median(arr[:, i])) for i in range(3))
    # An arm beside a turned torso shows only its outer part: its inner edge is the garment's
    # outline, not the arm's. Its outer edge holds, and the arm reaches in under the garment
    # as wide as an arm is for these shoulders (or as the part that shows, if wider).
    seg0 = chain[1] - chain[0]
    n0 = np.array([-seg0[1], seg0[0]]) / max(float(np.hypot(*seg0)), 1.0)
    towards = 1.0
    if centre_x is not None:
        towards = 1.0 if float((centre_x - chain[0]) @ n0) > 0 else -1.0
    inner = dr if towards > 0 else dl
    r_g = max(2, int(round(0.03 * sw)))
    ring = np.ones((2 * r_g + 1, 2 * r_g + 1), np.uint8)
    gar_near = cv2.dilate(scene.mask[sub].astype(np.uint8), ring) > 0
    rim = band & (np.abs(d - inner) <= 1.5)
    hidden = rim.sum() >= 4 and float(gar_near[rim].mean()) > 0.5
    shown = dr - dl
    keep = None
    if hidden and shown < 0.16 * sw:
        # Much of the arm is behind the body: the garment uncovered inside the arm's line
        # (below the shoulder's round) is the body's side the sleeve lay over, and stays.
        keep = reg & ((d - inner) * towards > 0.0) & (s > 0.0)
        keep_d, keep_line = d.copy(), inner
    elif hidden and shown < ARM_WIDTH_SW * sw:
        if towards > 0:
            dr = dl + ARM_WIDTH_SW * sw
        else:
            dl = dr - ARM_WIDTH_SW * sw
    if shown < (0.03 if hidden else 0.05) * sw:
        raise EngineError(
            "implausible_fill",
            "Too little of the arm shows below the sleeve (it is hidden behind the body or "
            "turned away) to read its width and skin: the upper arm would have to be invented.",
        )
    # The visible arm's own light across it: lightness against the place across the arm (-1
    # at one edge, 1 at the other) fitted as a smooth curve, so neither a fold's shadow nor
    # a contact shadow at its side is carried along the arm as a streak.
    ref = band & (d >= dl) & (d <= dr)
    centre, half_r = (dl + dr) / 2.0, (dr - dl) / 2.0
    px = scene.rgb[sub][ref].astype(np.float32)
    u_ref = (d[ref] - centre) / max(half_r, 1.0)
    core = np.abs(u_ref) < 0.85
    if core.sum() < 12:
        core = np.ones_like(core)
    lum = px.mean(axis=1)
    if hidden:
        # Only part of the width shows: its light gives the level and the side the light
        # comes from; the falloff to the edges is a plain cylinder's.
        basis = np.stack([1.0 - 0.15 * u_ref * u_ref, u_ref], axis=1)[core]
        cf, *_ = np.linalg.lstsq(basis, lum[core], rcond=None)
        cf = np.array([cf[0], cf[1], -0.15 * cf[0]])
    else:
        basis = np.stack([np.ones_like(u_ref), u_ref, u_ref * u_ref], axis=1)[core]
        cf, *_ = np.linalg.lstsq(basis, lum[core], rcond=None)
    b0 = max(float(cf[0]), 1.0)
    b1 = float(np.clip(cf[1], -0.25 * b0, 0.25 * b0))
    b2 = float(np.clip(cf[2], -0.35 * b0, -0.06 * b0))
    basis = np.stack([np.ones_like(u_ref), u_ref, u_ref * u_ref], axis=1)[core]
    resid = lum[core] - basis @ np.array([b0, b1, b2])
    grain = float(np.clip(1.4 * np.median(np.abs(resid - np.median(resid))), 0.0, 3.0))
    # Each channel against the lightness, as the visible skin has it: skin turning from the
    # light darkens and warms, which one hue scaled darker would turn grey.
    l_mean = float(lum[core].mean())
    l_var = float(((lum[core] - l_mean) ** 2).mean())
    chroma = []
    for c in range(3):
        ch = px[core, c]
        slope = float(((lum[core] - l_mean) * (ch - ch.mean())).mean()) / max(l_var, 1e-3)
        ratio = float(ch.mean()) / max(l_mean, 1.0)
        slope = float(np.clip(slope, 0.6 * ratio, 1.6 * ratio)) if l_var > 4.0 else ratio
        chroma.append((float(ch.mean()), slope))
    # The arm's line: the bones moved across by the visible arm's offset from them.
    k_seg = int(np.searchsorted(joints, s_r, side="right") - 1)
    k_seg = int(np.clip(k_seg, 0, len(chain) - 2))
    seg = chain[k_seg + 1] - chain[k_seg]
    n = np.array([-seg[1], seg[0]]) / max(float(np.hypot(*seg)), 1.0)
    moved = [c + centre * n for c in chain]
    s_old = s
    s, d, _, joints = _chain_coords(moved, xx, yy)
    f = _arm_taper(s, joints) / float(_arm_taper(np.array([s_r]), joints)[0])
    half = half_r * f
    # Round at the shoulder: before the first joint ``d`` is the distance to it, and the arm
    # keeps the deltoid's width there. Its light still runs across the arm, not around the
    # joint.
    alpha = np.clip((half - np.abs(d)) / 1.2 + 0.5, 0.0, 1.0)
    seg0 = moved[1] - moved[0]
    ln0 = max(float(np.hypot(*seg0)), 1.0)
    n0 = np.array([-seg0[1], seg0[0]]) / ln0
    across = np.where(s <= 0.0, (xx - moved[0][0]) * n0[0] + (yy - moved[0][1]) * n0[1], d)
    # Where the uncovered part starts below the shoulder joint's round (the garment's
    # shoulder still covers the top of the arm), the round moves down into it: the arm never
    # ends in a square cut at the edge of what was uncovered.
    t_lin = ((xx - moved[0][0]) * seg0[0] + (yy - moved[0][1]) * seg0[1]) / ln0
    half0 = float(half_r * _arm_taper(np.array([0.0]), joints)[0]) / float(
        _arm_taper(np.array([s_r]), joints)[0]
    )
    # Where it starts above the joint (the garment's shoulder line runs higher than the
    # round), the round moves up to meet that line, within half its radius: a round at the
    # joint left the garment's cut standing above the arm as a square corner. The region
    # reaches ``grow`` px past the sleeve.
    grow = _fill_growth((h, w))
    top_sel = reg & (np.abs(across) < 0.5 * half0) & (t_lin < joints[1])
    if top_sel.any():
        t_c = float(np.clip(float(t_lin[top_sel].min()) + grow + half0, -0.5 * half0,
                            0.5 * joints[1]))
        if t_c != 0.0:
            straight = (t_lin >= t_c) & (t_lin < 0.0)
            alpha = np.where(straight, np.clip((half0 - np.abs(across)) / 1.2 + 0.5, 0.0, 1.0),
                             alpha)
            cap = t_lin < t_c
            radial = np.hypot(t_c - t_lin, across)
            alpha = np.where(cap, np.clip((half0 - radial) / 1.2 + 0.5, 0.0, 1.0), alpha)
    u = np.clip(across / np.maximum(half, 1e-3), -1.0, 1.0)
    light = b0 + b1 * u + b2 * u * u
    # The turn away from the camera darkens the last fifth of the width a little more, so
    # the outline reads as a rounded limb.
    edge = np.clip((np.abs(u) - 0.75) / 0.25, 0.0, 1.0)
    light = light * (1.0 - 0.12 * edge * edge)
    # The visible arm's own texture (pores, blotches, fine hair), a little inside its edges.
    lum_box = scene.rgb[sub].astype(np.float32).mean(axis=2)
    inner_arm = cv2.erode((own & bare & (s_old >= s_edge + off)).astype(np.uint8),
                          np.ones((2 * int(SKIN_BANDS[-1][1]) + 1,) * 2, np.uint8)) > 0
    light = light + _skin_grain(lum_box, inner_arm, grain, np.random.default_rng(7))
    rgb = np.stack([m + k * (light - l_mean) for m, k in chroma], axis=-1)
    # Over the old sleeve's shadow just past its edge the drawn arm covers the real one, then
    # fades into it.
    ramp = np.clip((s_edge + off - s) / max(0.5 * off, 1.0), 0.0, 1.0)
    # Within the arm's outline the old hem's shadow on the skin goes too, however dark (the
    # person there, below a slanted hem, may lie above the hem's lowest point).
    arm_px = bare if scene.person is None else (bare | (scene.person[sub] & ~scene.mask[sub]))
    zone = own & (s <= s_edge + off) & (reg | arm_px)
    alpha = alpha * np.where(reg, 1.0, ramp)
    if keep is not None:
        # The arm ends at the body's side, its last pixel shared with the garment.
        alpha = alpha * np.clip((keep_line - keep_d) * towards + 0.5, 0.0, 1.0)
        zone &= ~keep | (alpha > 0)
    # Scraps of the old sleeve's hem that the garment mask missed (its shaded underside, a
    # frill) stay beside the arm's outline near the old edge: neither skin nor backdrop in
    # colour, they go to the backdrop fill.
    scraps = None
    back = ~scene.mask[sub] & ~bare & ~region[sub]
    if scene.person is not None:
        back &= ~scene.person[sub]
    if back.sum() > 50:
        lab = srgb8_to_oklab(scene.rgb[sub])
        back_lab = np.median(lab[back][:: max(1, int(back.sum()) // 2000)], axis=0)
        r_s = max(2, int(round(0.04 * sw)))
        ring_s = np.ones((2 * r_s + 1, 2 * r_s + 1), np.uint8)
        near_reg = cv2.dilate(region[sub].astype(np.uint8), ring_s) > 0
        scraps = (
            near_reg
            & own
            & ~scene.mask[sub]
            & ~scene.skin[sub]
            & (alpha * zone < 0.05)
            & (np.abs(s - s_edge) <= off)
            & (np.abs(d) > half)
            & (np.linalg.norm(lab - back_lab, axis=-1) > 0.05)
        )
    # Above the old edge the arm is drawn: a sliver of the real one (its shaded rim under a
    # slanted hem) just past the drawn outline stood out as a dark tick; it goes to the
    # backdrop fill too.
    sliver = (region[sub] & own & ~scene.mask[sub] & (alpha * zone < 0.05) & (s < s_edge)
              & (np.abs(d) > half))
    scraps = sliver if scraps is None else scraps | sliver
    return LimbFill(
        box=(y0, y1, x0, x1),
        rgb=rgb.astype(np.float32),
        alpha=(alpha * zone).astype(np.float32),
        zone=zone & reg,
        width=dr - dl,
        invented=max(0.0, s_edge - s_start),
        keep=keep,
        scraps=scraps,
    )


def _leg_runs(row: np.ndarray, lum: np.ndarray, lo: int, hi: int, min_w: int, pair_w: float):
    """The legs in one row of visible body: one or two (left, right) spans of columns."""
    runs = [(a, b) for a, b in _runs(row) if b - a + 1 >= min_w and b >= lo and a <= hi]
    if not runs:
        return []
    runs = sorted(runs, key=lambda r: r[1] - r[0], reverse=True)[:2]
    runs.sort()
    if len(runs) == 1 and runs[0][1] - runs[0][0] + 1 > pair_w:
        # Two legs side by side read as one span: split at the darkest column of its middle
        # (where they meet, the light falls off).
        a, b = runs[0]
        m0, m1 = a + int(0.3 * (b - a)), b - int(0.3 * (b - a))
        prof = np.convolve(lum[m0 : m1 + 1], np.ones(3) / 3, mode="same")
        cut = m0 + int(np.argmin(prof[1:-1])) + 1 if m1 - m0 > 3 else (a + b) // 2
        runs = [(a, cut - 1), (cut + 1, b)]
    return runs


# The most of a leg a shorter hem may bare, as a share of the hip-to-ankle length: a
# knee-length hem raised to mid-thigh bares about a quarter of it, a midi raised to a mini half
# of it, knee and all, which a drawn leg cannot make look real.
MAX_BARED_LEG = 0.45


def _check_legs_drawable(scene: Scene, leg_len: float, bared: float, sw: float) -> None:
    """Refuse a leg fill that could only be guessed: knees outside the photo (the legs' shape
    cannot be read from the pose), more of the leg bared than MAX_BARED_LEG, or legs crossed
    (one hides the other where the fill would run)."""
    h = scene.shape[0]
    p = scene.points
    knees = [p[f"{side}_knee"] for side in ("left", "right") if f"{side}_knee" in p]
    if len(knees) < 2 or max(k[1] for k in knees) > h - 0.02 * leg_len:
        raise EngineError(
            "legs_not_drawable",
            "The wearer's knees are not in the photo, so the shape of the legs a shorter hem "
            "uncovers cannot be read from the pose: Reshape shortens hems on photos that show "
            "the legs down to below the knees.",
        )
    if bared > MAX_BARED_LEG * leg_len:
        raise EngineError(
            "legs_not_drawable",
            f"Shortening the {scene.garment} that much would uncover "
            f"{100 * bared / leg_len:.0f}% of the legs' length, knees included, which would "
            f"have to be invented: up to {100 * MAX_BARED_LEG:.0f}% can be uncovered.",
        )
    for joint in ("knee", "ankle"):
        lj, rj = p.get(f"left_{joint}"), p.get(f"right_{joint}")
        lh, rh = p.get("left_hip"), p.get("right_hip")
        if lj is None or rj is None or lh is None or rh is None:
            continue
        # The legs' order across the photo flips between hips and knees (or ankles): one leg
        # crosses in front of the other.
        if (lj[0] - rj[0]) * (lh[0] - rh[0]) < 0 and abs(lj[0] - rj[0]) > 0.08 * sw:
            raise EngineError(
                "legs_not_drawable",
                "The wearer's legs are crossed, so one hides the other where a shorter hem "
                "would uncover them: Reshape shortens hems on photos where the legs stand "
                "apart or side by side.",
            )


def continue_legs(scene: Scene, region: np.ndarray) -> list[LimbFill]:
    """Legs drawn into ``region`` (what a shorter hem uncovered) as they continue from where
    they show below the old hem: each leg's width and place are read on the visible legs just
    below the hem and carried up the pose's knee and hip with a thigh's taper, its outline
    eased onto the real leg's at the old hem; its colours are the visible leg's own, lit
    across it like a cylinder, with the photo's grain, a soft shadow under the new hem, and
    corrected to meet the real leg without a line. Refuses when no leg shows below the hem,
    and when the legs could only be guessed (``_check_legs_drawable``)."""
    h, w = region.shape
    p = scene.points
    hp = _mean_point(p, "left_hip", "right_hip")
    kn = _mean_point(p, "left_knee", "right_knee")
    an = _mean_point(p, "left_ankle", "right_ankle")
    if hp is None or kn is None:
        raise EngineError(
            "implausible_fill",
            "The wearer's hips and knees are not both in the photo, so the legs a shorter hem "
            "uncovers cannot be drawn from them.",
        )
    sw = _shoulder_width(scene)
    hip_y, knee_y = float(hp[1]), float(kn[1])
    ankle_y = float(an[1]) if an is not None else knee_y + 0.95 * (knee_y - hip_y)
    leg_len = max(ankle_y - hip_y, 10.0)
    cols = np.nonzero(region.any(axis=0))[0]
    if not len(cols):
        return []
    hem_col = np.full(w, -1, np.int64)
    rows_idx = np.arange(h)[:, None]
    hem_col[cols] = np.where(region[:, cols], rows_idx, -1).max(axis=0)
    hem_y = int(np.percentile(hem_col[cols], 90))
    off, lref = max(3, int(0.03 * leg_len)), max(6, int(0.06 * leg_len))
    if hem_y + off + lref > ankle_y - 0.04 * leg_len:
        raise EngineError(
            "implausible_fill",
            f"The hem of the {scene.garment} is at the ankles, so no leg shows below it: a shorter hem "
            "would have to invent the legs. Reshape only continues legs it can see.",
        )
    y_top = int(np.nonzero(region.any(axis=1))[0][0])
    visible = _visible_body(scene, region, (y_top, min(h, hem_y + off + lref + 2), 0, w))
    lum = scene.rgb.astype(np.float32).mean(axis=2)
    lo, hi = int(hp[0] - 0.7 * sw), int(hp[0] + 0.7 * sw)
    min_w = max(3, int(0.04 * sw))
    pair_w = 0.42 * sw
    spans: dict[int, list[tuple[int, int, int]]] = {0: [], 1: [], 2: []}
    for y in range(hem_y + off, min(h, hem_y + off + lref)):
        runs = _leg_runs(visible[y], lum[y], lo, hi, min_w, pair_w)
        if len(runs) == 1:
            spans[1].append((y, runs[0][0], runs[0][1]))
        elif len(runs) == 2:
            spans[2].append((y, runs[0][0], runs[0][1]))
            spans[2].append((y, runs[1][0], runs[1][1]))
    two = len(spans[2]) // 2
    if max(two, len(spans[1])) < 4:
        raise EngineError(
            "implausible_fill",
            "The legs do not show below the hem, so the skin a shorter hem uncovers would have "
            "to be invented: Reshape only continues legs it can see.",
        )
    # How far up the legs the hem goes: between the hips, where the legs are (the region's
    # sides may reach higher where the garment's outline narrowed).
    mid = region[:, max(0, int(hp[0] - 0.3 * sw)) : max(1, int(hp[0] + 0.3 * sw))]
    mid_cols = mid.any(axis=0)
    new_hem = float(np.median(mid.argmax(axis=0)[mid_cols])) if mid_cols.any() else y_top
    _check_legs_drawable(scene, leg_len, hem_y - new_hem, sw)
    if two >= len(spans[1]):
        legs = [spans[2][0::2], spans[2][1::2]]
    else:
        legs = [spans[1]]
    f_of = lambda y: _leg_taper(  # noqa: E731
        np.asarray(y, np.float64) - hip_y, [0.0, knee_y - hip_y, ankle_y - hip_y]
    )
    y_end = min(h, hem_y + off + 1)
    yy = np.arange(y_top, y_end, dtype=np.float64)
    xx = np.arange(w, dtype=np.float64)[None, :]
    reg = region[y_top:y_end]
    # The new hem's soft shadow on the legs just under it, following the hem's line.
    first = np.where(region.any(axis=0), region.argmax(axis=0), h).astype(np.float32)
    first = cv2.GaussianBlur(first[None, :], (0, 0), sigmaX=max(1.0, 0.02 * sw))[0]
    dy = np.clip(yy[:, None] - first[None, :], 0, None)
    hem_shadow = 1.0 - 0.16 * np.exp(-dy / max(1.5, 0.012 * h))
    # Inside what was uncovered the leg is drawn in full; just below the old hem it fades
    # smoothly into the real leg, so the old hem's shadow goes too and no line shows.
    below = (yy[:, None] - hem_col[None, :]).astype(np.float64)
    t_r = np.clip(below / off, 0.0, 1.0)
    ramp = (1.0 - t_r * t_r * (3 - 2 * t_r)) * (hem_col[None, :] >= 0)
    vis = visible[y_top:y_end] & (below > 0)
    fills = []
    outline = np.zeros(reg.shape, bool)
    for i, leg in enumerate(legs):
        arr = np.array(leg, np.float64)
        c_r, w_r, y_r, slope = _leg_line(arr)
        # Up the thigh the leg moves towards its hip joint; touching thighs meet in the middle.
        w_top = w_r * float(f_of(hip_y) / f_of(y_r))
        if len(legs) == 2:
            side = -1 if i == 0 else 1
            c_hip = float(hp[0]) + side * max(
                abs(p.get("left_hip", hp)[0] - p.get("right_hip", hp)[0]) / 2, w_top / 2
            )
        else:
            c_hip = c_r
        bones = _leg_bones(p, i, len(legs), c_hip, (c_r, y_r, slope), yy, 0.04 * leg_len)
        if bones is not None:
            centre = bones[:, None]
        else:
            # Legs together (one span): the line leaves the visible part in its own
            # direction, bending smoothly towards the hips (a Hermite curve).
            k = np.clip((y_r - yy) / max(y_r - hip_y, 1.0), 0.0, 1.0)
            m0 = -slope * (y_r - hip_y)
            h00, h10 = 2 * k**3 - 3 * k**2 + 1, k**3 - 2 * k**2 + k
            h01, h11 = -2 * k**3 + 3 * k**2, k**3 - k**2
            centre = h00 * c_r + h10 * m0 + h01 * c_hip + h11 * (c_hip - c_r)
            centre = np.where(yy > y_r, c_r + slope * (yy - y_r), centre)[:, None]
        half = (w_r / 2 * f_of(yy) / f_of(y_r))[:, None]
        centre, half = _snap_to_real_leg(visible, hem_col, yy, centre, half, off, 0.12 * leg_len)
        # A real leg's outline is a little soft (the lens, the skin's turn): about 1.5 px.
        alpha = np.clip((half - np.abs(xx - centre)) / 1.5 + 0.5, 0.0, 1.0)
        u = np.clip((xx - centre) / np.maximum(half, 1e-3), -1, 1)
        rgb = _leg_shading(scene.rgb, arr, u, 7 + i)
        a = alpha * np.where(reg, 1.0, np.where(vis, ramp, 0.0))
        rgb = _meet_real_leg(scene.rgb[y_top:y_end], rgb, a, vis, 0.08 * leg_len)
        rgb = rgb * hem_shadow[..., None]
        fills.append(
            LimbFill(
                box=(y_top, y_end, 0, w),
                rgb=rgb.astype(np.float32),
                alpha=a.astype(np.float32),
                zone=reg & (alpha > 0.5),
                width=w_r,
                invented=float(y_r - y_top),
            )
        )
        outline |= alpha > 0.02
    if fills:
        fills[0].scraps = _hem_scraps(scene, region, visible, outline, hem_col, (y_top, y_end), sw)
    return fills


def _hem_scraps(
    scene: Scene,
    region: np.ndarray,
    visible: np.ndarray,
    outline: np.ndarray,
    hem_col: np.ndarray,
    rows: tuple[int, int],
    sw: float,
) -> np.ndarray:
    """Over ``rows``: what the garment mask missed of the old hem beside the legs (its
    shaded rim, the corners of its outline, which the person's outline takes in): up to
    just below the old hem, near what was uncovered, outside the drawn legs, not skin and not
    the backdrop's colour. Left, they would float beside the new legs as dark specks; they go
    to the backdrop fill."""
    y0, y1 = rows
    sub = (slice(y0, y1), slice(None))
    r = max(2, int(round(0.05 * sw)))
    near = cv2.dilate(region[sub].astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    clear = cv2.dilate(outline.astype(np.uint8), np.ones((5, 5), np.uint8)) == 0
    ys = np.arange(y0, y1)[:, None]
    old_hem = cv2.dilate(hem_col[None, :].astype(np.float32), np.ones((1, 2 * r + 1)))[0]
    above = (ys <= old_hem[None, :] + r) & (old_hem[None, :] >= 0)
    cand = near & clear & above & ~scene.mask[sub] & ~scene.skin[sub]
    back = ~scene.mask[sub] & ~visible[sub] & ~near
    if scene.person is not None:
        back &= ~scene.person[sub]
    if back.sum() < 50 or not cand.any():
        return np.zeros(outline.shape, bool)
    lab = srgb8_to_oklab(scene.rgb[sub])
    back_lab = np.median(lab[back][:: max(1, int(back.sum()) // 2000)], axis=0)
    return cand & (np.linalg.norm(lab - back_lab, axis=-1) > 0.05)


def _meet_real_leg(
    real: np.ndarray, drawn: np.ndarray, alpha: np.ndarray, vis: np.ndarray, reach: float
) -> np.ndarray:
    """``drawn`` corrected, column by column, by what it misses of the real leg where it fades
    into it below the old hem; the correction fades out over ``reach`` rows upwards. The
    drawn leg then meets the real one in colour and light with no line across the leg."""
    seam = vis & (alpha > 0.05) & (alpha < 0.95)
    if seam.sum() < 10:
        return drawn
    diff = np.where(seam[..., None], real.astype(np.float32) - drawn, 0.0)
    cnt = seam.sum(axis=0).astype(np.float32)
    col = diff.sum(axis=0) / np.maximum(cnt, 1.0)[:, None]
    # Columns without a seam take their neighbours' correction (smoothed by weight).
    wgt = cv2.GaussianBlur((cnt > 0).astype(np.float32)[None, :], (0, 0), 3.0)[0]
    col = cv2.GaussianBlur(col[None].astype(np.float32), (0, 0), sigmaX=3.0, sigmaY=0.01)[0]
    col = col / np.maximum(wgt, 1e-3)[:, None] * (wgt > 0.05)[:, None]
    ys = np.arange(alpha.shape[0], dtype=np.float32)[:, None]
    seam_row = np.where(cnt > 0, seam.argmax(axis=0), alpha.shape[0]).astype(np.float32)
    seam_row = cv2.GaussianBlur(seam_row[None, :], (0, 0), 3.0)[0]
    fade = np.exp(-np.clip(seam_row[None, :] - ys, 0, None) / max(reach, 2.0))
    return drawn + col[None, :, :] * fade[..., None]


def _leg_bones(
    p: dict[str, tuple[float, float]],
    i: int,
    n_legs: int,
    hip_x: float,
    start: tuple[float, float, float],
    yy: np.ndarray,
    smooth: float,
) -> np.ndarray | None:
    """The x of the ``i``-th leg from the left at rows ``yy``, as two straight bones: the shin
    goes on up to the knee's height in the direction the visible leg takes (``start``: its
    centre, row and slope where it shows; a knee under a skirt is only the pose's guess), the
    thigh runs from the knee to the hip joint at ``hip_x``; the knee's corner is rounded over
    ``smooth`` rows. None when the legs are drawn as one or the pose lacks the knee."""
    if n_legs != 2:
        return None
    sides = []
    for side in ("left", "right"):
        hip, knee = p.get(f"{side}_hip"), p.get(f"{side}_knee")
        if hip is None or knee is None:
            return None
        sides.append((hip, knee))
    sides.sort(key=lambda j: j[1][0])
    hip, knee = sides[i]
    c_r, y_r, slope = start
    if not hip[1] + 1.0 < knee[1] < y_r - 1.0:
        # The knee shows below the hem: the visible leg's line goes straight to the hip.
        ys, xs = [hip[1], y_r], [hip_x, c_r]
    else:
        ys, xs = [hip[1], knee[1], y_r], [hip_x, c_r + slope * (knee[1] - y_r), c_r]
    bones = np.interp(yy, ys, xs).astype(np.float32)
    bones += np.where(yy > y_r, (yy - y_r) * slope, 0.0).astype(np.float32)
    bones = cv2.GaussianBlur(bones[:, None], (1, 0), sigmaX=0.1, sigmaY=max(1.0, smooth))
    return bones[:, 0].astype(np.float64)


def _snap_to_real_leg(
    visible: np.ndarray,
    hem_col: np.ndarray,
    yy: np.ndarray,
    centre: np.ndarray,
    half: np.ndarray,
    off: int,
    reach: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The drawn leg's edges (``centre`` +- ``half`` over rows ``yy``) eased, over ``reach``
    rows above the old hem, onto the real leg's edges just below it: a leg's outline changes
    fast near the knee, and the line read lower down would meet it with a step."""
    c0 = float(centre[-1, 0])
    w0 = 2.0 * float(half[-1, 0])
    cols = np.arange(max(0, int(c0 - w0 / 2)), min(len(hem_col), int(c0 + w0 / 2) + 1))
    cols = cols[hem_col[cols] >= 0]
    if not len(cols):
        return centre, half
    local = int(np.median(hem_col[cols]))
    edges = []
    for y in range(local + 2, min(visible.shape[0], local + off + 3)):
        runs = [r for r in _runs(visible[y]) if r[0] <= c0 <= r[1]]
        if runs:
            edges.append((runs[0][0], runs[0][1] + 1.0))
    if len(edges) < 2:
        return centre, half
    left, right = (float(v) for v in np.median(np.array(edges), axis=0))
    i_hem = int(np.clip(np.searchsorted(yy, local), 0, len(yy) - 1))
    w_hem = 2.0 * float(half[i_hem, 0])
    if not 0.7 * w_hem <= right - left <= 1.4 * w_hem:
        return centre, half  # two legs as one, or a hand beside the leg: keep the drawn line
    t = np.clip(1.0 - (local - yy) / max(reach, 2.0), 0.0, 1.0)[:, None]
    t = t * t * (3 - 2 * t)
    lo = (centre - half) * (1 - t) + left * t
    hi = (centre + half) * (1 - t) + right * t
    return (lo + hi) / 2, (hi - lo) / 2


def _leg_line(arr: np.ndarray) -> tuple[float, float, float, float]:
    """(centre, width, row, slope dx/dy) of a leg where it first shows below the hem, from its
    spans (row, left, right) there: its edges fitted as lines, so the drawn leg meets the real
    one at the same place and width, not at the average of a stretch that tapers."""
    cy, left, right = arr[:, 0], arr[:, 1], arr[:, 2] + 1.0
    y_r = float(cy.min())
    w_med = float(np.median(right - left))
    if np.ptp(cy) > 2:
        fl, fr = np.polyfit(cy, left, 1), np.polyfit(cy, right, 1)
        l_r, r_r = float(np.polyval(fl, y_r)), float(np.polyval(fr, y_r))
        slope = float(np.clip((fl[0] + fr[0]) / 2, -0.6, 0.6))
    else:
        l_r, r_r, slope = float(np.median(left)), float(np.median(right)), 0.0
    width = float(np.clip(r_r - l_r, 0.85 * w_med, 1.15 * w_med))
    return (l_r + r_r) / 2, width, y_r, slope


def _leg_shading(rgb: np.ndarray, arr: np.ndarray, u: np.ndarray, seed: int) -> np.ndarray:
    """A leg's colours at ``u`` (-1..1 across it), read off its visible spans ``arr`` (row,
    left, right): the light across the leg as a smooth, cylinder-like profile per channel
    (the real one's lit side and its falloff to the edges, without the streaks a copied row
    would draw down the leg), then the photo's own grain and faint mottling, measured on the
    same skin, so the fill is not smoother than the leg it continues."""
    nb = 24
    px, us = [], []
    for y, a, b in arr.astype(int):
        px.append(rgb[y, a : b + 1].astype(np.float32))
        us.append((np.arange(b - a + 1) + 0.5) / (b - a + 1) * 2 - 1)
    px_a, u_a = np.concatenate(px), np.concatenate(us)
    bins = np.clip(((u_a + 1) / 2 * nb).astype(int), 0, nb - 1)
    mids = (np.arange(nb) + 0.5) / nb * 2 - 1
    good = np.array([(bins == j).sum() >= 3 for j in range(nb)])
    med = np.stack([np.median(px_a[bins == j], axis=0) if good[j] else np.zeros(3, np.float32)
                    for j in range(nb)])
    deg = 4 if good.sum() >= 10 else 2
    coef = [np.polyfit(mids[good], med[good, c], deg) for c in range(3)]
    smooth = np.stack([np.polyval(cf, u) for cf in coef], axis=-1)
    # Grain: the skin's fine detail (each pixel less its 1.2 px blur) and mottling (its 3 px
    # blur less the profile), measured on the leg's inner part where no edge interferes.
    y0, y1 = int(arr[:, 0].min()), int(arr[:, 0].max()) + 1
    x0, x1 = int(arr[:, 1].min()), int(arr[:, 2].max()) + 1
    lum = rgb[y0:y1, x0:x1].astype(np.float32).mean(axis=2)
    fine = lum - cv2.GaussianBlur(lum, (0, 0), 1.2)
    coarse = cv2.GaussianBlur(lum, (0, 0), 3.0)
    f_vals, c_vals = [], []
    for y, a, b in arr.astype(int):
        n = b - a + 1
        lo, hi = a + int(0.2 * n), b - int(0.2 * n)
        if hi <= lo:
            continue
        uu = (np.arange(lo, hi + 1) - a + 0.5) / n * 2 - 1
        prof = np.polyval(coef[0], uu) + np.polyval(coef[1], uu) + np.polyval(coef[2], uu)
        f_vals.append(fine[y - y0, lo - x0 : hi + 1 - x0])
        c_vals.append(coarse[y - y0, lo - x0 : hi + 1 - x0] - prof / 3)
    rng = np.random.default_rng(seed)
    shape = u.shape
    noise = np.zeros(shape, np.float32)
    if f_vals:
        f_all, c_all = np.concatenate(f_vals), np.concatenate(c_vals)
        grain = 1.4826 * float(np.median(np.abs(f_all - np.median(f_all))))
        # Half of it: the spread takes in the leg's light changing along it too.
        mottle = 0.5 * float(np.std(c_all - np.median(c_all)))
        g = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), 0.6)
        g_hp = g - cv2.GaussianBlur(g, (0, 0), 1.2)
        noise += g * (min(grain, 6.0) / max(float(g_hp.std()), 1e-3))
        m = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), 4.0)
        noise += m * (min(mottle, 2.0) / max(float(m.std()), 1e-3))
    level = np.maximum(smooth.mean(axis=-1, keepdims=True), 1.0)
    return smooth * (1.0 + noise[..., None] / level)


def limb_chains(scene: Scene) -> dict[str, list[np.ndarray]]:
    p = scene.points
    out = {}
    for side in ("left", "right"):
        for kind, joints in (("arm", ("shoulder", "elbow", "wrist")), ("leg", ("hip", "knee", "ankle"))):
            chain = [np.array(p[f"{side}_{j}"], np.float64) for j in joints if f"{side}_{j}" in p]
            if len(chain) >= 2 and f"{side}_{joints[0]}" in p and f"{side}_{joints[1]}" in p:
                out[f"{side}_{kind}"] = chain
    return out


def _shoulder_width(scene: Scene) -> float:
    """The body's scale across: the shoulder landmarks' span, but never less than half the
    torso's height (a model turned a little, or a pose that folds the shoulders together)."""
    p = scene.points
    sw = 0.0
    if "left_shoulder" in p and "right_shoulder" in p:
        sw = float(np.hypot(*(np.array(p["left_shoulder"]) - p["right_shoulder"])))
    sh = _mean_point(p, "left_shoulder", "right_shoulder")
    hp = _mean_point(p, "left_hip", "right_hip")
    if sh is not None and hp is not None:
        sw = max(sw, 0.5 * float(hp[1] - sh[1]))
    return sw if sw > 0 else 0.25 * scene.shape[1]


def limb_fills(scene: Scene, region: np.ndarray, kinds: tuple[str, ...]) -> list[LimbFill]:
    chains = limb_chains(scene)
    sw = _shoulder_width(scene)
    fills = continue_legs(scene, region) if "leg" in kinds else []
    for name, chain in chains.items():
        side, kind = name.split("_")
        if kind not in kinds or kind == "leg":
            continue
        other = chains.get(f"{'right' if side == 'left' else 'left'}_{kind}")
        got = continue_arm(scene, region, chain, other, sw)
        if got is not None:
            fills.append(got)
    return fills


def _box(mask: np.ndarray, grow: float) -> tuple[int, int, int, int]:
    """(y0, y1, x0, x1) around ``mask``, grown by ``grow`` of the image's long side."""
    h, w = mask.shape
    ys, xs = np.nonzero(mask)
    if not len(ys):
        return 0, 0, 0, 0
    m = int(grow * max(h, w))
    return max(0, ys.min() - m), min(h, ys.max() + m + 1), max(0, xs.min() - m), min(
        w, xs.max() + m + 1
    )


def _fill_growth(shape: tuple[int, int]) -> int:
    """How far (px) ``fill_uncovered`` grows what an edit uncovered into what is not garment."""
    return max(2, int(0.006 * max(shape)))


def fill_uncovered(
    scene: Scene, uncovered: np.ndarray, limbs: tuple[str, ...] = ()
) -> None:
    """Fill what an edit took the garment off: skin on a wearer's body, else the backdrop.

    The region grows a few pixels into what is not garment, so the old outline's soft rim and
    contact shadow go with it.
    """
    if not uncovered.any():
        return
    h, w = uncovered.shape
    rgb = scene.rgb
    r = _fill_growth((h, w))
    grown = cv2.dilate(uncovered.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > 0
    grown &= ~scene.mask
    # Arms and legs the edit uncovers are continued from where they show (may refuse).
    fills = limb_fills(scene, uncovered | grown, limbs) if (scene.worn and limbs) else []
    handled = np.zeros_like(uncovered)
    scraps = np.zeros_like(uncovered)
    for lf in fills:
        y0, y1, x0, x1 = lf.box
        handled[y0:y1, x0:x1] |= lf.zone
        if lf.keep is not None:
            # The body's side a sleeve lay over, beside an arm half hidden by the body: it
            # stays garment, as it was.
            keep = np.zeros_like(uncovered)
            keep[y0:y1, x0:x1] = lf.keep
            keep &= uncovered
            scene.mask |= keep
            uncovered = uncovered & ~keep
            grown &= ~keep
        if lf.scraps is not None:
            scraps[y0:y1, x0:x1] |= lf.scraps
    on_body = None
    if scene.worn and scene.body is not None and not fills:
        on_body = uncovered & scene.body & ~handled
        on_body = (
            cv2.morphologyEx(on_body.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
            > 0
        )
    rest = grown & ~on_body if on_body is not None else grown
    if scene.worn and scene.person is not None:
        # Keep the visible body (arms, legs beside the garment) out of the backdrop fill.
        rest &= ~(scene.person & ~uncovered)
    grown |= scraps
    rest |= scraps
    if rest.any():
        backdrop = ~scene.mask & ~grown
        if scene.person is not None:
            backdrop &= ~scene.person
            if fills:
                # Only backdrop feeds the fill: a leg or arm the person mask missed would be
                # smeared up into the uncovered part as a ghost limb.
                backdrop &= ~_visible_body(scene, np.zeros_like(rest), _box(rest, 0.15))
        fill = inpaint_from(rgb, rest, backdrop)
        if fill is None:
            fill = np.empty_like(rgb)
            fill[:] = np.median(rgb[backdrop].reshape(-1, 3), axis=0) if backdrop.any() else 255
        # Beside a drawn arm the garment's new armhole keeps its own edge pixels: feathered
        # into the backdrop fill they would show as a pale line between arm and garment.
        _composite(rgb, fill, rest, 1.2, protect=scene.mask if "arm" in limbs else None)
    if on_body is not None and on_body.sum() > 0.0005 * on_body.size:
        visible_skin = scene.skin & ~scene.mask & ~uncovered
        fill = inpaint_from(rgb, on_body, visible_skin)
        shaded = _skin_fill(scene, on_body)
        if fill is None:
            fill = shaded
        else:
            # Continue the visible skin's colour and light; round the limb off at its sides.
            shade = shaded.astype(np.float32) / np.maximum(scene.skin_rgb[None, None, :], 1)
            fill = np.clip(fill.astype(np.float32) * (0.55 + 0.45 * shade), 0, 255).astype(np.uint8)
        _composite(rgb, fill, on_body, 1.2)
    sw = _shoulder_width(scene)
    # A sleeve's new edge (where it was cut) lies on the drawn arm and casts a soft contact
    # shadow on it. A leg draws its own shadow under the new hem (see continue_legs).
    cut = scene.mask & (cv2.dilate(uncovered.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0)
    shadow = CONTACT_SHADOW if "arm" in limbs else 0.0
    for lf in fills:
        y0, y1, x0, x1 = lf.box
        a = lf.alpha[..., None]
        patch = rgb[y0:y1, x0:x1].astype(np.float32)
        apart = cv2.distanceTransform((~cut[y0:y1, x0:x1]).astype(np.uint8), cv2.DIST_L2, 3)
        shade = 1.0 - shadow * np.exp(-apart / max(1.5, CONTACT_REACH * sw))
        limb = lf.rgb * shade[..., None]
        rgb[y0:y1, x0:x1] = np.clip(patch * (1 - a) + limb * a + 0.5, 0, 255).astype(np.uint8)


# --- geometry helpers -------------------------------------------------------------------------


def _solid(scene: Scene) -> np.ndarray:
    """The worn garment's mask with the specks it missed inside a printed or checked fabric
    filled: left out, they would show as holes in a cut or stretched hem."""
    mask = scene.mask
    h, w = mask.shape
    r = max(3, int(0.008 * max(h, w)))
    closed = cv2.morphologyEx(
        mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((2 * r + 1, 2 * r + 1), np.uint8)
    )
    holes = _fill_holes_mask(closed > 0) & ~mask
    if scene.person is not None:
        holes &= scene.person
    return mask | holes


def _hand_discs(scene: Scene) -> np.ndarray:
    """Discs over the hands (wrist and finger landmarks), which edits never take."""
    out = np.zeros(scene.shape, np.uint8)
    r = int(0.22 * _shoulder_width(scene))
    for side in ("left", "right"):
        pts = [scene.points[f"{side}_{j}"] for j in ("wrist", "index", "pinky", "thumb")
               if f"{side}_{j}" in scene.points]
        if pts:
            c = np.mean(np.array(pts), axis=0)
            cv2.circle(out, (int(c[0]), int(c[1])), r, 1, -1)
    return out > 0


def _fill_holes_mask(mask: np.ndarray) -> np.ndarray:
    """``mask`` with every hole it encloses filled."""
    m = np.pad(mask.astype(np.uint8), 1)
    flood = m.copy()
    cv2.floodFill(flood, np.zeros((m.shape[0] + 2, m.shape[1] + 2), np.uint8), (0, 0), 1)
    return (m | (1 - flood)).astype(bool)[1:-1, 1:-1]


def _rows(mask: np.ndarray) -> tuple[int, int]:
    rows = np.nonzero(mask.any(axis=1))[0]
    return int(rows[0]), int(rows[-1])


def _extent(mask: np.ndarray, y: int) -> tuple[float, float] | None:
    xs = np.nonzero(mask[int(np.clip(y, 0, mask.shape[0] - 1))])[0]
    if len(xs) < 2:
        return None
    return float(xs[0]), float(xs[-1])


def _landmark_y(scene: Scene, name: str, top: int) -> float:
    p = scene.points
    if scene.worn and p:
        sh = _mean_point(p, "left_shoulder", "right_shoulder")
        hp = _mean_point(p, "left_hip", "right_hip")
        kn = _mean_point(p, "left_knee", "right_knee")
        an = _mean_point(p, "left_ankle", "right_ankle")
        if sh is not None and hp is not None:
            t = hp[1] - sh[1]
            kn_y = kn[1] if kn is not None else hp[1] + 1.05 * t
            an_y = an[1] if an is not None else kn_y + 0.95 * t
            return float(
                {
                    "waist": sh[1] + 0.62 * t,
                    "hip": hp[1] + 0.1 * t,
                    "mid-thigh": (hp[1] + kn_y) / 2,
                    "knee": kn_y,
                    "mid-calf": (kn_y + an_y) / 2,
                    "ankle": an_y,
                }[name]
            )
    # Product shot: a top, dress or coat starts at the shoulders, a bottom at the waist.
    start = LANDMARK_BELOW_SHOULDER_CM["waist"] if scene.region == "lower" else 0.0
    return top + (LANDMARK_BELOW_SHOULDER_CM[name] - start) * scene.ppcm


def _to_px(scene: Scene, amount: float, unit: str | None, reference: float) -> float:
    return amount / 100.0 * reference if unit == "%" else amount * scene.ppcm


def _remap(
    img: np.ndarray, map_x: np.ndarray, map_y: np.ndarray, nearest: bool = False
) -> np.ndarray:
    return cv2.remap(
        img,
        map_x.astype(np.float32),
        map_y.astype(np.float32),
        cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )


# --- edits ------------------------------------------------------------------------------------


def edit_length(scene: Scene, e: Edit) -> None:
    """A longer or shorter hem. On a worn top the sleeves are not part of its length: they
    are set aside, the body's hem moves, and they are put back as they were."""
    if not (scene.worn and scene.region == "upper"):
        _edit_length(scene, e)
        return
    sleeves = np.zeros(scene.shape, bool)
    for sl in _worn_sleeves(scene):
        sleeves |= sl.pixels
    if not sleeves.any():
        _edit_length(scene, e)
        return
    # The sleeves' whole length: what of the garment hangs outside the body's column and
    # joins a sleeve (a cuff below the wrist landmark, a sleeve beside the hem).
    body = scene.mask & ~sleeves
    cx = _mean_point(scene.points, "left_hip", "right_hip")
    sw = _shoulder_width(scene)
    rows = np.zeros(0, int)
    if cx is not None:
        c0, c1 = int(max(0, cx[0] - 0.2 * sw)), int(max(1, cx[0] + 0.2 * sw))
        rows = np.nonzero(body[:, c0:c1].any(axis=1))[0]
    if len(rows) and cx is not None:
        y_b = int(rows[-1] - 0.05 * (rows[-1] - rows[0]))
        run = [r for r in _runs(body[y_b]) if r[0] <= cx[0] <= r[1]]
        if run:
            far = np.ones(scene.shape, bool)
            far[:, run[0][0] : run[0][1] + 1] = False
            n, lab = cv2.connectedComponents((scene.mask & far).astype(np.uint8))
            ids = np.unique(lab[sleeves & far])
            sleeves |= np.isin(lab, ids[ids > 0])
    rgb0 = scene.rgb.copy()
    scene.mask = scene.mask & ~sleeves
    try:
        _edit_length(scene, e)
    finally:
        scene.rgb[sleeves] = rgb0[sleeves]
        scene.mask = scene.mask | sleeves


def _edit_length(scene: Scene, e: Edit) -> None:
    h, w = scene.shape
    top, bottom = _rows(scene.mask)
    length = bottom - top + 1
    if e.landmark is not None:
        target = _landmark_y(scene, e.landmark, top)
    else:
        target = bottom + e.direction * _to_px(scene, e.amount or 10.0, e.unit, length)
    if target > bottom + 1.0:
        _check_lengthen(scene, top, bottom, target)
        margin = int(0.02 * h)
        if not scene.worn and target > h - 1 - margin:
            _lengthen_reframed(scene, top, bottom, int(round(target)), margin)
            return
    target = float(np.clip(target, top + 0.1 * length, h - 1))
    if abs(target - bottom) < 1.0:
        return
    if target < bottom:
        _check_shorten(scene, top, bottom, target)
    if target < bottom:
        _shorten(scene, top, bottom, int(round(target)))
    else:
        _lengthen(scene, top, bottom, int(round(target)))


def _lengthen_reframed(scene: Scene, top: int, bottom: int, target: int, margin: int) -> None:
    """A product shot whose longer garment would run out of the frame: lengthened on a taller
    sweep (the backdrop continued down), then the picture is reframed to its size, as a
    retoucher would, so the whole garment stays in the frame at its new proportions."""
    h, w = scene.shape
    extra = target + margin + 1 - h
    scene.rgb = cv2.copyMakeBorder(scene.rgb, 0, extra, 0, 0, cv2.BORDER_REPLICATE)
    scene.mask = np.pad(scene.mask, ((0, extra), (0, 0)))
    scene.skin = np.pad(scene.skin, ((0, extra), (0, 0)))
    _lengthen(scene, top, bottom, target)
    new_w = max(1, round(w * h / (h + extra)))
    left = (w - new_w) // 2

    def back(img: np.ndarray, nearest: bool) -> np.ndarray:
        small = cv2.resize(
            img, (new_w, h), interpolation=cv2.INTER_NEAREST if nearest else cv2.INTER_AREA
        )
        return cv2.copyMakeBorder(small, 0, 0, left, w - new_w - left, cv2.BORDER_REPLICATE)

    scene.rgb = back(scene.rgb, False)
    scene.mask = back(scene.mask.astype(np.uint8), True) > 0
    scene.skin = back(scene.skin.astype(np.uint8), True) > 0
    scene.ppcm *= h / (h + extra)


def _check_lengthen(scene: Scene, top: int, bottom: int, target: float) -> None:
    """Refuse a lengthening whose new fabric would have nothing to grow from."""
    h = scene.shape[0]
    length = bottom - top + 1
    if target - bottom > 0.6 * length:
        raise EngineError(
            "implausible_fill",
            f"Lengthening the {scene.garment} by {100 * (target - bottom) / length:.0f}% would "
            "mean inventing most of a new garment: up to 60% can be added.",
        )
    if bottom >= h - 3:
        raise EngineError(
            "implausible_fill",
            f"The {scene.garment}'s hem is cut off by the bottom of the photo, so there is no "
            "hem to extend: send a photo that shows the whole garment.",
        )
    if scene.worn and target > h - 1:
        raise EngineError(
            "implausible_fill",
            f"The longer {scene.garment} would run past the bottom of the photo: choose a "
            "shorter length or send a photo with more room below the garment.",
        )


def _midriff_shows(scene: Scene, sh: np.ndarray, hp: np.ndarray) -> bool:
    """Bare skin on the torso between the top's hem and the hips (a cropped top already)."""
    h, w = scene.shape
    sw = _shoulder_width(scene)
    # The body's hem, at the middle (long sleeves may hang lower than it).
    c0, c1 = int(max(0, hp[0] - 0.2 * sw)), int(min(w, hp[0] + 0.2 * sw))
    rows = np.nonzero(scene.mask[:, c0:c1].any(axis=1))[0]
    if not len(rows):
        return False
    y0 = int(rows[-1] + 2)
    y1 = int(min(h, y0 + max(3.0, 0.08 * float(hp[1] - sh[1]))))
    x0, x1 = int(max(0, hp[0] - 0.3 * sw)), int(min(w, hp[0] + 0.3 * sw))
    if y1 - y0 < 3 or x1 - x0 < 3:
        return False
    skin = scene.skin[y0:y1, x0:x1] & ~scene.mask[y0:y1, x0:x1]
    return bool(skin.mean() > 0.3)


def _check_shorten(scene: Scene, top: int, bottom: int, target: float) -> None:
    """Refuse a shortening on a wearer that would uncover body we cannot see anywhere."""
    h = scene.shape[0]
    if not scene.worn:
        return
    if bottom >= h - 3 and scene.region != "upper":
        raise EngineError(
            "implausible_fill",
            f"The {scene.garment}'s hem is cut off by the bottom of the photo: the new hem "
            "could not carry it, and the legs under it cannot be seen.",
        )
    p = scene.points
    hp = _mean_point(p, "left_hip", "right_hip")
    kn = _mean_point(p, "left_knee", "right_knee")
    if scene.region == "upper":
        sh = _mean_point(p, "left_shoulder", "right_shoulder")
        if sh is not None and hp is not None and target < sh[1] + 0.55 * (hp[1] - sh[1]):
            raise EngineError(
                "implausible_fill",
                f"Cropping the {scene.garment} that high on a wearer would uncover the chest and "
                "midriff, which would have to be invented: crop it less.",
            )
        if sh is not None and hp is not None and not _midriff_shows(scene, sh, hp):
            raise EngineError(
                "implausible_fill",
                f"No bare midriff shows below the {scene.garment}, so a cropped hem would have to "
                "invent the body under it: Reshape crops tops only where the skin below shows.",
            )
        return
    if hp is None or kn is None:
        raise EngineError(
            "implausible_fill",
            "The wearer's hips and knees are not both in the photo, so the legs a shorter hem "
            "uncovers cannot be drawn from them.",
        )
    crotch = hp[1] + 0.3 * (kn[1] - hp[1])
    if target < crotch:
        raise EngineError(
            "implausible_fill",
            f"A {scene.garment} that short would uncover the hips and crotch, which would have "
            "to be invented: the shortest hem Reshape draws on a wearer is at the upper thigh.",
        )


def _shorten(scene: Scene, top: int, bottom: int, new_bottom: int) -> None:
    """Cut the garment at ``new_bottom`` and move its hem band up there, fitted to the width."""
    mask, rgb = scene.mask, scene.rgb
    h, w = mask.shape
    if scene.worn:
        mask = scene.mask = _solid(scene)
        # Between the old hem and the new one, whatever lies inside the garment's outline
        # (misread fabric, its shadow) goes; only the hands stay.
        span = mask.copy()
        for y in range(max(0, new_bottom - 2), bottom + 1):
            xs = np.nonzero(mask[y])[0]
            if len(xs) > 1:
                span[y, xs[0] : xs[-1] + 1] = True
        span &= ~_hand_discs(scene)
        mask = scene.mask = mask | span
    length = bottom - top + 1
    band = int(np.clip(_hem_band(rgb, mask, top, bottom), 3, max(3, (new_bottom - top) // 3)))
    shift = bottom - new_bottom
    cut = new_bottom - band
    old = mask.copy()
    new_mask = mask.copy()
    new_mask[cut:] = False
    src_ext = _extent(old, bottom - band)
    dst_ext = _extent(old, cut)
    ys, xs = np.mgrid[cut : new_bottom + 1, 0:w].astype(np.float32)
    map_y = ys + shift
    if src_ext and dst_ext and dst_ext[1] - dst_ext[0] > 4:
        k = (src_ext[1] - src_ext[0]) / (dst_ext[1] - dst_ext[0])
        map_x = src_ext[0] + (xs - dst_ext[0]) * k
    else:
        map_x = xs
    band_rgb = _remap(rgb, map_x, map_y)
    band_mask = _remap(old.astype(np.uint8), map_x, map_y, nearest=True) > 0
    # A straight hem: notches in the mask along the old hem's edge are closed across.
    k = max(3, int(0.02 * w)) | 1
    band_mask = cv2.morphologyEx(
        band_mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((1, k), np.uint8)
    ) > 0
    # A clean hem: the band's lower edge, ragged where the old outline was, follows a smooth
    # curve along the hem's own direction, drawn anti-aliased once what it uncovers is filled.
    band_mask, cover = _smooth_hem(band_mask)
    band_rgb = _solid_down(band_rgb, band_mask)
    # The band's garment pixels replace whatever the cut garment had there.
    new_mask[cut : new_bottom + 1] = band_mask
    # Blend the band's top rows into the garment above so the seam does not show.
    blend_rows = max(2, band // 3)
    patch = rgb[cut : new_bottom + 1].astype(np.float32)
    alpha = np.ones((new_bottom + 1 - cut, 1, 1), np.float32)
    alpha[:blend_rows, 0, 0] = np.linspace(0.0, 1.0, blend_rows)
    keep_above = old[cut : new_bottom + 1] & band_mask
    a = np.where(keep_above[:, :, None], alpha, 1.0)
    out = patch * (1 - a) + band_rgb.astype(np.float32) * a
    sel = band_mask[:, :, None]
    rgb[cut : new_bottom + 1] = np.where(sel, out, patch).astype(np.uint8)
    uncovered = old & ~new_mask
    scene.mask = new_mask
    hem = rgb[cut : new_bottom + 1].copy()
    fill_uncovered(scene, uncovered, limbs=("leg",) if scene.region != "upper" else ())
    # The fill's feathered rim runs a pixel into the garment and would paint a pale line along
    # the new hem: the hem's own pixels are put back, then its edge blended by coverage.
    rows = rgb[cut : new_bottom + 1]
    rows[band_mask] = hem[band_mask]
    _antialias_hem(rgb[cut : new_bottom + 2], cover)


def _smooth_hem(band: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The hem band's mask with its lower edge on a smooth curve, and each pixel's coverage
    by the garment (0..1, fractional along the curve). The curve is a quadratic fitted to the
    columns' lowest garment rows, outliers (notches, specks of the old outline) left out, half
    a pixel inside so the old outline's pale rim stays out. Columns ending well above it (the
    garment's sides curving in) keep their own end."""
    nb, w = band.shape
    cover = band.astype(np.float32)
    cols = np.nonzero(band.any(axis=0))[0]
    if len(cols) < 12:
        return band, cover
    low = nb - 1 - np.argmax(band[::-1, cols], axis=0)
    keep = np.ones(len(cols), bool)
    for _ in range(3):
        fit = np.polyfit(cols[keep], low[keep], 2 if keep.sum() > 30 else 1)
        resid = low - np.polyval(fit, cols)
        spread = max(1.0, 1.5 * float(np.median(np.abs(resid[keep]))))
        keep = np.abs(resid) <= 2.0 * spread
    curve = np.polyval(fit, cols) - 0.5
    on = low >= curve - 3.0
    first = np.argmax(band[:, cols], axis=0)
    ys = np.arange(nb, dtype=np.float32)[:, None]
    # The pixel at row y spans y-0.5..y+0.5: the share of it above the curve.
    frac = np.clip(curve[None, :] - (ys - 0.5), 0.0, 1.0) * (ys >= first[None, :])
    out_mask, out_cover = band.copy(), cover.copy()
    out_cover[:, cols[on]] = frac[:, on]
    out_mask[:, cols[on]] = frac[:, on] >= 0.5
    return out_mask, out_cover


def _solid_down(rgb: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``rgb`` with the last two garment rows of each column (where the old outline's pale rim
    and the closed notches lie) copied from the garment just above them."""
    out = rgb.copy()
    n = mask.shape[0]
    solid = mask.copy()
    solid[: n - 2] &= mask[2:]
    solid[n - 2 :] = False
    last = np.maximum.accumulate(np.where(solid, np.arange(n)[:, None], -1), axis=0)
    ys, xs = np.nonzero(mask & ~solid & (last >= 0))
    out[ys, xs] = rgb[last[ys, xs], xs]
    return out


def _antialias_hem(rows: np.ndarray, cover: np.ndarray) -> None:
    """Blend the hem's edge pixels in ``rows`` (the band's rows and one below, edited in place)
    by their coverage: a partly covered pixel outside the garment takes some of the hem above
    it, a partly covered one inside some of what now lies below it."""
    nb = cover.shape[0]
    src = rows.astype(np.float32)
    c = cover[..., None]
    padded = np.concatenate([src[:1], src, src[-1:]])  # rows -1 .. len(rows)
    above, below = padded[:nb], padded[2 : nb + 2]
    inside = cover >= 0.5
    edge = (cover > 0.0) & (cover < 1.0)
    mixed = np.where(inside[..., None], src[:nb] * c + below * (1 - c), above * c + src[:nb] * (1 - c))
    rows[:nb] = np.where(edge[..., None], np.clip(mixed + 0.5, 0, 255), src[:nb]).astype(np.uint8)


def _hem_band(rgb: np.ndarray, mask: np.ndarray, top: int, bottom: int) -> float:
    """How tall the garment's hem band is: a ruffle, lace trim or contrast border ends where
    the fabric's look changes above the hem (else a plain hem, 6% of the length)."""
    length = bottom - top + 1
    plain = 0.06 * length
    y0 = int(bottom - 0.35 * length)
    ys = np.arange(max(top, y0), bottom + 1)
    if len(ys) < 12:
        return plain
    lab = srgb8_to_oklab(rgb[ys[0] : bottom + 1])
    m = mask[ys[0] : bottom + 1]
    counts = m.sum(axis=1)
    if (counts < 3).any():
        return plain
    means = (lab * m[..., None]).sum(axis=1) / counts[:, None]
    means = cv2.GaussianBlur(means.astype(np.float32)[:, None, :], (1, 0), sigmaX=0.1,
                             sigmaY=2.0)[:, 0, :]
    k = max(3, int(0.02 * length))
    best, at = 0.0, None
    for i in range(k, len(ys) - k):
        if ys[i] > bottom - 0.8 * plain:
            break
        jump = float(np.linalg.norm(means[i - k : i].mean(axis=0) - means[i : i + k].mean(axis=0)))
        if jump > best:
            best, at = jump, i
    if at is None or best < 0.06:
        return plain
    return float(bottom - ys[at] + 1)


def _lengthen(scene: Scene, top: int, bottom: int, new_bottom: int) -> None:
    """Stretch the lower part of the garment down to ``new_bottom`` (the hem comes along)."""
    if scene.worn:
        scene.mask = _solid(scene)
    mask, rgb = scene.mask, scene.rgb
    h, w = mask.shape
    length = bottom - top + 1
    extra = new_bottom - bottom
    start = int(max(top + 0.3 * length, bottom - max(0.25 * length, 1.5 * extra)))
    ys, xs = np.mgrid[start : new_bottom + 1, 0:w].astype(np.float32)
    map_y = start + (ys - start) * (bottom - start) / max(1, new_bottom - start)
    stretched = _remap(rgb, xs, map_y)
    smask = _remap(mask.astype(np.uint8), xs, map_y, nearest=True) > 0
    old = mask.copy()
    new_mask = mask.copy()
    new_mask[start : new_bottom + 1] = smask
    sel = smask[:, :, None]
    rgb[start : new_bottom + 1] = np.where(sel, stretched, rgb[start : new_bottom + 1])
    scene.mask = new_mask
    fill_uncovered(scene, old & ~new_mask)


def _band_rows(scene: Scene, e: Edit) -> tuple[float, float, float]:
    """(centre row, half height, smoothing) of the rows a width edit acts on."""
    top, bottom = _rows(scene.mask)
    length = bottom - top + 1
    if e.place in ("fit", "silhouette"):
        return (top + bottom) / 2, length / 2, 0.04 * length
    if e.place == "waist":
        if scene.region == "lower":
            y = top + 0.08 * length
        elif scene.worn and scene.points:
            y = _landmark_y(scene, "waist", top)
        else:
            y = top + (0.45 if scene.region == "upper" else 0.3) * length
        return y, 0.1 * length, 0.06 * length
    if e.place == "collar":
        return top + 0.06 * length, 0.06 * length, 0.03 * length
    # shoulders, back
    return top + 0.12 * length, 0.14 * length, 0.06 * length


def edit_width(scene: Scene, e: Edit) -> None:
    mask, rgb = scene.mask, scene.rgb
    h, w = mask.shape
    top, bottom = _rows(mask)
    yc, half, smooth = _band_rows(scene, e)
    xs_all = np.nonzero(mask)[1]
    garment_w = (
        float(np.percentile(xs_all, 98) - np.percentile(xs_all, 2)) if len(xs_all) else w / 3
    )
    change = (
        _to_px(scene, e.amount or 10.0, e.unit, 100.0) / 100.0
        if e.unit == "%"
        else ((e.amount or 5.0) * scene.ppcm / max(garment_w, 1.0))
    )
    change = float(np.clip(e.direction * change, -0.4, 0.6))
    # Work at low resolution: the field is smooth.
    small_side = 512
    s = min(1.0, small_side / max(h, w))
    sh, sw_ = max(1, round(h * s)), max(1, round(w * s))
    m_small = cv2.resize(mask.astype(np.uint8), (sw_, sh), interpolation=cv2.INTER_NEAREST)
    ys = np.arange(sh, dtype=np.float32) / s
    inside = np.abs(ys - yc) <= half
    edge = np.clip(1.0 - (np.abs(ys - yc) - half) / max(smooth * 2, 1.0), 0, 1)
    profile = np.where(inside, 1.0, edge) * change
    # The garment's own centre per row, smoothed; rows without garment use the overall centre.
    cx_all = float(np.median(xs_all)) * s if len(xs_all) else sw_ / 2
    cx = np.full(sh, cx_all, np.float32)
    for y in range(sh):
        xr = np.nonzero(m_small[y])[0]
        if len(xr) > 2:
            cx[y] = (xr[0] + xr[-1]) / 2
    cx = cv2.GaussianBlur(cx[:, None], (1, 0), sigmaX=0.1, sigmaY=max(2.0, 0.05 * sh))[:, 0]
    weight = person_weight(m_small.astype(np.float32), reach=0.25 * garment_w * s)
    factor = 1.0 / (1.0 + profile) - 1.0
    xs = np.arange(sw_, dtype=np.float32)[None, :]
    dx = (xs - cx[:, None]) * factor[:, None].astype(np.float32) * weight
    if scene.worn:
        dx = _protect_hands_and_face(scene, dx, s)
    dx_full = cv2.resize(dx.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR) / s
    map_x = dx_full + np.arange(w, dtype=np.float32)[None, :]
    map_y = np.repeat(np.arange(h, dtype=np.float32)[:, None], w, axis=1)
    scene.rgb = _remap(rgb, map_x, map_y)
    scene.mask = _remap(mask.astype(np.uint8), map_x, map_y, nearest=True) > 0
    if scene.person is not None:
        scene.person = _remap(scene.person.astype(np.uint8), map_x, map_y, nearest=True) > 0
    if scene.body is not None:
        scene.body = _remap(scene.body.astype(np.uint8), map_x, map_y, nearest=True) > 0


def _protect_hands_and_face(scene: Scene, dx: np.ndarray, s: float) -> np.ndarray:
    from workers.engines import rebody

    h, w = dx.shape
    pts = {k: (x * s, y * s) for k, (x, y) in scene.points.items()}
    from workers.engines.imaging.pose import Pose

    pose = Pose(points=pts, width=w, height=h)
    sw = 0.25 * w
    if "left_shoulder" in pts and "right_shoulder" in pts:
        sw = float(np.hypot(*(np.array(pts["left_shoulder"]) - pts["right_shoulder"])))
    dx = rebody.rigid_hands(dx, rebody.hand_discs(pose, sw))
    if "nose" in pts:
        nx, ny = pts["nose"]
        box = (nx - 0.45 * sw, ny - 0.8 * sw, nx + 0.45 * sw, ny + 0.45 * sw)
        dx = dx * (1.0 - rebody._smooth_box(dx.shape, box, 0.1 * sw))
    return dx


# --- sleeves ----------------------------------------------------------------------------------


@dataclass
class Sleeve:
    pixels: np.ndarray  # bool mask of this sleeve
    origin: np.ndarray  # where it joins the body (x, y)
    along: np.ndarray  # per-pixel distance along the sleeve from the origin (float32, HxW)
    length: float  # current length (max of ``along`` over the sleeve)
    axis: np.ndarray  # unit vector from the origin towards the cuff
    reach: float | None = None  # full arm length (worn), for "long"
    armpit: tuple[float, float] | None = None  # product shots: where the sleeve meets the side
    at_neck: bool = False  # worn: it borders the bare neckline (it took in the shoulder)


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    d = np.diff(np.concatenate([[0], row.astype(np.int8), [0]]))
    return list(zip(np.nonzero(d == 1)[0], np.nonzero(d == -1)[0] - 1, strict=False))


def _product_sleeves(mask: np.ndarray) -> list[Sleeve]:
    """Sleeves on a flat product shot: what sticks out of the torso column.

    The torso column is the run of garment around the centre in the lower rows (where sleeves
    hanging beside the body are separate runs); going up, it is followed until the run jumps
    wider (the armpits), and above them it is held at the armpit width.
    """
    h, w = mask.shape
    top, bottom = _rows(mask)
    length = bottom - top + 1
    xs = np.nonzero(mask)[1]
    cx = int(np.median(xs))
    torso = np.zeros_like(mask)
    ref_y = int(top + 0.8 * length)
    left = right = None
    for y in range(bottom, top - 1, -1):
        runs = _runs(mask[y])
        if not runs:
            continue
        run = min(
            runs, key=lambda r: 0 if r[0] <= cx <= r[1] else min(abs(r[0] - cx), abs(r[1] - cx))
        )
        if y >= ref_y or left is None:
            left, right = float(run[0]), float(run[1])
        else:
            # A side seam drifts outwards slowly; a sleeve joining at the armpit jumps. Letting
            # the edges move out by at most a quarter pixel a row keeps the sleeves outside.
            left = max(float(run[0]), left - 0.25)
            right = min(float(run[1]), right + 0.25)
        torso[y, int(left) : int(right) + 1] = True
    rest = mask & ~cv2.dilate(torso.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    rest = cv2.morphologyEx(rest.astype(np.uint8), cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, labels, stats, cent = cv2.connectedComponentsWithStats(rest)
    total = mask.sum()
    sleeves = []
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    torso_edge = cv2.dilate(torso.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool) & ~torso
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < 0.01 * total:
            continue
        px = labels == i
        seam = px & torso_edge
        if seam.sum() < 3:
            continue
        sy, sx = np.nonzero(seam)
        origin = np.array([sx.mean(), sy.mean()])
        py, pxx = np.nonzero(px)
        np.hypot(pxx - origin[0], py - origin[1])
        # The sleeve's own direction (its principal axis), pointing away from the body: the
        # cuff then lies across it, so cutting and stretching keep the cuff square.
        pts = np.stack([pxx, py], axis=1).astype(np.float64)
        _, vecs = np.linalg.eigh(np.cov((pts - pts.mean(axis=0)).T))
        axis = vecs[:, -1]
        if np.dot(pts.mean(axis=0) - origin, axis) < 0:
            axis = -axis
        along = ((xx - origin[0]) * axis[0] + (yy - origin[1]) * axis[1]).astype(np.float32)
        low = int(np.argmax(sy))
        sleeves.append(
            Sleeve(px, origin, along, float(along[px].max()), axis,
                   armpit=(float(sx[low]), float(sy[low])))
        )
    return sleeves


def _shaded_dist(lab: np.ndarray, ref: np.ndarray, darkest: float) -> np.ndarray:
    """OKLab distance from each colour to ``ref`` lit anywhere from ``darkest`` to 1.1 times
    as bright: less light scales an OKLab colour towards black (its cube root makes it
    scale-invariant), so a fold or seam in shadow stays near its fabric's colour."""
    k = np.clip(lab @ ref / max(float(ref @ ref), 1e-6), darkest, 1.1)
    return np.linalg.norm(lab - k[..., None] * ref, axis=-1)


def _grow_sleeve(scene: Scene, lab: np.ndarray, px: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``px`` grown over the connected pixels inside ``bounds`` whose colour, in any light, is
    nearer the sleeve's than the backdrop's or the skin's, on the person: a white sleeve in a
    little less light is the colour of a pale backdrop beside it."""
    if scene.person is not None:
        bounds = bounds & (cv2.dilate(scene.person.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0)
    ys, xs = np.nonzero(bounds | px)
    if not len(ys) or not px.any():
        return px
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    sub = lab[y0:y1, x0:x1]
    back_sel = ~scene.mask & (~scene.person if scene.person is not None else True)
    if not back_sel.any():
        return px
    sleeve = np.median(lab[px], axis=0)
    back = np.median(lab[back_sel][:: max(1, int(back_sel.sum()) // 4000)], axis=0)
    skin = srgb8_to_oklab(scene.skin_rgb.astype(np.uint8)[None, None])[0, 0]
    # Down to a quarter of the light: the underside of a hem turned to the body is that dark.
    d = _shaded_dist(sub, sleeve, 0.25)
    own = (d < 0.08) & (d < _shaded_dist(sub, back, 0.25)) & (d < _shaded_dist(sub, skin, 0.25))
    seed = px[y0:y1, x0:x1]
    n, labels = cv2.connectedComponents(((own & bounds[y0:y1, x0:x1]) | seed).astype(np.uint8))
    keep = np.zeros(n, bool)
    keep[np.unique(labels[seed])] = True
    keep[0] = False
    out = px.copy()
    out[y0:y1, x0:x1] |= keep[labels]
    return out


def _arm_shows_outside(
    scene: Scene, px: np.ndarray, inward: float, sy: float, sw: float
) -> bool:
    """True when bare arm shows just outside a would-be sleeve along most of its rows below
    the shoulder: a sleeve wraps the arm, so its outer edge is the arm's outline; garment
    with skin beyond it is the armhole's edge of a sleeveless top (the mask took in the rim
    of the armhole), not a sleeve."""
    if scene.person is None:
        return False
    bare = scene.skin & scene.person & ~scene.mask
    w = px.shape[1]
    reach = max(3, int(0.06 * sw))
    rows = [y for y in np.nonzero(px.any(axis=1))[0] if y > sy]
    if len(rows) < 5:
        return False
    shows = 0
    for y in rows:
        xs = np.nonzero(px[y])[0]
        edge = int(xs.min()) if inward > 0 else int(xs.max())
        lo, hi = (edge - reach, edge) if inward > 0 else (edge + 1, edge + 1 + reach)
        seg = bare[y, max(0, lo) : min(w, hi)]
        shows += bool(len(seg)) and seg.mean() > 0.6
    return shows > 0.6 * len(rows)


def _worn_sleeves(scene: Scene) -> list[Sleeve]:
    p = scene.points
    h, w = scene.shape
    sw = (
        float(np.hypot(*(np.array(p["left_shoulder"]) - p["right_shoulder"])))
        if ("left_shoulder" in p and "right_shoulder" in p)
        else 0.25 * w
    )
    torso = _torso_polygon(p, (h, w), sw)
    limbs = _limbs(p, (h, w), sw * 1.25)
    sleeves = []
    lab_cache: np.ndarray | None = None
    for side in ("left", "right"):
        arm = limbs.get(f"{side}_arm")
        if arm is None:
            continue
        chain = [
            np.array(p[f"{side}_{j}"]) for j in ("shoulder", "elbow", "wrist") if f"{side}_{j}" in p
        ]
        # The sleeve is the garment beside the torso on this arm's side, above the hips
        # (puffed sleeves reach well outside the arm itself).
        centre_x = (
            (p["left_shoulder"][0] + p["right_shoulder"][0]) / 2
            if ("left_shoulder" in p and "right_shoulder" in p)
            else w / 2
        )
        hip_y = max(
            (p[f"{k}_hip"][1] for k in ("left", "right") if f"{k}_hip" in p), default=float(h)
        )
        side = np.zeros((h, w), bool)
        sx = float(chain[0][0])
        if sx >= centre_x:
            side[: int(hip_y), int(centre_x) :] = True
        else:
            side[: int(hip_y), : int(centre_x)] = True
        # The armhole: from just inside the shoulder joint, above it, down to the armpit.
        # Everything of the garment outside it on this side is sleeve, the cap included.
        inward = 1.0 if centre_x > sx else -1.0
        ax, ay = sx + inward * 0.06 * sw, float(chain[0][1]) - 0.3 * sw
        bx, by = sx + inward * 0.14 * sw, float(chain[0][1]) + 0.5 * sw
        # The armpit sits on the shirt's own side seam: going down the side, the garment's
        # outer edge jumps in where the sleeve's hem leaves the body; the side seam is the
        # edge just below that jump (else the body's edge lower down).
        sy = float(chain[0][1])
        edges = []
        for y in range(int(sy + 0.15 * sw), int(min(hip_y, sy + 1.1 * sw, h - 1))):
            run = [r for r in _runs(scene.mask[y]) if r[0] <= centre_x <= r[1]]
            if run:
                edges.append((y, float(run[0][0] if inward > 0 else run[0][1])))
        lo_x, hi_x = sorted((sx, sx + inward * 0.3 * sw))
        if len(edges) > 8:
            e_arr = np.array(edges)
            out_pos = (e_arr[:, 1] - centre_x) * -inward  # how far out from the centre line
            drop = out_pos[:-4] - out_pos[4:]
            j = int(np.argmax(drop))
            if drop[j] > 0.08 * sw:
                by = float(e_arr[j + 4, 0])
                bx = float(np.clip(np.median(e_arr[j + 4 : j + 12, 1]), lo_x, hi_x))
            else:
                y_m = int(np.clip(sy + 0.75 * (hip_y - sy), 0, h - 1))
                run = [r for r in _runs(scene.mask[y_m]) if r[0] <= centre_x <= r[1]]
                if run:
                    bx = float(np.clip(run[0][0] if inward > 0 else run[0][1], lo_x, hi_x))
        ax = sx + inward * min(0.06 * sw, abs(bx - sx))
        yy_c = np.arange(h, dtype=np.float32)[:, None]
        xx_c = np.arange(w, dtype=np.float32)[None, :]
        arm_zone = cv2.dilate(arm.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        # A print or logo on the chest is never cut: the armhole moves out past it.
        lab = srgb8_to_oklab(scene.rgb) if lab_cache is None else lab_cache
        lab_cache = lab
        shift = 0.0
        for _ in range(12):
            # A round armhole: straight down from the shoulder, curving in to the armpit
            # (a quarter ellipse), not a straight slant.
            t_a = np.clip((yy_c - ay) / (by - ay), 0.0, 1.0)
            line_x = ax + (bx - ax) * (1.0 - np.sqrt(1.0 - t_a * t_a)) - inward * shift
            outside = (xx_c - line_x) * -inward > 0
            px = scene.mask & side & outside & ((yy_c < by) | arm_zone)
            if px.sum() < 30:
                break
            base = np.median(lab[px][:: max(1, int(px.sum()) // 3000)], axis=0)
            edge_band = px & ((xx_c - line_x) * -inward < 0.04 * sw)
            # A seam or a fold is the fabric in shadow, not a print: compared in any light.
            printed = _shaded_dist(lab[edge_band], base, 0.5) > 0.15
            if printed.sum() <= max(3, 0.03 * edge_band.sum()):
                break
            shift += 0.02 * sw
        if px.sum() < 30:
            continue
        # Distance along the arm, computed only over the arm's box (the rest is never read).
        ys_a, xs_a = np.nonzero(arm | px)
        y0, y1, x0, x1 = ys_a.min(), ys_a.max() + 1, xs_a.min(), xs_a.max() + 1
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        along = np.zeros((h, w), np.float32)
        box_along = np.zeros(yy.shape, np.float32)
        best = np.full(yy.shape, np.inf, np.float32)
        acc = 0.0
        for a, b in zip(chain, chain[1:], strict=False):
            seg = b - a
            ln = float(np.hypot(*seg)) or 1.0
            t = np.clip(((xx - a[0]) * seg[0] + (yy - a[1]) * seg[1]) / (ln * ln), 0, 1)
            dist = np.hypot(xx - (a[0] + t * seg[0]), yy - (a[1] + t * seg[1]))
            closer = dist < best
            best[closer] = dist[closer]
            box_along[closer] = acc + t[closer] * ln
            acc += ln
        along[y0:y1, x0:x1] = box_along
        # Where the sleeve ends: walking down the arm's bones, the first place the arm's own
        # middle is no longer garment. Garment past it (the shirt's body beside the arm) is
        # not sleeve.
        core = best < 0.07 * sw
        g_core = scene.mask[y0:y1, x0:x1] & core
        cuff = acc
        for s0 in np.arange(0.12 * acc, acc, 2.0):
            sel = core & (box_along >= s0) & (box_along < s0 + 2.0)
            if sel.sum() >= 3 and g_core[sel].mean() < 0.3:
                cuff = float(s0)
                break
        if cuff <= 0.12 * acc + 2.0:
            continue  # the arm's middle is bare from the shoulder on: no sleeve (a strap)
        px &= along <= cuff + 0.04 * acc
        # Below the armpit a sleeve hangs around the arm: garment farther inside the upper
        # arm's bone than a sleeve reaches is the body's side (a turned torso whose side runs
        # along the arm), not sleeve.
        el = chain[1]
        bone_x = sx + (el[0] - sx) * np.clip((yy_c - sy) / max(el[1] - sy, 1.0), 0.0, 1.0)
        body_side = (yy_c > sy + 0.3 * sw) & ((xx_c - bone_x) * inward > 0.15 * sw)
        px &= ~body_side
        if px.sum() < 30:
            continue
        # A sleeve covers the shoulder joint and reaches out past it; garment that stays
        # inside it is the body's side on a turned torso, not a sleeve.
        px_x = np.nonzero(px)[1].astype(np.float64)
        if np.percentile((px_x - sx) * -inward, 95) < 0.04 * sw:
            continue
        if _arm_shows_outside(scene, px, inward, sy, sw):
            continue
        # A "sleeve" the colour of the wearer's skin and unlike the garment is the arm itself
        # (a sleeveless top whose mask took in a shoulder).
        sleeve_lab = np.median(lab[px], axis=0)
        body_px = scene.mask & ~px
        if body_px.any():
            body_lab = np.median(lab[body_px][:: max(1, int(body_px.sum()) // 3000)], axis=0)
            skin_lab = srgb8_to_oklab(scene.skin_rgb.astype(np.uint8)[None, None])[0, 0]
            if np.linalg.norm(sleeve_lab - skin_lab) < 0.5 * np.linalg.norm(sleeve_lab - body_lab):
                continue
        # The garment mask misses the darkest parts of a sleeve (the shaded underside of its
        # hem, a flap hanging at the armhole): pixels of the sleeve's own colour, in any light,
        # joined to it outside the armhole and near the upper arm are sleeve too, and go with it.
        near = np.zeros((h, w), bool)
        near[y0:y1, x0:x1] = (best < 0.45 * sw) & (box_along <= cuff + 0.08 * acc)
        px = _grow_sleeve(scene, lab, px, side & outside & near & ~body_side)
        # A set-in sleeve meets the body at the armhole, a shoulder's width from the neckline:
        # one found within a tenth of the shoulders' width of the bare chest or neck has taken
        # in the garment's shoulder (a turned torso puts the shoulder joint inside it; a wide
        # neckline leaves little shoulder). On our model photos such sleeves lie 0.006-0.05
        # of it away, every other 0.2 or more.
        neckline = scene.skin & torso & (yy_c < sy + 0.3 * sw) & ~scene.mask
        near_neck = cv2.distanceTransform((~neckline).astype(np.uint8), cv2.DIST_L2, 3)
        at_neck = bool(neckline.any() and float(near_neck[px].min()) < 0.1 * sw)
        scene.mask |= px
        axis = (chain[-1] - chain[0]) / max(np.hypot(*(chain[-1] - chain[0])), 1.0)
        sleeves.append(Sleeve(px, chain[0], along, float(along[px].max()), axis, reach=acc,
                              at_neck=at_neck))
    return sleeves


def edit_sleeves(scene: Scene, e: Edit) -> None:
    if scene.region == "lower":
        raise EngineError("unsupported_instruction", f"A {scene.garment} has no sleeves to change.")
    sleeves = _worn_sleeves(scene) if scene.worn else _product_sleeves(scene.mask)
    if any(sl.at_neck for sl in sleeves):
        # Cutting such a sleeve would cut into the top and invent the shoulder under it.
        raise EngineError(
            "implausible_fill",
            "A sleeve cannot be told from the shoulder of the garment (the body is turned to "
            "the side, or the neckline reaches the shoulder): changing it would cut into the "
            "top and invent the shoulder under it.",
        )
    if not sleeves:
        if scene.worn and _arm_under_garment(scene):
            # Sleeves are there, lying against the body, and could not be told from it:
            # delivering the photo unchanged would pass a failure for a result.
            raise EngineError(
                "implausible_fill",
                f"The {scene.garment}'s sleeves lie against its body and cannot be told apart "
                f"from it: changing them would cut into the {scene.garment}. Reshape changes "
                "sleeves on photos where the arms are held a little away from the body.",
            )
        if e.sleeve == "removed" or e.direction < 0:
            return  # already sleeveless
        raise EngineError("unsupported_instruction", "The garment has no sleeves to lengthen.")
    if scene.worn and (e.sleeve in ("removed", "short", "three-quarter") or e.direction < 0):
        _check_arms_hang(scene)
    before = scene.mask.copy()
    for sl in sleeves:
        arm = sl.reach
        if e.sleeve == "removed":
            target = 0.04 * (arm or sl.length)
        elif e.sleeve == "short":
            target = 0.22 * arm if arm else min(sl.length, 0.45 * sl.length)
        elif e.sleeve == "three-quarter":
            target = 0.75 * arm if arm else 0.75 * sl.length
        elif e.sleeve == "long":
            target = 1.0 * arm if arm else 2.2 * sl.length
        else:
            target = sl.length + e.direction * _to_px(scene, e.amount or 25.0, e.unit, sl.length)
        target = max(0.0, target)
        if scene.worn and sl.reach and sl.length - target > 0.62 * sl.reach:
            raise EngineError(
                "implausible_fill",
                f"The {scene.garment}'s sleeves cover the arms almost to the wrist: "
                + ("removing them" if e.sleeve == "removed" else "shortening them that much")
                + " would mean inventing the whole arm. Reshape continues arms it can see; "
                "try shorter sleeves on a photo where the forearms show.",
            )
        if e.sleeve == "removed":
            target = -np.inf  # up to the armhole: no cap of the old sleeve stays
        if target < sl.length - 1:
            _cut_sleeve(
                scene,
                sl,
                target,
                keep_cuff=not scene.worn and e.sleeve != "removed",
                fill=not scene.worn,
            )
        elif target > sl.length + 1:
            _extend_sleeve(scene, sl, target)
    if scene.worn:
        # Both arms at once: each is continued from where it shows.
        fill_uncovered(scene, before & ~scene.mask, limbs=("arm",))
    elif e.sleeve == "removed":
        _cut_armholes(scene, sleeves)


def _cut_armholes(scene: Scene, sleeves: list[Sleeve]) -> None:
    """A sleeveless garment laid flat: the armhole curves in from the shoulder to the
    armpit, so the sleeve's cap above the armpit goes too, not only what stuck out."""
    h, w = scene.shape
    mask = scene.mask
    xs_all = np.nonzero(mask)[1]
    if not len(xs_all):
        return
    cx = float(np.median(xs_all))
    top, _ = _rows(mask)
    yy = np.arange(h, dtype=np.float32)[:, None]
    xx = np.arange(w, dtype=np.float32)[None, :]
    cap = np.zeros_like(mask)
    for sl in sleeves:
        if sl.armpit is None:
            continue
        ax, ay = sl.armpit
        if ay <= top + 4:
            continue
        inward = 1.0 if cx > ax else -1.0
        half = abs(cx - ax)
        sx = ax + inward * 0.18 * half  # the strap's outer edge at the shoulder
        t = np.clip((yy - top) / (ay - top), 0.0, 1.0)
        # A round armhole: in at the shoulder, easing out to the side seam at the armpit.
        line = sx + (ax - sx) * np.sin(t * np.pi / 2) ** 2
        side = (xx - cx) * -inward > 0
        cap |= mask & side & ((xx - line) * -inward > 0) & (yy < ay)
    if cap.sum() > 0.002 * mask.sum():
        scene.mask = mask & ~cap
        fill_uncovered(scene, cap)


# An upper arm is in a sleeve when the garment covers this share of its middle, between a third
# of the way from the shoulder (a tank top's armhole rim, a cap over the joint) and the elbow.
ARM_IN_SLEEVE = 0.7


def _arm_under_garment(scene: Scene) -> bool:
    """Whether the garment covers an upper arm along its bone (a sleeve the sleeve search did
    not find), so a request about sleeves is not answered with an unchanged photo."""
    p = scene.points
    sw = _shoulder_width(scene)
    h, w = scene.shape
    for side in ("left", "right"):
        s, el = p.get(f"{side}_shoulder"), p.get(f"{side}_elbow")
        if s is None or el is None:
            continue
        bone = np.zeros((h, w), np.uint8)
        a = np.array(s) + 0.35 * (np.array(el) - np.array(s))
        b = np.array(s) + 0.9 * (np.array(el) - np.array(s))
        cv2.line(bone, tuple(int(round(v)) for v in a), tuple(int(round(v)) for v in b), 1,
                 max(1, round(0.06 * sw)))
        core = bone > 0
        if core.sum() >= 20 and float(scene.mask[core].mean()) > ARM_IN_SLEEVE:
            return True
    return False


def _check_arms_hang(scene: Scene) -> None:
    """Arms are continued along their bones from the part that shows; that holds for arms
    hanging beside the body. An arm bent out (a hand on the hip) changes its shape and its
    light at the elbow, and the shirt's side behind it cannot be told from the sleeve."""
    p = scene.points
    for side in ("left", "right"):
        s, el = p.get(f"{side}_shoulder"), p.get(f"{side}_elbow")
        if s is None or el is None:
            continue
        dx, dy = el[0] - s[0], el[1] - s[1]
        angle = float(np.degrees(np.arctan2(abs(dx), max(dy, 1e-6))))
        if angle > 32.0:
            raise EngineError(
                "implausible_fill",
                "An arm is bent away from the body (a hand on the hip or raised): the arm under "
                "the sleeve would have to be invented. Reshape changes sleeves on photos where "
                "the arms hang beside the body.",
            )
        # An arm held across the body (its elbow well inside the shoulder) lies over the
        # garment and is partly hidden by it: its shape under the sleeve cannot be read below.
        centre = _mean_point(p, "left_shoulder", "right_shoulder")
        if centre is not None and abs(s[0] - centre[0]) > 1.0:
            outward = 1.0 if s[0] > centre[0] else -1.0
            if dx * outward < -0.2 * _shoulder_width(scene):
                raise EngineError(
                    "implausible_fill",
                    "An arm is held across the body: the arm under the sleeve is partly hidden "
                    "and would have to be invented. Reshape changes sleeves on photos where "
                    "the arms hang beside the body.",
                )


def _cut_sleeve(
    scene: Scene, sl: Sleeve, target: float, keep_cuff: bool, fill: bool = True
) -> None:
    old = scene.mask.copy()
    gone = sl.pixels & (sl.along > target)
    if keep_cuff and target > 0.2 * sl.length:
        band = 0.12 * sl.length
        shift = sl.length - target
        h, w = scene.shape
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        map_x = xx + sl.axis[0] * shift
        map_y = yy + sl.axis[1] * shift
        moved_mask = _remap(sl.pixels.astype(np.uint8), map_x, map_y, nearest=True) > 0
        moved_mask &= sl.along > target - band
        moved_mask &= sl.along <= target
        moved = _remap(scene.rgb, map_x, map_y)
        scene.rgb[moved_mask] = moved[moved_mask]
        keep = (sl.pixels & (sl.along <= target - band)) | moved_mask
        gone = sl.pixels & ~keep
        scene.mask = (scene.mask & ~sl.pixels) | keep
    else:
        scene.mask = scene.mask & ~gone
    if fill:
        fill_uncovered(scene, old & ~scene.mask)


def _extend_sleeve(scene: Scene, sl: Sleeve, target: float) -> None:
    h, w = scene.shape
    band = max(0.15 * sl.length, 4.0)
    start = sl.length - band
    along = sl.along
    target = min(target, 1.5 * sl.length)  # beyond that the stretched cuff reads as a smear
    grow = (along >= start) & (along <= target)
    # Across the sleeve, no wider than its cuff band already is.
    perp = np.array([-sl.axis[1], sl.axis[0]])
    yy0, xx0 = np.nonzero(sl.pixels & (along >= start))
    if len(yy0):
        t = (xx0 - sl.origin[0]) * perp[0] + (yy0 - sl.origin[1]) * perp[1]
        hh, ww = scene.shape
        gy, gx = np.mgrid[0:hh, 0:ww].astype(np.float32)
        tt = (gx - sl.origin[0]) * perp[0] + (gy - sl.origin[1]) * perp[1]
        grow &= (tt >= t.min()) & (tt <= t.max())
    # Stretch the cuff band along the sleeve's axis; across it, pixels keep their offset.
    k = band / max(target - start, 1.0)
    shift = (along - start) * (1.0 - k)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    map_x = xx - sl.axis[0] * shift
    map_y = yy - sl.axis[1] * shift
    smask = (_remap(sl.pixels.astype(np.uint8), map_x, map_y, nearest=True) > 0) & grow
    if scene.worn and scene.body is not None:
        smask &= cv2.dilate(scene.body.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    moved = _remap(scene.rgb, map_x, map_y)
    scene.rgb[smask] = moved[smask]
    scene.mask = scene.mask | smask


# --- neckline ---------------------------------------------------------------------------------


def edit_neckline(scene: Scene, e: Edit) -> None:
    if scene.region == "lower":
        raise EngineError("unsupported_instruction", f"A {scene.garment} has no neckline.")
    # Cut as a flat shape, a new opening showed a pasted patch (of skin on a person, of the
    # garment's inside darkened on a product shot) with hard edges and no binding, the old
    # neckline's edge beside it; a higher one closed only the back collar's rim.
    raise EngineError(
        "implausible_fill",
        f"Reshape cannot change the {scene.garment}'s neckline convincingly: a new neckline "
        "needs the chest or the garment's inside under it and its binding or trim along it "
        "drawn, which it cannot do. Change the length, the fit or the sleeves instead.",
    )


EDITS = {
    "length": edit_length,
    "width": edit_width,
    "sleeves": edit_sleeves,
    "neckline": edit_neckline,
}


# --- the engine -------------------------------------------------------------------------------


def reshape(
    rgb: np.ndarray, garment: str, edits: list[Edit], progress: Progress | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(edited photo, final garment mask)."""
    scene = build_scene(rgb, garment)
    if progress is not None:
        progress(35)
    for i, e in enumerate(edits):
        EDITS[e.kind](scene, e)
        if progress is not None:
            progress(35 + int(55 * (i + 1) / len(edits)))
    return scene.rgb, scene.mask


def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
    """params: image (bytes), target_garment (lower-case), changes [{place, instruction}]."""
    garment = str(params.get("target_garment") or "").strip().lower()
    garment_mod.garment_region(garment)  # a clear error for an unknown type, before any work
    edits = parse_changes(params.get("changes"))
    progress(5)
    return png_engine_run(params, progress, lambda rgb: reshape(rgb, garment, edits, progress)[0],
                          "reshape.png")
