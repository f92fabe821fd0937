"""Every endpoint of the OpenAPI schema, fuzzed with schemathesis through the real WSGI app:
no answer to anything a client sends is a 5xx, and every answer matches the schema."""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hsettings
from schemathesis.checks import not_a_server_error

from config.wsgi import application

pytestmark = pytest.mark.django_db(transaction=True)

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "8"))


@pytest.fixture
def token(staff: Any, settings: Any, tmp_path: Any) -> str:
    from accounts.services import api_token_create

    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.DIRECT_WAIT_SECONDS = 0.2  # direct tools answer 202 quickly: no worker here
    settings.OUTBOUND_ALLOW = []
    return api_token_create(user=staff)[1]


@schema.parametrize()
@hsettings(max_examples=EXAMPLES, deadline=None,
           suppress_health_check=list(HealthCheck))
def test_no_server_errors(case: Any, token: str) -> None:
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    response = case.call()
    case.validate_response(response, checks=(not_a_server_error,))
