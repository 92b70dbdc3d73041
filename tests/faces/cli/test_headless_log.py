"""`sneakycode -p` as a workflow step runs it (the real CLI, the scripted model): in every output format, on
stdout and stderr, nothing the model wrote is a line GitHub's runner would take for a workflow command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.workflow_log import workflow_commands

ENV = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
HOSTILE = "Done.\n::add-mask::leaked\r\n  ::stop-commands::tok\rsee ##[error]old form\n::tok::"


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_the_models_text_reaches_no_stream_as_a_workflow_command(ws: Path, output_format: str) -> None:
    """Hardening round three, class 3: the answer (stdout), the refused call's reason and the --verbose lines
    (stderr) all carry the model's text; none of their lines can start a command in a job's log, and the
    JSON formats still carry the exact text."""
    refused = {"name": "run_command", "arguments": {"command": f"echo '{HOSTILE}'"}}
    steps = [{"content": HOSTILE, "tool_calls": [refused]},
             {"tool_calls": [{"name": "finish", "arguments": {"message": HOSTILE}}]}]
    with ScriptedServer(steps) as server:
        result = run_cli("-p", "Say it", "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                         str(ws), "--output-format", output_format, "--verbose", env=ENV, timeout=120)
    assert result.code == 0, result.stderr
    assert "denied run_command" in result.stderr and "add-mask::leaked" in result.stderr  # shown...
    assert workflow_commands(result.stdout) == [] and workflow_commands(result.stderr) == []  # ...never obeyed
    if output_format == "text":
        assert "\\x3a:add-mask::leaked" in result.stdout
    else:
        last = json.loads(result.stdout.splitlines()[-1])
        assert last["result"] == HOSTILE


def test_the_repository_map_names_no_workflow_command(ws: Path) -> None:
    """Hardening round three, class 3: `sneakycode map` prints the repository's file names and definitions; a
    file a pull request names `##[stop-commands]tok.py` would stop the job's log from obeying anything."""
    (ws / "##[stop-commands]tok.py").write_text("def handler():\n    return 1\n")
    result = run_cli("map", "--workspace", str(ws), env=ENV)
    assert result.code == 0, result.stderr
    assert "stop-commands]tok.py" in result.stdout
    assert workflow_commands(result.stdout) == [] and workflow_commands(result.stderr) == []
