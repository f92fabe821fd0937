"""Editorial, Editorial Product and Tech Pack Lab in a real browser: their sections render, a
bad reference URL is refused before any call, and screenshots of the layouts for review."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import SHOTS, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "livia@atelier-partner.test"
PASSWORD = "pw-for-the-editorial"


def sign_in_at(page: Any, start: str) -> None:
    sign_in(page, start, EMAIL, "Maison Editorial", PASSWORD)


def test_editorial_sections_and_invalid_reference(page: Any) -> None:
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    sign_in_at(page, "/editorial")
    SHOTS.mkdir(parents=True, exist_ok=True)

    for heading in ("01 Upload Your Images", "02 Creative Parameters", "03 Camera Style Templates",
                    "04 Advanced Options Beta", "Ready to Process"):
        page.get_by_role("heading", name=heading).wait_for()
    templates = page.get_by_role("list", name="Camera templates")
    templates.get_by_role("button", name="Warm 70s Film Look").wait_for()
    assert templates.get_by_role("button").count() == 8
    templates.get_by_role("button", name="Warm 70s Film Look").click()
    assert page.get_by_label("Camera Details").input_value() != ""
    assert page.get_by_role("button", name="Process Editorial").is_disabled()

    before = len(posts)
    page.get_by_label("Reference Image URL (optional)").fill("notaurl/look.jpg")
    page.get_by_label("Reference Image URL (optional)").press("Enter")
    page.get_by_text("Please enter a valid HTTP/HTTPS URL").wait_for()
    assert len(posts) == before
    page.evaluate("window.scrollTo(0, 0)")  # the sticky navbar otherwise lands mid-shot
    page.screenshot(path=str(SHOTS / "editorial.png"), full_page=True)

    page.goto("/editorial-product")
    page.get_by_text("Images 0/10").wait_for()
    page.get_by_text("Estimated time: ~30 seconds").wait_for()
    page.get_by_label("Photography Preset").select_option("Minimalist White")
    assert page.get_by_label("Description", exact=True).input_value() != ""
    canvas = page.locator("canvas.product-canvas")
    assert canvas.get_attribute("width") == "1200"
    # a pasted-in image, as the clipboard would give it: a red square
    page.evaluate("""async () => {
        const c = document.createElement('canvas'); c.width = 400; c.height = 300;
        const x = c.getContext('2d'); x.fillStyle = '#c0392b'; x.fillRect(0, 0, 400, 300);
        const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
        const data = new DataTransfer(); data.items.add(new File([blob], 'red.png', { type: 'image/png' }));
        window.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data }));
    }""")
    page.get_by_text("Images 1/10").wait_for()
    page.get_by_text("Image added to canvas").wait_for()
    page.screenshot(path=str(SHOTS / "editorial-product.png"), full_page=True)


def test_tech_pack_texts_and_description_gate(page: Any) -> None:
    sign_in_at(page, "/tech-pack")
    page.get_by_text("Transform garment descriptions and images into detailed tech packs.").wait_for()
    page.get_by_text("Status: Beta").first.wait_for()
    page.get_by_placeholder("Describe the garment you want to generate a tech pack for...").wait_for()
    process = page.get_by_role("button", name="Process Tech Pack")
    assert process.is_disabled()
    assert process.get_attribute("title") == 'You must complete "Get Tech Pack Description"'
    page.get_by_role("button", name="Get Tech Pack Description").click()
    page.get_by_text("Please enter a text description before proceeding").wait_for()
    page.screenshot(path=str(SHOTS / "tech-pack.png"), full_page=True)
