"""Request throttles that fail open: a missing cache must not turn requests into 500s."""

from __future__ import annotations

import logging
from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle

logger = logging.getLogger(__name__)


class PartnerRateThrottle(UserRateThrottle):
    """Requests per signed-in user (per address for anonymous callers)."""

    scope = "partner"

    def allow_request(self, request: Request, view: Any) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # noqa: BLE001 - the cache (Redis) is down: let it through
            logger.warning("throttle unavailable: %s", exc)
            return True
