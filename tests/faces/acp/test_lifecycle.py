"""The connection's edges: a turn cancelled during a long command, a client that vanishes mid-turn, and
lines that are not what the protocol expects. Nothing hangs, nothing is left running, and no traceback
reaches the wire."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.extensions.mcp.servers import FIXTURE, alive, pid_in
from tests.faces.acp.conftest import Editor, agent_env, call, initialized, run, running_agent, spawned_agent

# The command may run in a sandbox with its own process ids, so it is found by its unusual command line.
SLEEP = "sleep 118.7531"
LONG = f"touch started; exec {SLEEP}"


def running(marker: str) -> list[int]:
    """The processes of this machine whose command line contains `marker` (zombies count as gone)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


async def wait_for(predicate: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


def test_cancel_during_a_long_command_ends_the_turn_as_cancelled_and_kills_the_command(
        ws: Path, server: ScriptedServer) -> None:
    server.add_steps([call("run_command", command=LONG), {"content": "After the cancel."}])
    editor = Editor(["allow_once"])

    async def go() -> tuple[Any, Any, float]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("wait")]))
            await wait_for(lambda: (ws / "started").exists() and running(SLEEP))
            started = time.monotonic()
            await conn.cancel(session_id=new.session_id)
            cancelled = await asyncio.wait_for(turn, 30)
            took = time.monotonic() - started
            # The history stayed valid: the session takes the next prompt.
            again = await conn.prompt(session_id=new.session_id, prompt=[text_block("go on")])
            return cancelled, again, took

    cancelled, again, took = run(go)
    assert cancelled.stop_reason == "cancelled" and took < 15
    assert running(SLEEP) == []
    [command] = editor.of(schema.ToolCallStart)
    failed = [u for u in editor.of(schema.ToolCallProgress) if u.tool_call_id == command.tool_call_id
              and u.status == "failed"]
    assert failed
    assert again.stop_reason == "end_turn" and editor.text().endswith("After the cancel.")
    last = server.requests[-1].body["messages"]
    assert [m["role"] for m in last][-2:] == ["tool", "user"] or [m["role"] for m in last][-1] == "user"


@pytest.mark.slow  # the real process: its pipes, its lifetime, its memory
def test_a_client_that_vanishes_mid_turn_ends_the_session_with_nothing_left_running(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    server.add_steps([call("run_command", command=LONG)])
    mcp_pid_file = tmp_path / "mcp.pid"
    editor = Editor(["allow_once"])
    fx = schema.McpServerStdio(name="fx", command=sys.executable, args=[FIXTURE, "--pid-file", str(mcp_pid_file)],
                               env=[])

    async def go() -> tuple[int, Any]:
        async with spawned_agent(editor, server) as (conn, process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[fx])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("wait")]))
            await wait_for(lambda: (ws / "started").exists() and running(SLEEP))
            process.stdin.close()  # the editor is gone: its end of the pipe closes
            code = await asyncio.wait_for(process.wait(), 30)
            turn.cancel()
            return pid_in(mcp_pid_file), code

    mcp_pid, code = run(go)
    assert code == 0
    assert running(SLEEP) == [] and not alive(mcp_pid)


def raw_agent(server: ScriptedServer, lines: list[str]) -> tuple[list[dict[str, Any]], str, int]:
    """Send raw lines to `sneakycode acp`, close its input, and read every answer."""
    proc = subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.main", "acp"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60, env=agent_env(server))
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    return answers, proc.stderr, proc.returncode


def test_malformed_and_unknown_messages_get_json_rpc_errors_and_the_connection_goes_on(
        ws: Path, server: ScriptedServer) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    answers, stderr, code = raw_agent(server, [
        json.dumps(init),
        "this is not json {",
        json.dumps([1, 2, 3]),
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": 42}),
        json.dumps({"jsonrpc": "2.0", "id": 8, "method": "session/teleport", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": "session/new", "params": {"cwd": 5}}),
        json.dumps({"jsonrpc": "2.0", "id": 10, "method": "session/prompt",
                    "params": {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}}),
        json.dumps({"jsonrpc": "2.0", "id": 11, "method": "session/new",
                    "params": {"cwd": "relative/dir", "mcpServers": []}}),
        json.dumps({"jsonrpc": "2.0", "id": 12, "method": "session/fork",
                    "params": {"sessionId": "x", "cwd": str(ws), "mcpServers": []}}),
        json.dumps({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "nope"}}),
    ])
    by_id = {a.get("id"): a for a in answers if a.get("id") is not None}
    nulls = [a["error"]["code"] for a in answers if a.get("id") is None]
    assert nulls == [-32700, -32600]
    assert by_id[7]["error"]["code"] == -32600
    assert by_id[8]["error"]["code"] == -32601
    assert by_id[9]["error"]["code"] == -32602
    assert by_id[10]["error"]["code"] == -32002 and "no session" in json.dumps(by_id[10]["error"])
    assert by_id[11]["error"]["code"] == -32602 and "absolute" in json.dumps(by_id[11]["error"])
    assert by_id[1]["result"]["protocolVersion"] == 1
    assert by_id[12]["error"]["code"] == -32601  # unstable in the SDK: not offered
    assert code == 0 and stderr == "" and "Traceback" not in json.dumps(answers)


def test_a_newer_protocol_version_is_answered_with_ours(ws: Path, server: ScriptedServer) -> None:
    answers, _stderr, code = raw_agent(server, [json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 7}})])
    assert answers[0]["result"]["protocolVersion"] == 1 and answers[0]["result"]["agentInfo"]["name"] == "sneakycode"
    assert code == 0


def test_the_workspace_flag_is_where_sessions_work_whatever_cwd_the_editor_sends(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    (ws / "here.txt").write_text("here\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    server.add_steps([call("read_file", file_path="here.txt"), {"content": "Found it."}])
    editor = Editor()

    async def go() -> Any:
        async with running_agent(editor, server, "--workspace", str(ws)) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(elsewhere), mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=[text_block("read")])

    assert run(go).stop_reason == "end_turn"
    [read] = editor.of(schema.ToolCallStart)
    assert read.locations[0].path == str((ws / "here.txt").resolve())
    assert os.path.exists(ws / "here.txt")


def test_requests_from_a_file_are_answered_into_a_file(ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    requests, answers = tmp_path / "requests.jsonl", tmp_path / "answers.jsonl"
    requests.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                    "params": {"protocolVersion": 1}}) + "\nnot json\n")
    with requests.open("rb") as given, answers.open("wb") as taken:
        proc = subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.main", "acp"], stdin=given, stdout=taken,
                              stderr=subprocess.PIPE, timeout=60, env=agent_env(server))
    lines = [json.loads(line) for line in answers.read_text().splitlines()]
    assert proc.returncode == 0 and proc.stderr == b""
    assert {line.get("id") for line in lines} == {1, None}


def test_run_by_hand_on_a_terminal_it_says_it_speaks_to_editors_and_keeps_serving(ws: Path) -> None:
    """Regression: `sneakycode acp` typed at a terminal printed nothing and seemed to hang."""
    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "sneakycode.faces.cli.main", "acp", "--workspace", str(ws)],
                          env={**os.environ, "NO_COLOR": "1"}, encoding="utf-8", timeout=60)
    child.expect("Agent Client Protocol")
    child.expect("for an editor")
    child.expect("docs/editors.md")
    # Still serving: a request on stdin is answered on stdout.
    child.sendline('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}')
    child.expect('"id": ?1')
    child.sendeof()
    child.expect(pexpect.EOF)
