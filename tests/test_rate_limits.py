"""The partner rate limit: exact under concurrency, and told to the client on every answer."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.settings import api_settings
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from accounts.services import api_token_create

LIMIT = 120


@pytest.fixture
def limited(settings: Any) -> Any:
    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"partner": f"{LIMIT}/hour"}}
    api_settings.reload()
    SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    yield
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"partner": "1200/min"}}
    api_settings.reload()
    SimpleRateThrottle.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
    cache.clear()


def test_every_answer_says_where_the_caller_stands(api: APIClient, limited: Any) -> None:
    first = api.get("/api/jobs/")
    assert first["RateLimit-Limit"] == str(LIMIT)
    assert first["RateLimit-Remaining"] == str(LIMIT - 1)
    assert 0 < int(first["RateLimit-Reset"]) <= 3600
    assert api.get("/api/jobs/")["RateLimit-Remaining"] == str(LIMIT - 2)


@pytest.mark.django_db(transaction=True)
def test_sixteen_concurrent_clients_get_no_more_than_the_limit(partner: Any,
                                                               limited: Any) -> None:
    # one partner, 16 clients at once (each thread its own connection), twice the limit sent
    _, raw = api_token_create(user=partner, name="load")

    def burst(_: int) -> list[tuple[int, str | None]]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        answers = []
        for _ in range(2 * LIMIT // 16):
            resp = client.get("/api/jobs/", {"limit": "1"})
            answers.append((resp.status_code, resp.get("Retry-After")))
        return answers

    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = [a for batch in pool.map(burst, range(16)) for a in batch]
    codes = Counter(code for code, _ in answers)
    print(f"\n16 concurrent clients, limit {LIMIT}: {codes[200]} allowed "
          f"({codes[200] / LIMIT:.2f}x the limit), {codes[429]} refused")
    assert set(codes) <= {200, 429}
    assert LIMIT * 0.95 <= codes[200] <= LIMIT * 1.05
    assert all(int(after) > 0 for code, after in answers if code == 429 and after)
    assert all(after for code, after in answers if code == 429)
