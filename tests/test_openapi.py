"""The OpenAPI schema says what the API really answers: paginated lists as pages, every error
status an operation can answer with the error envelope and an example, rate-limit headers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in spec["paths"].items()
            for method, op in ops.items()]


def test_the_job_list_is_a_page_as_it_answers(spec: dict[str, Any], api: APIClient) -> None:
    schema = spec["paths"]["/api/jobs/"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    page = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    assert set(page["properties"]) == {"count", "next", "previous", "results"}
    assert page["properties"]["results"]["items"] == {"$ref": "#/components/schemas/Job"}
    assert set(api.get("/api/jobs/").json()) == set(page["properties"])


def test_every_operation_documents_its_errors_with_the_envelope(spec: dict[str, Any]) -> None:
    responses = spec["components"]["responses"]
    envelope = spec["components"]["schemas"]["Error"]
    assert envelope["required"] == ["error", "message", "fields"]
    for name, response in responses.items():
        body = response["content"]["application/json"]
        assert body["schema"] == {"$ref": "#/components/schemas/Error"}, name
        assert set(body["example"]) >= {"error", "message", "fields"}, name
    for method, path, op in _operations(spec):
        codes = set(op["responses"])
        assert {"400", "429", "503"} <= codes, (method, path)
        if "security" in op and {} not in op["security"]:
            assert {"401", "403"} <= codes, (method, path)
        if "{" in path:
            assert "404" in codes, (method, path)
        if "requestBody" in op:
            assert {"413", "415"} <= codes, (method, path)
        for code in codes - {"400"}:  # (a drive upload's 400 adds what was skipped)
            if code[0] in "45":
                assert op["responses"][code]["$ref"].startswith("#/components/responses/")
    assert "409" in spec["paths"]["/api/jobs/{job_id}/cancel/"]["post"]["responses"]
    assert "409" in spec["paths"]["/api/recoloring/recolor"]["post"]["responses"]
    direct = spec["paths"]["/api/try-on"]["post"]["responses"]
    assert {"202", "422"} <= set(direct)
    assert "Retry-After" in responses["Throttled"]["headers"]
    ok = spec["paths"]["/api/queues/"]["get"]["responses"]["200"]
    assert {"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} <= set(ok["headers"])


def test_documented_statuses_answer_the_envelope(api: APIClient) -> None:
    resp = Client().get("/api/queues/")
    assert resp.status_code == 401 and set(resp.json()) == {"error", "message", "fields"}
    resp = api.generic("POST", "/api/recoloring/recolor", "x", content_type="text/plain")
    assert resp.status_code == 415 and resp.json()["error"] == "unsupported_media_type"


def test_an_unknown_api_path_is_a_json_404_whatever_the_method() -> None:
    # (a POST without a CSRF cookie used to get the CSRF check's HTML 403)
    resp = Client(enforce_csrf_checks=True).post("/api/batches/x/retry-failed/")
    assert resp.status_code == 404 and resp.json()["error"] == "not_found"


def test_request_schemas_say_what_the_fields_take(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    card = schemas["RecolorCardRequest"]
    assert card["additionalProperties"] is False  # unknown fields are refused
    assert card["properties"]["target_color"]["pattern"]
    assert card["properties"]["image_url"]["pattern"].endswith("$")
    recolor = spec["paths"]["/api/recoloring/recolor"]["post"]["requestBody"]["content"]
    assert recolor["application/json"]["schema"]["maxItems"] == 20
    assert schemas["WebhookInputRequest"]["properties"]["events"]["minItems"] == 1


@pytest.mark.parametrize("url", ["http://[abc/x.jpg", "http://a\uff03b/x.jpg", "ftp://a.test/x"])
def test_a_url_that_urlsplit_cannot_read_is_a_400(staff_api: APIClient, url: str) -> None:
    resp = staff_api.post("/api/tonelab/generate", {"outfit": url}, format="json",
                          HTTP_PREFER="respond-async")
    assert resp.status_code == 400 and "outfit" in resp.json()["fields"]
