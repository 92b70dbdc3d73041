"""permissions.gate: the one gate of the agent, `sneakycode tool` and MCP; each call prepared once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import load_settings
from sneakycode.permissions import gate as gate_module
from sneakycode.permissions.decide import Decision
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import ToolContext, open_tool_context
from tests.agent.test_loop import Approver, make_agent, reply, tc, tool_messages


def project(ws: Path, text: str) -> ToolContext:
    (ws / ".sneakycode").mkdir(exist_ok=True)
    (ws / ".sneakycode" / "config.toml").write_text(text)
    return open_tool_context(load_settings(ws))


def count_decisions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = gate_module.decide

    def counting(tool: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(tool.name)
        return real(tool, *args, **kwargs)

    monkeypatch.setattr(gate_module, "decide", counting)
    return seen


def test_the_agent_decides_each_call_once(ctx: ToolContext, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: one call used to be parsed, validated and decided two or three times."""
    (ws / "a.txt").write_text("a\n")
    seen = count_decisions(monkeypatch)
    calls = [tc("read_file", file_path="a.txt"), tc("list_dir"), tc("write_file", file_path="b.txt", content="b")]
    agent, _, _ = make_agent(ctx, [reply(*calls), reply(text="ok")], approver=Approver(True))
    agent.run_turn("go")
    assert seen == ["read_file", "list_dir", "write_file"]
    assert (ws / "b.txt").read_text() == "b"


def test_a_call_that_cannot_run_is_neither_decided_nor_asked(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = count_decisions(monkeypatch)
    approver = Approver(True)
    gate = Gate(ctx, approver)
    for name, raw in [("write_file", '{"file_path": '), ("write_file", "{}"), ("wirte_file", "{}")]:
        prepared = gate.prepare(name, raw)
        assert prepared.failure is not None and gate.check(prepared) is None
        assert gate.run(prepared).code in ("invalid_arguments", "unknown_tool")
    assert seen == [] and approver.asked == []


def test_direct_and_agent_callers_word_a_denial_the_same(ws: Path) -> None:
    ctx = project(ws, '[permissions]\ndeny = ["delete_file"]\n')
    (ws / "keep.txt").write_text("keep\n")
    direct = Gate(ctx).run_direct("delete_file", {"file_path": "keep.txt"})
    agent, _, events = make_agent(ctx, [reply(tc("delete_file", file_path="keep.txt")), reply(text="ok")],
                                      approver=Approver(True))
    agent.run_turn("go")
    from_agent = next(iter(tool_messages(agent.history).values()))
    assert direct.render() == from_agent
    assert direct.error is not None and direct.error.startswith("delete_file was not run: deny rule `delete_file`")
    assert (ws / "keep.txt").exists()
    assert events.of("permission")[0]["outcome"] == "denied"


def test_direct_calls_run_what_would_ask(ctx: ToolContext, ws: Path) -> None:
    prepared = Gate(ctx).prepare("write_file", {"file_path": "n.txt", "content": "n"})
    assert prepared.decision is not None and prepared.decision.decision is Decision.ASK
    assert Gate(ctx).run_direct("write_file", {"file_path": "n.txt", "content": "n"}).success
    assert (ws / "n.txt").read_text() == "n"


def test_a_link_made_earlier_in_the_same_reply_cannot_carry_a_later_call_past_a_deny_rule(ws: Path) -> None:
    """Calls are decided just before they run, so a write through a link the same reply created is denied."""
    (ws / "secrets").mkdir()
    ctx = project(ws, '[permissions]\ndeny = ["write_file(secrets/**)"]\n')
    calls = [tc("run_command", command="ln -s secrets public"), tc("write_file", file_path="public/k", content="x")]
    agent, _, events = make_agent(ctx, [reply(*calls), reply(text="ok")], approver=Approver(True))
    agent.run_turn("go")
    assert (ws / "public").is_symlink()
    assert not (ws / "secrets" / "k").exists()
    denied = [e for e in events.of("permission") if e["outcome"] == "denied"]
    assert [e["name"] for e in denied] == ["write_file"]


def test_headless_refusal_names_the_narrowest_rule(ctx: ToolContext) -> None:
    gate = Gate(ctx)
    prepared = gate.prepare("run_command", {"command": "pytest -q && git diff"})
    verdict = gate.check(prepared)
    assert verdict is not None and verdict.outcome == "denied" and verdict.how_to_allow is not None
    assert json.dumps("run_command(pytest -q)") in verdict.how_to_allow
    write = gate.check(gate.prepare("write_file", {"file_path": "src/a.py", "content": ""}))
    assert write is not None and write.how_to_allow is not None and '"write_file(src/a.py)"' in write.how_to_allow


@pytest.mark.parametrize(
    ("name", "arguments", "code"),
    [
        ("str_replace", {"file_path": "app.py", "old_str": "y = 9", "new_str": "y = 10"}, "no_match"),
        ("str_replace", {"file_path": "gone.py", "old_str": "x", "new_str": "y"}, "not_found"),
        ("patch_apply", {"file_path": "app.py", "patch": "@@ -1 +1 @@\n-q = 7\n+q = 8\n"}, "patch_failed"),
        ("write_file", {"file_path": "unread.py", "content": "z\n"}, "not_read"),
    ],
)
def test_an_edit_bound_to_fail_is_not_put_to_the_user_and_fails_as_it_would_after_approval(
    ctx: ToolContext, ws: Path, name: str, arguments: dict[str, Any], code: str
) -> None:
    """Regression: an edit whose old text is absent (or whose file does not exist, or was never read) was still
    put to the user, with a predicted reason that differed from the real one; the gate now runs the tool's own
    checks first, and the model gets exactly the error it would have got after a yes."""
    (ws / "app.py").write_text("x = 1\n")
    (ws / "unread.py").write_text("u\n")
    approver = Approver(True)
    gate = Gate(ctx, approver)
    assert gate.run_direct("read_file", {"file_path": "app.py"}).success
    before = {path.name: path.read_bytes() for path in ws.iterdir() if path.is_file()}
    prepared = gate.prepare(name, arguments)
    assert prepared.decision is not None and prepared.decision.decision is Decision.ASK
    assert gate.check(prepared) is None
    refused = gate.run(prepared)
    assert approver.asked == []
    approved = Gate(ctx).run_direct(name, arguments)  # what the same call gives once someone said yes
    assert refused.code == approved.code == code
    assert refused.render() == approved.render()
    assert {path.name: path.read_bytes() for path in ws.iterdir() if path.is_file()} == before


def test_an_edit_that_would_work_is_still_asked(ctx: ToolContext, ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    approver = Approver(False)
    gate = Gate(ctx, approver)
    gate.run_direct("read_file", {"file_path": "app.py"})
    prepared = gate.prepare("str_replace", {"file_path": "app.py", "old_str": "x = 1", "new_str": "x = 2"})
    verdict = gate.check(prepared)
    assert verdict is not None and verdict.outcome == "rejected" and len(approver.asked) == 1
    assert (ws / "app.py").read_text() == "x = 1\n"
