from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

from config.errors import error_body, unavailable_response


class DatabaseUnavailableMiddleware:
    """A database outage answers 503 with Retry-After (sessions, auth, views alike)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        except (OperationalError, InterfaceError):
            return unavailable_response()

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if isinstance(exc, (OperationalError, InterfaceError)):
            return unavailable_response()
        return None


class BodySizeLimitMiddleware:
    """Refuse a body whose declared length is over the limit before anything reads it."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return JsonResponse(error_body("malformed_request", "Bad Content-Length."), status=400)
        upload = request.META.get("CONTENT_TYPE", "").startswith("multipart/")
        limit = settings.MAX_UPLOAD_BODY_BYTES if upload else settings.MAX_REQUEST_BODY_BYTES
        if length > limit:
            limit_mb = limit // (1024 * 1024)
            return JsonResponse(
                error_body("too_large", f"The request body is larger than {limit_mb} MB."),
                status=413,
            )
        return self.get_response(request)


class RateLimitHeadersMiddleware:
    """RateLimit-Limit, -Remaining and -Reset (IETF draft) on every throttled API response, so
    a client can pace itself instead of learning the limit from a 429."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        limit = getattr(request, "ratelimit", None)
        if limit is not None:
            response["RateLimit-Limit"] = str(limit.limit)
            response["RateLimit-Remaining"] = str(limit.remaining)
            response["RateLimit-Reset"] = str(limit.reset)
            if response.status_code == 429 and not response.has_header("Retry-After"):
                response["Retry-After"] = str(limit.reset)
        return response
