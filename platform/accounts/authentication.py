from __future__ import annotations

import logging
from typing import Any

import requests
from django.conf import settings
from django.core.cache import cache
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.oidc import SignInRefused, oidc_enabled, user_from_claims
from accounts.services import TOKEN_PREFIX, api_token_touch, token_digest
from config.errors import ServiceUnavailable
from config.prepared import OneRow

logger = logging.getLogger(__name__)


# The token, its user and the user's organisation in one indexed query (the digest is unique),
# compiled once per process: every API call with a token makes it. Not cached: a revoked
# token or a deactivated user is refused by the very next request, on every process.
_TOKEN: OneRow[ApiToken] = OneRow(
    lambda digest: ApiToken.objects.select_related("user", "user__organization")
    .filter(digest=digest, revoked_at__isnull=True).order_by()[:1],
    digest=ApiToken._meta.get_field("digest"))


class ApiTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer atl_...` partner API tokens."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        parts = header.split()
        if not parts or parts[0].lower() != self.keyword.lower():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid Authorization header.")
        raw = parts[1]
        if not raw.startswith(TOKEN_PREFIX):
            return None  # not ours: another bearer scheme (OIDC access token) may take it
        token = _TOKEN.get(digest=token_digest(raw))
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        api_token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class ProviderTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <access token>` from the identity provider, checked at its
    userinfo endpoint (with a timeout) and cached briefly. A bad or expired token is 401;
    a provider that cannot be reached is 503, never a 500."""

    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Any, None] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        parts = header.split()
        if len(parts) != 2 or parts[0].lower() != self.keyword.lower():
            return None
        raw = parts[1]
        if raw.startswith(TOKEN_PREFIX):
            return None  # a partner API token: ApiTokenAuthentication's
        if not oidc_enabled():
            raise exceptions.AuthenticationFailed("Invalid token.")
        claims = provider_token_claims(raw)
        try:
            user = user_from_claims(claims)
        except SignInRefused as exc:
            raise exceptions.PermissionDenied(str(exc)) from exc
        return user, None

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


_INVALID = {"invalid": True}


def provider_token_claims(raw: str) -> dict[str, Any]:
    key = f"oidc-bearer:{token_digest(raw)}"
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - no cache: ask the provider every time
        cached = None
    if cached == _INVALID:
        raise exceptions.AuthenticationFailed("Invalid or expired token.")
    if cached is not None:
        return dict(cached)
    try:
        resp = requests.get(
            settings.OIDC_OP_USER_ENDPOINT, headers={"Authorization": f"Bearer {raw}"},
            timeout=settings.OIDC_TIMEOUT,
        )
    except requests.RequestException as exc:
        raise ServiceUnavailable("The identity provider is not answering. Try again shortly.") \
            from exc
    if resp.status_code in (400, 401, 403):
        _cache_set(key, _INVALID, 10)
        raise exceptions.AuthenticationFailed("Invalid or expired token.")
    if resp.status_code != 200:
        raise ServiceUnavailable("The identity provider is not answering. Try again shortly.")
    try:
        claims = resp.json()
    except ValueError as exc:
        raise ServiceUnavailable("The identity provider gave an unreadable answer.") from exc
    if not isinstance(claims, dict) or not claims.get("sub"):
        raise exceptions.AuthenticationFailed("Invalid or expired token.")
    _cache_set(key, claims, settings.OIDC_BEARER_CACHE_SECONDS)
    return claims


def _cache_set(key: str, value: Any, timeout: int) -> None:
    try:
        cache.set(key, value, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - caching is an optimisation
        logger.debug("bearer cache unavailable: %s", exc)
