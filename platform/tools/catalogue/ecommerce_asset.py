"""Ecommerce Asset (spec part 1 §10): an accessory placed on a base model image."""

from __future__ import annotations

from tools.responses import plain_image_output
from tools.serializers import GarmentOutfitInput
from tools.spec import Shape, ToolSpec


class EcommerceAssetInput(GarmentOutfitInput):
    MISSING = "Provide both Accessory URL and Base Model Image URL."


SPECS = [
    ToolSpec("ecommerce-asset", "Ecommerce Asset", "ecommerce", "/catalog-asset", "V1.0",
             order=140, nav_group="ECOMMERCE", eta_text="about 1 minute", expected_seconds=60,
             engine="ecommerce_asset", engine_path="workers.engines.tryon.ecommerce_asset:run",
             input_serializer=EcommerceAssetInput,
             example={"garment_url": "https://cdn.example.com/accessories/scarf.jpg",
                      "outfit_url": "https://cdn.example.com/models/zoe.jpg"},
             shape=Shape.DIRECT,
             endpoint="catalog-asset/process",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"},
             respond=plain_image_output,  # {success, image_data (jpeg) | url}
             generative=True),
]
