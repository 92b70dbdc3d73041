"""Hardening round three, class 41: the sandbox's network proxy lets a connection through only to a listed
host on an allowed port, checked on the one normalised name it then dials, and to no internal address. The
proxy is spoken to over its real Unix socket; names reach real servers on 127.0.0.1 through its resolver
seam, and the resolver's log shows a refused trick was never dialled."""

from __future__ import annotations

import socket
import threading
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config.addresses import internal_kind
from sneakycode.process.netproxy import MAX_DENIALS, NetworkProxy


class Echo:
    """A TCP server on 127.0.0.1 that answers every connection with `hello` and closes."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.accepted += 1
            conn.sendall(b"hello")
            conn.close()


@pytest.fixture
def echo() -> Iterator[Echo]:
    server = Echo()
    yield server
    server.server.close()


def ask(path: Path, request: bytes) -> bytes:
    """Send `request` to the proxy's socket and return everything it answers."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(10)
        conn.connect(str(path))
        conn.sendall(request)
        conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return answer


def make_proxy(echo: Echo, names: dict[str, str], *, public_loopback: bool) -> tuple[NetworkProxy, list[str]]:
    """A proxy allowing allowed.test, internal.test and metadata.test on the echo server's port and 443;
    `public_loopback` lets 127.0.0.1 stand in for a public address (else web_fetch's address rule applies)."""
    asked: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        asked.append(host)
        return [names.get(host, "127.0.0.1")]

    proxy = NetworkProxy(("allowed.test", "internal.test", "metadata.test", "*.wild.test"), (echo.port, 443),
                         resolver=resolver, policy=(lambda _a: None) if public_loopback else internal_kind)  # fmt: skip
    proxy.start()
    return proxy, asked


def test_an_allowed_host_is_reached_by_connect_and_plain_http_in_any_case_or_with_a_trailing_dot(echo: Echo) -> None:
    proxy, _ = make_proxy(echo, {}, public_loopback=True)
    try:
        for host in ("allowed.test", "ALLOWED.Test", "allowed.test.", "a.wild.test"):
            answer = ask(proxy.socket_path, f"CONNECT {host}:{echo.port} HTTP/1.1\r\n\r\n".encode())
            assert answer == b"HTTP/1.1 200 Connection established\r\n\r\nhello", host
        plain = ask(proxy.socket_path, f"GET http://allowed.test:{echo.port}/x HTTP/1.1\r\nHost: a\r\n\r\n".encode())
        assert plain == b"hello"
    finally:
        proxy.close()
    assert echo.accepted == 5


TRICKS = {
    "NUL": "allowed.test\x00.evil.test",
    "control character": "allowed.test\x01",
    "tab": "evil.test\tallowed.test",
    "suffix": "allowed.test.evil.test",
    "fragment": "evil.test#allowed.test",
    "trailing dot": "evil.test.",
    "double dot": "allowed.test..",
    "mixed case": "EVIL.test",
    "wildcard parent": "wild.test",
    "wildcard lookalike": "evilwild.test",
    "IDNA look-alike": "аllowed.test",  # Cyrillic a
    "IDNA punycode": "xn--llowed-2nf.test",
    "decimal IP": "2130706433",
    "hex IP": "0x7f000001",
    "octal IP": "0177.0.0.1",
    "short IP": "127.1",
    "IPv4 literal": "127.0.0.1",
    "IPv6-mapped": "[::ffff:127.0.0.1]",
    "IPv6 loopback": "[::1]",
}


