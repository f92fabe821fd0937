"""Ecommerce Asset (spec part 1 §10): an accessory placed on a base model image."""

from __future__ import annotations

from tools.catalogue.restyle import garment_on_photo
from tools.responses import plain_image_output
from tools.serializers import GarmentOutfitInput


class EcommerceAssetInput(GarmentOutfitInput):
    MISSING = "Provide both Accessory URL and Base Model Image URL."


SPECS = [
    garment_on_photo("ecommerce-asset", "Ecommerce Asset", "ecommerce", "/catalog-asset",
                     order=140, endpoint="catalog-asset/process",
                     input_serializer=EcommerceAssetInput,
                     respond=plain_image_output,  # {success, image_data (jpeg) | url}
                     eta_text="about 1 minute", expected_seconds=60,
                     example={"garment_url": "https://cdn.example.com/accessories/scarf.jpg",
                              "outfit_url": "https://cdn.example.com/models/zoe.jpg"}),
]
