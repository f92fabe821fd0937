"""Which provider runs a tool for an organisation (DESIGN §12): the organisation's own account
for the tool, else the deployment default (ENGINE_PROVIDERS), else none (the local engine).

Read on every call, never cached across calls: a key that an admin replaced or an account
that was deleted stops being used with the next job.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from studio.crypto import KeyUnreadable, key_decrypt
from studio.kinds import ProviderKind, kind_serves
from studio.models import ProviderAccount
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig


def _served(tool_slug: str) -> bool:
    """Whether any provider kind can run the tool: a tool none can (Recolor, the diagnostics)
    has no account to look up, so its jobs cost no query here."""
    return any(kind_serves(kind, tool_slug) for kind in ProviderKind)


def account_for(*, org_id: Any, tool_slug: str) -> ProviderAccount | None:
    """The organisation's account for a tool: one that names the tool first, else one that
    serves every tool of its kind; the oldest of either (an organisation has a handful)."""
    if not _served(tool_slug):
        return None
    accounts = list(ProviderAccount.objects.filter(organization_id=org_id)
                    .order_by("created_at", "id"))
    named = [a for a in accounts if tool_slug in (a.tools or [])]
    if named:
        return named[0]
    return next((a for a in accounts if not a.tools and kind_serves(a.kind, tool_slug)), None)


def account_config(account: ProviderAccount, *, tool_slug: str) -> ProviderConfig:
    try:
        key = key_decrypt(account.api_key_encrypted)
    except KeyUnreadable as exc:
        raise EngineError("provider_key_unreadable",
                          f"The organisation's {account.get_kind_display()} key cannot be "
                          "read; an admin must enter it again in Settings.") from exc
    return ProviderConfig(
        provider=account.kind,
        base_url=account.base_url,
        api_key=key,
        model=str((account.models or {}).get(tool_slug) or ""),
        fallback_local=account.fallback_local,
        # Output URLs are fetched with the same exemptions as ENGINE_PROVIDERS' (settings).
        fetch_allow=tuple(settings.OUTBOUND_ALLOW),
    )


def provider_config_for(*, org_id: Any, tool_slug: str,
                        engine_name: str) -> ProviderConfig | None:
    """The provider configuration a job of this organisation and tool runs with, or None for
    the tool's local engine."""
    account = account_for(org_id=org_id, tool_slug=tool_slug) if org_id else None
    if account is not None:
        return account_config(account, tool_slug=tool_slug)
    default = settings.ENGINE_PROVIDERS.get(engine_name)
    if default is None or getattr(default, "provider", None) == "local":
        return None
    return default
