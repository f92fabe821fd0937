"""Editorial Product (spec part 2 §6): a product on a canvas staged in a photography preset."""

from __future__ import annotations

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.responses import results
from tools.serializers import prompt_text
from tools.spec import Shape, ToolSpec


class EditorialProductInput(StrictSerializer):
    image = serializers.CharField(help_text="base64 PNG of the canvas, without a data: prefix")
    prompt = prompt_text()
    preset = serializers.CharField(required=False, allow_blank=True, max_length=100)


SPECS = [
    ToolSpec("editorial-product", "Editorial Product", "editorial", "/editorial-product",
             "V1.0", order=40, nav_group="EDITORIAL", eta_text="about 30 seconds",
             expected_seconds=30),
    ToolSpec("editorial-product.generate", "Editorial Product: generate", "editorial", None,
             "V1.0", order=340, engine="editorial_product",
             engine_path="workers.engines.product:run",
             input_serializer=EditorialProductInput,
             example={"image": "iVBORw0KGgo=", "prompt": "on travertine", "preset": ""},
             shape=Shape.DIRECT, endpoint="editorial-product/", base64_inputs={"image": "image"},
             part_of="editorial-product", expected_seconds=30, respond=results(2),
             generative=True, providers=("openai",)),
]
