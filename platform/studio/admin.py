from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from studio.crypto import key_encrypt
from studio.kinds import ProviderKind, default_base_url
from studio.models import ProviderAccount
from studio.services import (
    AccountInvalid,
    api_key_check,
    base_url_check,
    key_last4,
    models_check,
    tools_check,
)


class ProviderAccountForm(forms.ModelForm):
    # Write-only: never rendered back; left empty on a change, the stored key stays.
    api_key = forms.CharField(
        required=False, strip=True, widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again. Leave empty to keep the current key. "
                  "For Vertex AI, the service account's JSON key.")
    base_url = forms.CharField(required=False, max_length=500,
                               help_text="Empty for the provider's own API root.")

    class Meta:
        model = ProviderAccount
        fields = ["organization", "kind", "label", "api_key", "base_url", "models", "tools",
                  "fallback_local"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        adding = self.instance._state.adding  # (the UUID pk is set before the first save)
        kind = data.get("kind") or (None if adding else self.instance.kind)
        if kind not in ProviderKind.values:
            return data
        if not adding and kind != self.instance.kind:
            self.add_error("kind", "The kind of an account is fixed: add a new account.")
            return data
        checks = [
            ("base_url", lambda v: base_url_check(v or default_base_url(kind))),
            ("models", lambda v: models_check(kind, _mapping(v))),
            ("tools", lambda v: tools_check(kind, _slugs(v))),
        ]
        if data.get("api_key") or adding:
            checks.append(("api_key", lambda v: api_key_check(kind, v or "")))
        for name, check in checks:
            try:
                data[name] = check(data.get(name))
            except AccountInvalid as exc:
                for field, messages in exc.fields.items():
                    self.add_error(field if field in self.fields else None, messages)
            except ValidationError as exc:
                self.add_error(name, exc)
        return data


def _mapping(value: Any) -> dict[str, str]:
    if value in (None, ""):
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ValidationError("An object of tool slug → model id.")
    return value


def _slugs(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError("A list of tool slugs.")
    return value


@admin.register(ProviderAccount)
class ProviderAccountAdmin(admin.ModelAdmin):
    form = ProviderAccountForm
    list_display = ["organization", "kind", "label", "key_display", "base_url", "fallback_local",
                    "updated_at"]
    list_filter = ["kind", "organization"]
    search_fields = ["label", "organization__name"]
    readonly_fields = ["key_display", "created_at", "updated_at"]

    @admin.display(description="key")
    def key_display(self, obj: ProviderAccount) -> str:
        return f"•••• {obj.key_last4}" if obj.key_last4 else "—"

    def save_model(self, request: HttpRequest, obj: ProviderAccount, form: Any,
                   change: bool) -> None:
        key = form.cleaned_data.get("api_key")
        if key:
            obj.api_key_encrypted = key_encrypt(key)
            obj.key_last4 = key_last4(obj.kind, key)
        super().save_model(request, obj, form, change)
