"""The fields and bases the tools' input serializers share (each tool's own serializer is in
its spec module, tools.catalogue.<tool>): the spec's fields, limits and messages."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from rest_framework import serializers

from config.serializers import StrictSerializer

# --- Spec enumerations (part 1 §3) -------------------------------------------------------

MAX_CARDS = 20
MAX_CHANGES = 10
# Photos the engines decode (workers.engines.imaging.decode: phones' HEIC, TIFF and AVIF
# too); card pages also take an SVG link, as the spec's pages do.
PHOTO_EXTENSIONS = (".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp", ".heic", ".heif", ".avif",
                    ".tif", ".tiff")
IMAGE_EXTENSIONS = (*PHOTO_EXTENSIONS, ".svg")
HEX = re.compile(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")
# An http(s) URL as HttpUrlField takes it (the schema documents the same pattern): an ASCII
# host (no brackets, which urlsplit reads as a broken IPv6 address), then no spaces.
HTTP_URL_PATTERN = r"[Hh][Tt][Tt][Pp][Ss]?://[A-Za-z0-9._~%!$&'()*+,;=:@-]+([/?#][^\s\x00]*)?"
HTTP_URL = re.compile(HTTP_URL_PATTERN)


class CardImageUrlField(serializers.URLField):
    # (Baghold's bag URL takes the page's own 'Invalid image URL' message.)
    """Card pages accept an image URL only if its path ends in an image extension."""

    default_error_messages = {
        "scheme": "Enter an http or https URL.",
        "extension": "The URL must point to an image (jpg, jpeg, png, gif, bmp, webp, heic, "
                     "heif, avif, tif, tiff or svg).",
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


# --- Placement and composition tools (part 1 §7, part 2 §3 and §7) -------------------------

class OptionalCentimetres(serializers.FloatField):
    """An optional length that the spec's page sends as "" when left empty: "" is absent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(min_value=0, max_value=200, required=False, allow_null=True, **kwargs)

    def validate_empty_values(self, data: Any) -> tuple[bool, Any]:
        if isinstance(data, str) and not data.strip():
            return True, None
        return super().validate_empty_values(data)


class PairInput(StrictSerializer):
    """Two URLs, both required (trimmed), with the page's message when one is missing."""

    MISSING = ""
    FIELDS: tuple[str, str] = ("", "")

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and not all(str(data.get(f) or "").strip()
                                              for f in self.FIELDS):
            raise serializers.ValidationError({"non_field_errors": [self.MISSING]})
        return super().to_internal_value(data)


class GarmentOutfitInput(PairInput):
    """A garment shot and a photo of the look to put it in (the page names them its way)."""

    garment_url = serializers.URLField()
    outfit_url = serializers.URLField()
    FIELDS = ("garment_url", "outfit_url")


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


def prompt_text(**kwargs: Any) -> serializers.CharField:
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
        if not HTTP_URL.fullmatch(value):
            raise serializers.ValidationError(self.message)
        try:
            parts = urlsplit(value)
        except ValueError:  # "http://[x": an unclosed IPv6 host
            raise serializers.ValidationError(self.message) from None
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise serializers.ValidationError(self.message)
        return value


class AnalyzeInput(StrictSerializer):
    image_reference = HttpUrlField(message="Invalid URL: Please enter a valid HTTP/HTTPS URL")


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


