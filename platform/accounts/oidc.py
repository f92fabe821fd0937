"""Sign-in through an OpenID Connect provider (mozilla-django-oidc), made strict.

mozilla-django-oidc checks the ID token's signature and nonce; this backend adds the
issuer, audience, expiry and issued-at checks (with leeway), matches users on the provider's
`sub` (the e-mail is only a display value) and places them in their organisation, refusing
anyone who has none.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import requests
from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.db.models import QuerySet
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.models import Organization, User

logger = logging.getLogger(__name__)

# Why the last sign-in was refused, for the page that tells the person (session key).
REFUSAL_SESSION_KEY = "atelier_signin_refused"


class SignInRefused(SuspiciousOperation):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def signin_refused(request: Any, reason: str) -> None:
    logger.warning("sign-in refused: %s", reason)
    request.session[REFUSAL_SESSION_KEY] = reason


def oidc_enabled() -> bool:
    return bool(settings.OIDC_RP_CLIENT_ID and settings.OIDC_OP_AUTHORIZATION_ENDPOINT)


def id_token_claims_check(payload: dict[str, Any], *, now: float | None = None) -> None:
    """Issuer, audience, authorised party, expiry and issued-at of a verified ID token."""
    now = time.time() if now is None else now
    leeway = settings.OIDC_LEEWAY_SECONDS
    if settings.OIDC_OP_ISSUER and payload.get("iss") != settings.OIDC_OP_ISSUER:
        raise SignInRefused("issuer", "The ID token was issued by another provider.")
    audiences = payload.get("aud")
    audiences = [audiences] if isinstance(audiences, str) else list(audiences or [])
    expected = settings.OIDC_AUDIENCES or [settings.OIDC_RP_CLIENT_ID]
    if not set(audiences) & set(expected):
        raise SignInRefused("audience", "The ID token was issued for another application.")
    if len(audiences) > 1 and payload.get("azp") not in expected:
        raise SignInRefused("audience", "The ID token was issued for another application.")
    exp = payload.get("exp")
    if not isinstance(exp, int | float) or exp + leeway < now:
        raise SignInRefused("expired", "The ID token has expired.")
    iat = payload.get("iat")
    if isinstance(iat, int | float) and iat - leeway > now:
        raise SignInRefused("not_yet_valid", "The ID token was issued in the future.")
    if not payload.get("sub"):
        raise SignInRefused("claims", "The ID token names no subject.")


def organization_for_claims(claims: dict[str, Any]) -> Organization | None:
    """The organisation named by the configured claim, else the one that registered the
    e-mail's domain."""
    named = claims.get(settings.OIDC_ORGANIZATION_CLAIM)
    if isinstance(named, str) and named.strip():
        org = Organization.objects.filter(name__iexact=named.strip()).first()
        if org is not None:
            return org
    email = claims.get("email")
    if isinstance(email, str) and "@" in email:
        domain = email.rsplit("@", 1)[1].lower()
        for org in Organization.objects.exclude(email_domains=[]):
            if domain in [d.lower() for d in org.email_domains]:
                return org
    return None


class PartnerOIDCBackend(OIDCAuthenticationBackend):
    """Only active when a provider is configured; the sign-in form uses ModelBackend."""

    def authenticate(self, request: Any, **kwargs: Any) -> User | None:
        if not oidc_enabled() or request is None or "code" not in request.GET:
            return None
        try:
            return super().authenticate(request, **kwargs)
        except SuspiciousOperation as exc:  # nonce, signature, claims
            reason = exc.reason if isinstance(exc, SignInRefused) else "invalid"
        except requests.HTTPError as exc:  # the provider refused the code
            logger.warning("OIDC provider answered %s", exc)
            reason = "provider"
        except requests.RequestException as exc:
            logger.warning("OIDC provider unreachable: %s", exc)
            reason = "unavailable"
        signin_refused(request, reason)
        return None

    def verify_token(self, token: str, **kwargs: Any) -> dict[str, Any]:
        payload: dict[str, Any] = super().verify_token(token, **kwargs)  # signature, nonce
        id_token_claims_check(payload)
        self._id_token_sub = payload["sub"]
        return payload

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        # mozilla-django-oidc swallows what this raises, so the reason is noted first.
        expected = getattr(self, "_id_token_sub", None)
        if expected is not None and claims.get("sub") != expected:
            signin_refused(self.request, "claims")  # userinfo names another person
            return False
        if organization_for_claims(claims) is None:
            signin_refused(self.request, "no_organization")
            return False
        return bool(claims.get("sub"))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> QuerySet[User]:
        return User.objects.filter(oidc_sub=claims["sub"])

    def create_user(self, claims: dict[str, Any]) -> User:
        return user_from_claims(claims)

    def update_user(self, user: User, claims: dict[str, Any]) -> User:
        return user_from_claims(claims, user=user)


def user_from_claims(claims: dict[str, Any], user: User | None = None) -> User:
    """Create or refresh the partner the provider's claims describe."""
    org = organization_for_claims(claims)
    if org is None:
        raise SignInRefused("no_organization",
                            "Your account does not belong to a partner organisation.")
    sub = str(claims["sub"])
    email = str(claims.get("email") or f"{sub}@users.invalid").lower()
    if user is None:
        user = User.objects.filter(oidc_sub=sub).first()
    if user is None:
        # The e-mail is a display value; keep it unique by falling back to the subject.
        if User.objects.filter(email=email).exists():
            email = f"{sub}@users.invalid"
        user = User(oidc_sub=sub, username=f"oidc:{sub}"[:150], email=email)
        user.set_unusable_password()
    elif user.email != email and not User.objects.filter(email=email).exclude(pk=user.pk).exists():
        user.email = email
    user.organization = org
    user.save()
    return user
