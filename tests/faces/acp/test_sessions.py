"""Sessions as an editor holds them: saved and loaded again (the history replayed as updates, then continued),
the permission modes it can switch, the commands it lists, and the MCP servers it brings."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config
from tests.extensions.mcp.servers import FIXTURE, alive, pid_in
from tests.faces.acp.conftest import Editor, agent_env, call, finish, initialized, run, running_agent


def test_a_saved_session_is_loaded_with_its_history_replayed_and_goes_on(ws: Path, server: ScriptedServer) -> None:
    (ws / "calc.py").write_text("x = 1\n")
    server.add_steps([call("read_file", file_path="calc.py"), finish("It sets x."),
                      {"content": "Still x = 1."}])
    first, second = Editor(), Editor()

    async def start() -> str:
        async with running_agent(first, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("what is in calc.py?")])
            return str(new.session_id)

    session_id = run(start)

    async def reload() -> tuple[Any, Any, int]:
        async with running_agent(second, server) as (conn, _process):
            init = await initialized(conn)
            assert init.agent_capabilities.load_session
            loaded = await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
            # Everything that came before the load's answer, in the order it came.
            replayed = [m for m in second.wire if m["direction"] == "incoming"].index(
                next(m for m in second.wire if m["direction"] == "incoming" and "result" in m and m.get("id") == 1))
            answer = await conn.prompt(session_id=session_id, prompt=[text_block("and now?")])
            return loaded, answer, replayed

    loaded, answer, replayed = run(reload)
    assert loaded.modes.current_mode_id == "default"
    before = [schema.SessionNotification.model_validate(m["params"]).update
              for m in [m for m in second.wire if m["direction"] == "incoming"][:replayed]
              if m.get("method") == "session/update"]
    users = [u.content.text for u in before if isinstance(u, schema.UserMessageChunk)]
    assert users == ["what is in calc.py?"]
    [read] = [u for u in before if isinstance(u, schema.ToolCallStart)]
    assert (read.kind, read.title) == ("read", "Read calc.py")
    assert any(isinstance(u, schema.ToolCallProgress) and u.tool_call_id == read.tool_call_id
               and u.status == "completed" for u in before)
    assert answer.stop_reason == "end_turn" and second.text().endswith("Still x = 1.")
    # The model got the whole conversation back: the loaded session continued, it did not start afresh.
    sent = server.requests[-1].body["messages"]
    assert next(m["content"] for m in sent if m["role"] == "user") == "what is in calc.py?"


def test_an_unknown_session_is_resource_not_found_and_names_no_command_line_flag(
        ws: Path, server: ScriptedServer) -> None:
    """Loading, resuming, prompting or closing a session that does not exist answers -32002 Resource not found
    (the schema's code), in words an editor user can act on: no `--resume` they never typed."""
    unknown = "20990101-000000-000000-dead"

    async def go() -> list[tuple[int, str]]:
        async with running_agent(Editor(), server) as (conn, _process):
            await initialized(conn)
            answers = []
            for attempt in (lambda: conn.load_session(cwd=str(ws), session_id=unknown, mcp_servers=[]),
                            lambda: conn.resume_session(cwd=str(ws), session_id=unknown, mcp_servers=[]),
                            lambda: conn.prompt(session_id=unknown, prompt=[text_block("hi")]),
                            lambda: conn.close_session(session_id=unknown)):
                try:
                    await attempt()
                except Exception as exc:
                    answers.append((getattr(exc, "code", 0), json.dumps(getattr(exc, "data", None))))
                else:
                    answers.append((0, "answered"))
            return answers

    answers = run(go)
    assert [code for code, _ in answers] == [-32002] * 4, answers
    assert all(unknown in data and "--resume" not in data for _, data in answers)
    assert "no saved session" in answers[0][1]


def test_modes_plan_refuses_edits_without_asking_and_auto_edit_runs_them(ws: Path, server: ScriptedServer) -> None:
    (ws / "a.txt").write_text("a\n")
    server.add_steps([
        call("read_file", file_path="a.txt"), call("write_file", file_path="a.txt", content="planned\n"),
        {"content": "Planned."},
        call("write_file", file_path="a.txt", content="edited\n"), {"content": "Edited."},
    ])
    editor = Editor(["allow_once"])

    async def go() -> tuple[Any, list[str]]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
            await conn.prompt(session_id=new.session_id, prompt=[text_block("plan")])
            after_plan = (ws / "a.txt").read_text()
            await conn.set_session_mode(session_id=new.session_id, mode_id="auto-edit")
            await conn.prompt(session_id=new.session_id, prompt=[text_block("edit")])
            return new, [after_plan]

    new, [after_plan] = run(go)
    assert [m.id for m in new.modes.available_modes] == ["default", "auto-edit", "plan"]
    assert after_plan == "a\n" and (ws / "a.txt").read_text() == "edited\n"
    assert editor.asked == []  # plan refused on its own, auto-edit approved on its own
    assert [u.current_mode_id for u in editor.of(schema.CurrentModeUpdate)] == ["plan", "auto-edit"]


def test_an_unknown_mode_is_refused_and_changes_nothing(ws: Path, server: ScriptedServer) -> None:
    async def go() -> str:
        async with running_agent(Editor(), server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            try:
                await conn.set_session_mode(session_id=new.session_id, mode_id="anything-goes")
            except Exception as exc:
                return f"{getattr(exc, 'code', '')} {getattr(exc, 'data', '')}"
            return "accepted"

    assert run(go).startswith("-32602")


def test_the_editor_lists_our_commands_custom_commands_skills_and_its_mcp_servers_prompts(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    (ws / ".sneakycode" / "commands").mkdir(parents=True)
    (ws / ".sneakycode" / "commands" / "review.md").write_text("---\ndescription: Review the diff\n---\nReview it.")
    skill = ws / ".sneakycode" / "skills" / "release"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: release\ndescription: Cut a release\n---\nSteps.")
    pid_file = tmp_path / "mcp.pid"
    server.add_steps([call("mcp__fx__echo", text="from the editor's server"), finish("Echoed.")])
    editor = Editor(["allow_once"])
    fx = schema.McpServerStdio(name="fx", command=sys.executable, args=[FIXTURE, "--pid-file", str(pid_file)], env=[])

    async def go() -> tuple[Any, int]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[fx])
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("echo")])
            return answer, pid_in(pid_file)

    answer, mcp_pid = run(go)
    [listed] = editor.of(schema.AvailableCommandsUpdate)
    names = [c.name for c in listed.available_commands]
    assert names[:2] == ["clear", "compact"]
    assert {"review", "release", "mcp__fx__greet", "mcp__fx__review"} <= set(names)
    # The editor's server was started without any trust (nothing of the repository asked for it) and used.
    assert answer.stop_reason == "end_turn"
    [echo] = editor.of(schema.ToolCallStart)
    assert echo.title.startswith("mcp__fx__echo")
    tool_messages = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert "echo: from the editor's server" in tool_messages[0]
    assert not alive(mcp_pid)  # stopped with the session when the editor went


