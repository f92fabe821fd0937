"""Reshape (spec part 1 §3): a garment's cut changed by written instructions per area."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.serializers import CardImageUrlField, CardList, LowerChoiceField
from tools.spec import Shape, ToolSpec

MAX_CHANGES = 10
RESHAPE_AREAS = ("back", "collar", "fit", "hem", "length", "neckline", "shoulders", "silhouette",
                 "sleeves", "waist")
# Display names, sent lower-cased.
RESHAPE_GARMENTS = tuple(name.lower() for name in (
    "Blazer", "Blouse", "Cardigan", "Coat", "Dress", "Full Garment", "Hoodie", "Jacket", "Jeans",
    "Jumpsuit", "Outerwear", "Polo", "Pullover", "Romper", "Shirt", "Shorts", "Skirt", "Sweater",
    "Sweatshirt", "T-Shirt", "Top", "Trousers / Pants",
))


class ReshapeChange(StrictSerializer):
    place = LowerChoiceField(choices=RESHAPE_AREAS)
    instruction = serializers.CharField(max_length=500, trim_whitespace=True)


class ReshapeCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    image_url = CardImageUrlField()
    target_garment = LowerChoiceField(choices=RESHAPE_GARMENTS)
    changes = ReshapeChange(many=True, allow_empty=False)

    INCOMPLETE = ("Please fill in at least one complete card (URL, garment type, and at least "
                  "one change)")

    def validate_changes(self, value: list[Any]) -> list[Any]:
        if len(value) > MAX_CHANGES:
            raise serializers.ValidationError("You can only have up to 10 changes per card")
        return value


SPECS = [
    ToolSpec("reshape", "Reshape", "design", "/reshaping", "V1.0", order=170,
             nav_group="DESIGN", queue="batch", eta_text="about 90 seconds",
             expected_seconds=90, engine="reshape", engine_path="workers.engines.reshape:run",
             guarded=True, input_serializer=ReshapeCard,
             example=[{"image_url": "https://cdn.example.com/looks/shirt.jpg",
                      "target_garment": "shirt", "changes": [{"place": "sleeves",
                      "instruction": "short sleeves"}]}],
             shape=Shape.BATCH,
             url_inputs={"image_url": "image"},
             endpoint="reshaping/reshape",
             drive_categories=("",), urls_path="reshaping/urls"),
]
