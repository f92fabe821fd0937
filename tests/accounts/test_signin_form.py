"""The built-in sign-in form (no identity provider configured), sessions and roles."""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from accounts.models import User
from tests.conftest import client_for
from tests.support.factories import UserFactory


@pytest.fixture(autouse=True)
def _fresh_throttle() -> None:
    cache.clear()


def form_client() -> tuple[Client, str]:
    client = Client(enforce_csrf_checks=True)
    page = client.get("/auth/login/?next=/recoloring")
    assert page.status_code == 200
    return client, client.cookies["csrftoken"].value


def sign_in(client: Client, csrf: str, email: str, password: str, next_path: str = "/recoloring"
            ) -> Any:
    return client.post(f"/auth/login/?next={next_path}",
                       {"username": email, "password": password, "csrfmiddlewaretoken": csrf})


def test_access_platform_leads_to_the_form_without_a_provider(db: Any) -> None:
    resp = Client().get("/api/auth/login/?next=/recoloring")
    assert resp.status_code == 302 and resp["Location"] == "/auth/login/?next=%2Frecoloring"
    page = Client().get(resp["Location"])
    text = page.content.decode()
    assert "Access is currently exclusive to partners." in text
    assert "ACCESS PLATFORM" in text
    assert "contact your administrator if you need assistance" in text


def test_a_partner_created_with_a_password_signs_in_and_lands_on_the_asked_page(db: Any) -> None:
    call_command("createpartner", "Lea@Maison.test", "--org", "Maison", "--password", "pw-1234",
                 stdout=io.StringIO())
    client, csrf = form_client()
    resp = sign_in(client, csrf, "lea@maison.test", "pw-1234")
    assert resp.status_code == 302 and resp["Location"] == "/recoloring"
    me = client.get("/api/me/").json()
    assert me["email"] == "lea@maison.test" and me["organization"]["name"] == "Maison"
    # the session is CSRF-protected on the API: a POST without the token is refused
    assert client.post("/api/tokens/", {}, content_type="application/json").status_code == 403
    ok = client.post("/api/tokens/", {"name": "script"}, content_type="application/json",
                     HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert ok.status_code == 201


def test_a_wrong_password_is_refused(partner: User) -> None:
    client, csrf = form_client()
    resp = sign_in(client, csrf, partner.email, "wrong")
    assert resp.status_code == 400
    assert "Please enter a correct e-mail and password." in resp.content.decode()
    assert client.get("/api/me/").status_code in (401, 403)


def test_repeated_failures_are_throttled(partner: User, settings: Any) -> None:
    client, csrf = form_client()
    for _ in range(settings.LOGIN_MAX_FAILURES):
        assert sign_in(client, csrf, partner.email, "wrong").status_code == 400
    locked = sign_in(client, csrf, partner.email, "correct horse")  # even the right password
    assert locked.status_code == 429
    assert "Too many failed attempts" in locked.content.decode()
    assert int(locked["Retry-After"]) == settings.LOGIN_FAILURE_WINDOW_SECONDS
    assert client.get("/api/me/").status_code in (401, 403)
    # another account is not locked out by these failures
    other = UserFactory()
    assert sign_in(client, csrf, other.email, "correct horse").status_code == 302


def test_a_form_post_without_csrf_is_refused(partner: User) -> None:
    client = Client(enforce_csrf_checks=True)
    resp = client.post("/auth/login/", {"username": partner.email, "password": "correct horse"})
    assert resp.status_code == 403


def test_sign_out_without_a_provider_returns_to_login(partner: User) -> None:
    client, csrf = form_client()
    sign_in(client, csrf, partner.email, "correct horse")
    resp = client.post("/api/auth/logout/", content_type="application/json",
                       HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert resp.json() == {"redirect": "/login"}
    assert client.get("/api/me/").status_code in (401, 403)


def test_roles_anonymous_partner_staff(partner: User, staff: User) -> None:
    anonymous = Client()
    assert anonymous.get("/healthz").status_code == 200
    assert anonymous.get("/api/me/").status_code == 401
    assert anonymous.get("/admin/")["Location"].startswith("/admin/login/")

    partner_web = Client()
    partner_web.force_login(partner)
    assert partner_web.get("/admin/")["Location"].startswith("/admin/login/")
    staff_web = Client()
    staff_web.force_login(staff)
    assert staff_web.get("/admin/").status_code == 200


def test_locked_and_private_tools_open_only_where_staff_enabled_them(partner: User) -> None:
    api = client_for(partner)
    tools = {t["slug"]: t for t in api.get("/api/tools/").json()}
    assert tools["recolor"]["locked"] is False
    assert tools["ai-agent"]["locked"] is True and tools["live-restyle"]["access"] == "private"
    assert "diagnostics.sleep" not in tools

    partner.organization.enabled_tools = ["live-restyle"]
    partner.organization.save()
    tools = {t["slug"]: t for t in api.get("/api/tools/").json()}
    assert tools["live-restyle"]["locked"] is False and tools["ai-agent"]["locked"] is True
