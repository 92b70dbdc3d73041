"""What editors expect of an agent beyond the first round (issue 39): configOptions and
session/set_config_option (model from the server's list, small model, mode, reasoning effort where the model
takes one), usage_update for the context meter, a terminal setup method in authMethods, tool calls that carry
only the tool's inputs and its name, and a cancelled question that says it was cancelled."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import schema, text_block

from sneakycode.testing.server import ScriptedServer
from tests.faces.acp.conftest import Editor, agent_env, call, initialized, run, running_agent


def options_by_id(options: list[Any]) -> dict[str, Any]:
    return {option.root.id if hasattr(option, "root") else option.id:
            option.root if hasattr(option, "root") else option for option in options}


def test_config_options_offer_the_servers_models_the_mode_and_the_effort_and_set_them(ws: Path) -> None:
    with ScriptedServer({"steps": [{"content": "On the big one."}],
                         "models": ["scripted-model", "deepseek-v3.2"]}) as server:
        editor = Editor()

        async def go() -> tuple[Any, Any, Any, Any]:
            async with running_agent(editor, server) as (conn, _agent):
                await initialized(conn)
                new = await conn.new_session(cwd=str(ws), mcp_servers=[])
                switched = await conn.set_config_option(session_id=new.session_id, config_id="model",
                                                        value="deepseek-v3.2")
                await conn.set_config_option(session_id=new.session_id, config_id="reasoning_effort", value="high")
                moded = await conn.set_config_option(session_id=new.session_id, config_id="mode", value="plan")
                try:
                    await conn.set_config_option(session_id=new.session_id, config_id="mode", value="yolo")
                except Exception as exc:
                    refused: Any = (getattr(exc, "code", None), str(getattr(exc, "data", "")))
                else:
                    refused = "accepted"
                await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
                return new, switched, moded, refused

        new, switched, moded, refused = run(go)
        offered = options_by_id(new.config_options)
        assert set(offered) == {"model", "small_model", "mode"}  # scripted-model takes no effort
        assert offered["model"].current_value == "scripted-model"
        assert [o.value for o in offered["model"].options] == ["scripted-model", "deepseek-v3.2"]
        assert offered["mode"].current_value == "default" and offered["model"].category == "model"
        after = options_by_id(switched.config_options)
        assert after["model"].current_value == "deepseek-v3.2"
        assert [o.value for o in after["reasoning_effort"].options] == ["low", "medium", "high"]
        assert options_by_id(moded.config_options)["mode"].current_value == "plan"
        assert refused[0] == -32602 and "yolo" in refused[1]
        assert [u.current_mode_id for u in editor.of(schema.CurrentModeUpdate)] == ["plan"]
        body = server.requests[-1].body
        assert body["model"] == "deepseek-v3.2" and body.get("reasoning_effort") == "high"


def test_usage_updates_fill_the_context_meter(ws: Path, server: ScriptedServer) -> None:
    from tests.conftest import project_config

    project_config(ws, '[pricing."scripted-model"]\ninput = 2.0\noutput = 10.0\n')
    server.add_steps([{"content": "Counted.", "usage": {"prompt_tokens": 5200, "completion_tokens": 30}}])
    editor = Editor()

    async def go() -> None:
        async with running_agent(editor, server, env=agent_env(server, SNEAKYCODE_CONTEXT_WINDOW="64000")) as (
                conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("count")])

    run(go)
    [usage] = editor.of(schema.UsageUpdate)
    assert (usage.used, usage.size) == (5230, 64000)
    assert usage.cost is not None and usage.cost.currency == "USD"
    assert abs(usage.cost.amount - (5200 * 2.0 + 30 * 10.0) / 1e6) < 1e-9


def test_a_terminal_setup_method_is_advertised_and_a_session_without_a_model_asks_for_it(
        ws: Path, server: ScriptedServer) -> None:
    bare = {key: value for key, value in agent_env(server).items()
            if not key.startswith("SNEAKYCODE_") and key != "OPENAI_API_KEY"}

    async def go() -> tuple[Any, Any]:
        async with running_agent(Editor(), server, env=bare) as (conn, _agent):
            init = await initialized(conn)
            try:
                await conn.new_session(cwd=str(ws), mcp_servers=[])
            except Exception as exc:
                return init, getattr(exc, "code", exc)
            return init, "started"

    init, refused = run(go)
    [method] = init.auth_methods
    method = method.root if hasattr(method, "root") else method
    assert (method.type, method.args) == ("terminal", ["--setup"])
    assert refused == -32000  # auth_required: the editor offers the setup, then starts the session again


def test_a_permission_question_carries_only_the_tools_inputs_and_every_call_its_tool_name(
        ws: Path, server: ScriptedServer) -> None:
    server.add_steps([call("write_file", file_path="new.txt", content="hello\n"), {"content": "Written."}])
    editor = Editor(["allow_once"])

    async def go() -> None:
        async with running_agent(editor, server) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=new.session_id, prompt=[text_block("write it")])

    run(go)
    [asked] = editor.asked
    assert asked.tool_call.raw_input == {"file_path": "new.txt", "content": "hello\n"}
    assert asked.tool_call.field_meta["toolName"] == "write_file" and asked.tool_call.field_meta["reason"]
    [start] = editor.of(schema.ToolCallStart)
    assert start.field_meta == {"toolName": "write_file"}
    wire_start = next(m for m in editor.wire if m.get("method") == "session/update"
                      and m["params"]["update"]["sessionUpdate"] == "tool_call")
    assert wire_start["params"]["update"]["_meta"] == {"toolName": "write_file"}


def test_a_question_withdrawn_by_a_cancel_tells_the_model_the_turn_was_cancelled_not_declined(
        ws: Path, server: ScriptedServer) -> None:
    server.add_steps([call("run_command", command="echo hi"), {"content": "Next."}, {"content": "Again."}])
    editor = Editor(["allow_once"])
    editor.ask_delay = 30.0  # the user has not answered when the cancel comes

    async def go() -> Any:
        async with running_agent(editor, server) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            turn = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[text_block("run it")]))
            while not editor.asked:
                await asyncio.sleep(0.02)
            await conn.cancel(session_id=new.session_id)
            cancelled = await asyncio.wait_for(turn, 30)
            await conn.prompt(session_id=new.session_id, prompt=[text_block("go on")])
            return cancelled

    assert run(go).stop_reason == "cancelled"
    told = [m["content"] for m in server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert len(told) == 1 and "cancelled" in told[0] and "declined" not in told[0], told


def test_the_setup_method_saves_a_provider_and_model_that_the_next_session_starts_with(
        ws: Path, server: ScriptedServer) -> None:
    """`sneakycode acp --setup` (what the editor runs for the terminal method) is the terminal's first-run setup:
    provider, URL, key and model go to the user config, and a session then starts without any variable."""
    import os
    import subprocess
    import sys

    from sneakycode.agent.model.providers import KEY_PRESETS
    from tests.faces.acp.conftest import SRC

    bare = {key: value for key, value in agent_env(server).items()
            if not key.startswith("SNEAKYCODE_") and key != "OPENAI_API_KEY"}
    custom = str(len(KEY_PRESETS) + 1)  # after the hosted providers (no local server answers here)
    answers = "\n".join([custom, server.base_url, "", "1"]) + "\n"
    done = subprocess.run([sys.executable, "-m", "sneakycode.faces.cli.main", "acp", "--setup"], input=answers,
                          capture_output=True, text=True, timeout=60, start_new_session=True,  # no /dev/tty
                          env={**bare, "PYTHONPATH": SRC, "HOME": os.environ["HOME"]})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Saved provider custom and model scripted-model" in done.stdout
    server.add_steps([{"content": "Set up."}])

    async def go() -> Any:
        async with running_agent(Editor(), server, env=bare) as (conn, _agent):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            return await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])

    assert run(go).stop_reason == "end_turn"
