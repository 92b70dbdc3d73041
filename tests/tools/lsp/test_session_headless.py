"""End to end (issue 29): the real `sneakycode -p` against the scripted model server, in a workspace whose
user settings name jedi-language-server. The model is offered `code`, finds where a function is defined with
it instead of grep, changes its signature, is told of the error jedi sees in the edit, fixes it, and the run
ends with no language server left running. Without a server for the workspace's languages, `code` is not
offered at all."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli
from tests.tools.lsp.servers import project, use_fake, use_jedi

LOCAL = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def headless(server: ScriptedServer, ws: Path) -> CliResult:
    return run_cli("-p", "Give area a default height of 1", "--base-url", server.base_url, "--model",
                   "scripted-model", "--workspace", str(ws), "--yes", "--output-format", "json", env=LOCAL, timeout=120)


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def servers_in(ws: Path) -> list[int]:
    """Processes whose working folder is the workspace (a language server starts in its root)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/cwd") == str(ws.resolve()):
                    found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.slow  # over 10 s: a CLI start, jedi started, an edit waiting for its diagnostics, jedi stopped
def test_the_model_finds_a_definition_with_code_and_changes_its_signature(ws: Path) -> None:
    use_jedi()
    project(ws)
    steps = [
        call("code", op="definition", path="main.py", line=3, symbol="area"),
        call("read_file", file_path="shapes/geometry.py"),
        call("str_replace", file_path="shapes/geometry.py", old_str="def area(width, height):",
             new_str="def area(width=2, height):"),
        call("str_replace", file_path="shapes/geometry.py", old_str="def area(width=2, height):",
             new_str="def area(width, height=1):"),
        call("finish", message="area now has a default height of 1"),
    ]
    with ScriptedServer({"steps": steps}) as server:
        result = headless(server, ws)
        requests = server.chat_requests
    assert result.code == 0, result.stderr
    assert result.stderr == ""  # no traceback, library warning or asyncio complaint on the way out
    offered = [tool["function"]["name"] for tool in requests[0]["tools"]]
    assert "code" in offered
    results = tool_results(requests[-1])
    assert results[0] == "definition of area at main.py:3: 1 place\nshapes/geometry.py:1:5: def area(width, height):"
    assert "1 new finding from jedi: line 1: SyntaxError: non-default argument follows default argument" in results[2]
    assert "new finding" not in results[3]
    assert (ws / "shapes" / "geometry.py").read_text().startswith("def area(width, height=1):")
    assert json.loads(result.stdout)["status"] == "finished"
    assert servers_in(ws) == []


def test_code_is_not_offered_without_a_server_for_the_workspace(ws: Path) -> None:
    use_jedi()
    (ws / "notes.md").write_text("# no code here\n")
    with ScriptedServer({"steps": [call("finish", message="nothing to do")]}) as server:
        result = headless(server, ws)
        offered = [tool["function"]["name"] for tool in server.chat_requests[0]["tools"]]
    assert result.code == 0, result.stderr
    assert "code" not in offered


@pytest.mark.slow  # about 10 s: a CLI start, the request timeout, a server ignoring SIGTERM waited for, killed
def test_a_server_that_hangs_is_a_coded_result_and_the_run_goes_on(ws: Path) -> None:
    """The fake server answers initialize, then nothing (and ignores SIGTERM): the model gets
    language_server_timeout after lsp.request_timeout, its next call runs, the run ends normally, nothing is
    printed on stderr and no process of the server is left."""
    use_fake("hang", "[lsp]\nrequest_timeout = 1.0\n")
    (ws / "a.py").write_text("x = 1\n")
    steps = [call("code", op="definition", path="a.py", line=1, symbol="x"), call("read_file", file_path="a.py"),
             call("finish", message="done")]
    with ScriptedServer({"steps": steps}) as server:
        result = headless(server, ws)
        results = tool_results(server.chat_requests[-1])
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert results[0].startswith("Error [language_server_timeout]: language server fake did not answer definition")
    assert "x = 1" in results[1]
    assert servers_in(ws) == []


def test_a_run_that_ends_while_a_server_is_starting_leaves_nothing(ws: Path) -> None:
    """The edit starts jedi in the background and the run finishes at once: the start is cancelled and
    stopped, and nothing (no "Task was destroyed but it is pending") reaches stderr."""
    use_jedi()
    project(ws)
    steps = [call("read_file", file_path="main.py"),
             call("str_replace", file_path="main.py", old_str="print(area(2, 3))", new_str="area(1, 1)"),
             call("finish", message="done")]
    with ScriptedServer({"steps": steps}) as server:
        result = headless(server, ws)
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    assert servers_in(ws) == []
