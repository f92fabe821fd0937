"""The deploy checks read files and run offline tools: they need no Redis, database or worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def redis_server() -> Iterator[None]:
    # Overrides tests/conftest.py's session Redis, which these checks do not use.
    yield None
