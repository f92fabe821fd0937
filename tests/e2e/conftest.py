"""A real browser (Debian's Chromium through Playwright) against the live server."""

from __future__ import annotations

import io
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
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"


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


@pytest.fixture(scope="module")
def runner(django_db_setup: Any) -> Iterator[Any]:
    """One real Celery worker (all queues) for the browser runs of a module: the engines it
    imports stay warm from one page to the next. It stops with the module, so a page test
    that wants its jobs left queued, and every suite after this one, meets no stray worker."""
    from tests.support.processes import start_worker

    proc = start_worker(concurrency=2)
    yield proc
    proc.stop()


def shot(page: Any, name: str, full_page: bool = True) -> None:
    """Keep a screenshot as a test artefact (var/test-logs/screens/NAME.png)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")  # the sticky navbar otherwise lands mid-shot
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


def sign_in(page: Any, start: str, email: str, org: str, password: str = "pw-for-the-pages") -> None:
    """Create the partner and sign in through the real form, landing on START."""
    from django.core.management import call_command

    call_command("createpartner", email, "--org", org, "--password", password,
                 stdout=io.StringIO())
    page.goto(start)
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.wait_for_url("**/auth/login/**")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.get_by_role("button", name=email).wait_for()


def partner_api(email: str, live_server: Any) -> Any:
    """An API client for the signed-in partner whose signed links point at the live server."""
    from accounts.models import User
    from tests.conftest import client_for

    api = client_for(User.objects.get(email=email))
    api.defaults["HTTP_HOST"] = live_server.url.split("://", 1)[1]
    return api


def drop(api: Any, tool: str, path: Path, role: str = "input", content_type: str = "image/jpeg",
         name: str | None = None) -> str:
    """Put a file in one of the organisation's drive folders; returns its signed link."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    folder = next(f for f in api.get("/api/drives/").json()
                  if f["tool"] == tool and f["role"] == role)
    resp = api.post(f"/api/drives/{folder['folder']}/files",
                    {"file": SimpleUploadedFile(name or path.name, path.read_bytes(), content_type)},
                    format="multipart")
    assert resp.status_code == 201, resp.content
    return str(resp.json()["url"])
