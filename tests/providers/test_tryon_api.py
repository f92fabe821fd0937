"""The try-on adapter's old import path and provider name: FASHN's current protocol.

The protocol itself is tested in test_fashn.py; here: the old names keep working."""

from __future__ import annotations

from typing import Any

import pytest

from tests.providers.conftest import Progress
from tests.providers.servers import FakeFashn
from tests.support.fake_providers import jpeg, png
from workers.providers.config import ProviderConfig, providers_parse
from workers.providers.fashn import fashn_run
from workers.providers.tryon_api import TRYON_TOOLS, tryon_category, tryon_run


def test_tryon_run_is_the_fashn_adapter() -> None:
    assert tryon_run is fashn_run
    assert set(TRYON_TOOLS) == {"virtual_try_on", "restyle", "garment_integration"}


@pytest.mark.parametrize(("given", "expected"), [
    ("dress", "one-pieces"), ("Top", "tops"), ("lower_body", "bottoms"), ("hats", "auto"),
    ("", "auto"),
])
def test_category_spellings(given: str, expected: str) -> None:
    config = ProviderConfig("tryon", "https://a/v1")
    assert tryon_category({"category": given}, config) == expected


def test_a_tryon_entry_sends_model_name_and_inputs(fashn_server: FakeFashn,
                                                   progress: Progress) -> None:
    parsed = providers_parse({"virtual_try_on": {
        "provider": "tryon", "base_url": fashn_server.url, "api_key": fashn_server.api_key,
        "poll_interval": 0.02, "category": "tops", "fetch_allow": ["127.0.0.1"]}})
    params: dict[str, Any] = {"model": jpeg((1, 2, 3)), "garment": png((4, 5, 6))}
    outputs = tryon_run(parsed["virtual_try_on"], "virtual_try_on", params, progress)
    assert [o.filename for o in outputs] == ["try-on.png"]
    body = fashn_server.api_calls("/v1/run")[0].json
    assert body["model_name"] == "tryon-v1.6"
    assert body["inputs"]["category"] == "tops"
    assert "model_image" not in body  # the old flat shape FASHN answers with v1.5
