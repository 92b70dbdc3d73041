"""An editor's thread history over ACP (issue 39): `session/list` with titles (`session_info_update`),
`session/close` ending a session's MCP servers and jobs while the connection goes on, `session/resume`
reopening a thread without replaying it, and `session/load` replaying a session as richly as it was shown
live: diffs and lines of edits, reasoning, a dragged-in file as a link, the mode."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.extensions.mcp.servers import FIXTURE, alive, pid_in
from tests.faces.acp.conftest import Editor, call, finish, initialized, run, running_agent
from tests.faces.acp.test_lifecycle import running, wait_for

CALC = "def add(a, b):\n    return a - b\n"


def test_sessions_are_listed_latest_first_with_titles_told_as_they_are_known(ws: Path, server: ScriptedServer) -> None:
    server.add_steps([{"content": "One."}, {"content": "Two."}])
    editor = Editor()

    async def go() -> tuple[list[str], Any, Any]:
        async with running_agent(editor, server) as (conn, _agent):
            init = await initialized(conn)
            ids = []
            for words in ("fix the parser", "write the docs"):
                new = await conn.new_session(cwd=str(ws), mcp_servers=[])
                await conn.prompt(session_id=new.session_id, prompt=[text_block(words)])
                ids.append(new.session_id)
            listed = await conn.list_sessions(cwd=str(ws))
            return ids, init, listed

    ids, init, listed = run(go)
    capabilities = init.agent_capabilities.session_capabilities
    assert capabilities.list is not None and capabilities.close is not None and capabilities.resume is not None
    assert [(s.session_id, s.title, s.cwd) for s in listed.sessions] == [
        (ids[1], "write the docs", str(ws.resolve())), (ids[0], "fix the parser", str(ws.resolve()))]
    assert all(s.updated_at for s in listed.sessions) and listed.next_cursor is None
    told = [(sid, u.title) for sid, u in editor.updates if isinstance(u, schema.SessionInfoUpdate)]
    assert told == [(ids[0], "fix the parser"), (ids[1], "write the docs")]  # once each


def test_closing_a_session_ends_its_mcp_servers_and_jobs_and_the_connection_goes_on(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    mcp_pid_file, job = tmp_path / "mcp.pid", "sleep 117.3197"
    server.add_steps([call("run_command", command=f"exec {job}", background=True),
                      finish("Started."), {"content": "Still here."}])
    editor = Editor(["allow_once"])
    fx = schema.McpServerStdio(name="fx", command=sys.executable, args=[FIXTURE, "--pid-file", str(mcp_pid_file)],
                               env=[])

    async def go() -> tuple[bool, bool, Any, Any]:
        async with running_agent(editor, server) as (conn, _agent):
            await initialized(conn)
            closing = await conn.new_session(cwd=str(ws), mcp_servers=[fx])
            staying = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=closing.session_id, prompt=[text_block("start the server")])
            mcp_pid = pid_in(mcp_pid_file)
            await wait_for(lambda: bool(running(job)))
            assert alive(mcp_pid)
            await conn.close_session(session_id=closing.session_id)
            gone = (not alive(mcp_pid), not running(job))
            other = await conn.prompt(session_id=staying.session_id, prompt=[text_block("still there?")])
            try:
                await conn.prompt(session_id=closing.session_id, prompt=[text_block("and you?")])
            except Exception as exc:
                closed: Any = getattr(exc, "code", exc)
            else:
                closed = "answered"
            return *gone, other, closed

    mcp_gone, job_gone, other, closed = run(go)
    assert mcp_gone and job_gone  # ended by session/close, not by the end of the connection
    assert other.stop_reason == "end_turn" and editor.text().endswith("Still here.")
    assert closed == -32002


def test_a_resumed_session_is_not_replayed_and_goes_on_with_its_conversation(ws: Path, server: ScriptedServer) -> None:
    server.add_steps([{"content": "Noted: the answer is 42."}, {"content": "It was 42."}])
    first, second = Editor(), Editor()

    async def start() -> str:
        async with running_agent(first, server) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.set_session_mode(session_id=new.session_id, mode_id="auto-edit")
            await conn.prompt(session_id=new.session_id, prompt=[text_block("remember 42")])
            return str(new.session_id)

    session_id = run(start)

    async def resume() -> Any:
        async with running_agent(second, server) as (conn, _agent):
            await initialized(conn)
            resumed = await conn.resume_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
            await conn.prompt(session_id=session_id, prompt=[text_block("what was it?")])
            return resumed

    resumed = run(resume)
    assert resumed.modes.current_mode_id == "auto-edit"
    assert second.of(schema.UserMessageChunk) == [] and second.of(schema.AgentThoughtChunk) == []
    assert second.text() == "It was 42."  # nothing of the first turn was sent again
    sent = server.requests[-1].body["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][:1] == ["remember 42"]


def shown(updates: list[Any]) -> dict[str, Any]:
    """What an editor ends up showing: the user's blocks, the thoughts, and each tool call's start and end
    (what matters of them), in order."""
    seen: dict[str, Any] = {"user": [], "thought": "", "starts": [], "ends": []}
    for update in updates:
        if isinstance(update, schema.UserMessageChunk):
            seen["user"].append(update.content.model_dump(exclude_none=True))
        elif isinstance(update, schema.AgentThoughtChunk):
            seen["thought"] += update.content.text
        elif isinstance(update, schema.ToolCallStart):
            seen["starts"].append(update.model_dump(exclude={"status"}, exclude_none=True))
        elif isinstance(update, schema.ToolCallProgress) and update.status in ("completed", "failed"):
            seen["ends"].append(update.model_dump(exclude_none=True))
    return seen


def test_a_loaded_session_shows_the_same_diffs_lines_reasoning_links_and_mode_as_live(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "calc.py").write_text(CALC)
    server.add_steps([
        {"reasoning": "The sign is wrong.", **call("str_replace", file_path="calc.py", old_str="a - b",
                                                     new_str="a + b")},
        finish("add() adds now."),
    ])
    live, replayed = Editor(["allow_once"]), Editor()
    link = schema.ResourceContentBlock(type="resource_link", uri=(ws / "calc.py").resolve().as_uri(), name="calc.py")

    async def start() -> str:
        async with running_agent(live, server) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
            await conn.set_session_mode(session_id=new.session_id, mode_id="default")
            await conn.prompt(session_id=new.session_id, prompt=[text_block("fix add in "), link])
            await conn.set_session_mode(session_id=new.session_id, mode_id="auto-edit")
            return str(new.session_id)

    session_id = run(start)

    async def load() -> Any:
        async with running_agent(replayed, server) as (conn, _agent):
            await initialized(conn)
            return await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])

    loaded = run(load)
    was, again = shown([u for _s, u in live.updates]), shown([u for _s, u in replayed.updates])
    # The editor showed the user's own blocks live; the load sends them back as they were sent.
    assert again["user"] == [{"type": "text", "text": "fix add in "}, link.model_dump(exclude_none=True)]
    assert again["thought"] == was["thought"] == "The sign is wrong."
    assert again["starts"] == was["starts"] and len(was["starts"]) == 1
    [start] = was["starts"]
    assert start["locations"] == [{"path": str((ws / "calc.py").resolve()), "line": 2}]
    assert start["content"][0]["type"] == "diff" and start["field_meta"] == {"toolName": "str_replace"}
    assert again["ends"] == was["ends"]
    assert replayed.text() == live.text() == "add() adds now."
    assert loaded.modes.current_mode_id == "auto-edit"
    # Replayed in the order it happened: the request, the thought, the call, its end, the reply.
    order = [type(u).__name__ for _s, u in replayed.updates
             if not isinstance(u, (schema.AvailableCommandsUpdate, schema.CurrentModeUpdate))]
    assert order[:6] == ["UserMessageChunk", "UserMessageChunk", "AgentThoughtChunk", "ToolCallStart",
                         "ToolCallProgress", "AgentMessageChunk"]


def test_a_loaded_session_never_comes_back_in_a_mode_the_editor_could_not_choose(
        ws: Path, server: ScriptedServer) -> None:
    """Hardening round three, class 11: the mode a loaded session restores is one the editor offers; a `yolo`
    written into its history (by a hostile file, or a session started with --mode yolo) is not restored."""
    server.add_steps([{"content": "Hi."}])

    async def start() -> str:
        async with running_agent(Editor(), server) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
            return str(new.session_id)

    session_id = run(start)
    [transcript] = (Path.home()).rglob(f"{session_id}/transcript.jsonl")
    with transcript.open("a") as fh:
        fh.write('{"type": "mode", "time": 1.0, "mode": "yolo"}\n')

    async def load() -> Any:
        async with running_agent(Editor(), server) as (conn, _agent):
            await initialized(conn)
            return await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])

    loaded = run(load)
    assert loaded.modes.current_mode_id == "default"
    assert "yolo" not in [mode.id for mode in loaded.modes.available_modes]
