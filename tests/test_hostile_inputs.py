"""Hostile bodies on every JSON POST endpoint of the OpenAPI schema: whatever a client sends,
the answer is a 4xx in our error envelope, never a 5xx.

The classes are the ones an outside probe found 500s with: structures nested far deeper than
any real payload, lone UTF-16 surrogates (which cannot be encoded as UTF-8), every JSON type in
every field, and numbers too large for a float.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

Body = Any
# Raw JSON text for each type, so that numbers beyond a float (-1e400) are sent as written.
EVERY_TYPE = ("null", "true", "1", "1.5", "1e308", "-1e400", '"x"', "[]", "{}")
HUGE_NUMBERS = ("1e400", "-1e400", "9" * 400, "-" + "9" * 400, "1e-400", "18446744073709551617")
SURROGATE = "\ud800"


@pytest.fixture
def client(staff_api: APIClient, settings: Any, tmp_path: Any,
           monkeypatch: pytest.MonkeyPatch) -> APIClient:
    from config.throttles import PartnerRateThrottle

    # thousands of requests from one caller: the rate limit is not what is tested here
    monkeypatch.setattr(PartnerRateThrottle, "THROTTLE_RATES", {"partner": None})
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.DIRECT_WAIT_SECONDS = 0.05
    settings.OUTBOUND_ALLOW = []
    # A 5xx must come back as a response to count, not as an exception in the test.
    staff_api.raise_request_exception = False
    return staff_api


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = spec["components"]["schemas"][name]
    if "allOf" in node:
        merged: dict[str, Any] = {}
        for part in node["allOf"]:
            merged.update(_resolve(spec, part))
        return merged
    for key in ("oneOf", "anyOf"):
        if key in node:
            return _resolve(spec, node[key][0])
    return node


def _example(spec: dict[str, Any], node: dict[str, Any], depth: int = 0) -> Any:
    """A plausible valid value for a schema node (valid enough to reach every field)."""
    node = _resolve(spec, node)
    if "enum" in node and node["enum"]:
        return next((v for v in node["enum"] if v not in (None, "")), node["enum"][0])
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        if depth > 4:
            return {}
        return {name: _example(spec, sub, depth + 1)
                for name, sub in node.get("properties", {}).items()}
    if kind == "array":
        return [_example(spec, node.get("items", {}), depth + 1)]
    if kind == "integer":
        return int(node.get("minimum", 1))
    if kind == "number":
        return max(float(node.get("minimum", 1)), 1.0)
    if kind == "boolean":
        return False
    if node.get("format") == "uri" or "url" in str(node.get("description", "")).lower():
        return "https://cdn.maison.test/look.jpg"
    return "x"


def _post_endpoints(spec: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    for path, ops in spec["paths"].items():
        op = ops.get("post")
        if not op:
            continue
        content = op.get("requestBody", {}).get("content", {})
        if "application/json" not in content:
            continue
        url = path
        for param in op.get("parameters", []) + ops.get("parameters", []):
            if param.get("in") == "path":
                url = url.replace("{" + param["name"] + "}",
                                  "00000000-0000-0000-0000-000000000000")
        yield url, _example(spec, content["application/json"]["schema"])


def _leaves(body: Body, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Paths to every field of a body (every key of every object, every list item)."""
    if isinstance(body, dict):
        for key, value in body.items():
            yield (*path, key)
            yield from _leaves(value, (*path, key))
    elif isinstance(body, list):
        for i, value in enumerate(body):
            yield from _leaves(value, (*path, i))


def _replace(body: Body, path: tuple[Any, ...], raw: str) -> str:
    """The body as JSON text, with the value at `path` replaced by the raw JSON text `raw`."""
    marker = "\u0000MARK\u0000"
    copy = json.loads(json.dumps(body))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = marker
    return json.dumps(copy).replace(json.dumps(marker), raw)


def _with_surrogates(body: Body) -> Iterator[str]:
    for path in _leaves(body):
        node = body
        for step in path:
            node = node[step]
        if isinstance(node, str):
            yield _replace(body, path, json.dumps(node + SURROGATE))
    if isinstance(body, dict) and body:
        yield json.dumps({**body, "k" + SURROGATE: "x"})


def _deep(body: Body) -> Iterator[str]:
    yield "[" * 1000 + "]" * 1000
    yield '{"a":' * 1000 + "1" + "}" * 1000
    if isinstance(body, dict) and body:
        yield _replace(body, (next(iter(body)),), "[" * 1000 + "]" * 1000)


def _every_type(body: Body) -> Iterator[str]:
    yield from EVERY_TYPE
    for path in _leaves(body):
        for raw in EVERY_TYPE:
            yield _replace(body, path, raw)


def _huge(body: Body) -> Iterator[str]:
    for path in _leaves(body):
        for raw in HUGE_NUMBERS:
            yield _replace(body, path, raw)


