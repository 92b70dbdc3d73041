"""Hardening round two, class 7: a session that used an MCP server ends cleanly. The server here is written in
the test (newline-delimited JSON-RPC by hand, no SDK), so it can answer as a hostile or broken server would:
a reply of megabytes, or one over the client's 64 MiB bound that it is still writing when it is stopped.
Every run goes through the real `sneakycode -p` with every warning shown."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sneakycode.extensions.mcp.transport import MAX_MESSAGE_BYTES
from sneakycode.testing.server import ScriptedServer
from tests.extensions.mcp.servers import user_servers
from tests.faces.cli.test_headless import call, finish, tool_results
from tests.faces.cli.test_stream_input import LOUD, assert_clean

DUMP_SERVER = r'''
import json, sys, time

mode, size = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer


def send(message):
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


for raw in sys.stdin.buffer:
    request = json.loads(raw)
    ident = request.get("id")
    if ident is None:  # a notification
        continue
    method = request.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "dump", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [{
            "name": "dump", "description": "Return a lot of text.", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call" and mode == "whole":
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": "x" * size}]}})
    elif method == "tools/call":
        # A reply never finished: written until the pipe is full (nobody reads past the bound), then it waits.
        out.write(b'{"jsonrpc": "2.0", "id": %d, "result": {"content": [{"type": "text", "text": "' % ident)
        out.write(b"x" * size)
        out.flush()
        time.sleep(600)
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no such method"}})
'''


def run_with_dump_server(ws: Path, tmp_path: Path, mode: str, size: int) -> tuple[subprocess.CompletedProcess[str],
                                                                                   list[dict[str, Any]]]:
    script = tmp_path / "dump_server.py"
    script.write_text(DUMP_SERVER, encoding="utf-8")
    user_servers({"dump": {"command": sys.executable, "args": [str(script), mode, str(size)]}},
                 '[permissions]\nallow = ["mcp__dump__*"]\n')
    with ScriptedServer({"models": ["scripted-model"], "steps": [call("mcp__dump__dump"), finish("done")]}) as server:
        result = subprocess.run(
            [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "Dump", "--base-url", server.base_url, "--model",
             "scripted-model", "--workspace", str(ws)],
            capture_output=True, text=True, env={**os.environ, **LOUD}, timeout=120,
        )  # fmt: skip
    return result, server.chat_requests


def test_a_session_that_got_a_reply_of_megabytes_ends_without_a_warning(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 7: after a large MCP result, exit printed ResourceWarnings for the process
    watchdog that was never reaped."""
    result, requests = run_with_dump_server(ws, tmp_path, "whole", 5_000_000)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "done"
    [answer] = tool_results(requests[1])
    assert answer.startswith("xxxx") and len(answer) < 200_000  # cut for the model, the whole saved aside
    assert_clean(result.stderr)
    assert "Event loop is closed" not in result.stderr


def test_a_server_stopped_while_writing_an_oversized_reply_leaves_no_traceback(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 7: a server killed while writing a reply over the bound left its stdout pipe
    open; the garbage collector closed it after the event loop was gone: "Exception ignored ... RuntimeError:
    Event loop is closed" on stderr."""
    result, requests = run_with_dump_server(ws, tmp_path, "unfinished", MAX_MESSAGE_BYTES + (1 << 20))
    assert result.returncode == 0, result.stderr
    [answer] = tool_results(requests[1])
    assert answer.startswith("Error [mcp_error]") and "over 64 MiB" in answer
    assert "MCP server dump stopped" in result.stderr and "It sent a message over 64 MiB" in result.stderr
    assert_clean(result.stderr)
    assert "Event loop is closed" not in result.stderr
