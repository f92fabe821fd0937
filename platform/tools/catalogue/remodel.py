"""Remodel (spec part 1 §4): catalogue photos from the drive re-cast with a library model."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import Organization
from config.serializers import StrictSerializer
from drives.grouping import Found, Group, SyncRefused, library_model, storage_ref
from tools.spec import LibraryUse, drive_tool


class RemodelInput(StrictSerializer):
    modelId = serializers.CharField(max_length=64)  # noqa: N815 - the spec's field names
    # base64 of the chosen model's picture: used when the model is not in the library
    modelPicture = serializers.CharField(required=False, allow_blank=True)  # noqa: N815


def one_per_photo(new: list[Found], everything: list[Found], options: dict[str, Any],
                  org: Organization, skipped: list[dict[str, str]]) -> list[Group]:
    """One job per new photo, all with the chosen model."""
    from tools.library import library_model_fit
    from tools.models import LibraryModel

    code = options.get("modelId")
    if options.get("modelPicture") and not LibraryModel.objects.filter(
            organization=org, code=code).exists():
        # not in the library: the picture the page sent is the model
        from tools.uploads import stash_base64

        face = stash_base64(org_id=org.pk, field="modelPicture", value=options["modelPicture"])
        name = str(code)
    else:
        model = library_model(org, code)
        fit = library_model_fit(model=model, tool="remodel")
        if not fit["ok"]:  # every job would be refused for the same reason
            raise SyncRefused(f"{model.name}: {fit['reason']}")
        face, code, name = storage_ref(model), model.code, model.name
    return [Group(payload={"model": code, "model_name": name, "source": f.file.name},
                  sources={"image": f.ref(), "model_face": face}, files=[f])
            for f in sorted(new, key=lambda f: f.file.name)]


SPECS = [
    drive_tool("remodel", "Remodel", "/remodel", order=70, endpoint="remodel/process",
               grouper=one_per_photo, input_serializer=RemodelInput,
               eta_text="about 15 seconds", expected_seconds=15, generative=True,
               providers=("fashn",), library=LibraryUse("Remodel and Model Swap", order=4),
               example={"modelId": "zoe"}),
]
