"""A partner signs in through the built-in form in a real browser and reaches the app."""

from __future__ import annotations

import io
from typing import Any
from urllib.parse import urlparse

import pytest
from django.core.management import call_command

from tests.e2e.conftest import SHOTS

pytestmark = pytest.mark.django_db(transaction=True)


def test_partner_signs_in_with_the_form_reaches_home_and_signs_out(page: Any) -> None:
    call_command("createpartner", "lea@maison.test", "--org", "Maison", "--password",
                 "pw-for-the-browser", stdout=io.StringIO())

    page.goto("/")
    # the guard sends an anonymous visitor to /login
    page.get_by_role("button", name="ACCESS PLATFORM").wait_for()
    assert urlparse(page.url).path == "/login"
    assert page.get_by_text("contact your administrator if you need assistance").is_visible()
    page.get_by_role("button", name="ACCESS PLATFORM").click()

    page.wait_for_url("**/auth/login/**")
    page.get_by_label("E-mail").fill("lea@maison.test")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    page.get_by_text("Please enter a correct e-mail and password.").wait_for()

    page.get_by_label("Password").fill("pw-for-the-browser")
    page.get_by_role("button", name="ACCESS PLATFORM").click()
    user_menu = page.get_by_role("button", name="lea@maison.test")
    user_menu.wait_for()
    assert urlparse(page.url).path == "/"  # where the visitor first went
    page.get_by_text("Beta 1.0 — version live").first.wait_for()
    page.get_by_role("heading", name="Editorial Hub").wait_for()  # the home page, loaded
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "home-signed-in.png"))

    user_menu.click()
    page.get_by_role("menuitem", name="Sign Out").click()
    page.get_by_role("button", name="ACCESS PLATFORM").wait_for()
    assert urlparse(page.url).path == "/login"
    # the session is gone on the server too
    assert page.request.get("/api/me/").status == 401
