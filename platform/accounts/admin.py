from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from accounts.models import ApiToken, Organization, User


@admin.register(Organization)
class OrganizationAdmin(admin.ModelAdmin):
    list_display = ["name", "created_at"]
    search_fields = ["name"]


@admin.register(User)
class PartnerUserAdmin(UserAdmin):
    list_display = ["email", "organization", "is_org_admin", "is_staff", "is_active",
                    "last_login"]
    list_filter = ["organization", "is_org_admin", "is_staff", "is_active"]
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Partner", {"fields": ("organization", "is_org_admin", "oidc_sub")}),
    )


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["prefix", "user", "name", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["prefix", "digest", "created_at", "last_used_at"]
    list_filter = ["revoked_at"]
