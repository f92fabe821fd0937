from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import ensure_csrf_cookie

from config.errors import error_body

logger = logging.getLogger(__name__)


def healthz(request: HttpRequest) -> JsonResponse:
    """Alive: the process answers. Touches nothing else."""
    return JsonResponse({"status": "ok"})


def _database_ok() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        return f"database: {type(exc).__name__}"
    return None


def _broker_ok() -> str | None:
    import redis

    try:
        client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2,
                                      socket_timeout=2)
        client.ping()
    except Exception as exc:  # noqa: BLE001
        return f"broker: {type(exc).__name__}"
    return None


def readyz(request: HttpRequest) -> JsonResponse:
    """Ready: the database and the broker both answer."""
    problems = [p for p in (_database_ok(), _broker_ok()) if p]
    if problems:
        resp = JsonResponse(error_body("unavailable", "; ".join(problems)), status=503)
        resp["Retry-After"] = "5"
        return resp
    return JsonResponse({"status": "ready", "database": "ok", "broker": "ok"})


@ensure_csrf_cookie  # the web app sends it back as X-CSRFToken
def spa(request: HttpRequest, path: str = "") -> HttpResponse | FileResponse:
    """The web app for every client route; the router inside it shows the page."""
    index = settings.WEBAPP_DIST / "index.html"
    if not index.is_file():
        return HttpResponse(
            "<!doctype html><title>Atelier</title><p>The web app is not built yet: run "
            "<code>make run</code>.</p>", status=503,
        )
    resp = FileResponse(index.open("rb"), content_type="text/html; charset=utf-8")
    resp["Cache-Control"] = "no-cache"
    return resp
