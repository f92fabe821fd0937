"""The model library: adding people to an organisation's library, from a photo or from the
two public-domain sample portraits that ship inside our requirements."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from django.core.files.base import ContentFile
from django.utils.text import slugify
from PIL import Image, UnidentifiedImageError

from accounts.models import Organization
from tools.models import Gender, LibraryModel
from tools.portraits import astronaut, grace_hopper
from tools.spec import LibraryUse

logger = logging.getLogger(__name__)

MIN_SIDE = 256  # px: smaller photos give no usable face or hand landmarks



class _LibraryTools(Mapping[str, str]):
    """The tools that dress library models (their specs' ``library``) → how staff see them. A
    staff member adding a model says which tools it is for; the photo is checked for them."""

    @cached_property  # the catalogue is fixed once imported
    def _uses(self) -> dict[str, LibraryUse]:
        from tools.registry import TOOLS

        uses = sorted((t.library.order, t.slug, t.library) for t in TOOLS.values()
                      if t.library is not None)
        return {slug: use for _, slug, use in uses}

    def __getitem__(self, tool: str) -> str:
        return self._uses[tool].label

    def __iter__(self) -> Iterator[str]:
        return iter(self._uses)

    def __len__(self) -> int:
        return len(self._uses)

    def use(self, tool: str) -> LibraryUse:
        return self._uses[tool]


LIBRARY_TOOLS = _LibraryTools()

# Bumped when what a photo "shows" is measured differently, so stored measures are redone.
SHOWS_VERSION = 3


class LibraryError(ValueError):
    """A model that cannot be added; the message says why."""


@dataclass(frozen=True)
class Sample:
    code: str
    name: str
    gender: str
    height_cm: int
    credit: str
    load: Callable[[], np.ndarray]

    def photo(self) -> tuple[bytes, str]:
        """(JPEG bytes, file name), read from the package that distributes the portrait."""
        out = io.BytesIO()
        Image.fromarray(self.load()).save(out, "JPEG", quality=95)
        return out.getvalue(), f"{self.code}.jpg"


# Half-length portraits, so Baghold and Flats can dress only the upper body. Heights are
# nominal: they scale bags, and neither portrait shows one.
SAMPLES = (
    Sample("sample-eileen", "Eileen (sample)", Gender.FEMALE, 168,
           "NASA portrait of astronaut Eileen Collins, public domain (scikit-image)", astronaut),
    Sample("sample-grace", "Grace (sample)", Gender.FEMALE, 168,
           "US Navy portrait of Rear Admiral Grace Hopper, public domain (matplotlib)",
           grace_hopper),
)


def library_model_add(
    *, organization: Organization, name: str, gender: str, height_cm: int, photo: bytes,
    filename: str, code: str | None = None, tools: Iterable[str] = (),
) -> tuple[LibraryModel, bool]:
    """Add (or, for a code the organisation already has, replace) a library model.
    The photo must show one person, with what each of ``tools`` needs to see (a visible ear for
    Earfit...). Returns (model, created)."""
    name = name.strip()
    if not name:
        raise LibraryError("A model needs a name.")
    if gender not in Gender.values:
        raise LibraryError(f"Gender must be one of: {', '.join(Gender.values)}.")
    if not 100 <= height_cm <= 230:
        raise LibraryError("Height must be between 100 and 230 cm.")
    try:
        with Image.open(io.BytesIO(photo)) as image:
            image.verify()
        with Image.open(io.BytesIO(photo)) as image:
            size = image.size
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise LibraryError(f"{filename} is not an image we can read.") from exc
    if min(size) < MIN_SIDE:
        raise LibraryError(f"{filename} is {size[0]}x{size[1]} px; the shorter side must be at "
                           f"least {MIN_SIDE} px.")
    library_photo_check(photo, name=name, tools=tools)
    code = slugify(code or name)[:64]
    if not code:
        raise LibraryError("The model's name gives no usable code: pass one.")
    model = LibraryModel.objects.filter(organization=organization, code=code).first()
    created = model is None
    if model is None:
        model = LibraryModel(organization=organization, code=code)
    else:
        model.photo.delete(save=False)
    model.name, model.gender, model.height_cm = name, gender, height_cm
    model.photo.save(filename, ContentFile(photo), save=False)
    model.shows = library_photo_shows(photo)
    model.save()
    return model, created


def library_photo_check(photo: bytes, *, name: str, tools: Iterable[str] = ()) -> None:
    """Refuse (LibraryError) a model photo that shows no one, two people or more, or not what
    the given tools need (a visible ear for Earfit, shoulders for Baghold and Flats...)."""
    from workers.engines.base import EngineError
    from workers.engines.imaging.decode import decode_image
    from workers.engines.imaging.inputs import require_min_side, require_one_person
    from workers.vocabularies import TOOL_NEEDS

    unknown = [t for t in tools if t not in LIBRARY_TOOLS]
    if unknown:
        raise LibraryError(f"Unknown tool {unknown[0]!r}: one of {', '.join(LIBRARY_TOOLS)}.")
    needs = tuple(dict.fromkeys(p for t in tools for p in TOOL_NEEDS[t]))
    needed_by = {p: " and ".join(LIBRARY_TOOLS[t] for t in tools if p in TOOL_NEEDS[t])
                 for p in needs}
    try:
        rgb = decode_image(photo).rgb
        require_min_side(rgb, "model photo", MIN_SIDE)
        require_one_person(rgb, f"The photo of {name.strip() or 'the model'}", needs,
                           needed_by=needed_by)
    except EngineError as exc:
        raise LibraryError(exc.message) from exc


def library_samples_add(*, organization: Organization) -> list[tuple[LibraryModel, bool]]:
    """The sample portraits in the organisation's library (replaced if already there)."""
    added = []
    for sample in SAMPLES:
        photo, filename = sample.photo()
        added.append(library_model_add(
            organization=organization, name=sample.name, gender=sample.gender,
            height_cm=sample.height_cm, photo=photo, filename=filename, code=sample.code))
    return added


# --- what a model photo shows, and what each tool can do with it ------------------------------


def library_photo_shows(photo: bytes) -> dict[str, Any]:
    """What a model photo shows, measured once with the checks the engines run:
    ``{"people", "face", "ears", "hands", "upper_body", "torso", "full_body"}``. The ears are
    counted as Earfit counts them (a visible lobe of skin, not hair), the hands as Baghold
    finds them (hand landmarks, for a grip)."""
    from workers.engines.imaging.decode import decode_image
    from workers.engines.imaging.face import detect_face, find_earlobes, head_person_mask
    from workers.engines.imaging.hands import detect_hands
    from workers.engines.imaging.inputs import look_for_people

    rgb = decode_image(photo).rgb
    seen = look_for_people(rgb)
    face = detect_face(rgb)
    ears = 0
    if face is not None:
        lobes = find_earlobes(rgb, face, head_person_mask(rgb, face))
        ears = len({lobe.side for lobe in lobes if lobe.visible})
    return {
        "version": SHOWS_VERSION,
        "measured": True,
        "people": int(seen.people),
        "face": bool(seen.has_part("face") or face is not None),
        "ears": ears,
        "hands": min(2, len(detect_hands(rgb))),
        "upper_body": seen.has_part("upper body"),
        "torso": seen.has_part("torso"),
        "full_body": seen.has_part("full body"),
    }


def library_model_shows(*, model: LibraryModel) -> dict[str, Any]:
    """The model's measure, taken (and saved) on first read for rows added before it was
    stored: measuring every photo in a migration would hold a large library's deploy."""
    if model.shows and model.shows.get("version") == SHOWS_VERSION:
        return dict(model.shows)
    try:
        with model.photo.open("rb") as handle:
            shows = library_photo_shows(handle.read())
    except Exception:
        # Not measurable now (a photo missing from storage, or one the decoder cannot read):
        # nothing is known before the run, so no model is skipped for it and the engine's own
        # refusal says why. Not saved, so a storage outage is measured again on the next read.
        logger.warning("library model %s: photo not measurable", model.pk, exc_info=True)
        return {"version": SHOWS_VERSION, "measured": False}
    LibraryModel.objects.filter(pk=model.pk).update(shows=shows)
    model.shows = shows
    return dict(shows)


# Part names of the engines' checks (workers.vocabularies.TOOL_NEEDS) → the measure that says
# it is seen, and how the refusal reads.
_PART_SHOWN: dict[str, tuple[str, str]] = {
    "face": ("face", "no face is seen"),
    "ear": ("ears", "no earlobe is visible (hair, the framing or a turned head hides them)"),
    "hand": ("hands", "no hand is in frame"),
    "upper body": ("upper_body", "both shoulders are not in frame"),
    "torso": ("torso", "the shoulders and hips are not in frame"),
    "full body": ("full_body", "the feet are not in frame"),
}


def library_model_fits(shows: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per tool of LIBRARY_TOOLS, whether its engine can dress a model whose photo shows
    ``shows``: ``{"ok": True}``, with ``carry``/``note`` where it is dressed differently, or
    ``{"ok": False, "reason": ...}`` for what the engine would refuse.

    The parts each tool cannot do without are the engines' own (``vocabularies.TOOL_NEEDS``, which
    the engine registry checks before a run), plus what the tool's spec adds
    (``ToolSpec.library``: Earfit's visible lobe, Baghold's carry, Flats' feet)."""
    from workers.vocabularies import TOOL_NEEDS

    if shows.get("measured") is False:
        return {tool: {"ok": True} for tool in LIBRARY_TOOLS}
    people = int(shows.get("people") or 0)
    fits: dict[str, dict[str, Any]] = {}
    for tool, label in LIBRARY_TOOLS.items():
        if people >= 2:
            fits[tool] = {"ok": False, "reason": f"The photo shows {people} people; "
                                                 f"{label} dresses one."}
            continue
        use = LIBRARY_TOOLS.use(tool)
        needs = TOOL_NEEDS[tool] + use.needs
        missing = [p for p in needs if not shows.get(_PART_SHOWN[p][0])]
        if missing:
            fits[tool] = {"ok": False,
                          "reason": f"{label} cannot use this photo: {_PART_SHOWN[missing[0]][1]}."}
            continue
        fit: dict[str, Any] = {"ok": True}
        fits[tool] = use.fit(shows, fit) if use.fit else fit
    return fits


def library_model_fit(*, model: LibraryModel, tool: str) -> dict[str, Any]:
    return library_model_fits(library_model_shows(model=model))[tool]
