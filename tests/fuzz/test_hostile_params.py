"""The hostile-input classes (tests/test_hostile_inputs.py sends them in every JSON POST body)
everywhere else a client puts a value: PATCH and DELETE bodies, query parameters, path
parameters and the Idempotency-Key header. Deep structures, lone surrogates, every JSON type
in every field and huge numbers all answer a 4xx in the error envelope, never a 5xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from rest_framework.test import APIClient

from tests.test_hostile_inputs import (
    EVERY_TYPE,
    HUGE_NUMBERS,
    _deep,
    _every_type,
    _example,
    _huge,
    _with_surrogates,
)

pytestmark = pytest.mark.django_db

# Raw query or path text: lone surrogates (as UTF-8 would spell them, which is not UTF-8),
# NUL, huge and odd numbers, JSON values, and far too long.
RAW_VALUES = (
    "%ED%A0%80", "x%ED%B0%80", "%C0%AF", "%FF", "%00", "x%00y",
    *[quote(text, safe="") for text in (*HUGE_NUMBERS, *EVERY_TYPE)],
    "-1", "0", "1.5", "NaN", "Infinity", quote("[" * 1000 + "]" * 1000, safe=""), "a" * 5000,
)


@pytest.fixture
def client(staff_api: APIClient, staff: Any, settings: Any, tmp_path: Any,
           monkeypatch: pytest.MonkeyPatch) -> APIClient:
    from config.throttles import PartnerRateThrottle

    monkeypatch.setattr(PartnerRateThrottle, "THROTTLE_RATES", {"partner": None})
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.DIRECT_WAIT_SECONDS = 0.05
    settings.OUTBOUND_ALLOW = []
    staff_api.raise_request_exception = False  # a 5xx must come back as an answer
    return staff_api


@pytest.fixture
def spec(client: APIClient) -> dict[str, Any]:
    return dict(client.get("/api/schema/", {"format": "json"}).json())


@pytest.fixture
def existing(staff: Any) -> dict[str, str]:
    """Ids of objects the PATCH and DELETE calls can reach, so that their bodies are read."""
    from studio.services import provider_account_create
    from webhooks.models import Webhook

    org = staff.organization
    hook = Webhook.objects.create(organization=org, created_by=staff, url="https://a.test/h",
                                  events=["job.succeeded"], secret="s")
    account = provider_account_create(org=org, kind="fashn", api_key="fa-key")
    return {"webhook_id": str(hook.pk), "account_id": str(account.pk)}


def _check(resp: Any, what: str, errors: list[str]) -> None:
    if resp.status_code >= 500:
        errors.append(f"{resp.status_code} {what[:160]}")
    elif resp.status_code >= 400 and resp.get("Content-Type", "").startswith("application/json"):
        assert {"error", "message", "fields"} <= set(resp.json()), what[:160]


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            yield method.upper(), path, op


def _fill(path: str, ids: dict[str, str]) -> str:
    for name, value in ids.items():
        path = path.replace("{" + name + "}", value)
    return path.replace("{", "").replace("}", "")  # the rest: any text reaches its view


@pytest.mark.parametrize("make", [_deep, _with_surrogates, _every_type, _huge],
                         ids=["deep", "surrogates", "every-type", "huge-numbers"])
def test_patch_and_delete_bodies(client: APIClient, spec: dict[str, Any],
                                 existing: dict[str, str], make: Any) -> None:
    errors: list[str] = []
    reached = set()
    for method, path, op in _operations(spec):
        content = op.get("requestBody", {}).get("content", {})
        if method not in ("PATCH", "DELETE") or "application/json" not in content:
            continue
        url = _fill(path, existing)
        body = _example(spec, content["application/json"]["schema"])
        reached.add(f"{method} {path}")
        for text in make(body):
            resp = client.generic(method, url, text.encode("utf-8", "surrogatepass"),
                                  content_type="application/json")
            _check(resp, f"{method} {url} {text}", errors)
    assert {"PATCH /api/webhooks/{webhook_id}/", "PATCH /api/providers/{account_id}/",
            "DELETE /api/catalog-video/inputs"} <= reached
    assert not errors, f"{len(errors)} answered 5xx:\n" + "\n".join(errors[:20])


def test_query_parameters(client: APIClient, spec: dict[str, Any],
                          existing: dict[str, str]) -> None:
    errors: list[str] = []
    sent = 0
    for method, path, op in _operations(spec):
        names = [p["name"] for p in op.get("parameters", []) if p["in"] == "query"]
        url = _fill(path, existing)
        for name in names:
            for raw in RAW_VALUES:
                sent += 1
                resp = client.generic(method, f"{url}?{name}={raw}",
                                      HTTP_PREFER="respond-async")
                _check(resp, f"{method} {url}?{name}={raw}", errors)
    assert sent > 300
    assert not errors, f"{len(errors)} answered 5xx:\n" + "\n".join(errors[:20])


def test_path_parameters(client: APIClient, spec: dict[str, Any]) -> None:
    errors: list[str] = []
    sent = 0
    for method, path, _op in _operations(spec):
        if "{" not in path:
            continue
        for raw in RAW_VALUES:
            url = path
            while "{" in url:
                start = url.index("{")
                url = url[:start] + raw + url[url.index("}", start) + 1:]
            sent += 1
            resp = client.generic(method, url, b"{}", content_type="application/json")
            _check(resp, f"{method} {url}", errors)
    assert sent > 300
    assert not errors, f"{len(errors)} answered 5xx:\n" + "\n".join(errors[:20])


def test_idempotency_key_header(client: APIClient) -> None:
    errors: list[str] = []
    body = json.dumps({"seconds": 0})
    # (a header is bytes read as latin-1: the UTF-8 spelling of a lone surrogate gets there)
    for key in ("\xed\xa0\x80", "x\x00y", "9" * 400, "1e400", " ", "k" * 256, "[" * 1000):
        resp = client.generic("POST", "/api/diagnostics/sleep", body,
                              content_type="application/json", HTTP_IDEMPOTENCY_KEY=key,
                              HTTP_PREFER="respond-async")
        _check(resp, f"Idempotency-Key {key!r}", errors)
    assert not errors, "\n".join(errors)
