"""Asking the server for its window: the server kind's own answer is used, and silence is never fatal."""

from __future__ import annotations

import socket
import time

from sneakycode.agent.model.window import discover_context_window
from sneakycode.testing.server import ScriptedServer


def test_ollama_reports_its_running_num_ctx_not_the_trained_length() -> None:
    with ScriptedServer({"server_kind": "ollama", "context_window": 4096}) as server:
        found = discover_context_window(server.base_url, "scripted-model", None, provider="ollama")
        asked = [(r.method, r.path, r.body) for r in server.requests if r.path == "/api/show"]
    assert found is not None and found.tokens == 4096  # model_info says 131072: the running window wins
    assert asked == [("POST", "/api/show", {"model": "scripted-model"})]


def test_a_port_nobody_answers_gives_none_quickly() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    started = time.monotonic()
    assert discover_context_window(f"http://127.0.0.1:{port}/v1", "m", None, timeout=0.5) is None
    assert time.monotonic() - started < 3