def test_a_slash_command_of_the_editor_face_clears_the_conversation(ws: Path, server: ScriptedServer) -> None:
    """/clear is the session's verb, as in the terminal: the SessionStart hooks run again (issue 36: the editor's
    /clear skipped them, so the context they add was the start-up one)."""
    counting = "import pathlib; p = pathlib.Path('starts'); n = len(p.read_text()) if p.exists() else 0; " \
               "p.write_text('x' * (n + 1)); print(f'SessionStart run {n + 1}')"
    hook = {"type": "command", "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(counting)}"}
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    project_config(ws, "", trusted=True)
    server.add_steps([{"content": "First."}, {"content": "Fresh."}])
    editor = Editor()

    async def go() -> Any:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("remember 42")])
            cleared = await conn.prompt(session_id=new.session_id, prompt=[text_block("/clear")])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("what number?")])
            return cleared

    cleared = run(go)
    assert cleared.stop_reason == "end_turn" and "Conversation cleared." in editor.text()
    users = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "user"]
    assert users == ["what number?"]
    system = server.requests[-1].body["messages"][0]["content"]
    assert "SessionStart run 2" in system and "SessionStart run 1" not in system



def plant_session(folder: Path, ws: Path) -> list[str]:
    """A session folder outside the state folder, as a hostile file or repository could leave one; its names."""
    folder.mkdir()
    (folder / "meta.json").write_text(json.dumps({"id": folder.name, "workspace": str(ws.resolve()),
                                                  "created": 1.0, "kind": "agent"}))
    (folder / "transcript.jsonl").write_text(json.dumps(
        {"type": "message", "time": 1.0, "message": {"role": "user", "content": "planted instructions"}}) + "\n")
    return sorted(p.name for p in folder.iterdir())


