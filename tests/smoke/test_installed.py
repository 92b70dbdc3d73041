"""What a user does in their first hour, run on the wheel installed without extras (issue 37: with a plain
install every Python edit said "not checked (ModuleNotFoundError)" and `sneakycode tool code` crashed, because
pygls and lsprotocol came only with the dev extra)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.smoke.conftest import run_installed

BROKEN_BODY = "    return sum(p for p in prices\n"  # an unclosed parenthesis


def project(root: Path) -> Path:
    (root / "shop.py").write_text('def total(prices):\n    return sum(prices)\n\n\ndef tax(x):\n    return x * 0.2\n')
    (root / "test_shop.py").write_text("from shop import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n")
    return root


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_the_installed_copy_is_not_this_checkout_and_names_its_commit(installed: Path, tmp_path: Path) -> None:
    result = run_installed(installed, "--version", cwd=tmp_path)
    assert result.code == 0, result.stderr
    assert re.fullmatch(r"sneakycode \S+ \(commit [0-9a-f]{7,40}(-dirty)?\)\n", result.stdout), result.stdout
    where = run_installed(installed.parent / "python", "-c", "import sneakycode; print(sneakycode.__file__)",
                          cwd=tmp_path) if (installed.parent / "python").exists() else None
    if where is not None:
        assert "/src/sneakycode/" not in where.stdout


def test_p_edits_a_python_file_and_reports_the_syntax_error_it_made(installed: Path, tmp_path: Path) -> None:
    ws = project(tmp_path)
    steps = [call("read_file", file_path="shop.py"),
             call("str_replace", file_path="shop.py", old_str="    return sum(prices)\n", new_str=BROKEN_BODY),
             call("finish", message="Edited.")]
    with ScriptedServer(steps) as server:
        result = run_installed(installed, "-p", "break it", "--yes", "--base-url", server.base_url, "--model", "m",
                               "--output-format", "json", cwd=ws)
        assert result.code == 0, result.stderr
        tool_messages = [m["content"] for r in server.requests if isinstance(r.body, dict) and "messages" in r.body
                         for m in r.body["messages"] if m["role"] == "tool"]
    edit = tool_messages[-1]
    assert "Edited shop.py" in edit
    assert "not checked" not in edit and "ModuleNotFoundError" not in edit, edit
    assert "line 2" in edit.lower() or "2:" in edit, edit  # the finding names the broken line
    assert json.loads(result.stdout)["status"] == "finished"


def test_the_code_tool_answers_from_a_language_server(installed: Path, tmp_path: Path) -> None:
    ws = project(tmp_path)
    result = run_installed(installed, "tool", "code", '{"op": "symbols", "path": "shop.py"}', cwd=ws)
    assert result.code == 0, result.stdout + result.stderr
    assert "total" in result.stdout and "tax" in result.stdout
    assert "Traceback" not in result.stderr


def test_acp_answers_initialize(installed: Path, tmp_path: Path) -> None:
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    for command in (["acp"], None):
        binary = installed if command else installed.parent / "sneakycode-acp"
        result = run_installed(binary, *(command or []), cwd=tmp_path, stdin=json.dumps(init) + "\n")
        assert result.code == 0, result.stderr
        answer = json.loads(result.stdout.splitlines()[0])
        assert answer["result"]["agentInfo"]["name"] == "sneakycode"


def test_doctor_checks_the_scripted_model(installed: Path, tmp_path: Path) -> None:
    script = {"models": ["m"], "no_tools_reply": {"content": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"},
              "steps": [call("get_weather", city="Paris"),
                        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}},
                                        {"name": "get_weather", "arguments": {"city": "Tokyo"}}]}]}
    with ScriptedServer(script) as server:
        result = run_installed(installed, "doctor", "--base-url", server.base_url, "--model", "m", "--json",
                               cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    verdicts = {check["name"]: check["verdict"] for check in report["checks"]}
    assert verdicts["reachable"] == "pass" and verdicts["tool_calls"] == "pass", verdicts


def test_map_lists_the_projects_definitions(installed: Path, tmp_path: Path) -> None:
    ws = project(tmp_path)
    result = run_installed(installed, "map", cwd=ws)
    assert result.code == 0, result.stderr
    assert "shop.py" in result.stdout and "total" in result.stdout
