"""The API's JSON renderer, which cannot fail on text it was given."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import renderers

from config.errors import encodable


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            # A lone surrogate cannot be written as UTF-8: written as its escape instead, where
            # failing here would turn any answer echoing it into a 500.
            return super().render(encodable(data), accepted_media_type, renderer_context)
