"""Model Swap (spec part 2 §2): one photo re-cast with a model of the library."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from config.serializers import StrictSerializer
from tools.responses import image_output
from tools.spec import Shape, ToolSpec


class ModelSwapInput(StrictSerializer):
    image_url = serializers.URLField()
    modelId = serializers.CharField(max_length=64)  # noqa: N815 - the page's field name


def with_swap_model(org: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The chosen library model's photo, read by the Remodel engine."""
    from tools.library import library_model_fit
    from tools.models import LibraryModel

    model = LibraryModel.objects.filter(organization=org, code=data["modelId"]).first()
    if model is None:
        raise ValidationError({"modelId": [f"No model '{data['modelId']}' in your model library."]})
    fit = library_model_fit(model=model, tool="remodel")
    if not fit["ok"]:
        raise ValidationError({"modelId": [f"{model.name}: {fit['reason']}"]})
    return {**data, "model_name": model.name,
            "_sources": {**data.get("_sources", {}), "model_face": {"storage": model.photo.name}}}


SPECS = [
    ToolSpec("model-swap", "Model Swap", "commercial", "/model-swapper", "V1.0", order=220,
             eta_text="about 15 seconds", expected_seconds=15, engine="remodel",
             input_serializer=ModelSwapInput,
             example={"image_url": "https://cdn.example.com/looks/full.jpg", "modelId": "zoe"},
             shape=Shape.DIRECT, endpoint="model-swap/process", url_inputs={"image_url": "image"},
             expand_direct=with_swap_model, respond=image_output,  # {success, image_data, url}
             generative=True, providers=("fashn",)),
]
