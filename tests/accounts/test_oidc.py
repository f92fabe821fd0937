"""Sign-in through a real OpenID Connect provider on loopback (oidc-provider-mock, an
authlib-based provider), driven through our real views and mozilla-django-oidc."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import pytest
import requests
from django.test import Client
from oidc_provider_mock import run_server_in_thread

from accounts.models import Organization, User

os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")  # the provider speaks plain HTTP here


class Provider:
    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def settings(self) -> dict[str, Any]:
        return {
            "OIDC_RP_CLIENT_ID": "atelier",
            "OIDC_RP_CLIENT_SECRET": "atelier-secret",
            "OIDC_OP_ISSUER": self.base,
            "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{self.base}/oauth2/authorize",
            "OIDC_OP_TOKEN_ENDPOINT": f"{self.base}/oauth2/token",
            "OIDC_OP_USER_ENDPOINT": f"{self.base}/userinfo",
            "OIDC_OP_JWKS_ENDPOINT": f"{self.base}/jwks",
            "OIDC_OP_LOGOUT_ENDPOINT": f"{self.base}/oauth2/end_session",
        }

    def set_user(self, sub: str, **claims: Any) -> None:
        requests.put(f"{self.base}/users/{sub}", json=claims, timeout=5).raise_for_status()

    def consent(self, authorize_url: str, sub: str) -> str:
        """The person signs in at the provider; returns where it sends the browser."""
        resp = requests.post(authorize_url, data={"sub": sub}, allow_redirects=False, timeout=5)
        assert resp.status_code == 302, resp.text[:500]
        return resp.headers["Location"]


@pytest.fixture(scope="module")
def provider_server() -> Iterator[Provider]:
    with run_server_in_thread() as server:
        yield Provider(server.server_port)


@pytest.fixture
def provider(provider_server: Provider, settings: Any) -> Provider:
    for key, value in provider_server.settings().items():
        setattr(settings, key, value)
    settings.OIDC_LEEWAY_SECONDS = 5
    return provider_server


@pytest.fixture
def acme(db: Any) -> Organization:
    return Organization.objects.create(name="Acme", email_domains=["acme.test"])


def begin(client: Client, next_path: str = "/recoloring") -> str:
    """Press 'ACCESS PLATFORM': returns the provider's authorisation URL."""
    resp = client.get(f"/api/auth/login/?{urlencode({'next': next_path})}")
    assert resp.status_code == 302 and resp["Location"].startswith("/oidc/authenticate/")
    resp = client.get(resp["Location"])
    assert resp.status_code == 302
    return resp["Location"]


def finish(client: Client, callback_url: str) -> Any:
    parsed = urlparse(callback_url)
    assert parsed.path == "/oidc/callback/"
    return client.get(f"{parsed.path}?{parsed.query}")


def refusal(client: Client, resp: Any) -> str:
    assert resp.status_code == 302 and resp["Location"] == "/auth/refused/"
    page = client.get("/auth/refused/")
    assert page.status_code == 403
    assert client.get("/api/me/").status_code in (401, 403)  # not signed in
    return page.context["reason"]


def test_code_flow_signs_in_and_returns_to_the_asked_page(provider: Provider,
                                                          acme: Organization) -> None:
    provider.set_user("sub-anna", email="anna@acme.test", organization="Acme")
    client = Client()
    authorize = begin(client, "/recoloring?tab=2")
    params = {k: v[0] for k, v in parse_qs(urlparse(authorize).query).items()}
    assert authorize.startswith(provider.base + "/oauth2/authorize")
    assert params["client_id"] == "atelier" and params["response_type"] == "code"
    assert {"openid", "profile", "email"} <= set(params["scope"].split())
    assert params["code_challenge_method"] == "S256" and len(params["code_challenge"]) >= 43
    assert params["state"] and params["nonce"]
    assert params["redirect_uri"] == "http://testserver/oidc/callback/"

    resp = finish(client, provider.consent(authorize, "sub-anna"))
    assert resp.status_code == 302 and resp["Location"] == "/recoloring?tab=2"
    me = client.get("/api/me/").json()
    assert me["email"] == "anna@acme.test" and me["organization"]["name"] == "Acme"

    # users are matched on the provider's subject: a new e-mail is the same person
    provider.set_user("sub-anna", email="anna.b@acme.test", organization="Acme")
    again = Client()
    finish(again, provider.consent(begin(again), "sub-anna"))
    assert User.objects.filter(oidc_sub="sub-anna").count() == 1
    assert again.get("/api/me/").json()["email"] == "anna.b@acme.test"


def test_sign_out_ends_the_session_and_the_provider_session(provider: Provider,
                                                            acme: Organization) -> None:
    provider.set_user("sub-ben", email="ben@acme.test", organization="Acme")
    client = Client(enforce_csrf_checks=True)
    finish(client, provider.consent(begin(client), "sub-ben"))
    client.get("/")  # the web app sets the CSRF cookie
    csrf = client.cookies["csrftoken"].value

    assert client.post("/api/auth/logout/").status_code == 403  # no CSRF token
    resp = client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=csrf)
    assert resp.status_code == 200
    target = resp.json()["redirect"]
    query = parse_qs(urlparse(target).query)
    assert target.startswith(provider.base + "/oauth2/end_session")
    assert query["post_logout_redirect_uri"] == ["http://testserver/"]
    assert query["id_token_hint"][0].count(".") == 2
    assert client.get("/api/me/").status_code in (401, 403)
    # the provider ends its session and returns to the site origin
    confirm = requests.post(f"{provider.base}/oauth2/end_session/confirm",
                            data={"redirect_uri": query["post_logout_redirect_uri"][0]},
                            allow_redirects=False, timeout=5)
    assert confirm.headers["Location"] == "http://testserver/"


