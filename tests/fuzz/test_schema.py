"""Every operation of the OpenAPI schema, fuzzed with schemathesis through the real WSGI app,
with every check schemathesis has, on positive (schema-valid) and negative (schema-violating)
data:

- not_a_server_error: no 5xx;
- status_code_conformance: every status answered is documented for its operation;
- content_type_conformance: the answer's media type is the documented one;
- response_schema_conformance: the body matches the documented schema (errors: the envelope);
- response_headers_conformance: documented response headers are present and well formed;
- positive_data_acceptance: a request the schema allows is accepted (no 400);
- negative_data_rejection: a request the schema refuses is refused (4xx);
- missing_required_header, ignored_auth (credentials are really checked), unsupported_method
  and allow_header_conformance (405 with Allow), use_after_free and
  ensure_resource_availability (stateful; they find nothing to compare in single calls).

One allowance, on purpose: some fields take values a schema cannot describe: a model of the
organisation's library (`modelId`), drive files to sync, a base64 text that must also be an
image, a provider's tools, models and key (by its kind), a webhook's host that must resolve and
be public (a registered webhook's, a submit's `webhook_url`), Open Lab's prompt or image,
Rebody's URL ending in an image extension (a plain URL in the spec). BEYOND_SCHEMA lists them
per operation; a 400 that blames only them does not count against positive_data_acceptance.
Every other check still runs on that answer.

The phases are the schema's examples and fuzzing, derandomized (the same cases every run);
FUZZ_EXAMPLES (default 6) sets the examples per operation.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.wsgi import application

pytestmark = pytest.mark.django_db(transaction=True)

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
schema.config.generation.update(modes=["positive", "negative"], deterministic=True)
schema.config.phases.update(phases=["examples", "fuzzing"])
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "6"))

# operation → the request fields whose valid values a schema cannot describe
_IMAGE = {"image", "image_2", "modelPicture"}  # base64 that must decode to an image
BEYOND_SCHEMA: dict[str, set[str]] = {
    "POST /api/model-swap/process": {"modelId"},  # a model of the library
    "POST /api/remodel/process": {"modelId", "non_field_errors", *_IMAGE},  # and drive photos
    "POST /api/catalog-video/sync": {"non_field_errors"},  # files in the input folders
    "POST /api/flats-catalog/sync": {"non_field_errors"},
    # what the provider's kind runs, and takes as a key (Vertex: a JSON service account)
    "POST /api/providers/": {"tools", "models", "api_key"},
    "PATCH /api/providers/{account_id}/": {"tools", "models", "api_key"},
    "POST /api/webhooks/": {"url"},  # a host that resolves
    "PATCH /api/webhooks/{webhook_id}/": {"url"},
    "POST /api/earring-catalog/process": {"non_field_errors"},  # library models that fit
    "POST /api/bag-holder/process": {"non_field_errors"},
    "POST /api/rebody/process": {"image_url"},
    "POST /api/editorial-product/": _IMAGE,
    "POST /api/open-lab/": {"non_field_errors", *_IMAGE},  # a prompt or an image
    "POST /api/tech-pack/description": _IMAGE,
    "POST /api/tech-pack/process": _IMAGE,
}


@pytest.fixture
def token(staff: Any, settings: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    from accounts.services import api_token_create
    from config.throttles import PartnerRateThrottle

    # hundreds of requests from one caller: the rate limit is not what is tested here
    monkeypatch.setattr(PartnerRateThrottle, "THROTTLE_RATES", {"partner": None})
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.DIRECT_WAIT_SECONDS = 0.05  # direct tools answer 202 quickly: no worker here
    settings.OUTBOUND_ALLOW = []
    return api_token_create(user=staff)[1]


def _blames_only(response: Any, fields: set[str]) -> bool:
    fields = fields | {"webhook_url"}  # any submit's: a host that resolves, and is public
    if response.status_code != 400:
        return False
    blamed = set(response.json().get("fields") or {}) or {"non_field_errors"}
    return {name.split(".")[-1] for name in blamed} <= fields


@schema.parametrize()
@hsettings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_check_on_every_operation(case: Any, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    response = case.call(headers=headers)
    excluded = []
    if _blames_only(response, BEYOND_SCHEMA.get(f"{case.method.upper()} {case.path}", set())):
        excluded.append(positive_data_acceptance)
    case.validate_response(response, headers=headers, excluded_checks=excluded)
