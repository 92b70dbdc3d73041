"""The registry's guarantees for every call: strict argument types, a bounded rendering, a time budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sneakycode.permissions.gate import Gate
from sneakycode.tools import context as tool_context
from sneakycode.tools.context import ToolContext
from tests.agent.test_loop import make_agent, reply, tc, tool_messages
from tests.conftest import call, run_cli

HUGE = "x" * 100_000


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        (HUGE, {}),
        ("grep_files", {"pattern": "(" + HUGE}),
        ("find_files", {"pattern": "[" + HUGE}),
        ("write_file", {"file_path": "a.txt", "content": "x", HUGE: 1}),
    ],
)
def test_every_rendered_result_fits_max_output_bytes(ctx: ToolContext, name: str, arguments: dict[str, object]) -> None:
    """Hardening class 8: only `content` was capped, so a 100 KB bad name or pattern gave a 100-200 KB error."""
    result = Gate(ctx).run_direct(name, arguments)
    assert not result.success
    assert len(result.render().encode()) <= ctx.settings.max_output_bytes
    assert result.code is not None and result.error


def test_a_huge_bad_call_through_the_agent_and_the_cli_stays_bounded(ctx: ToolContext, ws: Path) -> None:
    calls = [tc(HUGE), tc("grep_files", pattern="(" + HUGE)]
    agent, _, _ = make_agent(ctx, [reply(*calls), reply(text="ok")], context_window=10_000_000)
    agent.run_turn("go")
    for text in tool_messages(agent.history).values():
        assert len(text.encode()) <= ctx.settings.max_output_bytes + 400  # plus a repeated-failure note at most
    result = run_cli("tool", "grep_files", json.dumps({"pattern": "(" + HUGE}), "--workspace", str(ws))
    assert result.code == 1 and len(result.stdout.encode()) <= 65_536 + 1


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("read_file", {"file_path": "a.txt", "start_line": "2"}, "start_line"),
        ("str_replace", {"file_path": "a.txt", "old_str": "a", "new_str": "b", "replace_all": "yes"}, "replace_all"),
        ("list_dir", {"recursive": 1}, "recursive"),
        ("run_command", {"command": "true", "timeout": "5"}, "timeout"),
    ],
)
def test_arguments_are_strictly_typed(ctx: ToolContext, ws: Path, name: str, arguments: dict[str, object],
                                      field: str) -> None:
    """Hardening class 9: "yes" became true and "2" a line number; the model is told instead."""
    (ws / "a.txt").write_text("a\nb\n")
    result = call(ctx, name, **arguments)
    assert result.code == "invalid_arguments" and field in result.content
    assert (ws / "a.txt").read_text() == "a\nb\n"


def test_a_cancelled_call_stops_at_its_next_checkpoint_and_changes_nothing(ctx: ToolContext, ws: Path) -> None:
    (ws / "a.txt").write_text("a\n" * 10)
    assert call(ctx, "read_file", file_path="a.txt").success
    ctx.cancel.set()
    result = call(ctx, "patch_apply", file_path="a.txt", patch="@@ -1 +1 @@\n-a\n+b\n")
    assert result.code == "cancelled" and (ws / "a.txt").read_text() == "a\n" * 10


def test_a_call_over_its_time_budget_is_a_coded_error(ctx: ToolContext, ws: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Hardening class 7: every tool has a wall-clock budget, so no edit or search hangs the run."""
    (ws / "a.txt").write_text("a\n")
    assert call(ctx, "read_file", file_path="a.txt").success
    monkeypatch.setattr(tool_context, "TOOL_TIME_BUDGET", -1.0)
    result = call(ctx, "str_replace", file_path="a.txt", old_str="a", new_str="b")
    assert result.code == "timed_out" and "time budget" in (result.error or "")
    assert (ws / "a.txt").read_text() == "a\n"


def test_a_calls_budget_ends_with_the_call(ctx: ToolContext, ws: Path) -> None:
    """Regression: the budget of a cancelled call stayed set in its thread, so later work there (the terminal's
    edit preview, which runs the tool's own matching) said "finish was cancelled before it finished"."""
    (ws / "a.txt").write_text("a\n")
    assert call(ctx, "read_file", file_path="a.txt").success
    ctx.cancel.set()
    assert call(ctx, "patch_apply", file_path="a.txt", patch="@@ -1 +1 @@\n-a\n+b\n").code == "cancelled"
    tool_context.checkpoint()  # outside any call: no budget, so nothing to raise
