"""`sneakycode mcp list|add|remove`: what a user types to see and change their servers."""

from __future__ import annotations

import sys
from pathlib import Path

from sneakycode.config import user_config_path
from tests.conftest import run_cli
from tests.extensions.mcp.servers import FIXTURE


def test_add_list_remove_keeps_the_users_comments(ws: Path) -> None:
    config = user_config_path()
    config.parent.mkdir(parents=True)
    config.write_text("# my settings\nmodel = \"m\"  # the usual one\n")
    added = run_cli("mcp", "add", "fx", "--workspace", str(ws), "--", sys.executable, FIXTURE, "--extra-tools", "2")
    assert added.code == 0, added.stderr
    assert "# my settings" in config.read_text() and "# the usual one" in config.read_text()
    assert run_cli("mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--scope", "project",
                   "--workspace", str(ws)).code == 0
    listed = run_cli("mcp", "list", "--workspace", str(ws))
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    fx = next(i for i, line in enumerate(lines) if line.startswith("fx "))
    assert "connected" in lines[fx] and "12 tools" in lines[fx] and str(config) in lines[fx + 1]
    web = next(line for line in lines if line.startswith("web "))
    assert "not trusted" in web  # a project server waits for `sneakycode trust`
    assert run_cli("mcp", "remove", "fx", "--workspace", str(ws)).code == 0
    assert "fx" not in config.read_text() and "# my settings" in config.read_text()
    missing = run_cli("mcp", "remove", "fx", "--workspace", str(ws))
    assert missing.code == 1 and "no MCP server 'fx'" in missing.stderr


def test_add_needs_a_command_or_a_url(ws: Path) -> None:
    result = run_cli("mcp", "add", "x", "--workspace", str(ws))
    assert result.code == 2 and "either -- COMMAND" in result.stderr


def test_list_with_nothing_configured(ws: Path) -> None:
    assert "No MCP servers are configured" in run_cli("mcp", "list", "--workspace", str(ws)).stdout
