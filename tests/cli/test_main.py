"""Every subcommand treats --workspace and configuration errors alike: one line on stderr, exit 2."""

from __future__ import annotations

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
