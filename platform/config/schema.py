"""OpenAPI schema: unique component names for the nested Input/Output serializers of the
views, and the bearer schemes of our authentication classes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import (
    OpenApiAuthenticationExtension,
    OpenApiSerializerExtension,
    OpenApiSerializerFieldExtension,
)
from drf_spectacular.openapi import AutoSchema as BaseAutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny


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

    def get_operation(self, path: str, path_regex: str, path_prefix: str, method: str,
                      registry: Any) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        for status in sorted(self._error_statuses(operation)):
            responses.setdefault(str(status), _ref(status))
        for code, response in list(responses.items()):
            if code[0] in "45" and int(code) in ERRORS and "content" not in response:
                responses[code] = _ref(int(code))  # error_response(): the shared entry
            elif code[0] in "23" and not self._is_anonymous():
                headers = response.setdefault("headers", {})
                for name in ("RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"):
                    headers.setdefault(name, {"$ref": f"#/components/headers/{name}"})
        operation["responses"] = dict(sorted(responses.items()))
        tool = getattr(self.view, "tool", None)
        if getattr(tool, "shape", None) == "batch" and "requestBody" in operation:
            from tools.serializers import MAX_CARDS

            body = operation["requestBody"]["content"]["application/json"]["schema"]
            body.update(minItems=1, maxItems=MAX_CARDS)  # tools.serializers.CardList
        return operation

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        """In an answer every field is there (a model field with a default is not optional
        there, as it is in a request), but for those a serializer declares required=False (and
        not read-only)."""
        schema = dict(super()._map_basic_serializer(serializer, direction))
        if direction == "response" and schema.get("properties"):
            declared = getattr(serializer, "_declared_fields", {})
            schema["required"] = sorted(
                name for name, field in serializer.fields.items()
                if name in schema["properties"] and not field.write_only
                and (field.required or field.read_only or name not in declared))
        return schema

    def _map_serializer_field(self, field: Any, direction: Any,
                              bypass_extensions: bool = False) -> dict[str, Any]:
        """What DRF's own field checks refuse, said in the request schema: an empty list
        (allow_empty=False), text of spaces only (trimmed, then blank) and NUL characters."""
        schema = dict(super()._map_serializer_field(field, direction, bypass_extensions))
        if direction != "request" or field.read_only:
            return schema
        if (isinstance(field, serializers.ListField | serializers.ListSerializer)
                and not field.allow_empty
                and schema.get("type") == "array"):
            schema.setdefault("minItems", 1)
        if isinstance(field, serializers.URLField) and "pattern" not in schema:
            # (what Django's URLValidator takes, narrowed to the http(s) URLs we fetch)
            schema["pattern"] = (rf"^(https?://{_HOST}{_PATH})?$" if field.allow_blank
                                 else rf"^https?://{_HOST}{_PATH}$")
        if (type(field) in (serializers.CharField, serializers.EmailField)
                and schema.get("type") == "string" and "pattern" not in schema):
            blank_ok = field.allow_blank or not field.trim_whitespace
            schema["pattern"] = r"^[^\x00]*$" if blank_ok else r"^[^\x00]*[^\s\x00][^\x00]*$"
        return schema

    def _get_request_body(self, direction: str = "request") -> Any:
        """A DELETE that reads a body (`delete_reads_body`: a tool's Clean Input, {codes})
        documents it; the base class documents bodies of PUT, PATCH and POST only."""
        if self.method != "DELETE" or not getattr(self.view, "delete_reads_body", False):
            return super()._get_request_body(direction)
        self.method = "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"

    def _is_anonymous(self) -> bool:
        """A call whose link is its permission (signed output and drive links)."""
        return not self.view.get_authenticators() or all(
            isinstance(p, AllowAny) for p in self.view.get_permissions())

    def _error_statuses(self, operation: dict[str, Any]) -> set[int]:
        """The errors any call of this shape can answer, whatever the view does: a malformed
        request (400), the database or the identity provider down (503), the rate limit
        (429); with credentials 401 and 403 (a partner's permissions, CSRF); with a body 413
        and 415; with a path parameter 404; with an Idempotency-Key 409."""
        statuses = {400, 503}
        if self.view.get_throttles():
            statuses.add(429)
        if not self._is_anonymous():
            statuses |= {401, 403}
        if "requestBody" in operation:
            statuses |= {413, 415}
        parameters = operation.get("parameters", [])
        if any(p.get("in") == "path" for p in parameters):
            statuses.add(404)
        if any(p.get("in") == "header" and p.get("name") == "Idempotency-Key"
               for p in parameters):
            statuses.add(409)
        return statuses


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


# --- Errors --------------------------------------------------------------------------------
# Every error answers the envelope of config.errors (error_body): {error, message, fields}.
# Each status is one entry of components/responses, with an example, and AutoSchema adds to
# each operation the statuses it can really answer (see _error_statuses).

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The error envelope of every 4xx and 5xx answer.",
    "properties": {
        "error": {"type": "string", "description": "A stable code: invalid, malformed_request, "
                  "not_authenticated, authentication_failed, forbidden, not_found, conflict, "
                  "too_large, unsupported_media_type, throttled, unavailable, …"},
        "message": {"type": "string", "description": "What went wrong, in words for a person."},
        "fields": {"type": "object", "additionalProperties": {},
                   "description": "Per field (a name, or a path such as `cards.0.target_color` "
                                  "or `0.Width`), its messages; empty when no field is at fault."},
    },
    "required": ["error", "message", "fields"],
}

_RETRY_AFTER = {"Retry-After": {"$ref": "#/components/headers/Retry-After"}}

# status → (component name, description, example, headers)
ERRORS: dict[int, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    400: ("BadRequest",
          "The request is malformed (unreadable JSON, nesting deeper than 64 levels, text that "
          "is not valid Unicode) or a field is invalid or of the wrong JSON type (nothing is "
          "coerced). `message` names the first problem, `fields` every field at fault.",
          {"error": "invalid", "message": "target_color: Enter a colour as #rgb or #rrggbb.",
           "fields": {"target_color": ["Enter a colour as #rgb or #rrggbb."]}}, {}),
    401: ("Unauthorized",
          "No credentials, or credentials that are not valid: send `Authorization: Bearer "
          "<token>`.",
          {"error": "not_authenticated",
           "message": "Authentication credentials were not provided.", "fields": {}}, {}),
    403: ("Forbidden",
          "Signed in, but not allowed: an account outside any partner organisation, a tool not "
          "enabled for the organisation, a staff-only call, or (signed in by session) a "
          "missing CSRF token.",
          {"error": "forbidden", "message": "This tool is not enabled for your organisation.",
           "fields": {}}, {}),
    404: ("NotFound", "Nothing of that id or link in the caller's organisation.",
          {"error": "not_found", "message": "No such job.", "fields": {}}, {}),
    409: ("Conflict",
          "The request conflicts with the current state: a job that is not in a state for "
          "this action, or an Idempotency-Key already used for a different request.",
          {"error": "conflict", "message": "The job is succeeded; only queued or running jobs "
                                           "can be canceled.", "fields": {}}, {}),
    413: ("PayloadTooLarge", "The request body (or an image in it) is over the limit.",
          {"error": "too_large", "message": "The request body is larger than 30 MB.",
           "fields": {}}, {}),
    415: ("UnsupportedMediaType", "The body is not of a media type this call reads.",
          {"error": "unsupported_media_type",
           "message": "Unsupported media type \"text/plain\" in request.", "fields": {}}, {}),
    422: ("JobFailed",
          "A direct tool's job failed or was canceled: the job's error, with `success: false` "
          "and the `job_id`.",
          {"error": "input_unusable", "message": "The model photo shows no one.", "fields": {},
           "success": False, "job_id": "5f0c6a4e-8f7e-4a39-9d53-0c1b5e2f4a10"}, {}),
    429: ("Throttled",
          "Over the rate limit (see the API's description), or over the organisation's cap on "
          "jobs queued or running at once. `Retry-After` says when to try again.",
          {"error": "throttled", "message": "Request was throttled. Expected available in 12 "
                                            "seconds.", "fields": {}}, _RETRY_AFTER),
    503: ("Unavailable",
          "A service Atelier depends on (the database, a drive, the identity provider) is not "
          "answering. `Retry-After` says when to try again.",
          {"error": "unavailable",
           "message": "A service Atelier depends on is not answering. Try again shortly.",
           "fields": {}}, _RETRY_AFTER),
}

RATE_LIMIT_HEADERS: dict[str, dict[str, Any]] = {
    "RateLimit-Limit": {"schema": {"type": "integer"},
                        "description": "Requests allowed per window."},
    "RateLimit-Remaining": {"schema": {"type": "integer"},
                            "description": "Requests left in the current window."},
    "RateLimit-Reset": {"schema": {"type": "integer"},
                        "description": "Seconds until the current window ends."},
    "Retry-After": {"schema": {"type": "integer"},
                    "description": "Seconds to wait before trying again."},
}


def error_response(status: int) -> OpenApiResponse:
    """For a view's extend_schema: a status it answers beyond those AutoSchema adds on its
    own (409 on cancel, say); the envelope and example are filled in from ERRORS."""
    return OpenApiResponse(description=ERRORS[status][1])


def _ref(status: int) -> dict[str, str]:
    return {"$ref": f"#/components/responses/{ERRORS[status][0]}"}


def add_error_components(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: the error envelope, one response per error status (with its
    example) and the rate-limit headers, which the operations refer to."""
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    components["headers"] = RATE_LIMIT_HEADERS
    components["responses"] = {
        name: {
            "description": description,
            "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "example": example,
            }},
            **({"headers": headers} if headers else {}),
        }
        for name, description, example, headers in ERRORS.values()
    }
    return result


