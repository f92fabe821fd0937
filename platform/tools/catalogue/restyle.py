"""Restyle (spec part 1 §9): a garment shot dressed onto a full-body outfit photo."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from jobs.models import Job
from tools.catalogue.virtual_try_on import TRY_ON_PROVIDERS
from tools.responses import image_output
from tools.serializers import GarmentOutfitInput
from tools.spec import Shape, ToolSpec


class RestyleInput(GarmentOutfitInput):
    MISSING = "Provide both Full Body Outfit URL and Garment Shot URL."


def restyle_output(job: Job, request: Request) -> dict[str, Any]:
    """{image_data, filename}."""
    body = image_output(job, request)
    if not body["success"]:
        return body
    first = job.outputs.order_by("index").first()
    return {"image_data": body["image_data"]["data"],
            "filename": first.filename if first else f"{job.tool}.png"}


SPECS = [
    ToolSpec("restyle", "Restyle", "ecommerce", "/restyle-tool", "V1.0", order=110,
             nav_group="ECOMMERCE", eta_text="about 18 seconds", expected_seconds=18,
             engine="restyle", engine_path="workers.engines.tryon.restyle:run",
             input_serializer=RestyleInput,
             example={"garment_url": "https://cdn.example.com/garments/shirt.jpg",
                      "outfit_url": "https://cdn.example.com/looks/full.jpg"},
             shape=Shape.DIRECT,
             endpoint="restyle/garment-restyle",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"},
             respond=restyle_output, generative=True, providers=TRY_ON_PROVIDERS),
]
