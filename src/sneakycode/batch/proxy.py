"""The batch's model proxy: a small HTTP server on 127.0.0.1 that every task's agent uses as its base_url.

Why a proxy: the agents are separate processes (each isolated, sandboxed and killable like any `-p` run),
so the one place all their model requests meet is the network. Here each request first books a slot with
the shared rate limiter, then goes to the real endpoint; a 429 pauses every task (see ratelimit) and is
retried here, so the agent never spends its own retries or turns on it. A file-lock token bucket would need
the agent itself to know about batches; the proxy needs nothing from it.

Each upstream endpoint gets a route key: `http://127.0.0.1:PORT/KEY/<path>` goes to `ORIGIN/<path>`, so
a preset's info endpoints beside /v1 (Ollama's /api/show, llama.cpp's /props) keep working. The key is the
batch's secret (192 random bits, handed to each agent in its environment, never on a command line that any
local user can read in /proc): a request without it is refused with 403, so another user or program on the
machine cannot spend the batch's rate limit or reach its endpoints through the proxy. The body of the
answer is passed through as it arrives, so streamed replies stream.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx2

# Headers that belong to one connection, not to the request or answer they travel with (RFC 9110 7.6.1).
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
    "transfer-encoding", "upgrade", "host", "content-length",
})  # fmt: skip
MAX_THROTTLED_TRIES = 8
ROUTE_KEY_BYTES = 24
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class Limiter(Protocol):
    """What the proxy needs of a rate limiter: RateLimiter itself, or a client of the Ray actor."""

    def reserve(self, tokens: int) -> float: ...

    def observe(self, status: int, headers: dict[str, str]) -> float | None: ...


def estimate_tokens(body: bytes) -> int:
    """About four bytes of JSON per token: the request is charged before it is answered, so its size is
    all there is; the reply's own tokens are not known until it ends."""
    return max(1, len(body) // 4)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, proxy: ModelProxy) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.proxy = proxy


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the agents report their own failures."""

    def do_GET(self) -> None:
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")

    def _forward(self, method: str) -> None:
        proxy = self.server.proxy
        key, _, rest = self.path.lstrip("/").partition("/")
        origin = proxy.origin_for(key)
        if origin is None:  # the path is not echoed: it may be someone's guess at a key
            self._reply_error(403, "batch proxy: this address needs the batch's key")
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        url = f"{origin}/{rest}"
        tries = 0
        while True:
            tries += 1
            wait = proxy.limiter.reserve(estimate_tokens(body) if method == "POST" else 0)
            if wait > 0 and proxy.stopping.wait(wait):
                self._reply_error(503, "batch proxy: the batch is stopping")
                return
            try:
                with proxy.client(origin).stream(method, url, content=body or None, headers=headers) as answer:
                    answer_headers = {k.lower(): v for k, v in answer.headers.items()}
                    proxy.limiter.observe(answer.status_code, answer_headers)
                    if answer.status_code == 429 and tries < MAX_THROTTLED_TRIES:
                        answer.read()
                        proxy.count("held_429")
                        continue
                    self._relay(answer)
                    return
            except httpx2.HTTPError as exc:
                self._reply_error(502, f"batch proxy: {origin} could not be reached: {exc}")
                return

    def _relay(self, answer: httpx2.Response) -> None:
        self.send_response(answer.status_code)
        for name, value in answer.headers.multi_items():
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for chunk in answer.iter_raw():
                if chunk:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the agent hung up (cancelled): nothing left to tell it

    def _reply_error(self, status: int, message: str) -> None:
        data = json.dumps({"error": {"message": message, "type": "server_error"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        with contextlib.suppress(OSError):
            self.wfile.write(data)


class ModelProxy:
    """The proxy, serving from a background thread while the context is open; `route` gives the base_url
    an agent uses for one upstream endpoint."""

    def __init__(self, limiter: Limiter) -> None:
        self.limiter = limiter
        self.origins: dict[str, str] = {}
        self.counters: dict[str, int] = {}
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._clients: dict[str, httpx2.Client] = {}
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="batch-proxy", daemon=True)

    def route(self, base_url: str) -> str:
        """The proxy's address standing for `base_url` (same path, so relative endpoints resolve alike)."""
        parts = urlsplit(base_url.rstrip("/"))
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            key = next((k for k, o in self.origins.items() if o == origin), None)
            if key is None:
                key = secrets.token_urlsafe(ROUTE_KEY_BYTES)
                self.origins[key] = origin
        return f"http://127.0.0.1:{self._server.server_address[1]}/{key}{parts.path}"

    def origin_for(self, key: str) -> str | None:
        """The upstream a route key stands for; every key is compared in constant time (it is a secret)."""
        with self._lock:
            found = [origin for known, origin in self.origins.items()
                     if secrets.compare_digest(known.encode(), key.encode())]
        return found[0] if found else None

    def client(self, origin: str) -> httpx2.Client:
        with self._lock:
            if origin not in self._clients:
                # A proxy from the environment must not take requests meant for this machine's servers.
                local = urlsplit(origin).hostname in LOOPBACK
                timeout = httpx2.Timeout(30.0, read=900.0)
                self._clients[origin] = httpx2.Client(timeout=timeout, trust_env=not local)
            return self._clients[origin]

    def count(self, name: str) -> None:
        with self._lock:
            self.counters[name] = self.counters.get(name, 0) + 1

    def start(self) -> ModelProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        with self._lock:
            for client in self._clients.values():
                client.close()

    def __enter__(self) -> ModelProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
