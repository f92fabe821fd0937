"""Web app weight and speed in headless Chromium, printed (not asserted): gzipped bytes of the
JavaScript the landing page and a tool page load, and the landing page's first paint.
Goal: landing page under 150 KB of gzipped JavaScript."""

from __future__ import annotations

import gzip
import io
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

# The browser and page fixtures of the browser suite.
from tests.e2e.conftest import browser, page  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

LANDING_GOAL_BYTES = 150 * 1024


def sign_in(page: Any, live_server: Any) -> None:
    """A session cookie from Django's test client, handed to the browser: the bench measures
    pages, not the sign-in form."""
    call_command("createpartner", "bench@atelier.test", "--org", "Bench", "--password",
                 "pw-for-the-bench", stdout=io.StringIO())
    client = Client()
    client.force_login(get_user_model().objects.get(email="bench@atelier.test"))
    page.context.add_cookies([{
        "name": settings.SESSION_COOKIE_NAME,
        "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
        "url": live_server.url,
    }])


def scripts_loaded(page: Any, path: str, ready: Any) -> dict[str, int]:
    """Visits `path` and returns {script URL: gzipped bytes} of every script it loaded."""
    responses: list[Any] = []

    def collect(response: Any) -> None:
        if response.request.resource_type == "script":
            responses.append(response)

    page.on("response", collect)
    page.goto(path)
    ready(page)
    page.wait_for_load_state("networkidle")
    page.remove_listener("response", collect)
    return {r.url.rsplit("/", 1)[-1]: len(gzip.compress(r.body(), compresslevel=9)) for r in responses}


def report(title: str, sizes: dict[str, int]) -> int:
    total = sum(sizes.values())
    print(f"\n{title}: {total / 1024:.1f} KB gzipped JavaScript in {len(sizes)} files")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"    {size / 1024:7.1f} KB  {name}")
    return total


def bench_webapp_weight_and_first_paint(page: Any, browser: Any, live_server: Any) -> None:  # noqa: F811
    sign_in(page, live_server)

    landing = scripts_loaded(page, "/", lambda p: p.get_by_role("heading", name="Editorial Hub").wait_for())
    landing_total = report("Landing page (/)", landing)
    verdict = "within" if landing_total <= LANDING_GOAL_BYTES else "OVER"
    print(f"    goal {LANDING_GOAL_BYTES / 1024:.0f} KB: {verdict}")

    tool_page = page.context.new_page()
    tool = scripts_loaded(
        tool_page, "/recoloring",
        lambda p: p.get_by_role("heading", level=1, name="Recolor").wait_for())
    report("Tool page (/recoloring)", tool)
    tool_page.close()

    # First paint of a cold landing page, median of a few fresh contexts (no warm cache).
    cookies = page.context.cookies()
    runs: list[dict[str, float]] = []
    for _ in range(5):
        context = browser.new_context(base_url=live_server.url)
        context.add_cookies(cookies)
        fresh = context.new_page()
        fresh.goto("/")
        fresh.get_by_role("heading", name="Editorial Hub").wait_for()
        entries = fresh.evaluate(
            "performance.getEntriesByType('paint').map(e => [e.name, e.startTime])")
        runs.append(dict(entries))
        context.close()
    for name in ("first-paint", "first-contentful-paint"):
        values = sorted(run[name] for run in runs if name in run)
        if values:
            print(f"Landing {name}: median {values[len(values) // 2]:.0f} ms "
                  f"(min {values[0]:.0f}, max {values[-1]:.0f}, {len(values)} cold loads)")
