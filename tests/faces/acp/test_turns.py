"""A turn as the editor sees it: streamed text and reasoning, tool calls with their kind, title, location and
diff, permission questions answered once / always / rejected, and how the turn ended (its stop reason)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, agent_env, call, finish, initialized, run, running_agent

CALC = "def add(a, b):\n    return a - b\n"


def one_session(editor: Editor, server: ScriptedServer, ws: Path, *prompts: str,
                env: dict[str, str] | None = None) -> list[schema.PromptResponse]:
    async def go() -> list[schema.PromptResponse]:
        async with running_agent(editor, server, env=env) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            return [await conn.prompt(session_id=new.session_id, prompt=[text_block(p)]) for p in prompts]

    result: list[schema.PromptResponse] = run(go)
    return result


def starts(editor: Editor) -> list[schema.ToolCallStart]:
    return editor.of(schema.ToolCallStart)


def ends(editor: Editor) -> dict[str, schema.ToolCallProgress]:
    return {u.tool_call_id: u for u in editor.of(schema.ToolCallProgress) if u.status in ("completed", "failed")}


def test_a_read_and_an_edit_stream_as_tool_calls_with_kind_location_and_a_diff_asked_once(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "calc.py").write_text(CALC)
    server.add_steps([
        {"content": "Let me look.", "reasoning": "The test fails on add.", **call("read_file", file_path="calc.py")},
        call("str_replace", file_path="calc.py", old_str="a - b", new_str="a + b"),
        finish("add() adds now."),
    ])
    editor = Editor(["allow_once"])
    [response] = one_session(editor, server, ws, "fix add")

    assert response.stop_reason == "end_turn"
    assert (ws / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    read, edit = starts(editor)
    target = str((ws / "calc.py").resolve())
    assert (read.kind, read.title, [loc.path for loc in read.locations or []]) == ("read", "Read calc.py", [target])
    assert (edit.kind, edit.title) == ("edit", "Edit calc.py")
    assert [(loc.path, loc.line) for loc in edit.locations or []] == [(target, 2)]
    [diff] = [c for c in edit.content or [] if isinstance(c, schema.FileEditToolCallContent)]
    assert (diff.path, diff.old_text, diff.new_text) == (target, CALC, "def add(a, b):\n    return a + b\n")
    # Asked once, about the call the editor was shown, with the diff and the four choices.
    [asked] = editor.asked
    assert asked.tool_call.tool_call_id == edit.tool_call_id
    assert [o.kind for o in asked.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert isinstance((asked.tool_call.content or [None])[0], schema.FileEditToolCallContent)
    done = ends(editor)
    assert done[read.tool_call_id].status == "completed" and done[edit.tool_call_id].status == "completed"
    assert any(isinstance(c, schema.FileEditToolCallContent) for c in done[edit.tool_call_id].content or [])
    assert "Let me look." in editor.text() and editor.text().endswith("add() adds now.")
    thoughts = [u.content.text for u in editor.of(schema.AgentThoughtChunk)]
    assert "".join(thoughts) == "The test fails on add."  # streamed as it arrived
    # The edit's start reached the editor before the question about it, and the question before its result.
    order = [m.get("method") or "response" for m in editor.wire if m["direction"] == "incoming"]
    assert order.index("session/request_permission") > 0


def test_allow_always_adds_the_session_rule_so_the_same_edit_is_not_asked_again(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "notes.md").write_text("one\n")
    server.add_steps([
        call("read_file", file_path="notes.md"),
        call("str_replace", file_path="notes.md", old_str="one", new_str="two"),
        call("str_replace", file_path="notes.md", old_str="two", new_str="three"),
        finish("Done."),
    ])
    editor = Editor(["allow_always"])
    [response] = one_session(editor, server, ws, "edit twice")
    assert response.stop_reason == "end_turn"
    assert (ws / "notes.md").read_text() == "three\n"
    assert len(editor.asked) == 1
    [always] = [o for o in editor.asked[0].options if o.kind == "allow_always"]
    assert "str_replace(notes.md)" in always.name


def test_rejected_calls_change_nothing_and_reject_always_is_not_asked_again(ws: Path, server: ScriptedServer) -> None:
    (ws / "notes.md").write_text("one\n")
    server.add_steps([
        call("read_file", file_path="notes.md"),
        call("str_replace", file_path="notes.md", old_str="one", new_str="two"),
        call("run_command", command="touch made-by-command"),
        call("run_command", command="touch made-by-command"),
        finish("Gave up."),
    ])
    editor = Editor(["reject_once", "reject_always"])
    [response] = one_session(editor, server, ws, "try things")
    assert response.stop_reason == "end_turn"
    assert (ws / "notes.md").read_text() == "one\n" and not (ws / "made-by-command").exists()
    assert len(editor.asked) == 2  # the second identical command was refused without asking
    failed = [u for u in ends(editor).values() if u.status == "failed"]
    assert len(failed) == 3
    told = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert "the user declined str_replace" in told[1]
    assert "rejected run_command(touch made-by-command) for the rest of this session" in told[3]


def test_the_task_list_is_the_editors_plan_and_a_command_is_an_execute_call(ws: Path, server: ScriptedServer) -> None:
    server.add_steps([
        call("update_tasks", tasks=[{"id": "1", "content": "Look around", "status": "in_progress"},
                                    {"id": "2", "content": "Report", "status": "pending"}]),
        call("run_command", command="echo hello"),
        finish("Said hello."),
    ])
    editor = Editor(["allow_once"])
    one_session(editor, server, ws, "plan it")
    [plan] = editor.of(schema.AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [("Look around", "in_progress"), ("Report", "pending")]
    kinds = [(s.kind, s.title) for s in starts(editor)]
    assert kinds == [("think", "update_tasks"), ("execute", "Run echo hello")]
    command = starts(editor)[1].tool_call_id
    shown = ends(editor)[command].content or []
    assert any(isinstance(c, schema.ContentToolCallContent) and "hello" in c.content.text for c in shown)


def stop_reason_for(ws: Path, server: ScriptedServer, steps: list[dict[str, Any]], env: dict[str, str] | None = None,
                    ) -> str:
    server.add_steps(steps)
    editor = Editor()
    [response] = one_session(editor, server, ws, "go", env=env)
    return str(response.stop_reason)


@pytest.mark.parametrize(("steps", "more_env", "expected"), [
    ([{"content": "No.", "finish_reason": "content_filter"}], {}, "refusal"),
    ([{"content": "Cut sh", "finish_reason": "length"}], {}, "max_tokens"),
    ([call("list_dir")], {"SNEAKYCODE_MAX_TURNS": "1"}, "max_turn_requests"),
], ids=["refusal", "reply-cut-at-its-cap", "max-turns"])
def test_stop_reasons_say_why_a_turn_ended(ws: Path, server: ScriptedServer, steps: list[dict[str, Any]],
                                           more_env: dict[str, str], expected: str) -> None:
    assert stop_reason_for(ws, server, steps, env=agent_env(server, **more_env)) == expected


def test_a_second_prompt_while_one_runs_is_refused_and_the_first_ends_normally(
        ws: Path, server: ScriptedServer) -> None:
    server.add_steps([{"content": "slow reply " * 20, "chunk_delay": 0.2}])
    editor = Editor()

    async def go() -> tuple[Any, BaseException | None]:
        async with running_agent(editor, server) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            first = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("a")]))
            await asyncio.sleep(0.5)
            try:
                await conn.prompt(session_id=new.session_id, prompt=[text_block("b")])
                second = None
            except Exception as exc:  # the RequestError the client raises for an error answer
                second = exc
            return await first, second

    first, second = run(go)
    assert first.stop_reason == "end_turn" and "already running" in str(getattr(second, "data", second))


def test_a_failed_model_request_is_a_json_rpc_error_and_the_session_stays_usable(
        ws: Path, server: ScriptedServer) -> None:
    server.add_steps([{"fault": "status", "status": 401, "message": "bad key"}, {"content": "Back."}])
    editor = Editor()

    async def go() -> tuple[Any, Any]:
        async with running_agent(editor, server, env=agent_env(server, SNEAKYCODE_MAX_RETRIES="0")) as (conn, _p):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            try:
                failed: Any = await conn.prompt(session_id=new.session_id, prompt=[text_block("first")])
            except Exception as exc:
                failed = exc
            again = await conn.prompt(session_id=new.session_id, prompt=[text_block("second")])
            return failed, again

    failed, again = run(go)
    assert getattr(failed, "code", None) == -32603 and "model request failed" in str(failed).lower()
    assert again.stop_reason == "end_turn" and editor.text().endswith("Back.")


def test_a_subagents_calls_are_shown_under_their_own_ids_and_its_finish_is_not_the_reply(
        ws: Path, server: ScriptedServer) -> None:
    (ws / "retry.py").write_text("RETRY_LIMIT = 3\n")
    server.add_steps([
        call("task", agent="explore", prompt="Where is RETRY_LIMIT set?", description="find retry limit"),
        call("read_file", file_path="retry.py"),
        finish("retry.py line 1"),
        finish("RETRY_LIMIT is 3, in retry.py."),
    ])
    editor = Editor()
    [response] = one_session(editor, server, ws, "where is the retry limit?")
    assert response.stop_reason == "end_turn"
    ids = [s.tool_call_id for s in starts(editor)]
    assert len(ids) == len(set(ids)) == 2
    task, read = starts(editor)
    assert task.kind in ("think", "other") and read.kind == "read" and read.tool_call_id.startswith("explore")
    assert ends(editor)[read.tool_call_id].status == "completed"
    assert editor.text() == "RETRY_LIMIT is 3, in retry.py."


def test_a_deny_rule_holds_whatever_the_editor_would_answer(ws: Path, server: ScriptedServer) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('[permissions]\ndeny = ["run_command(touch:*)"]\n')
    server.add_steps([call("run_command", command="touch forbidden"), finish("Could not.")])
    editor = Editor(["allow_always"])
    [response] = one_session(editor, server, ws, "touch it")
    assert response.stop_reason == "end_turn"
    assert editor.asked == [] and not (ws / "forbidden").exists()
    [command] = starts(editor)
    assert ends(editor)[command.tool_call_id].status == "failed"


def test_allow_always_for_a_compound_command_covers_every_part_not_only_the_last(
        ws: Path, server: ScriptedServer) -> None:
    """Issue 37: "always" for `sleep 0; echo done` must not stand for `echo done:*` alone."""
    server.add_steps([
        call("run_command", command="sleep 0; echo done"),
        call("run_command", command="sleep 0; echo done"),
        call("run_command", command="sleep 0; touch made"),
        finish("Done."),
    ])
    editor = Editor(["allow_always", "reject_once"])
    [response] = one_session(editor, server, ws, "wait, then say done")
    assert response.stop_reason == "end_turn"
    [always] = [o for o in editor.asked[0].options if o.kind == "allow_always"]
    assert "run_command(sleep:*)" in always.name and "run_command(echo done:*)" in always.name
    # The same line again is covered; a line whose other part no rule covers is asked about.
    assert len(editor.asked) == 2 and editor.asked[1].tool_call.raw_input["command"] == "sleep 0; touch made"
    assert not (ws / "made").exists()


def test_two_alike_calls_in_one_reply_each_get_their_own_permission_question(ws: Path, server: ScriptedServer) -> None:
    """Regression (issue 36): the approver was told only the tool and its arguments, so the editor face guessed
    which announced call a question was about: two alike read-only calls of one reply (announced together) were
    both asked about under the second one's id. Now the approver gets the call's id, and each question names its
    own call."""
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('[permissions]\nask = ["read_file"]\n')
    (ws / "notes.md").write_text("one\n")
    read = {"name": "read_file", "arguments": {"file_path": "notes.md"}}
    server.add_steps([{"tool_calls": [read, read]}, finish("Done.")])
    editor = Editor(["allow_once", "reject_once"])
    [response] = one_session(editor, server, ws, "read it twice")
    assert response.stop_reason == "end_turn"
    first, second = starts(editor)
    assert first.tool_call_id != second.tool_call_id
    assert sorted(asked.tool_call.tool_call_id for asked in editor.asked) == sorted([first.tool_call_id,
                                                                                     second.tool_call_id])
