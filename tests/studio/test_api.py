"""The provider accounts API: org admins manage, partners read, the key never comes back,
and no input answers a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from rest_framework.test import APIClient
from studio.models import ProviderAccount

from tests.conftest import client_for
from tests.studio.conftest import not_served, served
from tests.support.factories import UserFactory
from tests.support.loopback import respond, serving

pytestmark = pytest.mark.django_db

KEY = "fa-live-0123456789abcdef-K3Y9"


@pytest.fixture(autouse=True)
def no_outbound_exemptions(settings: Any) -> None:
    settings.OUTBOUND_ALLOW = []


def create(api: APIClient, **body: Any) -> Any:
    payload = {"kind": "fashn", "api_key": KEY, "label": "Studio", **body}
    return api.post("/api/providers/", payload, format="json")


def assert_no_key(resp: Any) -> None:
    text = resp.content.decode()
    assert KEY not in text and "api_key" not in text


def test_admin_adds_an_account_and_the_key_is_never_returned(admin_api: APIClient) -> None:
    tool = served("fashn")
    resp = create(admin_api, tools=[tool], models={tool: "tryon-v1.6"}, fallback_local=True)

    assert resp.status_code == 201, resp.json()
    body = resp.json()
    assert body["kind"] == "fashn" and body["key_last4"] == "K3Y9"
    assert body["base_url"] == "https://api.fashn.ai/v1"  # the kind's default
    assert body["tools"] == [tool] and body["serves"] == [tool]
    assert body["models"] == {tool: "tryon-v1.6"} and body["fallback_local"] is True
    assert_no_key(resp)
    assert_no_key(admin_api.get("/api/providers/"))
    assert_no_key(admin_api.get(f"/api/providers/{body['id']}/"))


def test_partners_read_but_only_admins_and_staff_write(admin_api: APIClient,
                                                       colleague_api: APIClient,
                                                       admin_user: Any) -> None:
    account = create(admin_api).json()
    url = f"/api/providers/{account['id']}/"

    listed = colleague_api.get("/api/providers/")
    assert listed.status_code == 200 and [a["id"] for a in listed.json()] == [account["id"]]
    for resp in (create(colleague_api),
                 colleague_api.patch(url, {"label": "mine"}, format="json"),
                 colleague_api.delete(url),
                 colleague_api.post(f"{url}test/")):
        assert resp.status_code == 403
        assert resp.json() == {"error": "forbidden",
                               "message": "Only your organisation's admins may do this.",
                               "fields": {}}
    assert ProviderAccount.objects.get().label == "Studio"

    staff = client_for(UserFactory(organization=admin_user.organization, is_staff=True))
    assert staff.patch(url, {"label": "ops"}, format="json").status_code == 200


def test_another_organisations_accounts_are_not_found(admin_api: APIClient) -> None:
    account = create(admin_api).json()
    stranger = client_for(UserFactory(is_org_admin=True))
    assert stranger.get("/api/providers/").json() == []
    for resp in (stranger.get(f"/api/providers/{account['id']}/"),
                 stranger.patch(f"/api/providers/{account['id']}/", {"label": "x"},
                                format="json"),
                 stranger.delete(f"/api/providers/{account['id']}/"),
                 stranger.post(f"/api/providers/{account['id']}/test/")):
        assert resp.status_code == 404 and resp.json()["error"] == "not_found"


def test_anonymous_is_refused(db: Any) -> None:
    assert APIClient().get("/api/providers/").status_code in (401, 403)
    assert APIClient().get("/api/usage/").status_code in (401, 403)


def test_patch_replaces_the_key_and_resets_the_base_url(admin_api: APIClient) -> None:
    account = create(admin_api, base_url="https://eu.api.fashn.ai/v1").json()
    url = f"/api/providers/{account['id']}/"

    resp = admin_api.patch(url, {"api_key": "new-key-ABCD", "base_url": ""}, format="json")
    assert resp.status_code == 200, resp.json()
    assert resp.json()["key_last4"] == "ABCD" and resp.json()["base_url"] == (
        "https://api.fashn.ai/v1")
    from studio.crypto import key_decrypt

    assert key_decrypt(ProviderAccount.objects.get().api_key_encrypted) == "new-key-ABCD"
    # a label change keeps the key
    admin_api.patch(url, {"label": "Paris"}, format="json")
    assert key_decrypt(ProviderAccount.objects.get().api_key_encrypted) == "new-key-ABCD"

    assert admin_api.delete(url).status_code == 204
    assert not ProviderAccount.objects.exists()


def test_catalogue_lists_kinds_and_says_who_may_manage(admin_api: APIClient,
                                                       colleague_api: APIClient) -> None:
    body = admin_api.get("/api/providers/catalogue/").json()
    assert body["can_manage"] is True
    kinds = {k["kind"]: k for k in body["kinds"]}
    assert set(kinds) == {"fashn", "fal", "vertex", "replicate", "openai"}
    assert kinds["fashn"]["default_base_url"] == "https://api.fashn.ai/v1"
    assert kinds["fashn"]["label"] == "FASHN" and served("fashn") in kinds["fashn"]["tools"]
    assert colleague_api.get("/api/providers/catalogue/").json()["can_manage"] is False


@pytest.mark.parametrize(("body", "field"), [
    ({"kind": "midjourney"}, "kind"),
    ({"kind": 1}, "kind"),
    ({"tools": ["no-such-tool"]}, "tools"),
    ({"tools": "virtual-try-on"}, "tools"),
    ({"tools": [1]}, "tools"),
    ({"models": {"no-such-tool": "m"}}, "models"),
    ({"models": {"virtual-try-on": 1.6}}, "models"),
    ({"models": ["tryon-v1.6"]}, "models"),
    ({"api_key": ""}, "api_key"),
    ({"api_key": 12345678}, "api_key"),
    ({"api_key": "two words"}, "api_key"),
    ({"api_key": None}, "api_key"),
    ({"fallback_local": "yes"}, "fallback_local"),
    ({"base_url": "ftp://api.fashn.ai"}, "base_url"),
    ({"base_url": "https://user:pw@api.fashn.ai/v1"}, "base_url"),
    ({"base_url": "http://127.0.0.1:8000/v1"}, "base_url"),
    ({"base_url": "http://169.254.169.254/latest"}, "base_url"),
    ({"base_url": "http://[::1]/v1"}, "base_url"),
    ({"base_url": "http://localhost/v1"}, "base_url"),
    ({"label": "x" * 101}, "label"),
    ({"secret": "x"}, "secret"),
    ({"key_last4": "abcd"}, "key_last4"),
])
def test_bad_input_is_a_400_naming_the_field(admin_api: APIClient, body: dict[str, Any],
                                             field: str) -> None:
    resp = create(admin_api, **body)
    assert resp.status_code == 400, resp.content
    assert resp.json()["error"] == "invalid" and field in resp.json()["fields"]
    assert not ProviderAccount.objects.exists()


def test_a_tool_its_kind_cannot_run_is_refused(admin_api: APIClient) -> None:
    tool = not_served("fashn")
    for body in ({"tools": [tool]}, {"models": {tool: "tryon-v1.6"}}):
        resp = create(admin_api, **body)
        assert resp.status_code == 400
        assert "cannot run the tool" in resp.json()["message"] and tool in resp.json()["message"]


def test_vertex_takes_a_service_account_json_key(admin_api: APIClient) -> None:
    bad = create(admin_api, kind="vertex", api_key="AIza-not-a-service-account")
    assert bad.status_code == 400 and "service account" in bad.json()["message"]
    good = create(admin_api, kind="vertex", api_key=json.dumps({
        "type": "service_account", "client_email": "a@p.iam.gserviceaccount.com",
        "private_key": "-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n",
        "private_key_id": "k1"}))
    assert good.status_code == 201 and "PRIVATE" not in good.content.decode()


def test_kind_cannot_be_patched(admin_api: APIClient) -> None:
    account = create(admin_api).json()
    resp = admin_api.patch(f"/api/providers/{account['id']}/", {"kind": "fal"}, format="json")
    assert resp.status_code == 400 and "kind" in resp.json()["fields"]


@pytest.mark.parametrize("text", [
    "[" * 1000 + "]" * 1000,
    '{"kind": "fashn", "api_key": "k\\ud800"}',
    '{"kind": "fashn", "api_key": "k", "models": {"\\udfff": "m"}}',
    '{"kind": "fashn", "api_key": "k", "label": 1e400}',
    '{"kind": "fashn", "api_key": "k", "tools": [[[[]]]]}',
    '{"kind": "fashn", "api_key": "k", "models": {"virtual-try-on": {"a": 1}}}',
    '{"kind": "fashn", "api_key": "k", "base_url": "http://[::1"}',
    '{"kind": "fashn", "api_key": "k", "base_url": "http://a.test:99999/"}',
    '{"kind": "fashn", "api_key": "k", "base_url": "http://a..test/"}',
    '{"kind": "fashn", "api_key": "k\\u0000"}',
    "null", "[]", '"x"', "1",
])
def test_hostile_bodies_answer_4xx_in_the_envelope(admin_api: APIClient, text: str) -> None:
    admin_api.raise_request_exception = False
    for method, url in (("POST", "/api/providers/"),):
        resp = admin_api.generic(method, url, text.encode("utf-8", "surrogatepass"),
                                 content_type="application/json")
        assert 400 <= resp.status_code < 500, (resp.status_code, resp.content[:200])
        assert {"error", "message", "fields"} <= set(resp.json())


def test_hostile_patch_bodies_answer_4xx(admin_api: APIClient) -> None:
    account = create(admin_api).json()
    admin_api.raise_request_exception = False
    for text in ('{"models": {"a": null}}', '{"tools": null}', '{"api_key": ""}',
                 '{"fallback_local": null}', '{"label": null}', "[]"):
        resp = admin_api.generic("PATCH", f"/api/providers/{account['id']}/", text,
                                 content_type="application/json")
        assert resp.status_code == 400, (text, resp.content[:200])


# --- Test connection ----------------------------------------------------------------------


@dataclass
class Provider:
    origin: str = ""
    status: int = 200
    seen: list[dict[str, str]] = field(default_factory=list)


@pytest.fixture
def provider(settings: Any) -> Iterator[Provider]:
    state = Provider()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            state.seen.append({"path": self.path, **dict(self.headers.items())})
            respond(self, state.status, b'{"object": "list", "data": []}', "application/json")

        def log_message(self, *args: Any) -> None:
            pass

    with serving(Handler) as server:
        state.origin = server.origin
        settings.OUTBOUND_ALLOW = ["127.0.0.1"]
        yield state


def test_connection_test_calls_the_provider_with_the_key(admin_api: APIClient,
                                                         provider: Provider) -> None:
    account = create(admin_api, kind="openai", api_key=KEY,
                     base_url=f"{provider.origin}/v1").json()
    resp = admin_api.post(f"/api/providers/{account['id']}/test/")

    assert resp.status_code == 200
    assert resp.json()["ok"] is True and "127.0.0.1" in resp.json()["message"]
    assert provider.seen[-1]["path"] == "/v1/models"
    assert provider.seen[-1]["Authorization"] == f"Bearer {KEY}"
    assert KEY not in resp.content.decode()


@pytest.mark.parametrize(("kind", "scheme"), [("fal", "Key"), ("fashn", "Bearer"),
                                              ("replicate", "Bearer")])
def test_connection_test_refused_key(admin_api: APIClient, provider: Provider, kind: str,
                                     scheme: str) -> None:
    provider.status = 401
    account = create(admin_api, kind=kind, base_url=provider.origin).json()
    answer = admin_api.post(f"/api/providers/{account['id']}/test/").json()
    assert answer == {"ok": False, "message": "127.0.0.1 refused the key (HTTP 401)."}
    assert provider.seen[-1]["Authorization"] == f"{scheme} {KEY}"


def test_connection_test_without_an_answer(admin_api: APIClient, provider: Provider,
                                           settings: Any) -> None:
    account = create(admin_api, base_url="http://127.0.0.1:9/v1").json()
    answer = admin_api.post(f"/api/providers/{account['id']}/test/").json()
    assert answer["ok"] is False and "could not be reached" in answer["message"]

    # an address that was allowed when saved, and no longer is, is not called
    settings.OUTBOUND_ALLOW = []
    answer = admin_api.post(f"/api/providers/{account['id']}/test/").json()
    assert answer == {"ok": False, "message": "127.0.0.1 points at a private or loopback address."}


def test_staff_without_an_organisation_are_refused_not_crashed(db: Any) -> None:
    staff = client_for(UserFactory(organization=None, is_staff=True))
    resp = create(staff)
    assert resp.status_code == 403 and resp.json()["error"] == "forbidden"
