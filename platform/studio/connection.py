"""'Test connection': one cheap authenticated call to the provider with the stored key.

When the adapters (workers.providers.select) offer ``connection_check(config) -> (ok,
message)``, it is used: it speaks the provider's own protocol through its client. Otherwise an
authenticated GET below the base URL: a refused key (401/403) or a server error is a failure,
any other answer says the provider is reached and the key was not refused.
Addresses are checked as for webhooks: no private or loopback address unless OUTBOUND_ALLOW
exempts it, checked again when connecting.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests_hardened import Config, HTTPSession

from studio.kinds import KIND_INFO, ProviderKind
from studio.models import ProviderAccount
from studio.routing import account_config
from workers.engines.base import EngineError
from workers.fetch import Allow, resolve_checked
from workers.providers.config import ProviderConfig

TIMEOUT_SECONDS = 10.0


@dataclass(frozen=True)
class ConnectionAnswer:
    ok: bool
    message: str


def connection_test(*, account: ProviderAccount) -> ConnectionAnswer:
    try:
        config = account_config(account, tool_slug="")
    except EngineError:
        return ConnectionAnswer(False, "The stored key cannot be read; enter it again.")
    key = config.api_key
    try:
        from workers.providers.select import connection_check  # type: ignore[attr-defined]
    except ImportError:
        connection_check = None
    if connection_check is not None:
        try:
            ok, message = connection_check(config)
        except Exception as exc:  # noqa: BLE001  (an adapter's failure is the test's answer)
            return ConnectionAnswer(False, _scrub(str(exc) or type(exc).__name__, key))
        return ConnectionAnswer(bool(ok), _scrub(str(message), key))
    return _probe(account.kind, config, key)


def _scrub(message: str, key: str) -> str:
    message = message[:500]
    return message.replace(key, "••••") if key else message


def _authorization(kind: str, key: str) -> str:
    if kind == ProviderKind.VERTEX:
        return f"Bearer {_vertex_token(key)}"
    return f"{KIND_INFO[kind].auth_scheme} {key}"


def _vertex_token(key: str) -> str:
    """An access token for the service account (its token endpoint, address-checked)."""
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account

    info = json.loads(key)
    credentials = service_account.Credentials.from_service_account_info(
        info, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    with _session(str(info.get("token_uri") or "https://oauth2.googleapis.com/token")) as s:
        credentials.refresh(Request(session=s))
    return str(credentials.token)


def _session(url: str) -> HTTPSession:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EngineError("fetch_refused", "Not an http(s) URL.")
    allow = Allow.parse(settings.OUTBOUND_ALLOW)
    first = resolve_checked(parts.hostname,
                            parts.port or (443 if parts.scheme == "https" else 80), allow)
    exempt = allow.host(parts.hostname) or allow.address(ipaddress.ip_address(first.strip("[]")))
    session = HTTPSession(Config(ip_filter_enable=not exempt, ip_filter_allow_loopback_ips=False,
                                 never_redirect=True,
                                 default_timeout=(TIMEOUT_SECONDS, TIMEOUT_SECONDS),
                                 user_agent_override="Atelier/1.0"))
    session.trust_env = False
    return session


def _probe(kind: str, config: ProviderConfig, key: str) -> ConnectionAnswer:
    url = config.root + KIND_INFO[kind].probe_path
    host = urlsplit(url).hostname or url
    try:
        with _session(url) as session:
            resp = session.get(url, headers={"Authorization": _authorization(kind, key),
                                             "Accept": "application/json"},
                               timeout=(TIMEOUT_SECONDS, TIMEOUT_SECONDS),
                               allow_redirects=False)
            status = resp.status_code
    except EngineError as exc:
        if exc.code == "fetch_refused":
            return ConnectionAnswer(False, f"{host} points at a private or loopback address.")
        return ConnectionAnswer(False, _scrub(exc.message, key))
    except requests.Timeout:
        return ConnectionAnswer(False, f"{host} did not answer within "
                                       f"{TIMEOUT_SECONDS:.0f} seconds.")
    except Exception as exc:  # noqa: BLE001  (DNS, TLS, refused connection, bad service key)
        return ConnectionAnswer(False, _scrub(f"{host} could not be reached "
                                              f"({type(exc).__name__}).", key))
    if status in (401, 403):
        return ConnectionAnswer(False, f"{host} refused the key (HTTP {status}).")
    if status >= 500:
        return ConnectionAnswer(False, f"{host} answered HTTP {status}: try again later.")
    if status == 429:
        return ConnectionAnswer(True, f"{host} accepted the key but is rate limiting "
                                      "(HTTP 429).")
    return ConnectionAnswer(True, f"Connected to {host} (HTTP {status}).")
