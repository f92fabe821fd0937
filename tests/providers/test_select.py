"""Choosing a tool's engine: local, provider, provider with fallback; parsing the settings."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.providers.conftest import Progress
from tests.support.fake_providers import FakeOpenAI, FakeTryOn, jpeg, png
from workers.engines.base import EngineError, EngineOutput
from workers.engines.registry import ENGINES
from workers.providers.config import ProviderConfig, ProviderConfigError, providers_parse
from workers.providers.select import ProviderEngine, engine_for

PHOTO = png((120, 60, 30))
RECOLOR = {"image": PHOTO, "target_color": "#112233", "garment_type": "dress"}


class TinyLocal:
    """A local engine registered through the injectable lookup; records its calls."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, params: dict[str, Any], progress: Any) -> list[EngineOutput]:
        self.calls.append(params)
        progress(50, "local work")
        return [EngineOutput(b"local-result", "text/plain", "local.txt")]


@pytest.fixture
def tiny() -> TinyLocal:
    return TinyLocal()


def entry(server: FakeOpenAI | FakeTryOn, provider: str = "openai", **kwargs: Any) -> dict:
    return {"provider": provider, "base_url": server.url, "api_key": server.api_key,
            "model": "m", "backoff": 0.01, "poll_interval": 0.02,
            "fetch_allow": ["127.0.0.1"], **kwargs}


# --- selection -------------------------------------------------------------------------------


def test_unconfigured_tools_get_their_local_engine(tiny: TinyLocal) -> None:
    assert engine_for("recolor", {}, local={"recolor": tiny}) is tiny
    assert engine_for("recolor", None, local={"recolor": tiny}) is tiny
    assert engine_for("diagnostics.sleep", {}) is ENGINES["diagnostics.sleep"]


def test_provider_local_is_the_local_engine(tiny: TinyLocal) -> None:
    assert engine_for("recolor", {"recolor": {"provider": "local"}},
                      local={"recolor": tiny}) is tiny


def test_an_engine_that_does_not_exist_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        engine_for("no_such_engine", {}, local={})


def test_a_configured_provider_runs_the_job(openai_server: FakeOpenAI, tiny: TinyLocal,
                                            progress: Progress) -> None:
    engine = engine_for("recolor", {"recolor": entry(openai_server)}, local={"recolor": tiny})
    assert isinstance(engine, ProviderEngine)
    outputs = engine(RECOLOR, progress)
    assert [o.filename for o in outputs] == ["recolor.png"]
    assert not tiny.calls
    assert openai_server.api_calls()[0].path == "/v1/images/edits"


def test_parsed_configs_are_accepted(tryon_server: FakeTryOn, tiny: TinyLocal,
                                     progress: Progress) -> None:
    parsed = providers_parse({"virtual_try_on": entry(tryon_server, "tryon", model="")})
    engine = engine_for("virtual_try_on", parsed, local={"virtual_try_on": tiny})
    outputs = engine({"model": jpeg((1, 2, 3)), "garment": PHOTO}, progress)
    assert [o.filename for o in outputs] == ["try-on.png"]


def test_provider_failure_falls_back_to_the_local_engine(openai_server: FakeOpenAI,
                                                         tiny: TinyLocal,
                                                         progress: Progress) -> None:
    openai_server.faults.append(("error", 500, "upstream model crashed"))
    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True)},
                        local={"recolor": tiny})
    outputs = engine(RECOLOR, progress)
    assert [o.data for o in outputs] == [b"local-result"]
    assert tiny.calls == [RECOLOR]
    assert "The provider failed; running the local engine" in progress.messages
    assert progress.values[-1] == 50  # the local engine's own progress follows


def test_provider_timeout_falls_back_too(openai_server: FakeOpenAI, tiny: TinyLocal,
                                         progress: Progress) -> None:
    openai_server.faults.append("timeout")
    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True,
                                                     timeout=0.3)},
                        local={"recolor": tiny})
    assert engine(RECOLOR, progress)[0].data == b"local-result"


def test_fallback_with_the_real_registry(tryon_server: FakeTryOn, progress: Progress) -> None:
    # The diagnostics engine is the real local registry's lightest; borrow its name for a
    # try-on configuration through a lookup that maps the tool to it.
    tryon_server.statuses = ["failed"]
    engine = engine_for("virtual_try_on",
                        {"virtual_try_on": entry(tryon_server, "tryon", fallback_local=True)},
                        local={"virtual_try_on": ENGINES["diagnostics.sleep"]})
    outputs = engine({"model": PHOTO, "garment": PHOTO, "seconds": 0}, progress)
    assert json.loads(outputs[0].data)["output"] == 0


