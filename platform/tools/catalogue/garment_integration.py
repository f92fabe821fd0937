"""Garment Integration (spec part 2 §7): a product worn in an editorial image."""

from __future__ import annotations

from tools.catalogue.restyle import garment_on_photo
from tools.catalogue.virtual_try_on import TRY_ON_PROVIDERS
from tools.responses import plain_image_output
from tools.serializers import GarmentOutfitInput


class GarmentIntegrationInput(GarmentOutfitInput):
    MISSING = "Provide both Editorial Image URL and Product Image URL."


SPECS = [
    garment_on_photo("garment-integration", "Garment Integration", "editorial",
                     "/restyle-editorial", order=30, endpoint="restyle-editorial/process",
                     input_serializer=GarmentIntegrationInput,
                     respond=plain_image_output,  # {success, image_data (png) | url}
                     eta_text="about 20 seconds", expected_seconds=20,
                     providers=TRY_ON_PROVIDERS,
                     example={"garment_url": "https://cdn.example.com/garments/bag.jpg",
                              "outfit_url": "https://cdn.example.com/editorial/street.jpg"}),
]
