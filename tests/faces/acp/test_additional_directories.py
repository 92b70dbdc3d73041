"""`additionalDirectories` on session/new (issue 39, multi-root projects), through the ACP SDK's own client
against the scripted server: advertised, mapped to Options.add_dirs, asked like any edit; a bad one refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp import text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, call, finish, initialized, run, running_agent


def test_an_editor_adds_a_folder_and_the_model_edits_in_it_when_allowed(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    """Hardening round three, class multi-root containment: the added folder is part of the session, and its
    edit goes through the editor's permission request like one in the workspace."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("old\n")
    target = str(other / "notes.txt")
    server.add_steps([call("read_file", file_path=target),
                      call("write_file", file_path=target, content="new\n"), finish("Written.")])
    editor = Editor(answers=["allow_once"])

    async def go() -> Any:
        async with running_agent(editor, server) as (conn, _agent):
            init = await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[], additional_directories=[str(other)])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("rewrite the notes")])
            return init

    init = run(go)
    assert init.agent_capabilities.session_capabilities.additional_directories is not None
    assert (other / "notes.txt").read_text() == "new\n"
    [asked] = editor.asked
    assert asked.tool_call.raw_input["file_path"] == target


def test_a_bad_additional_directory_is_refused_and_no_session_starts(ws: Path, server: ScriptedServer) -> None:
    """Hardening round three, class multi-root containment: `/` (or a relative path) is a -32602 that says why."""

    async def go() -> list[Any]:
        answers = []
        async with running_agent(Editor(), server) as (conn, agent):
            await initialized(conn)
            for roots in (["/"], ["relative/dir"]):
                try:
                    await conn.new_session(cwd=str(ws), mcp_servers=[], additional_directories=roots)
                except Exception as exc:
                    answers.append((getattr(exc, "code", None), str(getattr(exc, "data", "")) + str(exc)))
                else:
                    answers.append("started")
            answers.append(len(agent.sessions))
        return answers

    whole, relative, opened = run(go)
    assert whole[0] == -32602 and "whole file system" in whole[1]
    assert relative[0] == -32602 and "absolute" in relative[1]
    assert opened == 0 and server.requests == []
