"""Outbound calls to partners' endpoints, with the same address checks as image fetches:
no loopback, private, link-local, CGNAT or metadata addresses unless a setting exempts the
host or network (OUTBOUND_ALLOW). The check is made again when the connection is made
(requests-hardened), so a name that resolves differently later cannot slip through."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests_hardened import Config, HTTPSession

from workers.engines.base import EngineError
from workers.fetch import Allow, resolve_checked


class DestinationRefused(ValueError):
    pass


def destination_check(url: str) -> bool:
    """Refuse a URL that is not http(s) or whose host resolves to a non-public address (the
    same rules as image fetches). Returns whether the host is exempted (then the connection
    is not filtered again)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DestinationRefused("Webhook URLs must be http or https URLs with a host.")
    allow = Allow.parse(settings.OUTBOUND_ALLOW)
    try:
        first = resolve_checked(parts.hostname,
                                parts.port or (443 if parts.scheme == "https" else 80), allow)
    except EngineError as exc:
        if exc.code == "fetch_refused":
            raise DestinationRefused(
                f"The host {parts.hostname} points at a private, loopback or link-local "
                "address.") from exc
        raise DestinationRefused(exc.message) from exc
    return allow.host(parts.hostname) or allow.address(ipaddress.ip_address(first.strip("[]")))


def new_destination_check(url: str) -> None:
    """What a URL must be to be registered or named on a submit: a destination_check'd one,
    and https unless WEBHOOK_HTTPS_ONLY is off or OUTBOUND_ALLOW exempts its host (a receiver
    inside the network): signed bodies and signed output links do not travel in clear."""
    exempt = destination_check(url)
    if urlsplit(url).scheme != "https" and settings.WEBHOOK_HTTPS_ONLY and not exempt:
        raise DestinationRefused("Webhook URLs must be https URLs.")


@dataclass(frozen=True)
class Answer:
    status: int
    elapsed_ms: int


def post_json(url: str, body: bytes, headers: dict[str, str], *, timeout: float) -> Answer:
    """POST once, no redirects followed, no proxies from the environment."""
    exempt = destination_check(url)
    config = Config(ip_filter_enable=not exempt, ip_filter_allow_loopback_ips=False,
                    never_redirect=True, default_timeout=(timeout, timeout),
                    user_agent_override="Atelier-Webhooks/1.0")
    with HTTPSession(config) as session:
        session.trust_env = False
        resp = session.post(url, data=body, headers=headers, timeout=(timeout, timeout),
                            allow_redirects=False)
        return Answer(status=resp.status_code, elapsed_ms=int(resp.elapsed.total_seconds() * 1000))


__all__ = ["Answer", "DestinationRefused", "destination_check", "new_destination_check",
           "post_json", "requests"]
