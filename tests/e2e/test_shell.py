"""The shell in a real browser: sign-in back to the asked page, the landing page, the TOOLS
menu (open and locked entries), the sound preference across a reload, the 404 and coming-soon
pages, and sign-out."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import SHOTS, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "ines@atelier-partner.test"
PASSWORD = "pw-for-the-shell"

# Counts oscillator starts: the denial tone is the only sound the shell makes.
COUNT_TONES = """
window.__tones = 0;
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) { window.__tones += 1; return start.apply(this, args); };
"""


def path_of(page: Any) -> str:
    return urlparse(page.url).path


def test_shell_from_sign_in_to_sign_out(page: Any) -> None:
    page.add_init_script(COUNT_TONES)
    SHOTS.mkdir(parents=True, exist_ok=True)

    # An anonymous visit to a tool page goes through sign-in and comes back to it.
    sign_in(page, "/recoloring", EMAIL, "Maison Shell", PASSWORD)
    assert path_of(page) == "/recoloring"
    page.get_by_role("heading", level=1, name="Recolor").wait_for()
    page.get_by_role("button", name="Run", exact=True).wait_for()
    status = page.get_by_role("group", name="Tool status")
    assert "System Ready" in status.text_content()
    assert "Queue0" in status.text_content()
    page.get_by_role("heading", level=1, name="Recolor V1.0").wait_for()  # catalogue badge
    page.screenshot(path=str(SHOTS / "tool-page-recolor.png"), full_page=True)

    # The landing page: hovering a category shows its tiles from the catalogue.
    page.get_by_role("link", name="HOME").click()
    page.get_by_role("heading", name="Editorial Hub").hover()
    tiles = page.get_by_role("region", name="Editorial Hub tools")
    tiles.get_by_role("link", name="Editorial V1.0").wait_for()
    locked_tile = tiles.get_by_role("button", name="Digital Twin Locked")
    assert locked_tile.get_attribute("aria-disabled") == "true"
    page.get_by_role("button", name="Release Notes").hover()
    page.get_by_text("Hyperparameterized Multi-Model Ensemble").wait_for()
    page.screenshot(path=str(SHOTS / "landing-release-notes.png"))
    page.get_by_role("heading", name="Editorial Hub").hover()
    page.screenshot(path=str(SHOTS / "landing-editorial-hovered.png"), full_page=True)
    locked_tile.click(force=True)  # aria-disabled: Playwright would wait for it to enable
    assert path_of(page) == "/"
    assert page.evaluate("window.__tones") == 1

    # TOOLS dropdown: an open entry goes to its tool page.
    page.get_by_role("button", name="TOOLS").click()
    menu = page.get_by_role("menu", name="Tools")
    page.screenshot(path=str(SHOTS / "tools-menu-open.png"))
    menu.get_by_role("menuitem", name="Spinview V1.0").click()
    page.wait_for_url("**/catalog-video")
    page.get_by_role("heading", level=1, name="Spinview V1.0").wait_for()

    # A locked entry: the denial tone, and nothing else.
    page.get_by_role("button", name="TOOLS").click()
    menu.get_by_role("menuitem", name="Pattern Locked").click(force=True)
    assert path_of(page) == "/catalog-video"
    assert page.evaluate("window.__tones") == 2
    page.keyboard.press("Escape")
    menu.wait_for(state="detached")

    # The sound preference survives a reload.
    page.get_by_role("button", name="Sound on").click()
    page.get_by_role("button", name="Sound off").wait_for()
    page.reload()
    page.get_by_role("button", name="Sound off").wait_for()
    assert page.evaluate("localStorage.getItem('soundEnabled')") == "false"
    # ...and with sound off a locked entry stays silent
    page.get_by_role("button", name="TOOLS").click()
    menu.get_by_role("menuitem", name="AI Agent Playground").click(force=True)
    assert page.evaluate("window.__tones") == 0  # counter restarted with the reload

    # Not found, and back home.
    page.goto("/no-such-tool")
    page.get_by_role("heading", name="404").wait_for()
    page.get_by_text("Oops! Page not found").wait_for()
    assert page.title() == "Page not found · Atelier"
    page.get_by_role("link", name="Return to Home").click()
    page.get_by_role("heading", name="Editorial Hub").wait_for()
    assert path_of(page) == "/"

    # A coming-soon page.
    page.goto("/reface")
    page.get_by_text("Coming Soon").wait_for()
    page.get_by_text("Private Beta").wait_for()
    assert page.title() == "Reface (coming soon) · Atelier"
    assert page.get_by_role("heading", level=2).count() == 3

    # Sign out: back to /login, and the session is gone on the server.
    page.get_by_role("button", name=EMAIL).click()
    page.get_by_role("menuitem", name="Sign Out").click()
    page.get_by_role("button", name="ACCESS PLATFORM").wait_for()
    assert path_of(page) == "/login"
    assert page.request.get("/api/me/").status == 401


WIDTH_OF_PAGE = """() => ({
  page: document.documentElement.scrollWidth,
  nav: document.querySelector('nav.navbar').scrollWidth,
  menu: document.querySelector('.user-menu .nav-button').getBoundingClientRect().right,
})"""


def phone_pages() -> list[str]:
    """Every page a partner can open: each open tool's route, the job history, the settings,
    the coming-soon pages and the 404."""
    from tools.registry import TOOLS
    from tools.spec import Access

    tools = sorted(spec.route for spec in TOOLS.values()
                   if spec.route and spec.access == Access.OPEN)
    return ["/", *tools, "/jobs", "/settings", "/reface", "/re-pattern", "/stylist-web",
            "/no-such-page"]


def test_a_phone_wide_screen_has_no_horizontal_scroll(page: Any) -> None:
    # given a 375 px wide screen (a phone), and the sign-in form on it
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/login")
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.wait_for_url("**/auth/login/**")
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    sign_in(page, "/", "a-long-partner-address@atelier-partner.test", "Maison Narrow", PASSWORD)

    # then no page scrolls sideways and the user menu is on screen
    pages = phone_pages()
    assert len(pages) > 20
    for path in pages:
        page.goto(path)
        page.get_by_role("heading", level=1).first.wait_for()
        page.wait_for_load_state("networkidle")  # the page's lists and previews are in
        widths = page.evaluate(WIDTH_OF_PAGE)
        assert widths["page"] <= 375 and widths["nav"] <= 375, (path, widths)
        assert widths["menu"] <= 375, (path, widths)
        page.screenshot(path=str(SHOTS / f"narrow{path.replace('/', '-') if path != '/' else '-home'}.png"))
    # and Sign Out is reachable from the account menu, on screen
    page.get_by_role("button", name="a-long-partner-address@atelier-partner.test").click()
    sign_out = page.get_by_role("menuitem", name="Sign Out")
    box = sign_out.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    sign_out.click()
    page.get_by_role("button", name="ACCESS PLATFORM").wait_for()
