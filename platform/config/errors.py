"""One JSON error shape for every failure: {"error": code, "message": text, "fields": {...}}."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DatabaseError, InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response

logger = logging.getLogger(__name__)

DB_RETRY_AFTER = 5


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"
    default_detail = "This conflicts with the current state."


class ServiceUnavailable(exceptions.APIException):
    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_code = "unavailable"
    default_detail = "A service Atelier depends on is not answering. Try again shortly."


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "too_large"
    default_detail = "The request body is too large."


_CODES = {
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.ValidationError: "invalid",
}


def encodable(value: Any) -> Any:
    """Error text as it can always be encoded: a field that echoes what the client sent (a
    choice's "\ud800 is not a valid choice") must not turn the 400 into a 500."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {encodable(k): encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encodable(v) for v in value]
    return value


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"error": code, "message": encodable(message), "fields": encodable(fields or {})}


def first_message(detail: Any) -> str | None:
    if isinstance(detail, list):
        for item in detail:
            found = first_message(item)
            if found:
                return found
    elif isinstance(detail, dict):
        for item in detail.values():
            found = first_message(item)
            if found:
                return found
    elif detail:
        return str(detail)
    return None


def unavailable_response(message: str | None = None) -> JsonResponse:
    resp = JsonResponse(
        error_body("unavailable", message or ServiceUnavailable.default_detail), status=503
    )
    resp["Retry-After"] = str(DB_RETRY_AFTER)
    return resp


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, (OperationalError, InterfaceError)):
        logger.warning("database unavailable: %s", exc)
        resp = Response(error_body("unavailable", ServiceUnavailable.default_detail), status=503)
        resp["Retry-After"] = str(DB_RETRY_AFTER)
        return resp
    elif isinstance(exc, DatabaseError):
        return None  # a real defect: let it surface as a 500 and be logged
    if not isinstance(exc, exceptions.APIException):
        return None

    code = next((c for k, c in _CODES.items() if isinstance(exc, k)), None)
    if code is None:
        code = exc.default_code if isinstance(exc.default_code, str) else "error"
    fields: dict[str, Any] = {}
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        if isinstance(detail, dict):
            fields = {k: v for k, v in detail.items() if k != "non_field_errors"}
        message = first_message(detail) or "Invalid input."
        if isinstance(detail, dict) and len(detail) and not detail.get("non_field_errors"):
            first_field = next(iter(detail))
            message = f"{first_field}: {first_message(detail[first_field])}"
    else:
        message = first_message(exc.detail) or str(exc.default_detail)
    resp = Response(error_body(code, message, fields), status=exc.status_code)
    wait = getattr(exc, "wait", None)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        resp["Retry-After"] = str(int(wait) + 1)
    if isinstance(exc, ServiceUnavailable):
        resp["Retry-After"] = str(DB_RETRY_AFTER)
    auth_header = getattr(context.get("view"), "get_authenticate_header", None)
    if resp.status_code == 401 and auth_header is not None and context.get("request") is not None:
        value = auth_header(context["request"])
        if value:
            resp["WWW-Authenticate"] = value
    return resp


@csrf_exempt  # an unknown POST path answers 404, not the CSRF check's HTML 403
def json_404(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return JsonResponse(error_body("not_found", "Not found."), status=404)


def json_500(request: HttpRequest) -> JsonResponse:
    return JsonResponse(error_body("server_error", "Something went wrong on our side."), status=500)
