"""Inputs no engine can turn into a good result, refused before any work with a clear reason.

A batch tool that is handed a product shot with a person in it, a thumbnail, a library photo
with two people, or a portrait without the hand or the feet the tool dresses would otherwise
deliver garbage with a success status. These checks say so instead, as ``EngineError(code,
message)``, which the job records as its error and the page shows on the card.

- ``require_min_side``: a photo that is edited or analysed (a garment photo, a model photo)
  needs ``MIN_SIDE`` px on its short side for landmarks and masks; a product shot, which is cut
  out and scaled *down* to its real size on a model, needs ``MIN_PRODUCT_SIDE`` (a bag, drawn
  large, ``MIN_BAG_SIDE``).
- ``refuse_person_in_product``: a face, or a body with head or torso, covering a real share of
  an accessory's product shot (an earring, bag or shoe photo that is really a model photo).
- ``require_one_person``: a model photo with exactly one person and the body parts a tool needs
  (``"face"``, ``"ear"``, ``"hand"``, ``"upper body"``, ``"torso"``, ``"full body"``).
- ``guard_engine_inputs``: the checks each batch engine's inputs go through (the engine
  registry calls it before the engine runs), by parameter name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from workers.engines.base import EngineError
from workers.engines.imaging.resize import limit_side
from workers.vocabularies import TOOL_NEEDS

MIN_SIDE = 256
MIN_PRODUCT_SIDE = 64
# A bag is drawn on the model near its real size, which on a full-length catalogue photo is a
# few hundred pixels: a smaller bag photo is scaled up and its cut-out comes out fringed.
MIN_BAG_SIDE = 256

# A face counts when the detector is this sure of it and it is not a speck: on a full-body
# catalogue photo a face covers about 1-4 % of the frame; texture on a bag or a print gives
# low-score boxes of a few hundredths of a per cent.
FACE_SCORE = 0.75
FACE_MIN_AREA = 0.002  # share of the image
# A second face must be a real one too, and not a speck next to the main face.
SECOND_FACE_SHARE = 0.15  # of the largest face's area
# A body: pose landmarks of the head or torso inside the frame, and a person segmentation
# covering this share of the image.
BODY_MIN_AREA = 0.08
# In a product shot one signal alone is not enough: a face printed on a bag or a tee is a face,
# and pose finds "shoulders and hips" in a pair of trousers. A person is a face with a body
# under it, or a body (head or torso landmarks) that the segmentation covers widely.
PRODUCT_BODY_MIN_AREA = 0.15
# ... or a face filling the frame, as in a close-up of an earring worn (the face detector is
# less sure of a face cut by the frame, so a lower score with a large box counts).
CLOSE_FACE_SCORE = 0.6
CLOSE_FACE_AREA = 0.08
# Separate people in the segmentation: each blob at least this share of the image and of the
# largest blob (a hand held away from the body is a small blob of its own).
PERSON_BLOB_MIN_AREA = 0.04
PERSON_BLOB_SHARE = 0.35

# People are looked for on a copy at most this large (the detectors see 640 px anyway).
LOOK_SIDE = 1024

PARTS = ("face", "ear", "hand", "upper body", "torso", "full body")

_PART_LANDMARKS: dict[str, tuple[tuple[str, ...], ...]] = {
    # Each entry: groups of which at least one landmark must be in frame, all groups needed.
    "upper body": (("left_shoulder",), ("right_shoulder",)),
    "torso": (("left_shoulder", "right_shoulder"), ("left_hip", "right_hip")),
    # Catalogue crops often cut the head off at the mouth: the feet are what a full figure
    # adds to a torso (shoes go there).
    "full body": (
        ("left_shoulder", "right_shoulder"),
        ("left_hip", "right_hip"),
        ("left_knee", "right_knee"),
        ("left_ankle", "right_ankle", "left_heel", "right_heel"),
    ),
}
_PART_CODES = {
    "face": "no_face",
    "ear": "no_ear",
    "hand": "no_hand",
    "upper body": "no_upper_body",
    "torso": "no_torso",
    "full body": "no_full_body",
}
_PART_TEXT = {
    "face": "a face",
    "ear": "a visible ear",
    "hand": "a visible hand",
    "upper body": "both shoulders",
    "torso": "the shoulders and hips",
    "full body": "the whole figure down to the feet",
}


@dataclass
class Sighting:
    """What the detectors see of people in one photo."""

    width: int
    height: int
    faces: list[tuple[tuple[int, int, int, int], float]] = field(default_factory=list)
    points: dict[str, tuple[float, float]] = field(default_factory=dict)  # in-frame landmarks
    person_area: float = 0.0  # share of the image the segmentation calls person
    blobs: list[float] = field(default_factory=list)  # person blobs' shares, largest first
    second_body: bool = False  # pose finds another body once the first one is covered

    @property
    def real_faces(self) -> list[tuple[tuple[int, int, int, int], float]]:
        area = float(self.width * self.height)
        out = [(b, s) for b, s in self.faces
               if s >= FACE_SCORE and (b[2] - b[0]) * (b[3] - b[1]) / area >= FACE_MIN_AREA]
        if out:
            top = max((b[2] - b[0]) * (b[3] - b[1]) for b, _ in out)
            out = [(b, s) for b, s in out if (b[2] - b[0]) * (b[3] - b[1]) >= SECOND_FACE_SHARE * top]
        return out

    def has(self, *names: str) -> bool:
        return any(n in self.points for n in names)

    def has_part(self, part: str) -> bool:
        if part == "face":
            return bool(self.real_faces) or (
                self.has("nose") and self.has("left_eye", "right_eye")
                and self.has("mouth_left", "mouth_right"))
        if part == "hand":
            return any(self.has(f"{side}_wrist") and self.has(f"{side}_index", f"{side}_pinky",
                                                              f"{side}_thumb")
                       for side in ("left", "right"))
        groups = _PART_LANDMARKS[part]
        return all(self.has(*g) for g in groups)

    @property
    def head_or_torso(self) -> bool:
        head = self.has("nose") and self.has("left_eye", "right_eye")
        torso = self.has("left_shoulder", "right_shoulder") and self.has("left_hip", "right_hip")
        shoulders = self.has("left_shoulder") and self.has("right_shoulder")
        return (head and shoulders) or torso

    @property
    def people(self) -> int:
        """How many people: faces when there are faces, else separate person blobs; a body
        found by pose counts as one."""
        faces = len(self.real_faces)
        blobs = len(self.blobs)
        body = 1 if (self.head_or_torso and self.person_area >= BODY_MIN_AREA) else 0
        return max(faces, blobs, body + int(body and self.second_body))


def look_for_people(rgb: np.ndarray, *, count: bool = True) -> Sighting:
    """Faces, in-frame pose landmarks and person segmentation of a photo. ``count=False``
    skips what only counting people needs (the second pose pass, and the segmentation when
    pose finds no head or torso): a product shot's check."""
    from workers.engines.imaging import pose as _pose

    rgb, _ = limit_side(rgb, LOOK_SIDE)  # every figure is relative: work on a small copy
    h, w = rgb.shape[:2]
    seen = Sighting(width=int(w), height=int(h))
    seen.faces.extend(_pose.face_detections(rgb))
    found = _pose_anywhere(rgb, windows=count)
    if found:
        m = 0.01 * max(w, h)
        seen.points = {k: p for k, p in found.items()
                       if -m <= p[0] <= w + m and -m <= p[1] <= h + m}
        if count:
            seen.second_body = _second_body(rgb, found)
    if not count and not seen.head_or_torso:
        return seen
    mask = _pose.person_mask(rgb)
    solid = (mask > 0.5).astype(np.uint8)
    seen.person_area = float(solid.mean())
    small = cv2.resize(solid, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_NEAREST)
    n, _, stats, _ = cv2.connectedComponentsWithStats(small, connectivity=8)
    areas = sorted((stats[i, cv2.CC_STAT_AREA] / float(small.size) for i in range(1, n)),
                   reverse=True)
    if areas:
        seen.blobs = [a for a in areas
                      if a >= PERSON_BLOB_MIN_AREA and a >= PERSON_BLOB_SHARE * areas[0]]
    return seen


