from __future__ import annotations

from typing import Any

from django.urls import URLPattern, path


def both(route: str, view: Any, name: str) -> list[URLPattern]:
    """Serve a route with and without its trailing slash (no redirect, so POSTs work);
    the first spelling is the one URLs are built with."""
    other = route[:-1] if route.endswith("/") else f"{route}/"
    return [path(route, view, name=name), path(other, view)]
