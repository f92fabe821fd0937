"""What every hosted try-on adapter does alike, one test per behaviour over the adapters: a
refused call and a wrong key in the provider's words, 429s waited out, the deadline, a slow
answer bounded by the timeout and a cancel that stops polling. Each adapter's own protocol
(fields, polling, usage) is tested in its own module."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.providers.conftest import TRYON, Canceled, Progress, adapter_config, vertex_config
from workers.engines.base import EngineError, EngineOutput
from workers.providers.config import ProviderConfig
from workers.providers.fal import fal_run
from workers.providers.fashn import fashn_run
from workers.providers.replicate_api import replicate_run
from workers.providers.vertex import vertex_run


@dataclass(frozen=True)
class Adapter:
    run: Callable[[ProviderConfig, str, dict[str, Any], Any], list[EngineOutput]]
    server: str  # the loopback server's fixture
    label: str  # how the provider's messages name the call
    running: str = ""  # a status the job stays in while it runs ("": no queue to poll)
    retried_faults: tuple[Any, ...] = ()  # transient faults of the polls, waited out

    def config(self, server: Any, **kwargs: Any) -> ProviderConfig:
        kind = self.server.removesuffix("_server")
        if kind == "vertex":
            return vertex_config(server, **kwargs)
        return adapter_config(kind, server, **kwargs)


ADAPTERS = {
    "fal": Adapter(fal_run, "fal_server", "fal queue", "IN_PROGRESS", (("429", 0.1),)),
    "replicate": Adapter(replicate_run, "replicate_server", "Replicate prediction",
                         "processing", (("429", 0.1), "500")),
    "vertex": Adapter(vertex_run, "vertex_server", "Vertex AI"),
    "fashn": Adapter(fashn_run, "fashn_server", "FASHN API", "processing"),
}


def adapters(*names: str) -> Any:
    return pytest.mark.parametrize("adapter", [ADAPTERS[n] for n in names], ids=names)


@adapters("fal", "replicate", "vertex", "fashn")
def test_a_refused_call_fails_in_the_providers_words(adapter: Adapter, progress: Progress,
                                                     request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    server.faults.append(("error", 422, "person image: could not load the image"))
    with pytest.raises(EngineError) as err:
        adapter.run(adapter.config(server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_error", "person image: could not load the image")


@adapters("fal", "replicate", "fashn")
def test_a_wrong_key(adapter: Adapter, progress: Progress,
                     request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    with pytest.raises(EngineError) as err:
        adapter.run(adapter.config(server, api_key="not-the-key"), "virtual_try_on", TRYON,
                    progress)
    assert (err.value.code, err.value.message) == ("provider_error", "Invalid API key.")


@adapters("fal", "replicate", "vertex")
def test_429_waits_retry_after(adapter: Adapter, progress: Progress,
                               request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    server.faults.append(("429", 0.3))
    if adapter.retried_faults:
        server.poll_faults.extend(adapter.retried_faults)
    started = time.monotonic()
    assert len(adapter.run(adapter.config(server), "virtual_try_on", TRYON, progress)) == 1
    assert time.monotonic() - started >= 0.3 + sum(
        f[1] for f in adapter.retried_faults if isinstance(f, tuple))
    assert len([c for c in server.calls if c.method == "POST"
                and not c.path.endswith("/token")]) == 2


@adapters("fal", "replicate")
def test_the_deadline_is_honoured(adapter: Adapter, progress: Progress,
                                  request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    server.statuses = [adapter.running]
    with pytest.raises(EngineError) as err:
        adapter.run(adapter.config(server, deadline=0.5), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_timeout", f"The {adapter.label} did not finish within 0.5 seconds.")


@adapters("fal", "replicate", "vertex")
def test_a_slow_answer_times_out(adapter: Adapter, progress: Progress,
                                 request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    server.faults.append("timeout")
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        adapter.run(adapter.config(server, timeout=0.4), "virtual_try_on", TRYON, progress)
    assert err.value.code == "provider_timeout"
    assert time.monotonic() - started < 1.5


@adapters("fal", "replicate")
def test_a_cancel_stops_polling(adapter: Adapter, request: pytest.FixtureRequest) -> None:
    server = request.getfixturevalue(adapter.server)
    server.statuses = [adapter.running]
    with pytest.raises(Canceled):
        adapter.run(adapter.config(server), "virtual_try_on", TRYON, Progress(stop_after=6))
