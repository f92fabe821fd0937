"""Input serializers of the tools: the spec's fields, limits and messages."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from rest_framework import serializers

from config.serializers import StrictSerializer


class DiagnosticsSleepInput(StrictSerializer):
    seconds = serializers.FloatField(min_value=0, max_value=600, default=1.0)
    fail = serializers.BooleanField(default=False)  # type: ignore[assignment]
    # Ignore the soft time limit (the engine keeps sleeping through it), so that ops can
    # check what happens at the hard limit.
    ignore_soft_limit = serializers.BooleanField(default=False)
    outputs = serializers.IntegerField(min_value=0, max_value=5, default=1)
    # Seconds each output takes to produce once the sleep is over, as a slow store would: lets
    # ops check what happens when a time limit fires while results are being saved.
    save_seconds = serializers.FloatField(min_value=0, max_value=60, default=0.0)


# --- Spec enumerations (part 1 §3) -------------------------------------------------------

RECOLOR_GARMENTS = (
    "blazer", "blouse", "cardigan", "coat", "dress", "full-garment", "hoodie", "jacket", "jeans",
    "jumpsuit", "polo", "pullover", "romper", "shirt", "shorts", "skirt", "sweater", "sweatshirt",
    "top", "trousers", "tshirt",
)
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
RESHAPE_AREAS = ("back", "collar", "fit", "hem", "length", "neckline", "shoulders", "silhouette",
                 "sleeves", "waist")
# Display names, sent lower-cased.
RESHAPE_GARMENTS = tuple(name.lower() for name in (
    "Blazer", "Blouse", "Cardigan", "Coat", "Dress", "Full Garment", "Hoodie", "Jacket", "Jeans",
    "Jumpsuit", "Outerwear", "Polo", "Pullover", "Romper", "Shirt", "Shorts", "Skirt", "Sweater",
    "Sweatshirt", "T-Shirt", "Top", "Trousers / Pants",
))
BODY_TYPES = ("Standard Fit", "Curvy Fit", "Pear Silhouette", "Slim Fit", "Athletic Build",
              "Petite", "Slim with Bust", "Hourglass")

MAX_CARDS = 20
MAX_CHANGES = 10
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".svg")
HEX = re.compile(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


class CardImageUrlField(serializers.URLField):
    # (Baghold's bag URL takes the page's own 'Invalid image URL' message.)
    """Card pages accept an image URL only if its path ends in an image extension."""

    default_error_messages = {
        "scheme": "Enter an http or https URL.",
        "extension": "The URL must point to an image (jpg, jpeg, png, gif, bmp, webp or svg).",
    }

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(str(data).strip() if isinstance(data, str) else data))
        parsed = urlsplit(value)
        if parsed.scheme not in ("http", "https"):
            self.fail("scheme")
        if not parsed.path.lower().endswith(IMAGE_EXTENSIONS):
            self.fail("extension")
        return value


class HexColorField(serializers.CharField):
    default_error_messages = {"hex": "Enter a colour as #rgb or #rrggbb."}

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data)).strip()
        match = HEX.fullmatch(value)
        if not match:
            self.fail("hex")
        digits = match.group(1).lower()
        if len(digits) == 3:
            digits = "".join(c * 2 for c in digits)
        return f"#{digits}"


class LowerChoiceField(serializers.ChoiceField):
    """A choice matched without regard to case or surrounding spaces."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            data = data.strip().lower()
        return super().to_internal_value(data)


