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


def reference_tool(tool: str, name: str, route: str, *, order: int, part_orders: tuple[int, int],
                   analyze_engine: str, analyze_webhook: str, analyze_example: dict[str, str],
                   generate_engine: str, generate_webhook: str,
                   generate_input: type[EditorialGenerateInput], generate_urls: dict[str, str],
                   generate_example: dict[str, str]) -> list[ToolSpec]:
    """Editorial and Tonelab: the page, its analyse step (a reference image read into the
    form's fields, each tool's engine naming its own) and its generate step (three images; a
    provider makes studio results)."""
    return [
        ToolSpec(tool, name, "editorial", route, "V1.0", order=order, nav_group="EDITORIAL",
                 eta_text="about 35 seconds", expected_seconds=35),
        ToolSpec(f"{tool}.analyze", f"{name}: analyse a reference", "editorial", None, "V1.0",
                 order=part_orders[0], engine=f"{tool}_analyze", engine_path=analyze_engine,
                 input_serializer=AnalyzeInput, example=analyze_example, shape=Shape.DIRECT,
                 endpoint=f"{tool}/analyze", webhook_path=analyze_webhook,
                 url_inputs={"image_reference": "image"}, part_of=tool, expected_seconds=5,
                 respond=json_output),
        ToolSpec(f"{tool}.generate", f"{name}: generate", "editorial", None, "V1.0",
                 order=part_orders[1], engine=f"{tool}_generate", engine_path=generate_engine,
                 input_serializer=generate_input, example=generate_example, shape=Shape.DIRECT,
                 endpoint=f"{tool}/generate", webhook_path=generate_webhook,
                 url_inputs=generate_urls, part_of=tool, expected_seconds=35,
                 respond=results(3), generative=True, providers=("openai",)),
    ]


SPECS = reference_tool(
    "editorial", "Editorial", "/editorial", order=10, part_orders=(300, 310),
    analyze_engine="workers.engines.editorial.analyze:run", analyze_webhook="editorial/urls",
    analyze_example={"image_reference": "https://cdn.example.com/refs/rooftop.jpg"},
    generate_engine="workers.engines.editorial.generate:run", generate_webhook="Editorial",
    generate_input=EditorialGenerateInput, generate_urls={"outfit": "image"},
    generate_example={"outfit": "https://cdn.example.com/looks/full.jpg",
                      "scene_composition": "a Paris rooftop at dusk", "lighting": "golden hour"})
