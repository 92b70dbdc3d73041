"""Which IP addresses are internal (loopback, private, link-local, ...): the one rule web_fetch and the
sandbox's network proxy both apply, kept below both (tools/ and process/ import it from here), and the
resolver seam both resolve names through."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""host (ASCII), port -> the addresses it resolves to, as strings."""


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def internal_kind(address: IPAddress) -> str | None:
    """What makes an address internal (loopback, private, link-local, ...), or None for a public one.
    IPv6 forms that embed an IPv4 address (mapped, 6to4, NAT64) are judged by the address they embed."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and address in ipaddress.IPv6Network("64:ff9b::/96"):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return internal_kind(embedded)
    checks = (
        ("unspecified", address.is_unspecified),
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("private", address.is_private),
        ("reserved", address.is_reserved),
    )
    for kind, hit in checks:
        if hit:
            return kind
    return None if address.is_global else "non-public"
