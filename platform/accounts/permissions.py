from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request


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
