"""Flats Ecommerce (spec part 1 §8): flat product shots from the drive worn as looks by a
library model."""

from __future__ import annotations

from typing import Any, cast

from accounts.models import Organization
from drives.grouping import Found, Group, SyncRefused, storage_ref
from drives.looks import FlatFile, group_looks
from tools.serializers import SyncInput
from tools.spec import LibraryUse, drive_tool

CATEGORIES = ("shoes", "bottom", "top", "overlayer")


def by_look(new: list[Found], everything: list[Found], options: dict[str, Any],
            org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    """One job per look: a look wears one product of each category (drives.looks says which
    files make a look), so a top and shoes synced together become one outfit."""
    from tools.library import library_model_fit
    from tools.models import LibraryModel

    fresh = set(new)
    files = [FlatFile(category=f.folder.category or "", stem=f.stem, new=f in fresh, key=f)
             for f in everything]
    looks, refused = group_looks(files)
    skipped += [{"name": _found(f).file.name, "reason": reason} for f, reason in refused]
    # The first model Flats can dress; a look of shoes alone needs one whose feet are in frame
    # (the engine refuses it otherwise: no_feet), so such a look is skipped with the reason.
    models = list(LibraryModel.objects.filter(organization=org))
    fits = [(m, library_model_fit(model=m, tool="flats")) for m in models]
    usable = [(m, f) for m, f in fits if f["ok"]]
    if models and not usable:
        raise SyncRefused(f"No model of your library can be dressed by Flats: {models[0].name}: "
                          f"{fits[0][1]['reason']}")
    model, fit = usable[0] if usable else (None, None)
    groups = []
    for look in looks:
        if fit is not None and set(look.items) == {"shoes"} and not fit.get("shoes_alone"):
            skipped += [{"name": _found(f).file.name, "model": model.code if model else "",
                         "reason": f"A look of shoes alone is worn at the feet, and the photo of "
                                   f"{model.name if model else 'the model'} does not show them: "
                                   "sync the shoes with a garment of the look."}
                        for f in look.files]
            continue
        sources: dict[str, Any] = {cat: {view: _found(f).ref() for view, f in views.items()}
                                   for cat, views in look.items.items()}
        if model is not None:
            sources["model"] = storage_ref(model)
        groups.append(Group(payload={"outfit": look.name, "model": model.code if model else None},
                            sources=sources, files=[_found(f) for f in look.files]))
    return groups


def _found(file: FlatFile) -> Found:
    """The drive file a look's entry was made from (drives.looks keeps it as an opaque key)."""
    return cast(Found, file.key)


def feet(shows: dict[str, Any], fit: dict[str, Any]) -> dict[str, Any]:
    """A look of shoes alone needs the feet in frame (the engine's no_feet)."""
    fit["shoes_alone"] = bool(shows.get("full_body"))
    if not shows.get("full_body"):
        fit["note"] = ("Half-length photo: garments are shown on the upper body only, and a "
                       "look of shoes alone is skipped (no feet to wear them).")
    return fit


SPECS = [
    drive_tool("flats", "Flats Ecommerce", "/flats-catalog", order=130,
               endpoint="flats-catalog/sync", grouper=by_look, input_serializer=SyncInput,
               eta_text="about 150 seconds", expected_seconds=150, guarded=True,
               drive_categories=CATEGORIES, group_key="outfit", providers=("fashn",),
               library=LibraryUse("Flats Ecommerce", order=3, fit=feet),
               example={"action": "sync", "categories": ["top", "shoes"]}),
]
