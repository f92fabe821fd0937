"""Request throttles: one atomic counter per caller and window, failing open.

DRF's own throttle reads a history list from the cache and writes it back: concurrent requests
all read the same history, so 8 clients got 1,500 requests through a 1,200/min limit. Here
each request is one INCR of a Redis counter per fixed window (a Lua script sets its expiry
with the first hit), so the count is exact however many processes serve the caller.
A missing Redis must not turn requests into 500s: the throttle then lets them through.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from functools import cache as memoize
from typing import Any

import redis
from django.conf import settings
from django.core.cache import cache
from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle

logger = logging.getLogger(__name__)

# INCR, and on the window's first hit its expiry: one round trip, atomic in Redis.
_HIT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


@dataclass(frozen=True)
class RateLimit:
    """What the RateLimit-* headers of a response say."""

    limit: int
    remaining: int
    reset: int  # seconds until the window ends


@memoize
def _redis() -> redis.Redis:
    location = settings.CACHES["default"]["LOCATION"]
    return redis.Redis.from_url(location, socket_connect_timeout=2, socket_timeout=2)


@memoize
def _hit() -> Any:
    """The script by its digest (EVALSHA, loaded again should Redis have lost it): EVAL sent
    its text with every request, and Redis hashed it again each time."""
    return _redis().register_script(_HIT)


class PartnerRateThrottle(UserRateThrottle):
    """Requests per signed-in user (per address for anonymous callers), per fixed window."""

    scope = "partner"
    # set by SimpleRateThrottle from the rate (the stubs do not declare them)
    num_requests: int
    duration: int
    _reset: int = 0

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        now = time.time()
        window = int(now // self.duration)
        self._reset = max(1, math.ceil((window + 1) * self.duration - now))
        try:
            hits = int(_hit()(keys=[cache.make_key(f"{key}:{window}")],
                              args=[int(self.duration) + 1]))
        except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: let it through
            logger.warning("throttle unavailable: %s", exc)
            return True
        limit = RateLimit(limit=self.num_requests, remaining=max(0, self.num_requests - hits),
                          reset=self._reset)
        # read by RateLimitHeadersMiddleware, which sees the Django request, not DRF's
        request._request.ratelimit = limit  # type: ignore[attr-defined]
        return hits <= self.num_requests

    def wait(self) -> float | None:
        return float(self._reset or self.duration)
