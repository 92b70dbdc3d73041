"""The session's network proxy for sandboxed commands in `allowlist` mode: the only way out of a sandbox that
has its own network namespace. It listens on a Unix socket (in a folder only this user can enter) that is
bound into the sandbox, where a forwarder (sandbox_forwarder.py) offers it as a TCP proxy on 127.0.0.1.

It speaks HTTP CONNECT (https://, git, pip) and plain proxying of http:// URLs; SOCKS is left out (every tool
the presets serve speaks HTTP proxies). A connection goes through only when the host (host_policy.py) is on
the list, the port is allowed, and every address the proxy itself resolves it to passes the address rule
web_fetch uses (config/addresses.py), unless the user listed that address. The proxy connects to the address
it checked: no second lookup, nothing to rebind. Refusals are remembered (`denials_since`) so the command's
result can name the host and the setting that would allow it.

Written on asyncio rather than taken from a library: the proxies on PyPI (proxy.py, mitmproxy) are servers
with plugins, TLS interception and their own CLI, far more than a checked CONNECT and a bounded splice.
The loop runs in one daemon thread of SneakyCode's own process: nothing is left behind when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sneakycode.config.addresses import IPAddress, Resolver, internal_kind, system_resolver
from sneakycode.process.host_policy import HostRefused, listed_address, matching_entry, normalise_host

AddressPolicy = Callable[[IPAddress], str | None]
HEAD_LIMIT = 16 * 1024  # a request line and headers larger than this are refused
HEAD_SECONDS = 30.0  # a client that sends no complete request head in this time is dropped
CONNECT_SECONDS = 15.0
CHUNK = 64 * 1024
MAX_CONNECTIONS = 256  # at once; each holds at most two CHUNK buffers, so memory stays bounded
MAX_DENIALS = 1000  # remembered refusals, oldest dropped first


@dataclass(frozen=True)
class Denial:
    """One refused connection: the host as asked (made printable), the port, why, and what would allow it."""

    host: str
    port: int
    reason: str
    setting: str
    entry: str = ""  # the allowed_hosts entry that would allow it, when one would

    def line(self) -> str:
        return f"{self.host}:{self.port} ({self.reason}; to allow it: {self.setting})"


class _Refused(Exception):
    def __init__(self, status: int, host: str, port: int, reason: str, setting: str = "", entry: str = "") -> None:
        super().__init__(reason)
        self.status, self.host, self.port, self.reason, self.setting = status, host, port, reason, setting
        self.entry = entry


class NetworkProxy:
    """Start with `start()` (returns the socket path), end with `close()`; `hosts`/`ports` may be replaced
    while it runs (a host added for the session). `resolver` and `policy` are the seams tests replace."""

    def __init__(
        self,
        hosts: tuple[str, ...],
        ports: tuple[int, ...],
        *,
        resolver: Resolver = system_resolver,
        policy: AddressPolicy = internal_kind,
    ) -> None:
        self.hosts, self.ports = hosts, ports
        self.resolver, self.policy = resolver, policy
        self._denials: list[Denial] = []
        self._denied_total = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._folder: Path | None = None
        self.active = 0

    @property
    def socket_path(self) -> Path:
        if self._folder is None:
            raise RuntimeError("the proxy is not running")
        return self._folder / "proxy.sock"

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Path:
        if self.running:
            return self.socket_path
        # A short path (AF_UNIX allows ~107 bytes) in a folder only this user can enter (mkdtemp: 0700).
        self._folder = Path(tempfile.mkdtemp(prefix="sneakycode-net-"))
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name="sneakycode-netproxy", daemon=True)
        self._thread.start()
        serving = asyncio.run_coroutine_threadsafe(
            asyncio.start_unix_server(self._handle, path=str(self.socket_path), limit=HEAD_LIMIT), loop
        )
        self._server = serving.result(timeout=10)
        return self.socket_path

    def close(self) -> None:
        """Stop serving, end every open connection and the thread, remove the socket. Safe to call twice."""
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=10)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=10)
            loop.close()
        self._loop = self._thread = self._server = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def mark(self) -> int:
        """A position in the refusals; `denials_since(mark)` gives those that came after it."""
        with self._lock:
            return self._denied_total

    def denials_since(self, mark: int) -> list[Denial]:
        with self._lock:
            missed = self._denied_total - mark
            return list(self._denials[-missed:]) if missed > 0 else []

    def _deny(self, denial: Denial) -> None:
        with self._lock:
            self._denials.append(denial)
            self._denied_total += 1
            del self._denials[:-MAX_DENIALS]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.active += 1
        try:
            if self.active > MAX_CONNECTIONS:
                await _answer(writer, 503, "too many connections through the sandbox's proxy at once")
                return
            await self._serve(reader, writer)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self.active -= 1
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), HEAD_SECONDS)
        except asyncio.LimitOverrunError:
            await _answer(writer, 431, "the request head is too large")
            return
        try:
            method, host, port, forward = _parse(head)
            upstream_reader, upstream_writer = await self._open(host, port)
        except _Refused as refused:
            shown = refused.host.encode("unicode_escape").decode("ascii")[:200]
            if refused.setting:
                self._deny(Denial(shown, refused.port, refused.reason, refused.setting, refused.entry))
            await _answer(
                writer,
                refused.status,
                f"SneakyCode's sandbox proxy refused {shown}:{refused.port}: "
                f"{refused.reason}" + (f"; to allow it: {refused.setting}" if refused.setting else ""),
            )
            return
        try:
            if method == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
            else:
                upstream_writer.write(forward)
            await _splice(reader, writer, upstream_reader, upstream_writer)
        finally:
            upstream_writer.close()

    async def _open(self, raw_host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            target = normalise_host(raw_host)
        except HostRefused as exc:
            raise _Refused(403, raw_host, port, str(exc), "nothing: use the host's plain name") from None
        hosts = self.hosts
        if matching_entry(target, hosts) is None:
            raise _Refused(
                403,
                target.host,
                port,
                "the host is not on the allowlist",
                f'tools.shell.allowed_hosts = [..., "{target.host}"]',
                entry=target.host if target.ip is None else "",  # an address is never offered with one key
            )
        if port not in self.ports:
            raise _Refused(
                403, target.host, port, f"port {port} is not allowed", f"tools.shell.allowed_ports = [..., {port}]"
            )
        if target.ip is not None:
            addresses = [target.host]
        else:
            try:
                addresses = await asyncio.get_running_loop().run_in_executor(None, self.resolver, target.host, port)
            except (OSError, UnicodeError) as exc:
                raise _Refused(502, target.host, port, f"the name does not resolve ({exc})") from None
        if not addresses:
            raise _Refused(502, target.host, port, "the name resolves to no address")
        for address in addresses:
            kind = self.policy(ipaddress.ip_address(address.split("%", 1)[0]))
            if kind is not None and not listed_address(address, hosts):
                raise _Refused(
                    403,
                    target.host,
                    port,
                    f"it resolves to {address}, a {kind} address",
                    f'tools.shell.allowed_hosts = [..., "{address}"]',
                )
        failure = ""
        for address in addresses:  # every one was checked above; the first that answers is used
            try:
                return await asyncio.wait_for(asyncio.open_connection(address, port, limit=CHUNK), CONNECT_SECONDS)
            except (TimeoutError, OSError) as exc:
                failure = str(exc) or "timed out"
        raise _Refused(502, target.host, port, f"the connection failed ({failure})")


def _parse(head: bytes) -> tuple[str, str, int, bytes]:
    """The method, host, port and (for plain HTTP) the request to send upstream in origin form."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _Refused(400, "?", 0, "not an HTTP proxy request")
    method, target, version = parts
    if method == "CONNECT":
        host, port = _authority(target, default=None)
        return method, host, port, b""
    if not target.lower().startswith("http://"):
        raise _Refused(400, "?", 0, "only http:// URLs and CONNECT are proxied")
    rest = target[len("http://") :]
    cut = min((i for i in (rest.find("/"), rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    host, port = _authority(rest[:cut], default=80)
    path = rest[cut:] if rest[cut:].startswith("/") else "/" + rest[cut:]
    headers = [line for line in lines[1:] if line and not line.lower().startswith(("proxy-", "connection:"))]
    request = "\r\n".join([f"{method} {path} {version}", *headers, "Connection: close", "", ""])
    return method, host, port, request.encode("latin-1")


def _authority(text: str, *, default: int | None) -> tuple[str, int]:
    if "@" in text:
        raise _Refused(400, text, 0, "credentials in a proxied URL are not passed on")
    if text.startswith("["):
        host, _, after = text.partition("]")
        host, port_text = host + "]", after.removeprefix(":") if after.startswith(":") else ""
        if after and not after.startswith(":"):
            raise _Refused(400, text, 0, "the address is malformed")
    elif ":" in text:
        host, _, port_text = text.rpartition(":")
    else:
        host, port_text = text, ""
    if not port_text:
        if default is None:
            raise _Refused(400, host, 0, "CONNECT needs a port")
        return host, default
    if not port_text.isascii() or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise _Refused(400, host, 0, "the port is not a number from 1 to 65535")
    return host, int(port_text)


async def _answer(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reasons = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large", 502: "Bad Gateway",
               503: "Service Unavailable"}  # fmt: skip
    body = (text + "\n").encode("utf-8", errors="replace")
    writer.write(
        f"HTTP/1.1 {status} {reasons.get(status, 'Error')}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(ConnectionError):
        await writer.drain()


async def _splice(
    client_reader: asyncio.StreamReader,
    client_writer: asyncio.StreamWriter,
    upstream_reader: asyncio.StreamReader,
    upstream_writer: asyncio.StreamWriter,
) -> None:
    """Copy both ways until both sides are done; drain() keeps at most a chunk or two in memory per side."""

    async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while chunk := await source.read(CHUNK):
                sink.write(chunk)
                await sink.drain()
            if sink.can_write_eof():
                sink.write_eof()
        except (ConnectionError, OSError):
            sink.close()

    await asyncio.gather(pump(client_reader, upstream_writer), pump(upstream_reader, client_writer))
