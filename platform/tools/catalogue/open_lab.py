"""Open Lab (spec part 2 §7): free prompts with up to two images."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.responses import results
from tools.serializers import prompt_text
from tools.spec import Shape, ToolSpec


class OpenLabInput(StrictSerializer):
    prompt = prompt_text()
    image = serializers.CharField(required=False, allow_blank=True)
    image_2 = serializers.CharField(required=False, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not (attrs.get("prompt", "").strip() or attrs.get("image") or attrs.get("image_2")):
            raise serializers.ValidationError("Send a prompt or at least one image.")
        return attrs


SPECS = [
    ToolSpec("open-lab", "Open Lab", "design", "/open-lab", "V1.0", order=180,
             nav_group="DESIGN", eta_text="about 30 seconds", expected_seconds=30),
    ToolSpec("open-lab.generate", "Open Lab: generate", "design", None, "V1.0", order=350,
             engine="open_lab", engine_path="workers.engines.openlab:run",
             input_serializer=OpenLabInput,
             example={"prompt": "a linen shirt in sage green, flat lay"},
             shape=Shape.DIRECT, endpoint="open-lab/",
             base64_inputs={"image": "image", "image_2": "image_2"}, part_of="open-lab",
             expected_seconds=30, respond=results(2), generative=True, providers=("openai",)),
]
