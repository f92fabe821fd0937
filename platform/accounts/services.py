from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import ApiToken, Organization, User

TOKEN_PREFIX = "atl_"  # noqa: S105 - a marker, not a secret
# last_used_at is written at most this often per token, not on every request.
LAST_USED_RESOLUTION = timedelta(seconds=60)


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def api_token_create(*, user: User, name: str = "") -> tuple[ApiToken, str]:
    """Create a token; the raw value is returned once and never stored."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name, prefix=raw[: len(TOKEN_PREFIX) + 6], digest=token_digest(raw)
    )
    return token, raw


def api_token_revoke(*, token: ApiToken) -> None:
    ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=timezone.now())


def api_token_touch(*, token: ApiToken) -> None:
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)


@transaction.atomic
def partner_create(
    *, email: str, org_name: str, password: str | None = None, staff: bool = False
) -> tuple[User, bool]:
    """Create the organisation and the partner if missing. Returns (user, created)."""
    org, _ = Organization.objects.get_or_create(name=org_name)
    email = email.strip().lower()
    user = User.objects.filter(email=email).first()
    created = user is None
    if user is None:
        user = User(username=email, email=email, organization=org)
    elif user.organization_id is None:
        user.organization = org
    if staff:
        # Atelier's own ops: the whole admin (jobs, organisations, drive folders, models).
        user.is_staff = user.is_superuser = True
    if password:
        user.set_password(password)
    elif created:
        user.set_unusable_password()
    user.save()
    return user, created