def paginated(serializer_class: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The page a LimitOffsetPagination answers, around `serializer_class`: for the
    extend_schema of a list view that paginates by hand (an APIView has no paginator the
    schema generator could read)."""
    name = serializer_class.__name__.removesuffix("Serializer")
    return type(f"Paginated{name}List", (serializers.Serializer,), {
        "__module__": serializer_class.__module__,
        "count": serializers.IntegerField(help_text="Items in the whole list."),
        "next": serializers.URLField(allow_null=True, help_text="The next page, or null."),
        "previous": serializers.URLField(allow_null=True,
                                         help_text="The previous page, or null."),
        "results": serializer_class(many=True),
    })


# --- Exact request schemas ------------------------------------------------------------------
# What the input fields really take, so that a request the schema allows is one the API
# accepts (schemathesis's positive_data_acceptance holds the schema to that).

# (bounded: a host label is at most 63 characters, a URL's host at most 253)
_HOST = r"[a-z0-9]{1,20}(\.[a-z0-9]{1,20}){0,3}\.[a-z]{2,12}"
_PATH = r"(/[A-Za-z0-9._~-]{0,20}){0,4}"


def url_schema(*, https_only: bool = False) -> dict[str, Any]:
    """An http(s) URL as Django's URLValidator takes it, for a parameter's schema."""
    scheme = "https" if https_only else "https?"
    return {"type": "string", "format": "uri", "pattern": rf"^{scheme}://{_HOST}{_PATH}$"}


class StrictSerializerScheme(OpenApiSerializerExtension):
    """A StrictSerializer refuses fields it does not know: its request schema says so."""

    target_class = "config.serializers.StrictSerializer"
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        schema = auto_schema._map_basic_serializer(self.target, direction)
        if self.target.__class__.__doc__ is None:
            schema.pop("description", None)  # not StrictSerializer's own
        if direction == "request":
            schema["additionalProperties"] = False
            for name, extra in getattr(self.target, "schema_limits", {}).items():
                schema["properties"][name].update(extra)
        return dict(schema)


class CardImageUrlScheme(OpenApiSerializerFieldExtension):
    target_class = "tools.serializers.CardImageUrlField"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        from tools.serializers import IMAGE_EXTENSIONS

        ext = "|".join(e.lstrip(".") for e in IMAGE_EXTENSIONS)
        return {"type": "string", "format": "uri",
                "pattern": rf"^https?://{_HOST}{_PATH}/[A-Za-z0-9_~-]+\.({ext}|{ext.upper()})$",
                "description": "An http(s) URL whose path ends in an image extension."}


class HttpUrlScheme(OpenApiSerializerFieldExtension):
    target_class = "tools.serializers.HttpUrlField"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        from tools.serializers import HTTP_URL_PATTERN

        return {"type": "string", "format": "uri", "pattern": rf"^\s*{HTTP_URL_PATTERN}\s*$"}


class HexColorScheme(OpenApiSerializerFieldExtension):
    target_class = "tools.serializers.HexColorField"

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {"type": "string", "pattern": r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$",
                "description": "A colour as #rgb or #rrggbb."}
