"""OpenAPI schema: unique component names for the nested Input/Output serializers of the
views, and the bearer schemes of our authentication classes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema as BaseAutoSchema


class AutoSchema(BaseAutoSchema):
    def _get_serializer_name(self, serializer: Any, direction: Any,
                             bypass_extensions: bool = False) -> str:
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        cls = serializer.child.__class__ if hasattr(serializer, "child") else serializer.__class__
        outer, _, inner = cls.__qualname__.rpartition(".")
        if outer and not name.startswith(outer):
            # MeApi.OutputSerializer → "MeOutput", not a clash of a dozen "Output"s
            name = outer.removesuffix("Api") + name
        return str(name)


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "http", "scheme": "bearer", "bearerFormat": "atl_…",
                "description": "A partner API token (createpartner, or POST /api/tokens/)."}


class ProviderTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ProviderTokenAuthentication"
    name = "providerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "http", "scheme": "bearer",
                "description": "An access token of the configured identity provider."}


def drop_alternate_spellings(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """Every route is served with and without its trailing slash (config.routing.both); the
    schema documents the first spelling only."""
    seen: set[tuple[str, str]] = set()
    kept = []
    for endpoint in endpoints:
        path, _, method, _ = endpoint
        # the signed drive link with the file name is the same call as without it
        path = path.replace("/files/{token}/{name}", "/files/{token}")
        key = (path.rstrip("/"), method)
        if key in seen:
            continue
        seen.add(key)
        kept.append(endpoint)
    return kept
