"""Partners, organisations and API tokens."""

from __future__ import annotations

import io
import logging
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from accounts.models import ApiToken, User
from tests.conftest import client_for


def test_createpartner_prints_a_working_token_last(db: Any) -> None:
    out = io.StringIO()
    call_command("createpartner", "a@b.c", "--org", "Acme", stdout=out)
    token = out.getvalue().strip().splitlines()[-1]
    user = User.objects.get(email="a@b.c")
    assert user.organization.name == "Acme" and not user.is_staff
    assert not user.has_usable_password()

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    resp = client.get("/api/queues/")
    assert resp.status_code == 200
    me = client.get("/api/me/").json()
    assert me == {"email": "a@b.c", "organization": {"id": str(user.organization.pk),
                                                     "name": "Acme"}, "is_staff": False}
    # the token is stored only as a digest
    stored = ApiToken.objects.get(user=user)
    assert token not in (stored.digest, stored.prefix) and token.startswith(stored.prefix)


def test_createpartner_again_keeps_the_partner_and_adds_a_token(db: Any) -> None:
    call_command("createpartner", "a@b.c", "--org", "Acme", stdout=io.StringIO())
    call_command("createpartner", "a@b.c", "--org", "Acme", "--password", "pw",
                 stdout=io.StringIO())
    user = User.objects.get(email="a@b.c")
    assert user.api_tokens.count() == 2 and user.check_password("pw")


def test_createpartner_refuses_a_bad_email(db: Any) -> None:
    with pytest.raises(CommandError):
        call_command("createpartner", "not-an-email", "--org", "Acme", stdout=io.StringIO())


def test_tokens_are_created_shown_once_listed_and_revoked(partner: Any, api: APIClient,
                                                          caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    created = api.post("/api/tokens/", {"name": "ci"}, format="json")
    assert created.status_code == 201
    raw = created.json()["token"]
    listed = api.get("/api/tokens/").json()
    assert {t["name"] for t in listed} == {"test", "ci"}
    assert all("token" not in t for t in listed)
    assert raw not in caplog.text

    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert fresh.get("/api/me/").status_code == 200
    assert ApiToken.objects.get(name="ci").last_used_at is not None

    assert api.delete(f"/api/tokens/{created.json()['id']}/").status_code == 204
    resp = fresh.get("/api/me/")
    assert resp.status_code == 401
    assert resp.json()["error"] == "authentication_failed"


def test_unknown_token_is_401(db: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer atl_not-a-real-token")
    assert client.get("/api/me/").status_code == 401


def test_a_user_without_organisation_is_refused(db: Any) -> None:
    loner = User.objects.create(username="l@x.y", email="l@x.y")
    client = client_for(loner)
    resp = client.get("/api/jobs/")
    assert resp.status_code == 403
    assert resp.json()["error"] == "forbidden"
