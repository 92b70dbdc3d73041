"""A scripted OpenAI-compatible chat server on 127.0.0.1 for tests and demos (stdlib only).

Each POST to /v1/chat/completions plays the next step of a script (see `sneakycode.testing.script`): a reply,
streamed as SSE or not as the request asks, or an injected failure. Quirks of real local servers apply to every
request (faults a doctor must find too). Every request is recorded, so tests can assert what the client sent.

    with ScriptedServer([{"content": "hi"}]) as server:
        client = OpenAI(base_url=server.base_url, api_key="x")

Run it alone: ``python -m sneakycode.testing.server --script FILE.json --port 0 [--record FILE.jsonl]``;
it prints its base URL on the first line of stdout and serves until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from sneakycode.testing.contracts import contract_refusal, contract_turn
from sneakycode.testing.info import info_reply, models_reply
from sneakycode.testing.replies import PromptCache, completion_body, effective_turn, refusal, stream_chunks
from sneakycode.testing.script import Fault, Script, Step, Turn, parse_script


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    status: int | None = None
    """The HTTP status answered; None while answering, or when the connection was dropped instead."""
    received_at: float = field(default_factory=time.monotonic)
    """`time.monotonic()` once the request was read, so a benchmark can time a client's start-up to it."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, host: str, port: int, owner: ScriptedServer) -> None:
        super().__init__((host, port), _Handler)
        self.owner = owner
        self.stopping = threading.Event()
        self.open_sockets: set[socket.socket] = set()
        self.sockets_lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-reply is part of the test (cancel, retries), not a server fault."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def drop_all_connections(self) -> None:
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read the recorded requests instead."""

    # -- plumbing ---------------------------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(self, status: int, message: str, code: str | None = None, headers: dict[str, str] | None = None,
                    ) -> None:
        error = {"message": message, "type": "invalid_request_error" if status < 500 else "server_error", "code": code}
        self._send_json(status, {"error": error}, headers)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}

    def _authorised(self) -> bool:
        key = self.server.owner.script.api_key
        return key is None or self.headers.get("Authorization") == f"Bearer {key}"

    # -- endpoints --------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        record = self.server.owner._record("GET", self.path, self._headers(), None)
        info = info_reply(self.server.owner.script, "GET", self.path)
        if info is not None:
            record.status = 200
            self._send_json(200, info)
        elif self.path.rstrip("/") not in ("/models", "/v1/models"):
            record.status = 404
            self._send_error(404, f"no route GET {self.path}")
        elif not self._authorised():
            record.status = 401
            self._send_error(401, "Incorrect API key provided.", "invalid_api_key")
        else:
            record.status = 200
            self._send_json(200, models_reply(self.server.owner.script))
        self.server.owner._answered(record)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        record = self.server.owner._record("POST", self.path, self._headers(), body)
        info = info_reply(self.server.owner.script, "POST", self.path)
        if info is not None:
            record.status = 200
            self._send_json(200, info)
        else:
            record.status = self._answer(body)
        self.server.owner._answered(record)

    def _answer(self, body: Any) -> int | None:
        owner = self.server.owner
        script = owner.script
        if self.path.rstrip("/") not in ("/chat/completions", "/v1/chat/completions"):
            self._send_error(404, f"no route POST {self.path}")
            return 404
        if not isinstance(body, dict):
            self._send_error(400, "the request body is not a JSON object")
            return 400
        if not self._authorised():
            self._send_error(401, "Incorrect API key provided.", "invalid_api_key")
            return 401
        if script.models and body.get("model") not in script.models:
            self._send_error(404, f"The model `{body.get('model')}` does not exist.", "model_not_found")
            return 404
        refused = refusal(body, script) or contract_refusal(script.reasoning_contract, body)
        if refused is not None:
            self._send_error(*refused)
            return refused[0]
        if script.delay and self.server.stopping.wait(script.delay):
            self._drop()
            return None
        streaming = bool(body.get("stream"))
        if streaming and body.get("tools") and script.quirks.get("empty_stream_with_tools"):
            self._start_sse()
            self._end_sse()
            return 200
        no_tools = script.no_tools_reply is not None and not body.get("tools")  # a summary: played without a step
        step_index, step = (-1, script.no_tools_reply) if no_tools else owner._next_step()
        if step is None:
            self._send_error(400, f"scripted server: the script has no step left ({step_index} played)",
                             "script_exhausted")
            return 400
        if isinstance(step, Fault):
            return self._fault(step, streaming)
        turn = contract_turn(script.reasoning_contract, effective_turn(step, script), body)
        cached = owner.prompt_cache.cached_tokens(body) if script.quirks.get("prompt_cache") else None
        if not streaming:
            self._send_json(200, completion_body(turn, step_index, body, script, cached))
            return 200
        self._stream(turn, step_index, body, cached)
        return 200

    def _stream(self, turn: Turn, step_index: int, body: dict[str, Any], cached: int | None) -> None:
        self._start_sse()
        try:
            for chunk in stream_chunks(turn, step_index, body, self.server.owner.script, cached):
                self._write_chunk(f"data: {json.dumps(chunk)}\n\n".encode())
                if turn.chunk_delay and self.server.stopping.wait(turn.chunk_delay):
                    break
            self._write_chunk(b"data: [DONE]\n\n")
            self._end_sse()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _fault(self, fault: Fault, streaming: bool) -> int | None:
        if fault.kind == "status":
            self._send_error(fault.status, fault.message, fault.code, fault.headers)
            return fault.status
        if fault.kind == "drop":
            self._drop()
            return None
        if fault.kind == "hang":
            self.server.stopping.wait(fault.seconds)
            self._drop()
            return None
        if not streaming:
            return self._broken_body(fault)
        self._start_sse()
        if fault.kind == "malformed_sse":
            self._write_chunk(b'data: {"choices": [{"index": 0, "delta": {"content": "hel\n\n')
            self._write_chunk(b"data: [DONE]\n\n")
            self._end_sse()
        elif fault.kind == "drop_mid_stream":
            delta = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": fault.message}}]}
            self._write_chunk(f"data: {json.dumps(delta)}\n\n".encode())
            self._drop()
        else:
            self._end_sse()
        return 200

    def _broken_body(self, fault: Fault) -> int | None:
        """The stream faults, for a request that did not ask to stream: a cut or empty JSON body."""
        if fault.kind == "drop_mid_stream":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b'{"choices": [')
            self._drop()
            return None
        data = b'{"choices": [{"index": 0, "message": {"content": "hel' if fault.kind == "malformed_sse" else b""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        return 200


class ScriptedServer:
    """The scripted server, running in a background thread while the context is open."""

    def __init__(
        self,
        script: Script | dict[str, Any] | list[Any],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
    ) -> None:
        self.script = parse_script(script)
        self._steps: list[Step] = list(self.script.steps)
        self._played = 0
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self.prompt_cache = PromptCache()
        self._on_request = on_request
        self._httpd = _Server(host, port, self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-server", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far (GET /models included), oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the chat-completion requests, oldest first."""
        return [
            r.body
            for r in self.requests
            if r.method == "POST" and isinstance(r.body, dict) and r.path.rstrip("/").endswith("/chat/completions")
        ]

    @property
    def remaining_steps(self) -> int:
        with self._lock:
            return len(self._steps)

    def add_steps(self, steps: Iterable[Any]) -> None:
        """Append steps (same format as the script's) while the server runs."""
        extra = parse_script({"steps": list(steps)}).steps
        with self._lock:
            self._steps.extend(extra)

    def _record(self, method: str, path: str, headers: dict[str, str], body: Any) -> RecordedRequest:
        record = RecordedRequest(method, path, headers, body)
        with self._lock:
            self._requests.append(record)
        return record

    def _answered(self, record: RecordedRequest) -> None:
        if self._on_request:
            self._on_request(record)

    def _next_step(self) -> tuple[int, Step | None]:
        with self._lock:
            if not self._steps:
                return self._played, None
            self._played += 1
            return self._played - 1, self._steps.pop(0)

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.stopping.set()
        self._httpd.shutdown()
        self._httpd.drop_all_connections()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sneakycode.testing.server", description=__doc__.split("\n")[0])
    parser.add_argument("--script", required=True, type=Path, help="script JSON file")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--record", type=Path, help="append every request as one JSON line to this file")
    args = parser.parse_args(argv)
    script = json.loads(args.script.read_text(encoding="utf-8"))
    record_file = args.record.open("a", encoding="utf-8") if args.record else None

    def write_record(record: RecordedRequest) -> None:
        if record_file is not None:
            record_file.write(json.dumps(asdict(record)) + "\n")
            record_file.flush()

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with ScriptedServer(script, port=args.port, on_request=write_record) as server:
        print(server.base_url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stopped.wait()
    if record_file is not None:
        record_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
