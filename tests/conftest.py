from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import api_token_create
from tests.support.factories import UserFactory
from tests.support.processes import CeleryProcess, RedisServer, fresh_redis, start_worker

# The reliability suite's hooks and fixtures (tests/faults and tests/load), registered once.
pytest_plugins = ["tests.faults.reliability"]


@pytest.fixture(scope="session", autouse=True)
def redis_server() -> Iterator[RedisServer]:
    with fresh_redis(settings.TEST_REDIS_PORT) as server:
        yield server


@pytest.fixture(autouse=True)
def queue_figures_reset(redis_server: RedisServer) -> None:
    """Queue counters live in Redis, which outlives each test's database: start from none."""
    import redis

    from jobs.figures import figures_reset

    try:
        figures_reset()
    except redis.RedisError:
        pass  # a suite that stopped Redis: nothing to forget


def client_for(user: User) -> APIClient:
    _, raw = api_token_create(user=user, name="test")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def partner(db: Any) -> User:
    return UserFactory()


@pytest.fixture
def staff(db: Any) -> User:
    return UserFactory(is_staff=True, is_superuser=True)


@pytest.fixture
def api(partner: User) -> APIClient:
    return client_for(partner)


@pytest.fixture
def staff_api(staff: User) -> APIClient:
    return client_for(staff)


@pytest.fixture(scope="module")
def worker(django_db_setup: Any, django_db_blocker: Any) -> Iterator[CeleryProcess]:
    """A real Celery worker on every queue, against this run's test database."""
    proc = start_worker(concurrency=2)
    yield proc
    proc.stop()
