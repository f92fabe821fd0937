"""Provider adapter tests: the adapters against loopback servers that speak their protocols
(tests/providers/servers.py; the OpenAI-compatible one in tests/support/fake_providers.py).

No Django database and no broker for the adapters, which are plain worker code; except
test_worker_runs.py, which runs each adapter from a real Celery worker."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.providers.servers import FakeVertex, fake_fal, fake_fashn, fake_replicate, fake_vertex
from tests.support.fake_providers import fake_openai, jpeg, png
from workers.providers.config import ProviderConfig

# A try-on job's two images, small enough for every adapter's tests.
MODEL = jpeg((180, 150, 130), (60, 90))
GARMENT = png((20, 40, 200), (50, 50))
TRYON = {"model": MODEL, "garment": GARMENT}


@pytest.fixture(scope="session", autouse=True)
def redis_server() -> Iterator[None]:
    # Overrides the suite-wide Redis fixture: provider adapters never touch a broker.
    yield None


@dataclass
class Progress:
    """A progress callback that records what it is told; stops the job when asked to."""

    calls: list[tuple[float, str | None]] = field(default_factory=list)
    stop_after: int | None = None

    def __call__(self, percent: float, message: str | None = None) -> None:
        self.calls.append((float(percent), message))
        if self.stop_after is not None and len(self.calls) > self.stop_after:
            raise Canceled("the job was canceled")

    @property
    def values(self) -> list[float]:
        return [p for p, _ in self.calls]

    @property
    def messages(self) -> list[str]:
        return [m for _, m in self.calls if m]


class Canceled(Exception):
    pass


@pytest.fixture
def progress() -> Progress:
    return Progress()


def _server_fixture(start: Callable[[], Any]) -> Any:
    """A fixture serving one loopback provider server for the test."""

    @pytest.fixture
    def server() -> Iterator[Any]:
        with start() as running:
            yield running

    return server


openai_server = _server_fixture(fake_openai)
fashn_server = _server_fixture(fake_fashn)
fal_server = _server_fixture(fake_fal)
replicate_server = _server_fixture(fake_replicate)
vertex_server = _server_fixture(fake_vertex)


def adapter_config(provider: str, server: Any, **kwargs: Any) -> ProviderConfig:
    """An account of ``provider`` on a loopback server, with waits short enough for tests."""
    values: dict[str, Any] = {"provider": provider, "base_url": server.url,
                              "api_key": server.api_key, "poll_interval": 0.02,
                              "backoff": 0.01, "timeout": 5.0, "deadline": 10.0,
                              "fetch_allow": ("127.0.0.1",)}
    values.update(kwargs)
    return ProviderConfig(**values)


def vertex_config(server: FakeVertex, **kwargs: Any) -> ProviderConfig:
    """A Vertex AI account on a loopback server: its service account's key, its location."""
    values: dict[str, Any] = {"provider": "vertex", "base_url": server.url,
                              "api_key": json.dumps(server.service_account()),
                              "location": server.location, "backoff": 0.01, "timeout": 5.0,
                              "deadline": 10.0}
    values.update(kwargs)
    return ProviderConfig(**values)


def noop(*_args: Any, **_kwargs: Any) -> None:
    pass
