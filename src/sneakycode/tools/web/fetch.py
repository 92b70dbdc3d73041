"""The HTTP side of web_fetch: one GET, redirects followed by hand, every hop's address checked.

DNS rebinding: a name could resolve to a public address when checked and to 127.0.0.1 when the client
connects. So the name is resolved here, once per hop (`socket.getaddrinfo`, through the `Resolver` seam),
every address it gives is checked, and the connection goes to the checked address itself: the request URL
carries the IP, the `Host` header the name, and TLS gets the name as SNI (httpcore's `sni_hostname`
extension), so the certificate is still verified against the name. No second lookup happens, so there is
nothing to rebind. Proxies from the environment are not used (a proxy would resolve the name itself).

The client is `httpx2`, the fork of httpx that the OpenAI SDK 3.x and the MCP SDK already install and that
the model client uses: the same API and maintainers as httpx, and no second copy of the HTTP stack for one
tool. Bodies are decoded (gzip, deflate, and brotli through the `brotli` package) as they stream and read
up to tools.web.max_bytes; the rest is never read.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx2

from sneakycode.config.addresses import IPAddress, Resolver, internal_kind, system_resolver
from sneakycode.config.tool_settings import WebSettings
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.context import checkpoint
from sneakycode.version import __version__

MAX_REDIRECTS = 5
USER_AGENT = f"SneakyCode/{__version__} (coding agent; web_fetch)"
ACCEPT = "text/html, text/markdown, text/plain, application/json, application/pdf;q=0.9, */*;q=0.5"
AddressPolicy = Callable[[IPAddress], str | None]
"""The reason an address may not be reached, or None; `internal_kind` unless private addresses are allowed."""


def checked_address(host: str, port: int, policy: AddressPolicy, resolver: Resolver) -> str:
    """The address to connect to for `host`: every address the name resolves to must pass `policy` (one
    internal answer refuses the host, so a name cannot smuggle one in beside a public one)."""
    try:
        addresses = [host] if _is_ip(host) else resolver(host, port)
    except (OSError, UnicodeError) as exc:
        raise ToolError(ErrorCode.FETCH_FAILED, f"{host} does not resolve: {exc}") from None
    if not addresses:
        raise ToolError(ErrorCode.FETCH_FAILED, f"{host} resolves to no address")
    for text in addresses:
        address = ipaddress.ip_address(text.split("%", 1)[0])
        reason = policy(address)
        if reason is not None:
            shown = host if host == text else f"{host} ({text})"
            raise ToolError(
                ErrorCode.BLOCKED_ADDRESS,
                f"{shown} is a {reason} address, which web_fetch does not reach",
                data={"host": host, "address": text},
            )
    return addresses[0]


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Response:
    """The final answer: its URL after redirects, status, content type and (decoded) body, maybe cut."""

    url: str
    status: int
    content_type: str
    body: bytes
    cut: bool


@dataclass
class Fetcher:
    """GETs a URL under the web settings; `resolver` and `policy` are the seams tests replace."""

    settings: WebSettings
    url_denied: Callable[[str], str | None] = lambda _url: None
    resolver: Resolver = system_resolver
    policy: AddressPolicy | None = None

    def get(self, url: str) -> Response:
        policy = self.policy or ((lambda _a: None) if self.settings.allow_private else internal_kind)
        timeout = httpx2.Timeout(self.settings.timeout)
        headers = {"User-Agent": USER_AGENT, "Accept": ACCEPT, "Accept-Encoding": "gzip, deflate, br"}
        with httpx2.Client(trust_env=False, follow_redirects=False, timeout=timeout, headers=headers) as client:
            current = url
            for _hop in range(MAX_REDIRECTS + 1):
                target, extensions, host_header = self._hop(current, policy)
                try:
                    with client.stream(
                        "GET", target, headers={"Host": host_header}, extensions=extensions
                    ) as response:
                        if response.is_redirect and "location" in response.headers:
                            current = urljoin(current, response.headers["location"])
                            continue
                        body, cut = self._read(response, current)
                        content_type = response.headers.get("content-type", "")
                        return Response(current, response.status_code, content_type, body, cut)
                except httpx2.TimeoutException:
                    raise ToolError(
                        ErrorCode.FETCH_FAILED,
                        f"{current} did not answer within {self.settings.timeout:g} s (tools.web.timeout)",
                    ) from None
                except httpx2.HTTPError as exc:
                    raise ToolError(ErrorCode.FETCH_FAILED, f"{current} could not be fetched: {exc}") from None
        raise ToolError(
            ErrorCode.FETCH_FAILED, f"{url} redirected more than {MAX_REDIRECTS} times; stopped at {current}"
        )

    def _hop(self, url: str, policy: AddressPolicy) -> tuple[httpx2.URL, dict[str, str], str]:
        """The request URL with the checked address in it, its TLS extensions and the Host header."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ToolError(
                ErrorCode.FETCH_FAILED,
                f"{url[:200]} is not an http or https URL",
                hint="Give a full http:// or https:// URL; files are read with read_file.",
            )
        try:
            parsed = httpx2.URL(url)
        except httpx2.InvalidURL as exc:
            raise ToolError(ErrorCode.FETCH_FAILED, f"{url[:200]} is not a valid URL: {exc}") from None
        host = (parts.hostname or "").rstrip(".")
        # The permission rules read the host with urllib; a URL the two parsers read differently is refused,
        # so a rule can never be decided on one host while another is fetched.
        if not host or parsed.host.rstrip(".").lower() != host.lower():
            raise ToolError(ErrorCode.FETCH_FAILED, f"{url[:200]} has no clear host name")
        denied = self.url_denied(url)
        if denied is not None:
            raise ToolError(ErrorCode.PERMISSION_DENIED, f"{url[:200]} is refused by deny rule `{denied}`")
        port = parsed.port or (443 if parts.scheme == "https" else 80)
        ascii_host = parsed.raw_host.decode("ascii").rstrip(".")
        address = checked_address(ascii_host, port, policy, self.resolver)
        extensions = {"sni_hostname": ascii_host} if parts.scheme == "https" else {}
        named = f"[{ascii_host}]" if ":" in ascii_host else ascii_host
        host_header = named if parsed.port is None else f"{named}:{parsed.port}"
        return parsed.copy_with(host=address), extensions, host_header

    def _read(self, response: httpx2.Response, url: str) -> tuple[bytes, bool]:
        return read_limited(response, self.settings.max_bytes, url)


def read_limited(
    response: httpx2.Response,
    limit: int,
    url: str,
    deadline: float | None = None,
    undecodable: ErrorCode = ErrorCode.FETCH_FAILED,
) -> tuple[bytes, bool]:
    """The decoded body up to `limit` bytes, and whether more was left unread (a body that does not decode is
    an `undecodable` error). `deadline` (a monotonic time): a body still arriving then is a read timeout, so a
    server that trickles bytes cannot hold a call past it."""
    chunks: list[bytes] = []
    held = 0
    stream = response.iter_bytes()
    try:
        for chunk in stream:
            checkpoint()
            if deadline is not None and time.monotonic() > deadline:
                raise httpx2.ReadTimeout(f"{url} was still sending its answer at the deadline")
            room = limit - held
            if len(chunk) >= room:
                chunks.append(chunk[:room])
                # Whether anything lies past the limit: one more chunk at most is read to tell.
                return b"".join(chunks), len(chunk) > room or any(stream)
            chunks.append(chunk)
            held += len(chunk)
    except httpx2.DecodingError as exc:
        raise ToolError(undecodable, f"the body of {url} does not decode: {exc}") from None
    return b"".join(chunks), False
