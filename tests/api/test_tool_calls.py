"""`api.tool_calls`: tools run the way the model would run them, in process, for the faces where a person
chooses the calls (`sneakycode tool`, `mcp serve`): through the one gate, in a session `api.sessions` finds
again (undo reverts what the calls wrote)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.api.errors import ConfigError
from sneakycode.api.options import Options
from sneakycode.api.permissions import check_call, rules_report
from sneakycode.api.sessions import latest_changed, saved_sessions, undo
from sneakycode.api.tool_calls import ToolCalls, tool_listing
from sneakycode.api.workspace_settings import load_workspace_settings


def test_a_call_runs_as_the_model_would_and_undo_reverts_it(ws: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    tools = ToolCalls(Options(workspace=str(ws)), kind="tool", one_shot=True)
    try:
        read = tools.run("read_file", '{"file_path": "a.txt"}')
        written = tools.run("write_file", {"file_path": "a.txt", "content": "two\n"})
        bad = tools.run("read_file", "{not json")
    finally:
        tools.close()
    assert read.success and "one" in read.content
    assert written.success and (ws / "a.txt").read_text() == "two\n"
    assert not bad.success and bad.code is not None
    loaded = load_workspace_settings(ws)
    info = latest_changed(loaded)
    assert info is not None
    assert undo(info, steps=None, force=False).ok
    assert (ws / "a.txt").read_text() == "one\n"
    assert saved_sessions(loaded) == []  # a tool session leaves no transcript to resume


def test_a_deny_rule_refuses_a_chosen_call_and_check_call_says_why(ws: Path) -> None:
    (ws / ".env").write_text("SECRET=1\n")
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text('[permissions]\ndeny = ["read_file(.env)"]\n')
    tools = ToolCalls(Options(workspace=str(ws)), kind="tool", one_shot=True)
    try:
        refused = tools.run("read_file", {"file_path": ".env"})
        unknown = tools.unknown("reed_file", ["read_file"])
    finally:
        tools.close()
    assert not refused.success and refused.code == "permission_denied" and "SECRET" not in refused.content
    assert not unknown.success and "read_file" in unknown.render()
    loaded = load_workspace_settings(ws)
    verdict = check_call(loaded, "read_file", {"file_path": ".env"}, None)
    assert (verdict.decision, verdict.rule, verdict.known_tool) == ("deny", "read_file(.env)", True)
    assert "read_file(.env)" in rules_report(loaded)


def test_the_listing_names_every_tool_once_with_its_tier() -> None:
    listed = tool_listing()
    names = [t.name for t in listed]
    assert len(names) == len(set(names)) and "read_file" in names
    assert {t.tier for t in listed} <= {"auto", "confirm"}
    assert [t.name for t in listed if t.conditional] == ["code"]


def test_a_workspace_setting_that_does_not_load_is_a_config_error(ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text("max_turn = 3\n")
    with pytest.raises(ConfigError, match="max_turn"):
        ToolCalls(Options(workspace=str(ws)), kind="tool")