def test_without_fallback_the_provider_error_fails_the_job(openai_server: FakeOpenAI,
                                                           tiny: TinyLocal,
                                                           progress: Progress) -> None:
    openai_server.faults.append(("error", 400, "Invalid size"))
    engine = engine_for("recolor", {"recolor": entry(openai_server)}, local={"recolor": tiny})
    with pytest.raises(EngineError) as err:
        engine(RECOLOR, progress)
    assert (err.value.code, err.value.message) == ("provider_error", "Invalid size")
    assert not tiny.calls


def test_input_errors_do_not_fall_back(openai_server: FakeOpenAI, tiny: TinyLocal,
                                       progress: Progress) -> None:
    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True)},
                        local={"recolor": tiny})
    with pytest.raises(EngineError) as err:
        engine({"target_color": "red", "garment_type": "top"}, progress)
    assert err.value.code == "bad_input"
    assert not tiny.calls


def test_fallback_without_a_local_engine_keeps_the_provider_error(
        openai_server: FakeOpenAI, progress: Progress) -> None:
    openai_server.faults.append(("error", 500, "down"))
    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True)},
                        local={})
    with pytest.raises(EngineError) as err:
        engine(RECOLOR, progress)
    assert err.value.message == "down"


def test_the_local_lookup_is_not_touched_while_the_provider_works(
        openai_server: FakeOpenAI, progress: Progress) -> None:
    class Exploding(dict):
        def __getitem__(self, key: str) -> Any:
            raise AssertionError("local engine looked up")

    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True)},
                        local=Exploding())
    assert len(engine(RECOLOR, progress)) == 1


# --- configuration ---------------------------------------------------------------------------


def test_parse_the_documented_example() -> None:
    raw = json.dumps({
        "editorial_generate": {"provider": "openai", "base_url": "http://127.0.0.1:9999/v1",
                               "api_key": "sk-1", "model": "gpt-image-1",
                               "fallback_local": True},
        "virtual_try_on": {"provider": "tryon", "base_url": "https://api.example/v1",
                           "api_key": "fa-1", "fallback_local": False},
    })
    parsed = providers_parse(raw, fetch_allow=["10.0.0.0/8"])
    assert parsed["editorial_generate"].model == "gpt-image-1"
    assert parsed["editorial_generate"].fallback_local is True
    assert parsed["virtual_try_on"].provider == "tryon"
    assert parsed["virtual_try_on"].fetch_allow == ("10.0.0.0/8",)
    assert "sk-1" not in repr(parsed)  # keys stay out of reprs and debug pages


def test_empty_settings_are_no_providers() -> None:
    assert providers_parse("") == {} == providers_parse(None) == providers_parse({})


def test_api_key_from_another_environment_variable() -> None:
    parsed = providers_parse(
        {"recolor": {"provider": "openai", "base_url": "https://api.openai.com/v1",
                     "api_key_env": "MY_KEY"}}, environ={"MY_KEY": "sk-env"})
    assert parsed["recolor"].api_key == "sk-env"
    with pytest.raises(ProviderConfigError, match="MY_KEY"):
        providers_parse({"recolor": {"provider": "openai", "base_url": "https://a/v1",
                                     "api_key_env": "MY_KEY"}}, environ={})


@pytest.mark.parametrize(("raw", "message"), [
    ("{not json", "not valid JSON"),
    ("[]", "must be a JSON object"),
    ({"recolor": {"base_url": "https://a/v1"}}, "provider is missing"),
    ({"recolor": {"provider": "dalle", "base_url": "https://a/v1"}}, "unknown provider"),
    ({"recolor": {"provider": "openai", "base_url": "ftp://a"}}, "base_url"),
    ({"recolor": {"provider": "openai", "base_url": "https://a", "colour": 1}}, "unknown keys"),
    ({"recolor": {"provider": "tryon", "base_url": "https://a"}}, "cannot run this tool"),
    ({"spinview": {"provider": "openai", "base_url": "https://a"}}, "cannot run this tool"),
    ({"virtual_try_on": {"provider": "tryon", "base_url": "https://a", "category": "hats"}},
     "category"),
    ({"recolor": {"provider": "openai", "base_url": "https://a", "deadline": 0}}, "deadline"),
])
def test_bad_settings_are_refused_with_a_clear_message(raw: Any, message: str) -> None:
    with pytest.raises(ProviderConfigError, match=message):
        providers_parse(raw)


def test_engine_for_checks_raw_entries_too(tiny: TinyLocal) -> None:
    with pytest.raises(ProviderConfigError):
        engine_for("spinview", {"spinview": {"provider": "openai", "base_url": "https://a"}},
                   local={"spinview": tiny})


def test_provider_config_defaults_fit_the_interactive_queue() -> None:
    from workers.queues import QUEUES

    assert ProviderConfig("tryon", "https://a").deadline < QUEUES["interactive"].soft_limit
