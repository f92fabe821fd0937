from __future__ import annotations

from typing import Any

from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from accounts.permissions import IsPartner


class IsOrgAdmin(BasePermission):
    """An admin of a partner organisation (User.is_org_admin); staff always pass."""

    message = "Only your organisation's admins may do this."

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if not (user and user.is_authenticated and getattr(user, "organization_id", None)):
            return False  # (accounts belong to an organisation: staff need one too)
        return bool(user.is_staff or getattr(user, "is_org_admin", False))


class ReadPartnerWriteOrgAdmin(BasePermission):
    """Any partner of the organisation reads; only its admins (and staff) write."""

    message = IsOrgAdmin.message

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return IsPartner().has_permission(request, view)
        return IsOrgAdmin().has_permission(request, view)
