from __future__ import annotations

from typing import Any

from django.db.models import Q
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts.models import ApiToken
from accounts.services import TOKEN_PREFIX, api_token_touch, token_digest


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
        token = (
            ApiToken.objects.select_related("user", "user__organization")
            .filter(Q(digest=token_digest(raw)), revoked_at__isnull=True)
            .first()
        )
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        api_token_touch(token=token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
