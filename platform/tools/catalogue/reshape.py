"""Reshape (spec part 1 §3): a garment's cut changed by written instructions per area."""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.serializers import CardImageUrlField, CardList, LowerChoiceField
from tools.spec import card_tool

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
    # validate_changes's limit, in the OpenAPI schema (config.schema.StrictSerializerScheme)
    schema_limits: ClassVar[dict[str, dict[str, Any]]] = {"changes": {"maxItems": MAX_CHANGES}}

    INCOMPLETE = ("Please fill in at least one complete card (URL, garment type, and at least "
                  "one change)")

    def validate_changes(self, value: list[Any]) -> list[Any]:
        if len(value) > MAX_CHANGES:
            raise serializers.ValidationError("You can only have up to 10 changes per card")
        return value


SPECS = [
    card_tool("reshape", "Reshape", "design", "/reshaping", order=170,
              endpoint="reshaping/reshape", urls_path="reshaping/urls",
              input_serializer=ReshapeCard, eta_text="about 90 seconds", expected_seconds=90,
              example=[{"image_url": "https://cdn.example.com/looks/shirt.jpg",
                        "target_garment": "shirt",
                        "changes": [{"place": "sleeves", "instruction": "short sleeves"}]}]),
]