@pytest.mark.parametrize("trick", TRICKS)
def test_hostname_tricks_are_refused_and_never_dialled(echo: Echo, trick: str) -> None:
    """Hardening round three, class 41: hostname tricks (a NUL that ends the name early, a suffix, a
    fragment, IP literals in legacy forms, look-alikes) are refused before any lookup."""
    proxy, asked = make_proxy(echo, {}, public_loopback=True)
    try:
        answer = ask(proxy.socket_path, f"CONNECT {TRICKS[trick]}:{echo.port} HTTP/1.1\r\n\r\n".encode())
        denials = proxy.denials_since(0)
    finally:
        proxy.close()
    assert answer.startswith(b"HTTP/1.1 403 Forbidden"), answer
    assert b"SneakyCode's sandbox proxy refused" in answer
    assert asked == [] and echo.accepted == 0
    assert len(denials) == 1 and "\x00" not in denials[0].host


@pytest.mark.parametrize(("name", "address"), [("internal.test", "127.0.0.1"), ("metadata.test", "169.254.169.254"),
                                               ("internal.test", "::ffff:10.0.0.1")])  # fmt: skip
def test_a_listed_name_that_resolves_to_an_internal_address_is_refused(echo: Echo, name: str, address: str) -> None:
    proxy, asked = make_proxy(echo, {name: address}, public_loopback=False)
    try:
        answer = ask(proxy.socket_path, f"CONNECT {name}:{echo.port} HTTP/1.1\r\n\r\n".encode())
        denials = proxy.denials_since(0)
    finally:
        proxy.close()
    assert answer.startswith(b"HTTP/1.1 403"), answer
    assert asked == [name] and echo.accepted == 0
    assert address in denials[0].reason and f'"{address}"' in denials[0].setting


def test_an_allowed_name_on_a_port_not_allowed_is_refused(echo: Echo) -> None:
    proxy, asked = make_proxy(echo, {}, public_loopback=True)
    try:
        answer = ask(proxy.socket_path, b"CONNECT allowed.test:22 HTTP/1.1\r\n\r\n")
        denial = proxy.denials_since(0)[0]
    finally:
        proxy.close()
    assert answer.startswith(b"HTTP/1.1 403") and asked == []
    assert denial.port == 22 and denial.setting == "tools.shell.allowed_ports = [..., 22]"


@pytest.mark.parametrize("request_line", [
    "GET http://allowed.test@evil.test/ HTTP/1.1",  # credentials: which host is meant?
    "GET https://allowed.test/ HTTP/1.1",  # only CONNECT carries TLS
    "GET /relative HTTP/1.1",
    "CONNECT allowed.test HTTP/1.1",  # no port
    "CONNECT allowed.test:0x1bb HTTP/1.1",
])  # fmt: skip
def test_malformed_requests_get_a_clear_error(echo: Echo, request_line: str) -> None:
    proxy, asked = make_proxy(echo, {}, public_loopback=True)
    try:
        answer = ask(proxy.socket_path, f"{request_line}\r\nHost: x\r\n\r\n".encode())
    finally:
        proxy.close()
    assert answer.startswith(b"HTTP/1.1 400") and asked == [] and echo.accepted == 0


def test_the_proxy_ends_without_a_trace_and_a_thousand_connections_leave_memory_bounded(echo: Echo) -> None:
    proxy, _ = make_proxy(echo, {}, public_loopback=True)
    folder = proxy.socket_path.parent
    allowed = f"CONNECT allowed.test:{echo.port} HTTP/1.1\r\n\r\n".encode()
    denied = f"CONNECT evil.test:{echo.port} HTTP/1.1\r\n\r\n".encode()
    try:
        for _ in range(100):
            ask(proxy.socket_path, allowed)
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for _ in range(1000):
            assert ask(proxy.socket_path, allowed).endswith(b"hello")
            assert ask(proxy.socket_path, denied).startswith(b"HTTP/1.1 403")
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        grown = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
        assert proxy.active == 0
        assert len(proxy.denials_since(0)) == MAX_DENIALS
    finally:
        proxy.close()
    assert grown < 2 << 20, f"the proxy kept {grown} bytes after 2,000 connections"
    assert not folder.exists()
    assert not [t for t in threading.enumerate() if t.name == "sneakycode-netproxy"]
    proxy.close()  # a second close is harmless
