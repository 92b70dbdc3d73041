"""Which host:port a sandboxed command may reach through the proxy: the name normalised once (case, one
trailing dot, IDNA) and refused outright when it could mean two things (NUL or control characters, anything
outside a hostname's alphabet, an IP literal in a legacy form), then matched against the allowlist on label
boundaries. The proxy connects to exactly the name checked here: the bug class this closes is a check that
reads one host while the resolver dials another (a NUL that ends the name early, `evil.com#allowed.com`)."""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass

import idna

# After IDNA: letters, digits, hyphens and underscores (some registries' CDN names have them), dot-separated.
_LABEL = re.compile(r"^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$")
MAX_HOST_CHARS = 253


class HostRefused(ValueError):
    """The host cannot be reached; the message says why in words a user can act on."""


@dataclass(frozen=True)
class Target:
    """A host after normalisation: `ip` is set when the host is an IP literal (canonical text in `host`)."""

    host: str
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None


def normalise_host(raw: str) -> Target:
    """The one form of `raw` every check and the connection use, or HostRefused."""
    if any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in raw):
        raise HostRefused("the host name contains a NUL, control or space character")
    text = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        ip = None
    if ip is not None:
        if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
            raise HostRefused("an IPv6 address with a zone is not reachable through the proxy")
        return Target(str(ip), ip)
    if _legacy_ipv4(text):
        raise HostRefused("the host is an IPv4 address in a decimal, hex, octal or short form")
    name = text[:-1] if text.endswith(".") else text
    if not name or len(name) > MAX_HOST_CHARS:
        raise HostRefused("the host name is empty or too long")
    try:
        ascii_name = idna.encode(name, uts46=True).decode("ascii") if not name.isascii() else name.lower()
    except idna.IDNAError as exc:
        raise HostRefused(f"the host name is not a valid internationalised name ({exc})") from None
    labels = ascii_name.split(".")
    if not all(_LABEL.match(label) for label in labels):
        raise HostRefused("the host name has characters a host name cannot have")
    if labels[-1].isdigit():
        raise HostRefused("the host name ends in a number, which resolvers may read as an IP address")
    return Target(ascii_name, None)


def _legacy_ipv4(text: str) -> bool:
    """Whether the C resolver would read `text` as an IPv4 address (2130706433, 0x7f000001, 0177.0.0.1, 127.1)."""
    if not re.fullmatch(r"[0-9a-fA-FxX.]+", text) or not any(ch.isdigit() for ch in text):
        return False
    try:
        socket.inet_aton(text)
    except OSError:
        return False
    return True


def matching_entry(target: Target, allowed: Iterable[str]) -> str | None:
    """The allowlist entry that lets `target` through: the same name or address, or `*.suffix` for a name
    strictly under suffix (on a label boundary: `*.example.com` matches a.example.com, never example.com
    nor badexample.com). Entries that do not normalise match nothing."""
    for entry in allowed:
        wildcard = entry.startswith("*.")
        try:
            listed = normalise_host(entry[2:] if wildcard else entry)
        except HostRefused:
            continue
        if wildcard:
            if target.ip is None and listed.ip is None and target.host.endswith("." + listed.host):
                return entry
        elif listed.host == target.host:
            return entry
    return None


def listed_address(address: str, allowed: Iterable[str]) -> bool:
    """Whether the user listed this very address (which lets an internal one through)."""
    try:
        canonical = str(ipaddress.ip_address(address.split("%", 1)[0]))
    except ValueError:
        return False
    return any(_canonical_or_none(entry) == canonical for entry in allowed)


def _canonical_or_none(entry: str) -> str | None:
    try:
        return normalise_host(entry).host
    except HostRefused:
        return None
