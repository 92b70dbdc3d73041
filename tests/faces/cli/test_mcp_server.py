"""`sneakycode mcp` driven by the official MCP client SDK over stdio, against a real workspace."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def _session_calls(ws: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sneakycode.faces.cli.main", "mcp", "--workspace", str(ws)],
        env=dict(os.environ),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        results = [await session.call_tool(name, args) for name, args in calls]
    return [t.name for t in listed.tools], results


def run_session(ws: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], list[Any]]:
    return anyio.run(_session_calls, ws, calls)


def text_of(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def test_lists_the_workspace_tools_with_schemas(ws: Path) -> None:
    names, _ = run_session(ws, [])
    assert {"read_file", "list_dir", "write_file", "delete_file"} <= set(names)
    assert "finish" not in names


def test_read_gate_spans_the_connection_and_errors_are_flagged(ws: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    _, results = run_session(
        ws,
        [
            ("write_file", {"file_path": "a.txt", "content": "two\n"}),
            ("read_file", {"file_path": "a.txt"}),
            ("write_file", {"file_path": "a.txt", "content": "two\n"}),
            ("read_file", {"file_path": "../outside"}),
        ],
    )
    assert results[0].is_error and "not_read" in text_of(results[0])
    assert not results[1].is_error and "     1\tone" in text_of(results[1])
    assert not results[2].is_error and (ws / "a.txt").read_text() == "two\n"
    assert results[3].is_error and results[3].structured_content["code"] == "outside_workspace"


def test_deny_rules_apply_over_mcp(ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('[permissions]\ndeny = ["delete_file"]\n')
    (ws / "keep.txt").write_text("k")
    _, results = run_session(ws, [("delete_file", {"file_path": "keep.txt"})])
    assert results[0].is_error and results[0].structured_content["code"] == "permission_denied"
    assert (ws / "keep.txt").exists()


def test_mcp_serve_listens_on_no_socket_only_its_pipes(ws: Path) -> None:
    """Hardening round three, advisory class: `sneakycode mcp serve` speaks only over the pipes of the client
    that started it; it opens no port or socket another local user could connect to."""
    import subprocess

    from tests.faces.acp.listeners import listening

    serving = subprocess.Popen([sys.executable, "-m", "sneakycode.faces.cli.main", "mcp", "serve",
                                "--workspace", str(ws)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert serving.stdin is not None and serving.stdout is not None
    try:
        serving.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                            b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n')
        serving.stdin.flush()
        assert b'"id":1' in serving.stdout.readline()  # serving: its listeners (none) are all open
        assert listening(serving.pid) == []
    finally:
        serving.stdin.close()
        serving.wait(30)
