"""Issue 36: "always" at an approval, for any face (api/always.py): the rules it stands for, joining the
session, and saved to the project (trust kept when it was trusted) or to the user's config."""

from __future__ import annotations

import tomllib
from pathlib import Path

from sneakycode.api.always import allow_for_session, always_rules, save_always
from sneakycode.config import load_settings, trust_state_dir
from sneakycode.config.trust import is_trusted
from sneakycode.tools.context import open_tool_context
from tests.conftest import project_config


def test_always_rules_join_the_session_and_save_where_asked(ws: Path, tmp_path: Path) -> None:
    project_config(ws, 'model = "m"\n', trusted=True)
    ctx = open_tool_context(load_settings(ws, environ={}))
    rules = always_rules(ctx, "run_command", {"command": "pytest -q tests/"})
    assert rules == ["run_command(pytest:*)"]
    allow_for_session(ctx, rules)
    assert "run_command(pytest:*)" in ctx.loaded.settings.permissions.allow
    saved = save_always(ctx, rules, "project")
    assert saved.note is None and saved.path == ws.resolve() / ".sneakycode" / "config.toml"
    assert tomllib.loads(saved.path.read_text())["permissions"]["allow"] == rules
    assert is_trusted(ws.resolve(), trust_state_dir())  # the user's own change keeps the workspace trusted
    mine = save_always(ctx, rules, "user", tmp_path / "user.toml")
    assert tomllib.loads(mine.path.read_text())["permissions"]["allow"] == rules


def test_saving_to_an_untrusted_project_says_it_applies_after_trust(ws: Path) -> None:
    project_config(ws, '[permissions]\nask = ["run_command"]\n', trusted=False)
    (ws / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "true"}}}')
    ctx = open_tool_context(load_settings(ws, environ={}))
    saved = save_always(ctx, ["read_file"], "project")
    assert saved.note is not None and "sneakycode trust" in saved.note
