"""Outbound calls to partners' endpoints, with the same address checks as image fetches:
no loopback, private, link-local, CGNAT or metadata addresses unless a setting exempts the
host or network (OUTBOUND_ALLOW). The check is made again when the connection is made
(requests-hardened), so a name that resolves differently later cannot slip through."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from requests_hardened import Config, HTTPSession


class DestinationRefused(ValueError):
    pass


def _exempt(host: str, addresses: list[ipaddress.IPv4Address | ipaddress.IPv6Address]) -> bool:
    for entry in settings.OUTBOUND_ALLOW:
        if entry.lower() == host.lower():
            return True
        try:
            network = ipaddress.ip_network(entry, strict=False)
        except ValueError:
            continue
        if addresses and all(a in network for a in addresses):
            return True
    return False


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def destination_check(url: str) -> bool:
    """Refuse a URL that is not http(s) or whose host resolves to a non-public address.
    Returns whether the host is exempted (then the connection is not filtered again)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DestinationRefused("Webhook URLs must be http or https URLs with a host.")
    host = parts.hostname
    try:
        infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80),
                                   type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise DestinationRefused(f"The host {host} cannot be resolved.") from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if _exempt(host, addresses):
        return True
    if not addresses or not all(_public(a) for a in addresses):
        raise DestinationRefused(
            f"The host {host} points at a private, loopback or link-local address.")
    return False


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


__all__ = ["Answer", "DestinationRefused", "destination_check", "post_json", "requests"]
