"""Internal errors (issue 24): a bug in a tool or in the loop gives the model only the short coded message,
while the full traceback goes to the transcript and to the user's event sink (headless --verbose prints it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.feedback import RepeatWatch
from sneakycode.agent.loop import Agent
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.session.transcript import Transcript
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext


class Events:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def emit(self, event: Any) -> None:
        self.items.append(event)

    def notices(self) -> list[dict[str, Any]]:
        return [e for e in self.items if e["type"] == "notice"]


def list_dir_call(call_id: str = "call_1") -> AssistantTurn:
    return AssistantTurn(tool_calls=[ToolCall(call_id, "list_dir", "{}")], usage=Usage(10, 5))


def records(ctx: ToolContext, kind: str) -> list[dict[str, Any]]:
    lines = (ctx.session_dir / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    return [record for record in map(json.loads, lines) if record["type"] == kind]


def run(ctx: ToolContext, replies: list[Any]) -> tuple[Agent, ScriptedModel, Events, Any]:
    model, events = ScriptedModel(replies), Events()
    transcript = Transcript(ctx.session_dir)
    agent = Agent(Binding(BoundModel(model)), Calls(ctx, None), Conversation(transcript=transcript),
                  RunConfig(events, main=True))
    result = agent.run_turn("look around")
    transcript.close()
    return agent, model, events, result


def test_a_tool_bug_reaches_the_model_as_a_coded_error_and_the_transcript_keeps_its_traceback(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(found: Any, args: Any, ctx: ToolContext) -> Any:
        raise ValueError("the listing cache is corrupt")

    monkeypatch.setattr("sneakycode.permissions.gate.run", broken)
    _, model, events, result = run(ctx, [list_dir_call(), AssistantTurn(content="Recovered.", usage=Usage(1, 1))])
    assert result.status == "answered"
    sent = next(m["content"] for m in model.requests[1] if m["role"] == "tool")
    assert sent.startswith(
        "Error [internal_error]: list_dir failed unexpectedly: ValueError: the listing cache is corrupt\nHint: "
    )
    assert "Traceback" not in json.dumps(model.requests[1])  # the model never sees it
    [record] = records(ctx, "internal_error")
    assert record["where"] == "the list_dir tool"
    assert record["traceback"].startswith("Traceback (most recent call last)")
    assert "ValueError: the listing cache is corrupt" in record["traceback"] and "in broken" in record["traceback"]
    [notice] = events.notices()
    assert "internal error" in notice["message"] and "transcript.jsonl" in notice["message"]
    assert notice["traceback"] == record["traceback"]


def test_a_bug_in_the_loop_ends_the_run_as_an_error_and_leaves_a_history_the_server_takes(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bug strikes after the call ran but before its result was recorded: the call gets a `cancelled`
    result, so the next request is still valid."""
    def broken(self: RepeatWatch, call: Any, result: Any) -> str:
        raise KeyError("repeat-watch")

    monkeypatch.setattr(RepeatWatch, "note", broken)
    agent, _, events, result = run(ctx, [list_dir_call()])
    assert result.status == "error" and "internal error" in result.message and "KeyError" in result.message
    [record] = records(ctx, "internal_error")
    assert record["where"] == "the agent loop" and "in broken" in record["traceback"]
    assert events.notices()[-1]["traceback"] == record["traceback"]
    assert [m["role"] for m in agent.history[1:]] == ["user", "assistant", "tool"]
    assert agent.history[-1]["content"].startswith("Error [cancelled]")
    assert [r["reason"] for r in records(ctx, "history")] == ["answered calls left without a result"]
    monkeypatch.undo()
    agent.model = ScriptedModel([AssistantTurn(content="Fine now.", usage=Usage(1, 1))])
    agent.transcript = None
    assert agent.run_turn("again").status == "answered"


def test_a_bug_while_a_call_is_checked_is_an_internal_error_result_with_its_traceback_kept(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Any, name: str, arguments: Any) -> Any:
        raise RuntimeError("rule table missing")

    monkeypatch.setattr("sneakycode.permissions.gate.Gate.prepare", broken)
    _, model, _, _ = run(ctx, [list_dir_call(), AssistantTurn(content="ok", usage=Usage(1, 1))])
    sent = next(m["content"] for m in model.requests[1] if m["role"] == "tool")
    assert sent.startswith("Error [internal_error]: list_dir could not be checked: rule table missing")
    [record] = records(ctx, "internal_error")
    assert record["where"] == "checking the list_dir call" and "RuntimeError: rule table missing" in record["traceback"]


def test_the_transcript_still_replays_with_internal_error_records(ctx: ToolContext, tmp_path: Path) -> None:
    from sneakycode.session.transcript import load_transcript

    transcript = Transcript(ctx.session_dir)
    transcript.message({"role": "user", "content": "hi"})
    transcript.write("internal_error", where="the agent loop", error="KeyError: 'x'", traceback="Traceback ...")
    transcript.close()
    assert load_transcript(ctx.session_dir / "transcript.jsonl").messages == [{"role": "user", "content": "hi"}]