class CardList(serializers.ListSerializer):
    """1 to 20 cards, with the page's message when there is no complete card."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, list) or not data:
            message = getattr(self.child, "INCOMPLETE", "Send at least one card.")
            raise serializers.ValidationError({"non_field_errors": [message]},
                                              code="no_valid_cards")
        if len(data) > MAX_CARDS:
            raise serializers.ValidationError(
                {"non_field_errors": ["You can only have up to 20 cards"]}, code="max_cards")
        return super().to_internal_value(data)


class RecolorCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    image_url = CardImageUrlField()
    target_color = HexColorField()
    garment_type = LowerChoiceField(choices=RECOLOR_GARMENTS)

    INCOMPLETE = "Please fill in at least one complete card (URL, color, and garment type)"


class RefabricCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    image_url = CardImageUrlField()
    re_fabric = LowerChoiceField(choices=FABRICS)
    material_finish = LowerChoiceField(choices=FINISHES)
    target_garment = LowerChoiceField(choices=REFABRIC_GARMENTS)

    INCOMPLETE = ("Please fill in at least one complete card (URL, fabric type, material "
                  "finish, and garment type)")


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


class RebodyInput(StrictSerializer):
    image_url = serializers.URLField()
    target_bodytype = serializers.ChoiceField(choices=BODY_TYPES)
    specs = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)

    MISSING = "Provide both Full Body Look Image URL and Body Type."

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and not (str(data.get("image_url") or "").strip()
                                           and str(data.get("target_bodytype") or "").strip()):
            raise serializers.ValidationError({"non_field_errors": [self.MISSING]})
        return super().to_internal_value(data)

    def validate_image_url(self, value: str) -> str:
        # spec part 1 §5: starts with http and ends with an image extension
        if urlsplit(value).scheme not in ("http", "https") or not urlsplit(
                value).path.lower().endswith(IMAGE_EXTENSIONS[:-1]):
            raise serializers.ValidationError(
                "The image URL must start with http and end with an image extension.")
        return value


# --- Placement and composition tools (part 1 §7, part 2 §3 and §7) -------------------------

MIN_RING_IN, MAX_RING_IN = 0.5, 10.0


class EarringCard(StrictSerializer):
    class Meta:
        list_serializer_class = CardList

    ring_image = CardImageUrlField()
    ring_height_in = serializers.FloatField(
        min_value=MIN_RING_IN, max_value=MAX_RING_IN,
        error_messages={"min_value": "Must be between 0.5 and 10 inches",
                        "max_value": "Must be between 0.5 and 10 inches"})

    INCOMPLETE = ("Please fill in at least one complete card with ring image URL and height "
                  "between 0.5 and 10 inches")


class OptionalCentimetres(serializers.FloatField):
    """An optional length that the spec's page sends as "" when left empty: "" is absent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=0, max_value=200, required=False, allow_null=True, **kwargs)

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if isinstance(data, str) and not data.strip():
            return True, None
        return super().validate_empty_values(data)


BAG_CM = "centimetres, > 0; a number, or a number written as text (\"38\")"
BAG_CM_OPTIONAL = ("centimetres (optional); a number, or a number written as text, "
                   "\"\" for none")


class BagCard(StrictSerializer):
    """Dimensions in centimetres (the spec does not say; the API docs state it)."""

    class Meta:
        list_serializer_class = CardList

    Bag_Url = CardImageUrlField(error_messages={"extension": "Invalid image URL"})
    Width = serializers.FloatField(min_value=0.1, max_value=300, help_text=BAG_CM)
    Height = serializers.FloatField(min_value=0.1, max_value=300, help_text=BAG_CM)
    Depth = serializers.FloatField(min_value=0.1, max_value=200, help_text=BAG_CM)
    Handle = OptionalCentimetres(help_text=f"handle drop, {BAG_CM_OPTIONAL}")
    Strap = OptionalCentimetres(help_text=f"strap drop, {BAG_CM_OPTIONAL}")
    Gender = serializers.ChoiceField(choices=("Male", "Female"))

    # The spec's Bag Holder page posts its dimension inputs' text as typed ("38", "" when an
    # optional drop is left empty): those fields take a number written as text too.
    numeric_text = ("Width", "Height", "Depth", "Handle", "Strap")

    INCOMPLETE = "Please add at least one bag with its URL, dimensions and gender."


class _PairInput(StrictSerializer):
    """Two URLs, both required (trimmed), with the page's message when one is missing."""

    MISSING = ""
    FIELDS: tuple[str, str] = ("", "")

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and not all(str(data.get(f) or "").strip()
                                              for f in self.FIELDS):
            raise serializers.ValidationError({"non_field_errors": [self.MISSING]})
        return super().to_internal_value(data)


class TryOnInput(_PairInput):
    garmentUrl = serializers.URLField()  # noqa: N815 - the spec's field names
    modelUrl = serializers.URLField()  # noqa: N815
    MISSING = "Provide both Desired Garment URL and Base Image URL."
    FIELDS = ("garmentUrl", "modelUrl")


class RestyleInput(_PairInput):
    garment_url = serializers.URLField()
    outfit_url = serializers.URLField()
    MISSING = "Provide both Full Body Outfit URL and Garment Shot URL."
    FIELDS = ("garment_url", "outfit_url")


class GarmentIntegrationInput(RestyleInput):
    MISSING = "Provide both Editorial Image URL and Product Image URL."


