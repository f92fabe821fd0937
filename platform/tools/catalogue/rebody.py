"""Rebody (spec part 1 §5): the model in a full-body photo redrawn to another body type."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from rest_framework import serializers

from config.serializers import StrictSerializer
from tools.responses import image_output
from tools.serializers import PHOTO_EXTENSIONS
from tools.spec import Shape, ToolSpec

BODY_TYPES = ("Standard Fit", "Curvy Fit", "Pear Silhouette", "Slim Fit", "Athletic Build",
              "Petite", "Slim with Bust", "Hourglass")


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
                value).path.lower().endswith(PHOTO_EXTENSIONS):
            raise serializers.ValidationError(
                "The image URL must start with http and end with an image extension.")
        return value


SPECS = [
    ToolSpec("rebody", "Rebody", "ecommerce", "/rebody", "V1.0", order=120,
             nav_group="ECOMMERCE", eta_text="about 1-2 minutes", expected_seconds=90,
             engine="rebody", guarded=True,
             input_serializer=RebodyInput,
             example={"image_url": "https://cdn.example.com/looks/full.jpg",
                      "target_bodytype": "Curvy Fit"},
             shape=Shape.DIRECT, url_inputs={"image_url": "image"},
             endpoint="rebody/process", respond=image_output),
]
