"""Refabric (spec part 1 §3): a garment in a photo remade in another fabric and finish."""

from __future__ import annotations

from config.serializers import StrictSerializer
from tools.serializers import CardImageUrlField, CardList, LowerChoiceField
from tools.spec import card_tool

FABRICS = (
    "acrylic", "alpaca", "canvas", "cashmere", "chiffon", "cotton", "cupro", "denim", "fleece",
    "jersey", "leather", "linen", "lyocell", "modal", "mohair", "nylon", "organza", "polyester",
    "silk", "spandex", "suede", "tulle", "tweed", "velvet", "viscose", "wool",
)
FINISHES = ("glossy", "matte", "metallic", "patterned", "sheer", "textured")
REFABRIC_GARMENTS = (
    "accessory", "blazer", "blouse", "cardigan", "coat", "dress", "full-garment", "hoodie",
    "jacket", "jeans", "jumpsuit", "outerwear", "polo", "pullover", "romper", "shirt", "shorts",
    "skirt", "sweater", "sweatshirt", "top", "trousers", "tshirt",
)


class RefabricCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    image_url = CardImageUrlField()
    re_fabric = LowerChoiceField(choices=FABRICS)
    material_finish = LowerChoiceField(choices=FINISHES)
    target_garment = LowerChoiceField(choices=REFABRIC_GARMENTS)

    INCOMPLETE = ("Please fill in at least one complete card (URL, fabric type, material "
                  "finish, and garment type)")


SPECS = [
    card_tool("refabric", "Refabric", "design", "/refabric", order=160,
              endpoint="refabricing/refabric", urls_path="refabricing/urls",
              input_serializer=RefabricCard, eta_text="about 90 seconds", expected_seconds=90,
              example=[{"image_url": "https://cdn.example.com/looks/dress.jpg",
                        "re_fabric": "velvet", "material_finish": "matte",
                        "target_garment": "dress"}]),
]
