"""Writes of provider accounts. Every check of what an account may hold lives here, so the API
and the admin refuse the same things with the same words."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from accounts.models import Organization
from studio.crypto import key_encrypt, key_rotate
from studio.kinds import ProviderKind, default_base_url, kind_serves, kind_tools
from studio.models import ProviderAccount
from workers.engines.base import EngineError
from workers.fetch import Allow, address_refused, resolve_checked

MAX_KEY_CHARS = 20_000  # a service account's JSON key is a few kB
MAX_MODEL_CHARS = 200


class AccountInvalid(ValueError):
    """What a client sent for an account cannot work: {field: [messages]}."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__(next(iter(fields.values()))[0])
        self.fields = fields


def _invalid(field: str, message: str) -> AccountInvalid:
    return AccountInvalid({field: [message]})


def key_last4(kind: str, key: str) -> str:
    """What identifies a key to people: its last 4 characters (a service account's JSON: of
    its private key id, since the JSON ends the same for every account)."""
    if kind == ProviderKind.VERTEX:
        try:
            data = json.loads(key)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("private_key_id"), str):
            return data["private_key_id"][-4:]
    return key[-4:]


def api_key_check(kind: str, key: str) -> str:
    key = key.strip()
    if not key:
        raise _invalid("api_key", "The API key is empty.")
    if len(key) > MAX_KEY_CHARS:
        raise _invalid("api_key", f"The API key is longer than {MAX_KEY_CHARS} characters.")
    if kind == ProviderKind.VERTEX:
        try:
            data = json.loads(key)
        except ValueError:
            data = None
        if not (isinstance(data, dict) and data.get("type") == "service_account"
                and data.get("client_email") and data.get("private_key")):
            raise _invalid("api_key", "For Vertex AI, paste the service account's JSON key "
                                      "(type service_account, with client_email and "
                                      "private_key).")
    elif any(c.isspace() for c in key) or not key.isprintable():
        raise _invalid("api_key", "The API key holds spaces or control characters.")
    return key


def base_url_check(url: str) -> str:
    """An http(s) API root whose host is public (or exempted by OUTBOUND_ALLOW): the workers
    and the connection test send the organisation's key there, so it must not point inside
    our network. A host that does not resolve now is taken (the test says so)."""
    url = url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _invalid("base_url", "The base URL is not a valid URL.") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _invalid("base_url", "The base URL must be an http or https URL with a host.")
    if parts.username or parts.password:
        raise _invalid("base_url", "The base URL must not hold credentials: use the API key.")
    if parts.query or parts.fragment:
        raise _invalid("base_url", "The base URL must not have a query or a fragment.")
    allow = Allow.parse(settings.OUTBOUND_ALLOW)
    host = parts.hostname
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        if address_refused(literal) and not allow.address(literal):
            raise _invalid("base_url", "The base URL points at a private, loopback or "
                                       "link-local address.")
        return url
    try:
        resolve_checked(host, port or (443 if parts.scheme == "https" else 80), allow)
    except EngineError as exc:
        if exc.code == "fetch_refused":
            raise _invalid("base_url", f"The host {host} points at a private, loopback or "
                                       "link-local address.") from exc
    return url


def tools_check(kind: str, tools: Sequence[str]) -> list[str]:
    known = set(kind_tools(kind))
    unknown = [t for t in tools if t not in known]
    if unknown:
        raise _invalid("tools", _not_served(kind, unknown[0]))
    return list(dict.fromkeys(tools))


def models_check(kind: str, models: Mapping[str, str]) -> dict[str, str]:
    cleaned: dict[str, str] = {}
    for slug, model in models.items():
        if not kind_serves(kind, slug):
            raise _invalid("models", _not_served(kind, slug))
        model = model.strip()
        if not model or len(model) > MAX_MODEL_CHARS or not model.isprintable():
            raise _invalid("models", f"The model for {slug} must be 1 to {MAX_MODEL_CHARS} "
                                     "printable characters.")
        cleaned[slug] = model
    return cleaned


def _not_served(kind: str, slug: str) -> str:
    label = ProviderKind(kind).label
    served = ", ".join(kind_tools(kind)) or "none"
    return f"{label} accounts cannot run the tool {slug!r} (they run: {served})."


@transaction.atomic
def provider_account_create(*, org: Organization, kind: str, api_key: str, label: str = "",
                            base_url: str = "", models: Mapping[str, str] | None = None,
                            fallback_local: bool = False,
                            tools: Sequence[str] = ()) -> ProviderAccount:
    if kind not in ProviderKind.values:
        raise _invalid("kind", f"Unknown provider kind {kind!r}.")
    key = api_key_check(kind, api_key)
    account = ProviderAccount(
        organization=org, kind=kind, label=label.strip(),
        base_url=base_url_check(base_url or default_base_url(kind)),
        models=models_check(kind, models or {}), fallback_local=fallback_local,
        tools=tools_check(kind, tools), api_key_encrypted=key_encrypt(key),
        key_last4=key_last4(kind, key))
    account.save()
    return account


@transaction.atomic
def provider_account_update(*, account: ProviderAccount, **changes: Any) -> ProviderAccount:
    """Change what was sent; `api_key` replaces the key, `base_url: ""` restores the kind's
    default. The kind of an account is fixed: a new kind is a new account."""
    account = ProviderAccount.objects.select_for_update().get(pk=account.pk)
    kind = account.kind
    if "api_key" in changes:
        key = api_key_check(kind, changes.pop("api_key"))
        account.api_key_encrypted = key_encrypt(key)
        account.key_last4 = key_last4(kind, key)
    if "label" in changes:
        account.label = changes.pop("label").strip()
    if "base_url" in changes:
        account.base_url = base_url_check(changes.pop("base_url") or default_base_url(kind))
    if "models" in changes:
        account.models = models_check(kind, changes.pop("models"))
    if "tools" in changes:
        account.tools = tools_check(kind, changes.pop("tools"))
    if "fallback_local" in changes:
        account.fallback_local = bool(changes.pop("fallback_local"))
    if changes:
        raise _invalid(next(iter(changes)), "This field cannot be changed.")
    account.save()
    return account


def provider_account_delete(*, account: ProviderAccount) -> None:
    account.delete()


def provider_keys_reencrypt() -> int:
    """Encrypt every stored key with the current (first) secret, after a rotation."""
    done = 0
    for account in ProviderAccount.objects.only("pk", "api_key_encrypted").iterator():
        ProviderAccount.objects.filter(pk=account.pk).update(
            api_key_encrypted=key_rotate(account.api_key_encrypted))
        done += 1
    return done
