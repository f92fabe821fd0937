"""Sign-in through an OpenID Connect provider (mozilla-django-oidc), made strict.

mozilla-django-oidc 5 checks only the ID token's signature and nonce, needs a `kid` in the
token, and lets an expired token surface as a 500. This backend verifies the token itself
(signature from the provider's JWKS, issuer, audience, expiry and issued-at with leeway,
nonce), matches users on the provider's `sub` (the e-mail is only a display value) and
places them in their organisation, refusing anyone who has none with a clear page.
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
import requests
from django.conf import settings
from django.core.cache import cache
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


def provider_signing_key(header: dict[str, Any]) -> jwt.PyJWK:
    """The provider's key for a token: by its kid, or the only key there is when the token
    names none. The key set is cached and fetched again once when a kid is unknown."""
    for refresh in (False, True):
        keys = _jwks(refresh=refresh)
        kid = header.get("kid")
        usable = [k for k in keys if k.get("use", "sig") == "sig"
                  and k.get("alg", header.get("alg")) == header.get("alg")]
        if kid is not None:
            usable = [k for k in usable if k.get("kid") == kid]
        if len(usable) == 1:
            return jwt.PyJWK(usable[0])
        if kid is None and usable:
            break  # several keys and no kid: ambiguous
    raise SignInRefused("invalid", "No signing key of the provider matches the ID token.")


def _jwks(*, refresh: bool) -> list[dict[str, Any]]:
    key = f"oidc-jwks:{settings.OIDC_OP_JWKS_ENDPOINT}"
    if not refresh:
        try:
            cached = cache.get(key)
        except Exception:  # noqa: BLE001 - no cache: fetch
            cached = None
        if cached is not None:
            return list(cached)
    resp = requests.get(settings.OIDC_OP_JWKS_ENDPOINT, timeout=settings.OIDC_TIMEOUT)
    resp.raise_for_status()
    keys = resp.json().get("keys", [])
    try:
        cache.set(key, keys, timeout=600)
    except Exception as exc:  # noqa: BLE001 - caching is an optimisation
        logger.debug("JWKS cache unavailable: %s", exc)
    return list(keys)


def id_token_verify(token: str, *, nonce: str | None) -> dict[str, Any]:
    """Signature (RS256, the provider's JWKS), issuer, audience, authorised party, expiry,
    issued-at (with leeway), subject and nonce of an ID token."""
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError as exc:
        raise SignInRefused("invalid", "The ID token is not a JWT.") from exc
    if header.get("alg") != settings.OIDC_RP_SIGN_ALGO:
        raise SignInRefused("invalid", "The ID token is signed with an unexpected algorithm.")
    audiences = settings.OIDC_AUDIENCES or [settings.OIDC_RP_CLIENT_ID]
    required = ["exp", "iat", "sub", "aud"] + (["iss"] if settings.OIDC_OP_ISSUER else [])
    try:
        payload: dict[str, Any] = jwt.decode(
            token, provider_signing_key(header), algorithms=[settings.OIDC_RP_SIGN_ALGO],
            audience=audiences, issuer=settings.OIDC_OP_ISSUER or None,
            leeway=settings.OIDC_LEEWAY_SECONDS, options={"require": required},
        )
    except jwt.ExpiredSignatureError as exc:
        raise SignInRefused("expired", "The ID token has expired.") from exc
    except jwt.ImmatureSignatureError as exc:
        raise SignInRefused("not_yet_valid", "The ID token is not valid yet.") from exc
    except jwt.InvalidAudienceError as exc:
        raise SignInRefused("audience", "The ID token was issued for another application.") \
            from exc
    except jwt.InvalidIssuerError as exc:
        raise SignInRefused("issuer", "The ID token was issued by another provider.") from exc
    except jwt.PyJWTError as exc:
        raise SignInRefused("invalid", f"The ID token is not valid: {exc}") from exc
    aud = payload["aud"]
    if isinstance(aud, list) and len(aud) > 1 and payload.get("azp") not in audiences:
        raise SignInRefused("audience", "The ID token was issued for another application.")
    if settings.OIDC_USE_NONCE and payload.get("nonce") != nonce:
        raise SignInRefused("invalid", "The ID token's nonce does not match this sign-in.")
    return payload


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
        payload = id_token_verify(token, nonce=kwargs.get("nonce"))
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
