"""Virtual Try-On (spec part 2 §1): a garment put on the model of a photo."""

from __future__ import annotations

from rest_framework import serializers

from tools.responses import url_output
from tools.serializers import PairInput
from tools.spec import Shape, ToolSpec

TRY_ON_PROVIDERS = ("fashn", "fal", "vertex", "replicate")


class TryOnInput(PairInput):
    garmentUrl = serializers.URLField()  # noqa: N815 - the spec's field names
    modelUrl = serializers.URLField()  # noqa: N815
    MISSING = "Provide both Desired Garment URL and Base Image URL."
    FIELDS = ("garmentUrl", "modelUrl")


SPECS = [
    ToolSpec("virtual-try-on", "Virtual Try-On", "commercial", "/virtual-try-on", "V1.0",
             order=210, eta_text="about 2 minutes", expected_seconds=120,
             engine="virtual_try_on", engine_path="workers.engines.tryon.virtual_try_on:run",
             input_serializer=TryOnInput,
             example={"garmentUrl": "https://cdn.example.com/garments/shirt.jpg",
                      "modelUrl": "https://cdn.example.com/models/zoe.jpg"},
             shape=Shape.DIRECT, endpoint="try-on",
             url_inputs={"garmentUrl": "garment", "modelUrl": "model"}, respond=url_output,
             generative=True, providers=TRY_ON_PROVIDERS),
]
