"""Recolor (spec part 1 §3): a garment in a photo to a new colour, keeping its detail."""

from __future__ import annotations

from config.serializers import StrictSerializer
from tools.serializers import CardImageUrlField, CardList, HexColorField, LowerChoiceField
from tools.spec import card_tool

RECOLOR_GARMENTS = (
    "blazer", "blouse", "cardigan", "coat", "dress", "full-garment", "hoodie", "jacket", "jeans",
    "jumpsuit", "polo", "pullover", "romper", "shirt", "shorts", "skirt", "sweater", "sweatshirt",
    "top", "trousers", "tshirt",
)


class RecolorCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    image_url = CardImageUrlField()
    target_color = HexColorField()
    garment_type = LowerChoiceField(choices=RECOLOR_GARMENTS)

    INCOMPLETE = "Please fill in at least one complete card (URL, color, and garment type)"


SPECS = [
    card_tool("recolor", "Recolor", "design", "/recoloring", order=150,
              endpoint="recoloring/recolor", urls_path="recoloring/urls",
              input_serializer=RecolorCard, eta_text="about 90 seconds", expected_seconds=90,
              example=[{"image_url": "https://cdn.example.com/looks/tee.jpg",
                        "target_color": "#c5b299", "garment_type": "tshirt"}]),
]