def _server_errors(client: APIClient, make: Callable[[Body], Iterator[str]]) -> list[str]:
    spec = client.get("/api/schema/", {"format": "json"}).json()
    endpoints = list(_post_endpoints(spec))
    assert len(endpoints) >= 20, "the schema lists the JSON endpoints"
    errors: list[str] = []
    sent = 0
    for url, body in endpoints:
        for text in make(body):
            sent += 1
            resp = client.generic("POST", url, text.encode("utf-8", "surrogatepass"),
                                  content_type="application/json", HTTP_PREFER="respond-async")
            if resp.status_code >= 500:
                errors.append(f"{resp.status_code} {url} {text[:80]!r}")
            elif resp.status_code >= 400:
                envelope = resp.json()
                assert {"error", "message", "fields"} <= set(envelope), (url, text[:80])
    print(f"\n{make.__name__}: {sent} requests to {len(endpoints)} endpoints, "
          f"{len(errors)} answered 5xx")
    return errors


@pytest.mark.parametrize("make", [_deep, _with_surrogates, _every_type, _huge],
                         ids=["deep", "surrogates", "every-type", "huge-numbers"])
def test_no_server_error_on_hostile_bodies(client: APIClient,
                                           make: Callable[[Body], Iterator[str]]) -> None:
    errors = _server_errors(client, make)
    assert not errors, f"{len(errors)} answered 5xx:\n" + "\n".join(errors[:20])


def test_deep_body_is_refused_before_parsing(api: APIClient) -> None:
    resp = api.generic("POST", "/api/recoloring/recolor", "[" * 1000 + "]" * 1000,
                       content_type="application/json")
    assert resp.status_code == 400
    assert resp.json()["error"] == "malformed_request" and "64 levels" in resp.json()["message"]
    # brackets inside strings are text, not nesting
    card = {"image_url": "https://a.test/" + "[" * 500 + ".jpg", "target_color": "#fff",
            "garment_type": "top"}
    assert api.post("/api/recoloring/recolor", [card], format="json").status_code != 500


@pytest.mark.parametrize("body", [
    '[{"image_url": "https://a.test/a.jpg", "target_color": "#fff", "garment_type": "\\ud800"}]',
    '[{"image_url": "https://a.test/a.jpg", "target_color": "#fff", "\\udfff": "top"}]',
])
def test_lone_surrogate_is_refused_with_its_path(api: APIClient, body: str) -> None:
    resp = api.generic("POST", "/api/recoloring/recolor", body, content_type="application/json")
    assert resp.status_code == 400
    envelope = resp.json()
    assert envelope["error"] == "invalid" and "surrogate" in envelope["message"]
    assert envelope["message"].startswith("0.")
    assert "\ud800" not in resp.content.decode("utf-8", "surrogatepass")


def test_error_message_echoing_unencodable_text_still_renders(api: APIClient) -> None:
    from config.errors import error_body
    from config.renderers import JSONRenderer

    body = error_body("invalid", '"\ud800" is not a valid choice.', {"k\ud800": ["x\udfff"]})
    assert json.loads(JSONRenderer().render(body))["message"] == '"\\ud800" is not a valid choice.'
    # and any other answer holding such text renders too, escaped
    assert json.loads(JSONRenderer().render({"name": "a\ud800"})) == {"name": "a\\ud800"}


@pytest.mark.parametrize(("url", "body", "field"), [
    ("/api/open-lab/", {"prompt": 42}, "prompt"),
    ("/api/diagnostics/sleep", {"seconds": True}, "seconds"),
    ("/api/diagnostics/sleep", {"seconds": "1"}, "seconds"),
    ("/api/diagnostics/sleep", {"fail": "true"}, "fail"),
    ("/api/diagnostics/sleep", {"outputs": 1.0, "fail": 0}, "fail"),
    ("/api/recoloring/recolor", [{"image_url": "https://a.test/a.jpg", "target_color": 123,
                                  "garment_type": "top"}], "target_color"),
    ("/api/bag-holder/process", [{"Bag_Url": "https://a.test/b.jpg", "Width": True,
                                  "Height": 30, "Depth": 12, "Gender": "Female"}], "Width"),
])
def test_wrong_json_types_are_refused_not_coerced(staff_api: APIClient, url: str, body: Any,
                                                  field: str) -> None:
    resp = staff_api.post(url, body, format="json")
    assert resp.status_code == 400, resp.content
    assert "Must be" in resp.json()["message"] and field in str(resp.json()["fields"])


def test_query_strings_and_spec_numeric_text_still_parse(api: APIClient) -> None:
    assert api.get("/api/jobs/", {"limit": "5", "offset": "0"}).status_code == 200
    bag = {"Bag_Url": "https://a.test/b.jpg", "Width": "38", "Height": 30.5, "Depth": "12",
           "Handle": "", "Strap": 20, "Gender": "Female"}
    resp = api.post("/api/bag-holder/process", [bag], format="json")
    # (no model in the library: refused for that, not for the numbers written as text)
    assert "Must be" not in resp.content.decode()


def test_no_endpoint_coerces_a_number_or_boolean_into_text(client: APIClient) -> None:
    # every field a valid example fills with text, given 1 or true instead: never accepted
    spec = client.get("/api/schema/", {"format": "json"}).json()
    accepted = []
    for url, body in _post_endpoints(spec):
        for path in _leaves(body):
            node = body
            for step in path:
                node = node[step]
            if not isinstance(node, str):
                continue
            for raw in ("1", "true"):
                resp = client.generic("POST", url, _replace(body, path, raw),
                                      content_type="application/json",
                                      HTTP_PREFER="respond-async")
                if resp.status_code < 300:
                    accepted.append(f"{url} {'.'.join(map(str, path))}={raw}")
    assert not accepted, "\n".join(accepted)
