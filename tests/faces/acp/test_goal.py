"""`/goal CMD` in the editor face (issue 40): ACP's config options are pickers, so a goal's check command, which
is free text, is set with the face's own slash command, through `Session.set_goal` as the terminal's /goal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, call, finish, initialized, run, running_agent


def test_slash_goal_in_the_editor_makes_the_next_request_run_until_its_check_passes(ws: Path,
                                                                                    server: ScriptedServer) -> None:
    (ws / "app.py").write_text("x = 1\n")
    (ws / "check_app.py").write_text("from app import x\nassert x == 2\n")
    server.add_steps([finish("Nothing to do."), call("read_file", file_path="app.py"),
                      call("str_replace", file_path="app.py", old_str="x = 1", new_str="x = 2"),
                      finish("Changed x to 2.")])
    editor = Editor(answers=["allow_once"] * 4)  # the check runs as the user's own run_command would

    async def go() -> Any:
        async with running_agent(editor, server, "--workspace", str(ws)) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.set_session_mode(session_id=new.session_id, mode_id="auto-edit")
            await conn.prompt(session_id=new.session_id, prompt=[text_block("/goal python3 check_app.py")])
            return await conn.prompt(session_id=new.session_id, prompt=[text_block("set x to 2")])

    answer = run(go)
    assert answer.stop_reason == "end_turn"
    listed = editor.of(schema.AvailableCommandsUpdate)[0].available_commands
    goal = next(command for command in listed if command.name == "goal")
    assert goal.input is not None and "check command" in goal.input.root.hint
    assert "Goal set: each request runs until `python3 check_app.py` passes" in editor.text()
    assert (ws / "app.py").read_text() == "x = 2\n" and len(server.chat_requests) == 4
    assert (ws / "check_app.py").read_text() == "from app import x\nassert x == 2\n"


def test_a_goal_the_session_refuses_is_said_and_nothing_runs(ws: Path, server: ScriptedServer) -> None:
    editor = Editor()

    async def go() -> None:
        async with running_agent(editor, server, "--workspace", str(ws)) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("/goal")])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("/goal \x00")])

    run(go)
    assert "No goal set: /goal CMD sets one" in editor.text() and "Goal not set:" in editor.text()
    assert server.chat_requests == []
