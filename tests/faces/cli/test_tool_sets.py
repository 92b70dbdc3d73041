"""Model-specific tool sets (issue 12): `tools.enabled` and `tools.edit_format` shape the tools array, the system
prompt and what a call may name, end to end through `sneakycode -p` and the scripted server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config, run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results


def run(ws: Path, steps: list[dict[str, Any]], model: str = "scripted-model") -> tuple[Any, ScriptedServer]:
    with ScriptedServer({"models": [model], "steps": steps}) as server:
        result = run_cli(
            "-p", "Fix the bug", "--base-url", server.base_url, "--model", model, "--workspace", str(ws), "--yes",
            env=ENV,
        )
    return result, server


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]


def system_prompt(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def test_enabled_tools_are_all_the_model_sees_and_can_call(ws: Path) -> None:
    project_config(ws, 'tools.enabled = ["read_file", "str_replace"]\n', trusted=False)
    result, server = run(ws, [call("run_command", command="touch made.txt"), finish("Could not run it.")])
    assert result.code == 0, result.stderr
    first = server.chat_requests[0]
    assert offered(first) == ["read_file", "str_replace", "finish"]  # finish is always offered
    assert "run_command" not in system_prompt(first) and "update_tasks" not in system_prompt(first)
    [answer] = tool_results(server.chat_requests[1])
    assert answer.startswith("Error [unknown_tool]") and "Available tools: read_file, str_replace, finish" in answer
    assert not (ws / "made.txt").exists()
    assert len(json.dumps(first["tools"])) < 2500


@pytest.mark.parametrize(
    ("model", "edit_tools"),
    [
        ("qwen2.5-coder:7b", ["str_replace"]),
        ("gpt-5-codex", ["patch_apply"]),
        ("openai/gpt-4.1-mini", ["patch_apply"]),
        ("scripted-model", ["str_replace", "patch_apply"]),  # a family we do not know gets both
    ],
)
def test_auto_offers_the_edit_tool_the_family_is_trained_on(model: str, edit_tools: list[str], ws: Path) -> None:
    result, server = run(ws, [finish("Nothing to do.")], model=model)
    assert result.code == 0, result.stderr
    request = server.chat_requests[0]
    assert [n for n in offered(request) if n in ("str_replace", "patch_apply")] == edit_tools
    for name in ("str_replace", "patch_apply"):
        assert (name in system_prompt(request)) == (name in edit_tools)


def test_a_configured_edit_format_wins_over_the_family(ws: Path) -> None:
    project_config(ws, 'tools.edit_format = "patch"\n', trusted=False)  # harmless: kept without trust
    (ws / "app.py").write_text("x = 1\n")
    patch = "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    steps = [call("read_file", file_path="app.py"), call("patch_apply", file_path="app.py", patch=patch), finish("ok")]
    result, server = run(ws, steps, model="qwen3-coder")
    assert result.code == 0, result.stderr
    assert "str_replace" not in offered(server.chat_requests[0])
    assert (ws / "app.py").read_text() == "x = 2\n"


def test_an_unknown_tool_name_stops_the_run_before_any_request(ws: Path) -> None:
    project_config(ws, 'tools.enabled = ["read_file", "str_replce"]\n')
    result, server = run(ws, [finish("never")])
    assert result.code == 2
    assert "str_replce" in result.stderr and "did you mean 'str_replace'" in result.stderr
    assert server.chat_requests == []


def test_an_untrusted_project_cannot_offer_a_tool_the_user_left_out(ws: Path) -> None:
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('tools.enabled = ["read_file", "list_dir"]\n')
    project_config(ws, 'tools.enabled = ["read_file", "list_dir", "run_command"]\n', trusted=False)
    with ScriptedServer({"models": ["m"], "steps": [finish("ok")]}) as server:
        result = run_cli(
            "-p", "go", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws), "--yes",
            env=ENV,
        )
    assert result.code == 0, result.stderr
    assert offered(server.chat_requests[0]) == ["read_file", "list_dir", "finish"]
    assert "tools.enabled" in result.stderr  # the ignored key is named for the user
