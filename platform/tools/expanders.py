"""Inputs completed with the organisation's data (its model library) before jobs are made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.exceptions import ValidationError


@dataclass
class LibraryFits:
    fit: list[Any]  # the library models the tool can use
    unfit: list[Any]  # the others (listed in `skipped` with the reason)
    fits: dict[Any, dict[str, Any]]  # per model's pk: tools.library.library_model_fit


def library_fits(tool: Any, org: Any, skipped: list[dict[str, str]]) -> LibraryFits:
    """The organisation's library models, split by whether the tool's engine would take their
    photo: a model it would refuse is left out and listed in ``skipped`` with the reason,
    instead of queueing a job bound to fail. None usable is a 400."""
    from tools.library import library_model_fit
    from tools.models import LibraryModel

    models = list(LibraryModel.objects.filter(organization=org))
    if not models:
        raise ValidationError({"non_field_errors": [
            "Your model library is empty: ask Atelier to add your models."]})
    fits = {m.pk: library_model_fit(model=m, tool=tool.slug) for m in models}
    unfit = [m for m in models if not fits[m.pk]["ok"]]
    skipped += [{"model": m.code, "name": m.name, "reason": fits[m.pk]["reason"]} for m in unfit]
    fit = [m for m in models if fits[m.pk]["ok"]]
    if not fit:
        raise ValidationError({"non_field_errors": [
            f"No model of your library can be used by {tool.name}: "
            + " ".join(f"{m.name}: {fits[m.pk]['reason']}" for m in unfit)]})
    return LibraryFits(fit=fit, unfit=unfit, fits=fits)


def worn_by(card: dict[str, Any], model: Any, **extra: Any) -> dict[str, Any]:
    """A card's job payload on a library model (its photo read from our storage)."""
    return {**card, **extra, "model": model.code, "model_name": model.name,
            "model_height_cm": model.height_cm,
            "_sources": {"model_image": {"storage": model.photo.name}}}
