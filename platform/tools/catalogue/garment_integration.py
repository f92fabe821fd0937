"""Garment Integration (spec part 2 §7): a product worn in an editorial image."""

from __future__ import annotations

from tools.catalogue.virtual_try_on import TRY_ON_PROVIDERS
from tools.responses import plain_image_output
from tools.serializers import GarmentOutfitInput
from tools.spec import Shape, ToolSpec


class GarmentIntegrationInput(GarmentOutfitInput):
    MISSING = "Provide both Editorial Image URL and Product Image URL."


SPECS = [
    ToolSpec("garment-integration", "Garment Integration", "editorial", "/restyle-editorial",
             "V1.0", order=30, nav_group="EDITORIAL", eta_text="about 20 seconds",
             expected_seconds=20, engine="garment_integration",
             engine_path="workers.engines.tryon.garment_integration:run",
             input_serializer=GarmentIntegrationInput,
             example={"garment_url": "https://cdn.example.com/garments/bag.jpg",
                      "outfit_url": "https://cdn.example.com/editorial/street.jpg"},
             shape=Shape.DIRECT,
             endpoint="restyle-editorial/process",
             url_inputs={"garment_url": "garment", "outfit_url": "outfit"},
             respond=plain_image_output,  # {success, image_data (png) | url}
             generative=True, providers=TRY_ON_PROVIDERS),
]
