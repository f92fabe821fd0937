"""Tonelab (spec part 2 §5): an editorial in the tones of a reference image."""

from __future__ import annotations

from tools.catalogue.editorial import EditorialGenerateInput, reference_tool
from tools.serializers import HttpUrlField


class TonelabGenerateInput(EditorialGenerateInput):
    outfit = HttpUrlField(message="Please enter a valid Tonelab URL")
    reference = HttpUrlField(message="Please enter a valid HTTP/HTTPS URL", required=False)
    scene_composition = None  # type: ignore[assignment]
    pose_action = None  # type: ignore[assignment]


SPECS = reference_tool(
    "tonelab", "Tonelab", "/tonelab", order=20, part_orders=(320, 330),
    analyze_engine="workers.engines.editorial.tonelab:analyze_run", analyze_webhook="analyze",
    analyze_example={"image_reference": "https://cdn.example.com/refs/tones.jpg"},
    generate_engine="workers.engines.editorial.tonelab:run", generate_webhook="tonelab",
    generate_input=TonelabGenerateInput,
    generate_urls={"outfit": "image", "reference": "reference"},
    generate_example={"outfit": "https://cdn.example.com/looks/full.jpg",
                      "reference": "https://cdn.example.com/refs/tones.jpg"})
