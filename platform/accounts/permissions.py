from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotAuthenticated
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import Organization, User


class IsPartner(BasePermission):
    """Signed in and belonging to an organisation (staff without one may read their own)."""

    message = "Your account does not belong to a partner organisation."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return bool(getattr(user, "organization_id", None))


class IsStaff(BasePermission):
    message = "Only Atelier staff may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff)


def request_partner(request: Request) -> User:
    """The signed-in partner of a request that IsPartner has let through."""
    user = request.user
    if not isinstance(user, User) or user.organization is None:
        raise NotAuthenticated()
    return user


def request_org(request: Request) -> Organization:
    org = request_partner(request).organization
    assert org is not None
    return org
