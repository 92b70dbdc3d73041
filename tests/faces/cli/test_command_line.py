"""The command line a first hour meets (issue 37): --version, a task without -p, -c/-r, "did you mean", the
subcommands and modes listed with one line each, every flag explained."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sneakycode.config import PermissionMode
from sneakycode.faces.cli.main import SUBCOMMANDS
from sneakycode.faces.shared.flags import MODES
from sneakycode.testing.server import ScriptedServer
from sneakycode.version import __version__
from tests.conftest import run_cli

ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def finish(message: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "finish", "arguments": {"message": message}}]}


def chat_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if isinstance(r.body, dict) and "messages" in r.body]


def test_version_names_the_version_and_the_commit_of_this_clone(ws: Path) -> None:
    for flag in ("--version", "-V"):
        result = run_cli(flag, cwd=ws)
        assert result.code == 0, result.stderr
        # Run from the clone: git knows the commit (an installed wheel carries it from the build hook).
        assert re.fullmatch(rf"sneakycode {re.escape(__version__)} \(commit [0-9a-f]{{7,40}}(-dirty)?\)\n",
                            result.stdout), result.stdout


def test_help_lists_every_subcommand_with_a_line_and_every_mode(ws: Path) -> None:
    shown = run_cli("--help", cwd=ws).stdout
    for name, line in SUBCOMMANDS.items():
        assert re.search(rf"^  {name} +{re.escape(line)}$", shown, re.MULTILINE), name
    assert list(MODES) == list(PermissionMode)  # the help's list is the settings' list
    flat = " ".join(shown.split())
    for mode in PermissionMode:
        assert f"{mode.value} (" in flat
    for flag in ("--model", "--base-url", "--api-key", "-c, --continue", "-r ID, --resume ID"):
        entry = re.search(rf"^  {re.escape(flag)}[^\n]*\n(?:  {{6,}}[^\n]*\n)*", shown, re.MULTILINE)
        assert entry is not None and len(entry.group(0).split()) > 3, f"{flag} has no help"


def test_a_mistyped_subcommand_says_what_was_meant(ws: Path) -> None:
    result = run_cli("revew", "--base", "main", cwd=ws)
    assert result.code == 2
    assert "unknown command 'revew'; did you mean `sneakycode review`?" in result.stderr
    assert result.stdout == ""


def test_a_task_given_without_p_and_no_terminal_is_not_an_argument_error(ws: Path) -> None:
    """`sneakycode "fix the test"` used to be "unrecognized arguments"; it starts the interactive session with
    that task (here, without a terminal, the session says it needs one)."""
    result = run_cli("fix the failing test", "--workspace", str(ws), stdin="")
    assert result.code == 2
    assert "unrecognized arguments" not in result.stderr
    assert "the interactive session needs a terminal" in result.stderr


def test_a_task_before_p_runs_headless(ws: Path) -> None:
    with ScriptedServer([finish("Did it.")]) as server:
        result = run_cli("say hi", "-p", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws),
                         env=ENV, stdin="")
        assert result.code == 0, result.stderr
        assert "Did it." in result.stdout
        assert "say hi" in str(chat_requests(server)[0]["messages"])


def test_c_continues_the_latest_session(ws: Path) -> None:
    with ScriptedServer([finish("First."), finish("Second.")]) as server:
        flags = ("--base-url", server.base_url, "--model", "m", "--workspace", str(ws))
        assert run_cli("-p", "remember 42", *flags, env=ENV, stdin="").code == 0
        result = run_cli("-p", "what was it?", "-c", *flags, env=ENV, stdin="")
        assert result.code == 0, result.stderr
        assert "remember 42" in str(chat_requests(server)[1]["messages"])


def test_tool_list_includes_the_code_tool(ws: Path) -> None:
    from sneakycode.tools.registry import known_tools

    listed = run_cli("tool", "--list", cwd=ws).stdout.splitlines()
    assert [line.split("\t")[0] for line in listed] == [t.name for t in known_tools()]
    assert any(line.startswith("code\tauto\t") and "language server" in line for line in listed)
