"""Every subcommand treats --workspace and configuration errors alike: one line on stderr, exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli

COMMANDS = [
    ["tool", "list_dir", "{}"],
    ["undo"],
    ["mcp"],
    ["permissions", "list"],
    ["permissions", "check", "read_file", "{}"],
    ["sessions"],
    ["-p", "task"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_missing_workspace_is_a_usage_error_before_anything_starts(argv: list[str], tmp_path: Path) -> None:
    """Regression: `mcp` and `sessions` used to start on a --workspace folder that did not exist."""
    missing = tmp_path / "nope"
    result = run_cli(*argv, "--workspace", str(missing), stdin="")
    assert result.code == 2
    assert f"--workspace '{missing}' is not a directory" in result.stderr
    assert not missing.exists()


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_bad_project_config_names_file_and_key(argv: list[str], ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text("max_turn = 3\n")
    result = run_cli(*argv, "--workspace", str(ws), stdin="")
    assert result.code == 2
    assert "config.toml" in result.stderr and "unknown key 'max_turn'" in result.stderr


NO_TERMINAL = ('sneakycode: the interactive session needs a terminal (on stdin and stdout); without one, run a task '
               'with -p "TASK" (or -p - to read the task from stdin)')


@pytest.mark.parametrize("stdin", ["/dev/null", "a pipe", "a terminal, stdout a pipe"])
def test_the_interactive_session_without_a_terminal_says_to_use_p(stdin: str, ws: Path, isolated_home: Path) -> None:
    """Hardening round two, class 7: `sneakycode --base-url URL < /dev/null` printed prompt_toolkit's "Input is not
    a terminal" warning, and read a pipe as keystrokes, instead of saying what to do; now one line and exit 2,
    before anything starts."""
    argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
            "--workspace", str(ws)]  # fmt: skip
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    terminal, side = os.openpty()
    try:
        if stdin == "/dev/null":
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=60)
        elif stdin == "a pipe":
            proc = subprocess.run(argv, input="write a poem\n", capture_output=True, text=True, env=env, timeout=60)
        else:
            proc = subprocess.run(argv, stdin=side, capture_output=True, text=True, env=env, timeout=60)
    finally:
        os.close(terminal)
        os.close(side)
    assert (proc.returncode, proc.stdout, proc.stderr.strip()) == (2, "", NO_TERMINAL)
    assert not (isolated_home / ".local" / "state" / "sneakycode" / "sessions").exists()
