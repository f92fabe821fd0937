"""The model library: adding people to an organisation's library, from a photo or from the
two public-domain sample portraits that ship inside our requirements."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from django.core.files.base import ContentFile
from django.utils.text import slugify
from PIL import Image, UnidentifiedImageError

from accounts.models import Organization
from tools.models import Gender, LibraryModel
from tools.portraits import astronaut, grace_hopper

MIN_SIDE = 256  # px: smaller photos give no usable face or hand landmarks

# The tools that dress library models, and what each needs to see of the model (a staff member
# adding a model says which tools it is for; the photo is checked for them).
LIBRARY_TOOLS = {"earfit": "Earfit", "baghold": "Baghold", "flats": "Flats Ecommerce",
                 "remodel": "Remodel and Model Swap"}


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
    model.save()
    return model, created


def library_photo_check(photo: bytes, *, name: str, tools: Iterable[str] = ()) -> None:
    """Refuse (LibraryError) a model photo that shows no one, two people or more, or not what
    the given tools need (a visible ear for Earfit, shoulders for Baghold and Flats...)."""
    from workers.engines.base import EngineError
    from workers.engines.imaging.decode import decode_image
    from workers.engines.imaging.inputs import (
        TOOL_NEEDS,
        require_min_side,
        require_one_person,
    )

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
