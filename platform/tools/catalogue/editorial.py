"""Editorial (spec part 2 §5): an editorial photograph from a catalogue shot: analyse a
reference, then generate three images."""

from __future__ import annotations

from config.serializers import StrictSerializer
from tools.responses import json_output, results
from tools.serializers import AnalyzeInput, HttpUrlField, prompt_text
from tools.spec import Shape, ToolSpec


class EditorialGenerateInput(StrictSerializer):
    outfit = HttpUrlField(message="Validation Error: Please enter a valid catalog image URL")
    scene_composition = prompt_text()
    pose_action = prompt_text()
    lighting = prompt_text()
    color_style = prompt_text()
    camera_details = prompt_text()
    outfit_changes = prompt_text()
    model_features = prompt_text()
    lead = prompt_text()
    original_prompt = prompt_text()


def analyze_part(tool: str, name: str, *, order: int, webhook_path: str, engine_path: str,
                 example: dict[str, str]) -> ToolSpec:
    """The analyse step of Editorial and Tonelab: a reference image read into the form's
    fields (each tool's engine names its own)."""
    return ToolSpec(f"{tool}.analyze", f"{name}: analyse a reference", "editorial", None, "V1.0",
                    order=order, engine=f"{tool}_analyze",
                    engine_path=engine_path,
                    input_serializer=AnalyzeInput, example=example, shape=Shape.DIRECT,
                    endpoint=f"{tool}/analyze", webhook_path=webhook_path,
                    url_inputs={"image_reference": "image"}, part_of=tool, expected_seconds=5,
                    respond=json_output)


SPECS = [
    ToolSpec("editorial", "Editorial", "editorial", "/editorial", "V1.0", order=10,
             nav_group="EDITORIAL", eta_text="about 35 seconds", expected_seconds=35),
    analyze_part("editorial", "Editorial", order=300, webhook_path="editorial/urls",
                 engine_path="workers.engines.editorial.analyze:run",
                 example={"image_reference": "https://cdn.example.com/refs/rooftop.jpg"}),
    ToolSpec("editorial.generate", "Editorial: generate", "editorial", None, "V1.0", order=310,
             engine="editorial_generate", engine_path="workers.engines.editorial.generate:run",
             input_serializer=EditorialGenerateInput, shape=Shape.DIRECT,
             endpoint="editorial/generate", webhook_path="Editorial",
             url_inputs={"outfit": "image"}, part_of="editorial", expected_seconds=35,
             respond=results(3), generative=True, providers=("openai",),
             example={"outfit": "https://cdn.example.com/looks/full.jpg",
                      "scene_composition": "a Paris rooftop at dusk",
                      "lighting": "golden hour"}),
]
