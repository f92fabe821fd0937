"""The Django admin: staff add an account with its key, which is never shown back."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from studio.crypto import key_decrypt
from studio.models import ProviderAccount

from tests.studio.conftest import served
from tests.support.factories import OrganizationFactory

pytestmark = pytest.mark.django_db

KEY = "fa-admin-0123456789-Q7Z1"


def test_staff_add_an_account_and_the_key_is_write_only(staff: Any) -> None:
    org = OrganizationFactory()
    client = Client()
    client.force_login(staff)
    resp = client.post("/admin/studio/provideraccount/add/", {
        "organization": str(org.pk), "kind": "fashn", "label": "Paris", "api_key": KEY,
        "base_url": "", "models": "{}", "tools": f'["{served("fashn")}"]',
        "fallback_local": "on"})
    assert resp.status_code == 302, resp.content.decode()[:2000]

    account = ProviderAccount.objects.get()
    assert key_decrypt(account.api_key_encrypted) == KEY and account.key_last4 == "Q7Z1"
    assert account.base_url == "https://api.fashn.ai/v1" and account.fallback_local

    page = client.get(f"/admin/studio/provideraccount/{account.pk}/change/").content.decode()
    assert KEY not in page and account.api_key_encrypted not in page and "Q7Z1" in page

    # saved without a key: the stored one stays
    resp = client.post(f"/admin/studio/provideraccount/{account.pk}/change/", {
        "organization": str(org.pk), "kind": "fashn", "label": "Lyon", "api_key": "",
        "base_url": "https://api.fashn.ai/v1", "models": "{}", "tools": "[]"})
    assert resp.status_code == 302
    account.refresh_from_db()
    assert account.label == "Lyon" and key_decrypt(account.api_key_encrypted) == KEY


def test_admin_refuses_what_the_api_refuses(staff: Any, settings: Any) -> None:
    settings.OUTBOUND_ALLOW = []
    client = Client()
    client.force_login(staff)
    resp = client.post("/admin/studio/provideraccount/add/", {
        "organization": str(OrganizationFactory().pk), "kind": "fashn", "label": "",
        "api_key": "", "base_url": "http://127.0.0.1/v1", "models": '{"nope": "m"}',
        "tools": '["nope"]'})
    assert resp.status_code == 200  # the form again, with its errors
    page = resp.content.decode()
    assert "private, loopback" in page and "cannot run the tool" in page
    assert "The API key is empty." in page
    assert not ProviderAccount.objects.exists()
