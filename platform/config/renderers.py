"""The API's JSON renderer, which cannot fail on text it was given."""

from __future__ import annotations

from typing import Any

from rest_framework import renderers


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict[str, Any] | None = None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            # A lone surrogate cannot be written as UTF-8: \u escapes are valid JSON for it,
            # where the UTF-8 the renderer writes by default would be a 500.
            self.ensure_ascii = True
            return super().render(data, accepted_media_type, renderer_context)
