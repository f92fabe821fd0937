"""Choosing a tool's engine: local, provider, provider with fallback; parsing the settings."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.providers.conftest import Progress
from tests.providers.servers import FakeFashn
from tests.support.fake_providers import FakeOpenAI, jpeg, png
from workers.engines.base import EngineError, EngineOutput
from workers.engines.registry import engine_at
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


def entry(server: FakeOpenAI | FakeFashn, provider: str = "openai", **kwargs: Any) -> dict:
    return {"provider": provider, "base_url": server.url, "api_key": server.api_key,
            "model": "m", "backoff": 0.01, "poll_interval": 0.02,
            "fetch_allow": ["127.0.0.1"], **kwargs}


# --- selection -------------------------------------------------------------------------------


def test_unconfigured_tools_get_their_local_engine(tiny: TinyLocal) -> None:
    assert engine_for("recolor", {}, local={"recolor": tiny}) is tiny
    assert engine_for("recolor", None, local={"recolor": tiny}) is tiny
    from tools.registry import LOCAL_ENGINES

    assert engine_for("diagnostics.sleep", {}, local=LOCAL_ENGINES) is engine_at(
        "workers.engines.diagnostics:sleep")


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


def test_parsed_configs_are_accepted(fashn_server: FakeFashn, tiny: TinyLocal,
                                     progress: Progress) -> None:
    parsed = providers_parse({"virtual_try_on": entry(fashn_server, "tryon", model="")})
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


def test_fallback_with_the_real_registry(fashn_server: FakeFashn, progress: Progress) -> None:
    # The diagnostics engine is the real local registry's lightest; borrow its name for a
    # try-on configuration through a lookup that maps the tool to it.
    fashn_server.statuses = ["failed"]
    engine = engine_for("virtual_try_on",
                        {"virtual_try_on": entry(fashn_server, "tryon", fallback_local=True)},
                        local={"virtual_try_on": engine_at("workers.engines.diagnostics:sleep")})
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


# --- labels and kinds ------------------------------------------------------------------------


def test_provider_engines_say_who_made_the_outputs(openai_server: FakeOpenAI, tiny: TinyLocal,
                                                  progress: Progress) -> None:
    engine = engine_for("recolor", {"recolor": entry(openai_server, model="gpt-image-1")},
                        local={"recolor": tiny})
    assert (engine.made_by, engine.tier) == ("openai:gpt-image-1", "studio")  # type: ignore[attr-defined]
    engine(RECOLOR, progress)
    assert (engine.made_by, engine.tier) == ("openai:gpt-image-1", "studio")  # type: ignore[attr-defined]


def test_a_fallback_run_is_labelled_local_preview(openai_server: FakeOpenAI, tiny: TinyLocal,
                                                  progress: Progress) -> None:
    openai_server.faults.append(("error", 500, "upstream model crashed"))
    engine = engine_for("recolor", {"recolor": entry(openai_server, fallback_local=True)},
                        local={"recolor": tiny})
    engine(RECOLOR, progress)
    assert (engine.made_by, engine.tier) == ("local", "preview")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("provider", "engine", "extra", "made_by"), [
    ("fashn", "virtual_try_on", {}, "fashn:tryon-v1.6"),
    ("tryon", "restyle", {}, "fashn:tryon-v1.6"),
    ("fashn", "flats", {}, "fashn:product-to-model"),
    ("fashn", "remodel", {}, "fashn:product-to-model"),
    ("fal", "virtual_try_on", {}, "fal:fal-ai/leffa/virtual-tryon"),
    ("fal", "garment_integration", {"model": "fal-ai/cat-vton"}, "fal:fal-ai/cat-vton"),
    ("replicate", "virtual_try_on", {"model": "cuuupid/idm-vton:abc"},
     "replicate:cuuupid/idm-vton:abc"),
    ("openai", "editorial_generate", {"model": "gpt-image-1"}, "openai:gpt-image-1"),
])
def test_made_by_per_kind(provider: str, engine: str, extra: dict[str, Any],
                          made_by: str) -> None:
    chosen = engine_for(engine, {engine: {"provider": provider, "base_url": "https://a/v1",
                                          **extra}}, local={})
    assert (chosen.made_by, chosen.tier) == (made_by, "studio")  # type: ignore[attr-defined]


def test_kinds_default_to_their_documented_roots() -> None:
    parsed = providers_parse({"virtual_try_on": {"provider": "fal"},
                              "restyle": {"provider": "replicate"},
                              "flats": {"provider": "fashn"}})
    assert parsed["virtual_try_on"].base_url == "https://queue.fal.run"
    assert parsed["restyle"].base_url == "https://api.replicate.com/v1"
    assert parsed["flats"].base_url == "https://api.fashn.ai/v1"


def test_vertex_needs_a_service_account() -> None:
    with pytest.raises(ProviderConfigError, match="service account"):
        providers_parse({"virtual_try_on": {"provider": "vertex", "api_key": "not json"}})
    with pytest.raises(ProviderConfigError, match="cannot run this tool"):
        providers_parse({"recolor": {"provider": "fal"}})


def test_config_and_select_do_not_import_each_other() -> None:
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; import workers.providers.config; "
            "assert 'workers.providers.select' not in sys.modules; "
            "assert 'requests' not in sys.modules; "  # settings import config: kept light
            "import workers.providers.select; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False, env={"PYTHONPATH": "platform:."},
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "ok", out.stderr
