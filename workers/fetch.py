"""Fetching partners' image URLs from the worker without becoming a proxy into our network.

A URL is only a name: what matters is the address the socket connects to. So every address the
host resolves to is checked (refusing loopback, private, link-local including the cloud metadata
address, CGNAT, multicast, reserved, IPv6 local and unique-local, and IPv4 spelled inside IPv6),
and the connection goes to that checked address, never to a second lookup a rebinding DNS could
answer differently (the address pinning of requests-hardened's adapter, with our own policy).
Redirects are followed by hand so each hop is checked the same way. The environment's proxies
are ignored. The body is capped in bytes and the whole fetch in time: a server that drips one
byte per second never trips a per-read timeout, so the deadline is checked between reads and
bounds every read's socket timeout.

No Django here: the worker calls ``fetch_image``; allow-lists come from settings through it.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from requests.structures import CaseInsensitiveDict
from requests_hardened.ip_filter import EXTRA_BLOCKED_NET_RANGES

from workers.engines.base import EngineError

DEFAULT_MAX_BYTES = 25 * 1024 * 1024
DEFAULT_DEADLINE = 30.0
MAX_REDIRECTS = 5
USER_AGENT = "Atelier-ImageFetcher/1.0"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

_ALWAYS_BLOCKED: tuple[Network, ...] = (
    ipaddress.ip_network("169.254.0.0/16"),  # link-local, 169.254.169.254 metadata
    ipaddress.ip_network("100.64.0.0/10"),  # CGNAT
    ipaddress.ip_network("fc00::/7"),  # IPv6 unique local
    ipaddress.ip_network("fe80::/10"),  # IPv6 link local
    ipaddress.ip_network("fec0::/10"),  # IPv6 site local (deprecated, still routed inside)
    *EXTRA_BLOCKED_NET_RANGES,
)


@dataclass(frozen=True)
class Fetched:
    data: bytes
    content_type: str | None
    url: str  # the final URL after redirects


@dataclass(frozen=True)
class Allow:
    """Hosts and networks exempt from the address check (tests, private deployments)."""

    hosts: frozenset[str]
    networks: tuple[Network, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> Allow:
        hosts: set[str] = set()
        nets: list[Network] = []
        for entry in entries:
            entry = entry.strip()
            if not entry:
                continue
            try:
                nets.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(frozenset(hosts), tuple(nets))

    def host(self, hostname: str) -> bool:
        return hostname.lower().rstrip(".") in self.hosts

    def address(self, ip: IPAddress) -> bool:
        return any(ip.version == n.version and ip in n for n in self.networks)


def address_refused(ip: IPAddress) -> bool:
    """Whether an address is internal: never to be reached from a partner's URL."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return address_refused(ip.ipv4_mapped)
        if ip.sixtofour is not None and address_refused(ip.sixtofour):
            return True
        if ip.teredo is not None:
            return True
    if (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    ):
        return True
    return any(ip.version == n.version and ip in n for n in _ALWAYS_BLOCKED)


