"""Who may read /metrics: never the public by default. A request is let in by a bearer token
(`METRICS_TOKEN`) or by its address (`METRICS_ALLOW`, networks; loopback by default). A request relayed by a
proxy (it carries `X-Forwarded-For`, `Forwarded` or `X-Real-IP`) is never let in by address: behind an ingress
every public request would otherwise come from the ingress controller's address, inside an allowed range."""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Sequence

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

DEFAULT_ALLOW = ["127.0.0.1/32", "::1/128"]
PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def parse_networks(items: Sequence[str]) -> list[Network]:
    """CIDR networks (a bare address is its own /32 or /128); a bad one raises ValueError naming it, so the
    server stops at start rather than serving with a rule it misread."""
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError as exc:
            raise ValueError(f"METRICS_ALLOW: {item!r} is not an address or a network ({exc})") from None
    return networks


def _has_token(meta: dict, token: str) -> bool:
    if not token:
        return False
    scheme, _, given = meta.get("HTTP_AUTHORIZATION", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def _address_allowed(meta: dict, networks: Sequence[Network]) -> bool:
    if any(meta.get(header) for header in PROXY_HEADERS):
        return False
    try:
        address = ipaddress.ip_address(meta.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return any(address in network for network in networks)


def allowed(meta: dict, token: str, networks: Sequence[Network]) -> bool:
    """Whether the request with this WSGI/ASGI `META` may read the metrics."""
    return _has_token(meta, token) or _address_allowed(meta, networks)