def test_the_next_path_never_leaves_the_site(provider: Provider, acme: Organization) -> None:
    provider.set_user("sub-cy", email="cy@acme.test", organization="Acme")
    client = Client()
    resp = finish(client, provider.consent(begin(client, "//evil.example/x"), "sub-cy"))
    assert resp["Location"] == "/"
    assert Client().get("/api/auth/login/?next=https://evil.example")["Location"] == \
        "/oidc/authenticate/?next=%2F"


def test_tampered_state_is_refused(provider: Provider, acme: Organization) -> None:
    provider.set_user("sub-dee", email="dee@acme.test", organization="Acme")
    client = Client()
    callback = provider.consent(begin(client), "sub-dee")
    tampered = callback.replace("state=", "state=x")
    assert refusal(client, finish(client, tampered)) == "state"


def test_wrong_nonce_is_refused(provider: Provider, acme: Organization) -> None:
    provider.set_user("sub-eve", email="eve@acme.test", organization="Acme")
    client = Client()
    authorize = begin(client)
    parsed = urlparse(authorize)
    params = {k: v[0] for k, v in parse_qs(parsed.query).items()} | {"nonce": "replayed"}
    forged = f"{provider.base}{parsed.path}?{urlencode(params)}"
    assert refusal(client, finish(client, provider.consent(forged, "sub-eve"))) == "invalid"


@pytest.mark.parametrize(("setting", "value", "reason"), [
    ("OIDC_AUDIENCES", ["another-application"], "audience"),
    ("OIDC_OP_ISSUER", "https://another-provider.example", "issuer"),
])
def test_wrong_audience_or_issuer_is_refused(provider: Provider, acme: Organization,
                                             settings: Any, setting: str, value: Any,
                                             reason: str) -> None:
    provider.set_user("sub-fay", email="fay@acme.test", organization="Acme")
    setattr(settings, setting, value)
    client = Client()
    assert refusal(client, finish(client, provider.consent(begin(client), "sub-fay"))) == reason


def test_expired_id_token_is_refused(acme: Organization, settings: Any) -> None:
    # a provider whose tokens are already two minutes old when issued
    with run_server_in_thread(access_token_max_age=timedelta(seconds=-120)) as server:
        stale = Provider(server.server_port)
        for key, value in stale.settings().items():
            setattr(settings, key, value)
        settings.OIDC_LEEWAY_SECONDS = 5
        stale.set_user("sub-gus", email="gus@acme.test", organization="Acme")
        client = Client()
        callback = stale.consent(begin(client), "sub-gus")
        assert refusal(client, finish(client, callback)) == "expired"


def test_a_person_without_organisation_is_refused_with_a_clear_page(
    provider: Provider, acme: Organization
) -> None:
    provider.set_user("sub-hal", email="hal@elsewhere.test")
    client = Client()
    resp = finish(client, provider.consent(begin(client), "sub-hal"))
    assert refusal(client, resp) == "no_organization"
    page = client.get("/auth/refused/")
    assert not User.objects.filter(oidc_sub="sub-hal").exists()
    assert page.status_code == 403


def test_the_email_domain_places_a_person_without_organisation_claim(
    provider: Provider, acme: Organization
) -> None:
    provider.set_user("sub-ida", email="ida@acme.test")
    client = Client()
    finish(client, provider.consent(begin(client), "sub-ida"))
    assert client.get("/api/me/").json()["organization"]["name"] == "Acme"


def access_token(provider: Provider, sub: str) -> str:
    """A token the provider issued to a script of the partner's (code flow, as a client)."""
    params = {"client_id": "atelier", "response_type": "code", "scope": "openid email",
              "redirect_uri": "http://127.0.0.1/cb", "state": "s", "nonce": "n"}
    callback = provider.consent(f"{provider.base}/oauth2/authorize?{urlencode(params)}", sub)
    code = parse_qs(urlparse(callback).query)["code"][0]
    resp = requests.post(f"{provider.base}/oauth2/token", timeout=5, data={
        "grant_type": "authorization_code", "code": code, "redirect_uri": params["redirect_uri"],
        "client_id": "atelier", "client_secret": "atelier-secret"})
    resp.raise_for_status()
    return str(resp.json()["access_token"])


def test_provider_access_tokens_work_as_api_bearer_tokens(provider: Provider,
                                                          acme: Organization) -> None:
    provider.set_user("sub-jo", email="jo@acme.test", organization="Acme")
    token = access_token(provider, "sub-jo")
    resp = Client().get("/api/me/", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert resp.status_code == 200 and resp.json()["email"] == "jo@acme.test"

    bad = Client().get("/api/me/", HTTP_AUTHORIZATION="Bearer not-a-token-the-provider-knows")
    assert bad.status_code == 401 and bad.json()["error"] == "authentication_failed"


def test_provider_down_gives_503_not_500(acme: Organization, settings: Any) -> None:
    with run_server_in_thread() as server:
        doomed = Provider(server.server_port)
        for key, value in doomed.settings().items():
            setattr(settings, key, value)
    # the provider has stopped
    resp = Client().get("/api/jobs/", HTTP_AUTHORIZATION="Bearer token-nobody-can-check")
    assert resp.status_code == 503
    assert resp.json()["error"] == "unavailable"
    client = Client()
    resp = client.get("/api/auth/login/?next=/")
    assert resp["Location"].startswith("/oidc/authenticate/")


def test_without_a_provider_bearer_tokens_other_than_ours_are_401(db: Any) -> None:
    resp = Client().get("/api/me/", HTTP_AUTHORIZATION="Bearer eyJhbGciOi.something.else")
    assert resp.status_code == 401