def resolve_checked(hostname: str, port: int, allow: Allow) -> str:
    """Resolve, check every address, return the one to connect to (as a URL host)."""
    try:
        infos = socket.getaddrinfo(hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise EngineError("fetch_failed", f"The host {hostname!r} could not be resolved.") from exc
    addresses: list[IPAddress] = []
    for family, _, _, _, sockaddr in infos:
        if family not in (socket.AF_INET, socket.AF_INET6):
            continue
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if ip not in addresses:
            addresses.append(ip)
    if not addresses:
        raise EngineError("fetch_failed", f"The host {hostname!r} has no address.")
    host_allowed = allow.host(hostname)
    for ip in addresses:
        # One internal address among public ones is enough to refuse: the resolver decides
        # which one a client picks, and an attacker controls the order.
        if address_refused(ip) and not (host_allowed or allow.address(ip)):
            raise EngineError(
                "fetch_refused",
                "The image URL points to a private or internal address; use a public URL.",
            )
    ip = addresses[0]
    return f"[{ip}]" if ip.version == 6 else str(ip)


class _PinnedAdapter(HTTPAdapter):
    """Connects to the checked address while keeping the URL's host for Host, SNI and TLS
    certificate checks (the same pool-key override requests-hardened's IPFilterAdapter uses)."""

    def __init__(self, allow: Allow) -> None:
        super().__init__(max_retries=0)
        self._allow = allow

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        hostname = host_params["host"]
        port = host_params["port"] or (443 if host_params["scheme"] == "https" else 80)
        request.headers = CaseInsensitiveDict(request.headers or {})
        host_header = f"[{hostname}]" if ":" in hostname else hostname
        if host_params["port"] is not None:
            host_header += f":{host_params['port']}"
        request.headers["Host"] = host_header
        if host_params["scheme"] == "https":
            pool_kwargs["assert_hostname"] = hostname
            pool_kwargs["server_hostname"] = hostname
        host_params["host"] = resolve_checked(hostname, port, self._allow).strip("[]")
        return host_params, pool_kwargs


def fetch_image(
    url: str,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    deadline: float = DEFAULT_DEADLINE,
    allow: Iterable[str] = (),
) -> Fetched:
    """GET an image URL safely; raises EngineError with a fetch_* code on any refusal."""
    allowed = Allow.parse(allow)
    end = time.monotonic() + deadline
    session = requests.Session()
    session.trust_env = False  # no HTTP(S)_PROXY, no .netrc: the worker's env is not the URL's
    session.max_redirects = MAX_REDIRECTS
    adapter = _PinnedAdapter(allowed)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    try:
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            _check_url(current)
            remaining = end - time.monotonic()
            if remaining <= 0:
                raise _timeout()
            try:
                resp = session.get(
                    current,
                    stream=True,
                    allow_redirects=False,
                    timeout=(min(10.0, remaining), min(15.0, remaining)),
                    headers={"User-Agent": USER_AGENT, "Accept": "image/*"},
                )
            except EngineError:
                raise
            except requests.Timeout as exc:
                raise _timeout() from exc
            except requests.RequestException as exc:
                raise EngineError(
                    "fetch_failed", f"The image could not be downloaded ({type(exc).__name__})."
                ) from exc
            try:
                if resp.is_redirect:
                    location = resp.headers.get("Location", "")
                    current = urljoin(current, location)
                    continue
                if resp.status_code != 200:
                    raise EngineError(
                        "fetch_failed",
                        f"The image URL answered HTTP {resp.status_code}.",
                    )
                data = _read_capped(resp, max_bytes, end)
                return Fetched(data=data, content_type=resp.headers.get("Content-Type"),
                               url=current)
            finally:
                resp.close()
        raise EngineError("fetch_failed", f"The image URL redirected more than {MAX_REDIRECTS} "
                                          "times.")
    finally:
        session.close()


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise EngineError("fetch_refused", "Only http and https image URLs can be fetched.")
    if not parts.hostname:
        raise EngineError("fetch_refused", "The image URL has no host.")
    if parts.username or parts.password:
        raise EngineError("fetch_refused", "Image URLs with credentials are not fetched.")


def _read_capped(resp: requests.Response, max_bytes: int, end: float) -> bytes:
    declared = resp.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(max_bytes)
    raw = resp.raw
    chunks: list[bytes] = []
    total = 0
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            raise _timeout()
        _set_read_timeout(raw, remaining)
        try:
            # read1 returns whatever has arrived instead of waiting for a full buffer, so the
            # deadline is looked at after every packet of a slow drip.
            chunk = raw.read1(65536, decode_content=True)
        except TimeoutError as exc:
            raise _timeout() from exc
        except Exception as exc:  # urllib3 wraps socket timeouts in its own errors
            if "timed out" in str(exc).lower():
                raise _timeout() from exc
            raise EngineError("fetch_failed", "The download was interrupted.") from exc
        if not chunk:
            break
        total += len(chunk)
        if total > max_bytes:
            raise _too_large(max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def _set_read_timeout(raw: Any, seconds: float) -> None:
    """Bound the next socket read by what is left of the deadline."""
    sock = None
    fp = getattr(raw, "_fp", None)
    inner = getattr(getattr(fp, "fp", None), "raw", None)
    sock = getattr(inner, "_sock", None)
    if sock is not None:
        try:
            sock.settimeout(max(0.05, seconds))
        except OSError:
            pass


def _timeout() -> EngineError:
    return EngineError("fetch_timeout", "The image took too long to download.")


def _too_large(max_bytes: int) -> EngineError:
    return EngineError(
        "fetch_too_large", f"The image is larger than {max_bytes // (1024 * 1024)} MB."
    )
