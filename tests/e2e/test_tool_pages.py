"""Tool pages in a real browser: Recolor from cards to a followed batch (no worker runs here,
so its job stays queued) and the 400 path; the Rebody page's layout."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import SHOTS, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "lea@atelier-partner.test"
PASSWORD = "pw-for-the-tool-pages"


def sign_in_at(page: Any, start: str) -> None:
    sign_in(page, start, EMAIL, "Maison Pages", PASSWORD)


def fill_card(page: Any, url: str, colour: str = "#4A5D23", garment: str = "polo") -> None:
    page.get_by_label("Image URL").fill(url)
    page.get_by_label("Target Color", exact=True).fill(colour)
    page.get_by_label("Garment Type").select_option(garment)


def test_recolor_run_follows_the_batch_and_shows_the_400_message(page: Any) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    sign_in_at(page, "/recoloring")
    page.get_by_role("heading", level=1, name="Recolor").wait_for()
    fill_card(page, "https://cdn.example.test/looks/polo-front.jpg")
    page.screenshot(path=str(SHOTS / "recolor-page.png"), full_page=True)

    # Hold the request so the processing overlay can be seen, then let it through.
    held: list[Any] = []
    page.route("**/api/recoloring/recolor", lambda route: held.append(route))
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_role("dialog", name="Processing Your Recolor Requests").wait_for()
    while not held:  # let the route handler run
        page.wait_for_timeout(50)
    page.screenshot(path=str(SHOTS / "recolor-processing.png"))
    held[0].continue_()
    page.unroute("**/api/recoloring/recolor")

    # No worker runs here: the job stays queued, and the headline never says Success! over it.
    success = page.get_by_role("dialog", name="0 of 1 done")
    success.get_by_text("Still working: each image goes to the Output Drive as soon as it is done.").wait_for()
    assert success.get_by_text("Success!").count() == 0
    success.get_by_role("link", name="Output Drive").wait_for()
    progress = success.get_by_role("region", name="Batch progress")
    progress.get_by_text("0 of 1 done").wait_for()
    progress.get_by_text("polo-front.jpg").wait_for()
    assert "Queued" in progress.locator(".batch-job-status").first.text_content()
    page.screenshot(path=str(SHOTS / "recolor-success-batch.png"))

    success.get_by_role("button", name="Start New Recolor").click()
    page.get_by_role("region", name="Last batch").get_by_text("0 of 1 done").wait_for()
    assert page.get_by_label("Image URL").input_value() == ""

    # A card whose URL is not an image: the server refuses it with the spec's 400.
    fill_card(page, "https://cdn.example.test/looks/lookbook.html")
    page.get_by_role("button", name="Run", exact=True).click()
    toast = page.locator(".toast-destructive")
    toast.get_by_text("❌ Generation Failed").wait_for()
    toast.get_by_text("HTTP error! status: 400").wait_for()
    page.locator(".form-error").get_by_text("Card 1, image_url:").wait_for()
    page.get_by_role("listitem", name="Card 1").get_by_text("image_url:").wait_for()
    assert page.get_by_role("dialog").count() == 0
    page.screenshot(path=str(SHOTS / "recolor-400.png"), full_page=True)


def test_rebody_page_layout(page: Any) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    sign_in_at(page, "/rebody")
    page.get_by_role("heading", level=1, name="Rebody").wait_for()
    page.get_by_role("heading", name="Before you start").wait_for()
    page.get_by_label("Body Type", exact=True).select_option("Hourglass")
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("SYSTEM ALERT: Provide both Full Body Look Image URL and Body Type.").wait_for()
    status = page.get_by_role("group", name="Tool status")
    assert "System Ready" in status.text_content()
    page.screenshot(path=str(SHOTS / "rebody-page.png"), full_page=True)