class EcommerceAssetInput(RestyleInput):
    MISSING = "Provide both Accessory URL and Base Model Image URL."


class RemodelInput(StrictSerializer):
    modelId = serializers.CharField(max_length=64)  # noqa: N815 - the spec's field names
    # base64 of the chosen model's picture: used when the model is not in the library
    modelPicture = serializers.CharField(required=False, allow_blank=True)  # noqa: N815


class SyncInput(StrictSerializer):
    action = serializers.ChoiceField(choices=("sync",), default="sync")
    timestamp = serializers.CharField(required=False, allow_blank=True, max_length=64)
    categories = serializers.ListField(
        child=serializers.ChoiceField(choices=("shoes", "bottom", "top", "overlayer")),
        required=False)


class CodesInput(StrictSerializer):
    codes = serializers.ListField(child=serializers.CharField(max_length=100), allow_empty=False,
                                  max_length=1000)


# --- Editorial Hub and Design Lab (part 2 §5, §7) ------------------------------------------

MAX_PROMPT = 4000
PROMPT_MESSAGES: dict[str, Any] = {"max_length": "A prompt may be at most 4,000 characters."}


def _text(**kwargs: Any) -> serializers.CharField:
    return serializers.CharField(required=False, allow_blank=True, default="",
                                 max_length=MAX_PROMPT, error_messages=PROMPT_MESSAGES, **kwargs)


class HttpUrlField(serializers.CharField):
    """An http(s) URL, with the page's own message."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        self.message = message
        kwargs.setdefault("error_messages", {"blank": message, "required": message,
                                             "null": message, "invalid": message})
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data)).strip()
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise serializers.ValidationError(self.message)
        return value


class AnalyzeInput(StrictSerializer):
    image_reference = HttpUrlField(message="Invalid URL: Please enter a valid HTTP/HTTPS URL")


class EditorialGenerateInput(StrictSerializer):
    outfit = HttpUrlField(message="Validation Error: Please enter a valid catalog image URL")
    scene_composition = _text()
    pose_action = _text()
    lighting = _text()
    color_style = _text()
    camera_details = _text()
    outfit_changes = _text()
    model_features = _text()
    lead = _text()
    original_prompt = _text()


class TonelabGenerateInput(EditorialGenerateInput):
    outfit = HttpUrlField(message="Please enter a valid Tonelab URL")
    reference = HttpUrlField(message="Please enter a valid HTTP/HTTPS URL", required=False)
    scene_composition = None  # type: ignore[assignment]
    pose_action = None  # type: ignore[assignment]


class EditorialProductInput(StrictSerializer):
    image = serializers.CharField(help_text="base64 PNG of the canvas, without a data: prefix")
    prompt = _text()
    preset = serializers.CharField(required=False, allow_blank=True, max_length=100)


class OpenLabInput(StrictSerializer):
    prompt = _text()
    image = serializers.CharField(required=False, allow_blank=True)
    image_2 = serializers.CharField(required=False, allow_blank=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not (attrs.get("prompt", "").strip() or attrs.get("image") or attrs.get("image_2")):
            raise serializers.ValidationError("Send a prompt or at least one image.")
        return attrs


class TechPackDescriptionInput(StrictSerializer):
    description = serializers.CharField(max_length=MAX_PROMPT, error_messages={
        **PROMPT_MESSAGES, "blank": "Please enter a text description before proceeding",
        "required": "Please enter a text description before proceeding"})
    image = serializers.CharField(required=False, allow_blank=True)


class TechPackProcessInput(StrictSerializer):
    tech_pack = serializers.CharField(max_length=20000, error_messages={
        "blank": "Please complete Step 1 before processing the tech pack",
        "required": "Please complete Step 1 before processing the tech pack"})
    image = serializers.CharField(required=False, allow_blank=True)


def webhook_unwrap(data: Any) -> Any:
    """The spec's workflow-webhook wrapper ([{headers, params, query, body: [item],
    webhookUrl, executionMode}]) or an array of one item, down to the item itself."""
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if isinstance(data, dict) and "body" in data and (
            {"webhookUrl", "executionMode", "headers"} & set(data)):
        data = data["body"]
        if isinstance(data, list) and len(data) == 1:
            data = data[0]
    return data


class ModelSwapInput(StrictSerializer):
    image_url = serializers.URLField()
    modelId = serializers.CharField(max_length=64)  # noqa: N815 - the page's field name
