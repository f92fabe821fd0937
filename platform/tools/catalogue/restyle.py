"""Restyle (spec part 1 §9): a garment shot dressed onto a full-body outfit photo."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

from jobs.models import Job
from tools.catalogue.virtual_try_on import TRY_ON_PROVIDERS
from tools.responses import image_output
from tools.serializers import GarmentOutfitInput
from tools.spec import Respond, Shape, ToolSpec


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


def garment_on_photo(slug: str, name: str, category: str, route: str, *, order: int,
                     endpoint: str, input_serializer: type[GarmentOutfitInput],
                     respond: Respond, eta_text: str, expected_seconds: float,
                     example: dict[str, str], **more: Any) -> ToolSpec:
    """A direct tool that puts a garment (or an accessory) shot onto a photo: Restyle,
    Garment Integration, Ecommerce Asset. Its local engine, workers.engines.tryon.<engine>,
    is a preview; providers make studio results."""
    engine = slug.replace("-", "_")
    return ToolSpec(slug, name, category, route, "V1.0", order=order,
                    nav_group=category.upper(), eta_text=eta_text,
                    expected_seconds=expected_seconds, engine=engine,
                    engine_path=f"workers.engines.tryon.{engine}:run",
                    input_serializer=input_serializer, example=example, shape=Shape.DIRECT,
                    endpoint=endpoint,
                    url_inputs={"garment_url": "garment", "outfit_url": "outfit"},
                    respond=respond, generative=True, **more)


SPECS = [
    garment_on_photo("restyle", "Restyle", "ecommerce", "/restyle-tool", order=110,
                     endpoint="restyle/garment-restyle", input_serializer=RestyleInput,
                     respond=restyle_output, eta_text="about 18 seconds", expected_seconds=18,
                     providers=TRY_ON_PROVIDERS,
                     example={"garment_url": "https://cdn.example.com/garments/shirt.jpg",
                              "outfit_url": "https://cdn.example.com/looks/full.jpg"}),
]