def _pose_anywhere(rgb: np.ndarray, *, windows: bool = True) -> dict[str, tuple[float, float]]:
    """Pose landmarks of the most prominent person; in a landscape frame where pose finds
    no one (a model standing to one side of a wide backdrop), in square windows across it."""
    from workers.engines.imaging import pose as _pose

    h, w = rgb.shape[:2]
    body = _pose.detect_pose(rgb)
    if body is not None:
        return body.points
    if not windows or w <= 1.2 * h:
        return {}
    step = max(1, h // 2)
    for x in range(0, w - h + step, step):
        x = min(x, w - h)
        window = _pose.detect_pose(np.ascontiguousarray(rgb[:, x:x + h]))
        if window is not None and _is_body(window.points):
            return {k: (p[0] + x, p[1]) for k, p in window.points.items()}
    return {}


def _body_box(points: Mapping[str, tuple[float, float]]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    return min(xs), min(ys), max(xs), max(ys)


def _second_body(rgb: np.ndarray, points: Mapping[str, tuple[float, float]]) -> bool:
    """Whether pose finds another person, head or torso, once the first is painted over.

    Pose reports one person; a second one standing beside the first (a two-model photo) is
    found by covering the first with the backdrop colour and looking again."""
    from workers.engines.imaging import pose as _pose

    h, w = rgb.shape[:2]
    x0, y0, x1, y1 = _body_box(points)
    bw, bh = x1 - x0, y1 - y0
    if bw <= 0 or bh <= 0:
        return False
    # Arms, hair and loose garments reach past the landmarks.
    mx, my = 0.25 * bw + 0.04 * w, 0.15 * bh + 0.04 * h
    cx0, cy0 = int(max(0, x0 - mx)), int(max(0, y0 - my))
    cx1, cy1 = int(min(w, x1 + mx)), int(min(h, y1 + my))
    if (cx1 - cx0) * (cy1 - cy0) > 0.85 * w * h:
        return False  # the first person fills the frame: no room for another
    from workers.engines.imaging.cutout import border_colour

    covered = rgb.copy()
    covered[cy0:cy1, cx0:cx1] = np.asarray(border_colour(rgb), np.uint8)
    # The detector finds a person more surely in a frame around them: look in the covered
    # picture, then in the widest strip beside the first person.
    views = [(covered, 0)]
    left, right = cx0, w - cx1
    if max(left, right) >= 0.15 * w:
        x = 0 if left >= right else cx1
        views.append((np.ascontiguousarray(covered[:, x:x + max(left, right)]), x))
    pts: dict[str, tuple[float, float]] = {}
    for view, dx in views:
        other = _pose.detect_pose(view)
        if other is not None:
            vh, vw = view.shape[:2]
            pts = {k: (p[0] + dx, p[1]) for k, p in other.points.items()
                   if 0 <= p[0] <= vw and 0 <= p[1] <= vh}
            if _is_body(pts):
                break
    if not _is_body(pts):
        return False
    ox0, oy0, ox1, oy1 = _body_box(pts)
    inside = (ox0 >= cx0 and ox1 <= cx1 and oy0 >= cy0 and oy1 <= cy1)
    return not inside and (oy1 - oy0) >= 0.4 * bh


def _is_body(pts: Mapping[str, tuple[float, float]]) -> bool:
    shoulders = "left_shoulder" in pts and "right_shoulder" in pts
    head = "nose" in pts and ("left_eye" in pts or "right_eye" in pts)
    hips = "left_hip" in pts or "right_hip" in pts
    return shoulders and (head or hips)


# --- the checks ------------------------------------------------------------------------------


def require_min_side(rgb: np.ndarray, what: str, min_side: int = MIN_SIDE) -> None:
    h, w = rgb.shape[:2]
    if min(h, w) < min_side:
        raise EngineError(
            "image_too_small",
            f"The {what} is {w}x{h} px; its shorter side must be at least {min_side} px. "
            "Send a larger photo.")


def _on_white(rgb: np.ndarray, alpha: np.ndarray | None) -> np.ndarray:
    if alpha is None:
        return rgb
    a = np.asarray(alpha, np.float32)
    if a.max() > 1.0:
        a = a / 255.0
    return (rgb.astype(np.float32) * a[..., None] + 255.0 * (1 - a[..., None])).astype(np.uint8)


def person_in_product(rgb: np.ndarray, alpha: np.ndarray | None = None) -> str | None:
    """What gives a person away in a product shot ("a face", "a body"), or None."""
    seen = look_for_people(_on_white(rgb, alpha), count=False)
    area = float(seen.width * seen.height)
    if any(score >= CLOSE_FACE_SCORE and (b[2] - b[0]) * (b[3] - b[1]) >= CLOSE_FACE_AREA * area
           for b, score in seen.faces):
        return "a face in close-up"
    body = seen.head_or_torso
    if seen.real_faces and body and seen.person_area >= BODY_MIN_AREA:
        return "a face and a body"
    if body and seen.person_area >= PRODUCT_BODY_MIN_AREA:
        return "a body"
    return None


def refuse_person_in_product(rgb: np.ndarray, what: str,
                             alpha: np.ndarray | None = None) -> None:
    found = person_in_product(rgb, alpha)
    if found is not None:
        raise EngineError(
            "person_in_product",
            f"The {what} image shows a person (found: {found}): send a product shot of the "
            f"{what} alone on a plain background.")


def require_one_person(rgb: np.ndarray, what: str, needs: Iterable[str] = (),
                       *, seen: Sighting | None = None,
                       needed_by: Mapping[str, str] | None = None) -> Sighting:
    """One person in the photo, with every part in ``needs`` visible; returns the sighting.
    ``needed_by`` names, per part, what needs it (default "this tool")."""
    seen = seen or look_for_people(rgb)
    people = seen.people
    if people >= 2:
        raise EngineError(
            "several_people",
            f"{what} shows {people} people; a model photo must show one person only.")
    if people == 0 and not seen.points:
        raise EngineError("no_person", f"No person was found in {what}.")
    missing = [p for p in needs if not has_part(rgb, seen, p)]
    if missing:
        part = missing[0]
        raise EngineError(
            _PART_CODES[part],
            f"{what} does not show {_PART_TEXT[part]}, which "
            f"{(needed_by or {}).get(part, 'this tool')} needs"
            + (" (it looks like a half-length portrait)."
               if part in ("hand", "full body", "torso") and seen.has_part("face") else "."))
    return seen


def has_part(rgb: np.ndarray, seen: Sighting, part: str) -> bool:
    if part not in PARTS:
        raise ValueError(f"unknown body part {part!r}")
    if part == "ear":
        from workers.engines.imaging.face import detect_face, earlobes

        face = detect_face(rgb)
        return face is not None and any(lobe.visible for lobe in earlobes(rgb, face))
    return seen.has_part(part)


def visible_parts(rgb: np.ndarray, seen: Sighting | None = None) -> list[str]:
    seen = seen or look_for_people(rgb)
    return [p for p in PARTS if has_part(rgb, seen, p)]


# --- per engine ------------------------------------------------------------------------------

# A look of shoes alone is shown at the feet: the model photo must show them.
FLATS_SHOES_ONLY_NEEDS = ("full body",)


def _decoded(data: Any) -> tuple[np.ndarray, np.ndarray | None] | None:
    if not isinstance(data, (bytes, bytearray)) or not data:
        return None
    from workers.engines.imaging.decode import decode_image

    dec = decode_image(bytes(data))
    return dec.rgb, dec.alpha


def _photo(data: Any, what: str) -> np.ndarray | None:
    got = _decoded(data)
    if got is None:
        return None
    require_min_side(got[0], what)
    return got[0]


def _product(data: Any, what: str, *, person_check: bool = True,
             min_side: int = MIN_PRODUCT_SIDE) -> None:
    got = _decoded(data)
    if got is None:
        return
    rgb, alpha = got
    require_min_side(rgb, f"{what} image", min_side)
    if person_check:
        refuse_person_in_product(rgb, what, alpha)


def _model(data: Any, name: str, needs: tuple[str, ...]) -> None:
    what = f"The photo of {name}" if name else "The model photo"
    rgb = _photo(data, "model photo")
    if rgb is not None:
        require_one_person(rgb, what, needs)


def guard_engine_inputs(engine: str, params: Mapping[str, Any]) -> None:
    """Refuse, before the engine runs, the inputs of a batch engine it cannot make good."""
    name = str(params.get("model_name") or "")
    if engine in ("recolor", "refabric", "reshape"):
        _photo(params.get("image"), "garment photo")
    elif engine == "rebody":
        rgb = _photo(params.get("image"), "photo")
        if rgb is not None:
            require_one_person(rgb, "The photo", TOOL_NEEDS["rebody"])
    elif engine == "earfit":
        _product(params.get("ring_image"), "earring")
        # the visible lobe is the engine's own check (no_ear, with the model's name)
        _model(params.get("model_image"), name, ("face",))
    elif engine == "baghold":
        _product(params.get("bag_image"), "bag", min_side=MIN_BAG_SIDE)
        _model(params.get("model_image"), name, TOOL_NEEDS["baghold"])
    elif engine == "flats":
        worn = []
        for category in ("shoes", "bottom", "top", "overlayer"):
            views = params.get(category)
            if isinstance(views, dict) and any(views.values()):
                worn.append(category)
                for view in views.values():
                    # Garment flats are prepared by the try-on core; a worn-garment check is
                    # for shoes only, whose cut-out would take the legs with it.
                    _product(view, "shoe" if category == "shoes" else category,
                             person_check=category == "shoes")
        _model(params.get("model"), name,
               FLATS_SHOES_ONLY_NEEDS if worn == ["shoes"] else TOOL_NEEDS["flats"])
