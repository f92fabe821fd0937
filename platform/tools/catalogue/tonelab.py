"""Tonelab (spec part 2 §5): an editorial in the tones of a reference image."""

from __future__ import annotations

from tools.catalogue.editorial import EditorialGenerateInput, analyze_part
from tools.responses import results
from tools.serializers import HttpUrlField
from tools.spec import Shape, ToolSpec


class TonelabGenerateInput(EditorialGenerateInput):
    outfit = HttpUrlField(message="Please enter a valid Tonelab URL")
    reference = HttpUrlField(message="Please enter a valid HTTP/HTTPS URL", required=False)
    scene_composition = None  # type: ignore[assignment]
    pose_action = None  # type: ignore[assignment]


SPECS = [
    ToolSpec("tonelab", "Tonelab", "editorial", "/tonelab", "V1.0", order=20,
             nav_group="EDITORIAL", eta_text="about 35 seconds", expected_seconds=35),
    analyze_part("tonelab", "Tonelab", order=320, webhook_path="analyze",
                 engine_path="workers.engines.editorial.tonelab:analyze_run",
                 example={"image_reference": "https://cdn.example.com/refs/tones.jpg"}),
    ToolSpec("tonelab.generate", "Tonelab: generate", "editorial", None, "V1.0", order=330,
             engine="tonelab_generate", engine_path="workers.engines.editorial.tonelab:run",
             input_serializer=TonelabGenerateInput, shape=Shape.DIRECT,
             endpoint="tonelab/generate", webhook_path="tonelab",
             url_inputs={"outfit": "image", "reference": "reference"}, part_of="tonelab",
             expected_seconds=35, respond=results(3), generative=True, providers=("openai",),
             example={"outfit": "https://cdn.example.com/looks/full.jpg",
                      "reference": "https://cdn.example.com/refs/tones.jpg"}),
]
