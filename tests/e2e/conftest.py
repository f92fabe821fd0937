"""A real browser (Debian's Chromium through Playwright) against the live server."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

# Playwright's sync API keeps an event loop on this thread; the test's own database calls are
# plain synchronous ones, which Django would otherwise refuse there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
SHOTS = Path(settings.VAR_DIR) / "test-logs" / "screens"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not (settings.WEBAPP_DIST / "index.html").is_file():
        pytest.fail("The web app is not built: `make test` builds it (npm run build).")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    context = browser.new_context(base_url=live_server.url)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    SHOTS.mkdir(parents=True, exist_ok=True)
    context.close()