def test_a_session_id_that_is_a_path_is_refused_and_nothing_outside_the_state_folder_is_loaded(
        ws: Path, server: ScriptedServer, tmp_path: Path) -> None:
    """Hardening round three, class 7: a session id is a name, looked up only inside the state folder."""
    state = tmp_path / "state"
    (state / "sessions").mkdir(parents=True)  # as any earlier session leaves it, so `..` can be walked
    planted = tmp_path / "planted"
    before = plant_session(planted, ws)
    editor = Editor()

    async def go() -> list[str]:
        async with running_agent(editor, server, env=agent_env(server, SNEAKYCODE_STATE_DIR=str(state))) as (
                conn, _process):
            await initialized(conn)
            refused = []
            for session_id in ("../../planted", str(planted), "../planted", "a/b", "x\nrm"):
                try:
                    await conn.load_session(cwd=str(ws), session_id=session_id, mcp_servers=[])
                except Exception as exc:
                    refused.append(f"{getattr(exc, 'code', '')} {getattr(exc, 'data', '') or exc}")
                else:
                    refused.append("loaded")
            return refused

    refused = run(go)
    assert all(answer.startswith("-32602") and "not a session id" in answer for answer in refused), refused
    assert editor.of(schema.UserMessageChunk) == []  # nothing was replayed to the editor
    assert server.requests == []  # nor sent to the model
    assert sorted(p.name for p in planted.iterdir()) == before  # nor written there (checkpoints, transcript)
    assert "planted instructions" in (planted / "transcript.jsonl").read_text()
    assert len((planted / "transcript.jsonl").read_text().splitlines()) == 1


def test_a_mode_that_was_not_offered_is_refused_and_the_mode_stays(ws: Path, server: ScriptedServer) -> None:
    """Hardening round three, class 11: session/set_mode took `yolo`, which availableModes did not list."""
    # A new file: an edit of a file never read is refused before anyone is asked (issue 37), which would hide
    # whether the mode stayed one that asks.
    server.add_steps([call("write_file", file_path="new.txt", content="yolo\n"), {"content": "Tried."}])
    editor = Editor(["reject_once"])

    async def go() -> tuple[list[str], str, Any]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            offered = [mode.id for mode in new.modes.available_modes]
            try:
                await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
            except Exception as exc:
                refused = f"{getattr(exc, 'code', '')} {getattr(exc, 'data', '')}"
            else:
                refused = "accepted"
            answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("write a.txt")])
            return offered, refused, answer

    offered, refused, answer = run(go)
    assert "yolo" not in offered
    assert refused.startswith("-32602") and "'yolo' is not one of default, auto-edit, plan" in refused
    assert editor.of(schema.CurrentModeUpdate) == []
    assert answer.stop_reason == "end_turn" and len(editor.asked) == 1  # still asked: the mode stayed default
    assert not (ws / "new.txt").exists()
