"""The agent loop, in process, against a tiny scripted ChatModel and real tools on a real workspace."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.context import estimate_history_tokens
from sneakycode.agent.loop import Agent, RunResult
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.errors import ModelError, SneakyError
from sneakycode.permissions.gate import PendingCall
from sneakycode.testing.scripted_model import Reply, ScriptedModel
from sneakycode.tools.base import Tool, ToolContext
from sneakycode.tools.registry import all_tools


class Events:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.items.append(event)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.items if e["type"] == kind]


class Approver:
    def __init__(self, answer: bool, on_ask: Callable[[], None] | None = None) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.on_ask = on_ask

    def approve(self, call: PendingCall, reason: str) -> bool:
        self.asked.append((call.name, call.arguments))
        if self.on_ask:
            self.on_ask()
        return self.answer


_ids = iter(range(1_000_000))


def tc(name: str, raw: str | None = None, **args: Any) -> ToolCall:
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=raw if raw is not None else json.dumps(args))


def reply(*calls: ToolCall, text: str = "", reasoning: str = "") -> AssistantTurn:
    return AssistantTurn(content=text, tool_calls=list(calls), reasoning=reasoning, usage=Usage(10, 5))


def finish(message: str = "Done.") -> AssistantTurn:
    return reply(tc("finish", message=message))


def make_agent(
    ctx: ToolContext,
    replies: list[Reply],
    approver: Any = None,
    *,
    tools: tuple[Tool, ...] | None = None,
    context_window: int = 0,
    reserve: int = 0,
    mode: str | None = None,
    max_turns: int | None = None,
) -> tuple[Agent, ScriptedModel, Events]:
    """A main agent on a scripted model; a window of 0 is the configured one."""
    model = ScriptedModel(replies)
    events = Events()
    agent = Agent(Binding(BoundModel(model, window=context_window, reserve=reserve)), Calls(ctx, approver, tools),
                  Conversation(), RunConfig(events, main=True, mode=mode, max_turns=max_turns))
    return agent, model, events


def tool_messages(history: list[dict[str, Any]]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in history if m["role"] == "tool"}


def first_result(history: list[dict[str, Any]]) -> str:
    return next(m["content"] for m in history if m["role"] == "tool")


def assert_history_valid(history: list[dict[str, Any]]) -> None:
    """Every tool call is answered by exactly one tool message right after its assistant message."""
    for index, message in enumerate(history):
        calls = message.get("tool_calls") or []
        following = []
        for later in history[index + 1 :]:
            if later["role"] != "tool":
                break
            following.append(later["tool_call_id"])
        assert sorted(following) == sorted(c["id"] for c in calls) or not calls


def test_finish_ends_the_run_with_its_message(ctx: ToolContext, ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    agent, model, events = make_agent(ctx, [reply(tc("read_file", file_path="a.txt")), finish("Read it.")])
    result = agent.run_turn("read a.txt")
    assert (result.status, result.message, result.turns, result.tool_calls) == ("finished", "Read it.", 2, 2)
    second_request = model.requests[1]
    assert "hello" in second_request[-1]["content"]
    assert second_request[0]["role"] == "system" and second_request[1] == {"role": "user", "content": "read a.txt"}
    assert [e["name"] for e in events.of("tool_result")] == ["read_file", "finish"]
    assert model.tools[0] and {t["function"]["name"] for t in model.tools[0]} >= {"read_file", "finish"}


def test_a_reply_without_tool_calls_is_the_answer(ctx: ToolContext) -> None:
    agent, _, events = make_agent(ctx, [reply(text="The answer is 42.")])
    result = agent.run_turn("what is it?")
    assert (result.status, result.message) == ("answered", "The answer is 42.")
    assert events.of("text_delta")[0]["text"] == "The answer is 42."


def test_every_call_gets_one_tool_message_whatever_happens_to_it(ctx: ToolContext, ws: Path) -> None:
    calls = [
        tc("write_file", file_path="new.txt", content="x"),
        tc("read_file", file_path="missing.txt"),
        tc("raed_file", file_path="a.txt"),
        tc("read_file", raw='{"file_path": "a.txt"'),
        tc("list_dir", directory_path=".", colour="blue"),
    ]
    approver = Approver(answer=False)
    agent, model, _ = make_agent(ctx, [reply(*calls), finish()], approver=approver)
    agent.run_turn("go")
    results = tool_messages(model.requests[1])
    assert list(results) == [c.id for c in calls]
    texts = list(results.values())
    assert texts[0].startswith("Error [rejected_by_user]")
    assert texts[1].startswith("Error [not_found]")
    assert texts[2].startswith("Error [unknown_tool]") and "read_file" in texts[2]
    assert texts[3].startswith("Error [invalid_arguments]") and "not valid JSON" in texts[3]
    assert texts[4].startswith("Error [invalid_arguments]") and "colour" in texts[4]
    assert approver.asked == [("write_file", {"file_path": "new.txt", "content": "x"})]
    assert not (ws / "new.txt").exists()
    assert_history_valid(model.requests[1])


def test_an_approved_call_runs(ctx: ToolContext, ws: Path) -> None:
    approver = Approver(answer=True)
    agent, _, events = make_agent(
        ctx, [reply(tc("write_file", file_path="new.txt", content="made\n")), finish()], approver=approver
    )
    assert agent.run_turn("write").status == "finished"
    assert (ws / "new.txt").read_text() == "made\n"
    assert events.of("permission")[0]["outcome"] == "approved"


def test_without_an_approver_ask_is_denied_with_how_to_allow_it(ctx: ToolContext, ws: Path) -> None:
    agent, model, events = make_agent(ctx, [reply(tc("write_file", file_path="new.txt", content="x")), finish()])
    agent.run_turn("write")
    text = first_result(model.requests[1])
    assert text.startswith("Error [permission_denied]")
    # The loop names no flag of any command line (that wording is the face's: see the headless tests).
    assert "--yes" not in text and 'allow = ["write_file(new.txt)"]' in text
    assert events.of("permission")[0]["how_to_allow"] in text
    assert not (ws / "new.txt").exists()


def test_plan_mode_denies_writes_and_says_so(ctx: ToolContext, ws: Path) -> None:
    agent, model, _ = make_agent(
        ctx, [reply(tc("write_file", file_path="new.txt", content="x")), finish()], approver=Approver(True), mode="plan"
    )
    agent.run_turn("write")
    text = first_result(model.requests[1])
    assert text.startswith("Error [permission_denied]") and "plan" in text
    assert not (ws / "new.txt").exists()


def test_calls_after_finish_in_the_same_reply_are_not_run(ctx: ToolContext, ws: Path) -> None:
    approver = Approver(answer=True)
    later = tc("write_file", file_path="late.txt", content="x")
    agent, _, _ = make_agent(ctx, [reply(tc("finish", message="All done."), later)], approver=approver)
    result = agent.run_turn("go")
    assert (result.status, result.message) == ("finished", "All done.")
    assert not (ws / "late.txt").exists() and approver.asked == []
    late = tool_messages(agent.history)[later.id]
    assert late.startswith("Error [cancelled]") and "finish was called earlier" in late
    assert_history_valid(agent.history)


def test_turn_limit_stops_the_run(ctx: ToolContext) -> None:
    agent, model, _ = make_agent(ctx, [reply(tc("list_dir")) for _ in range(5)], max_turns=3)
    result = agent.run_turn("loop forever")
    assert result.status == "turn_limit" and "3 model turns" in result.message
    assert len(model.requests) == 3
    assert_history_valid(agent.history)


def test_the_same_failing_call_three_times_earns_a_note(ctx: ToolContext) -> None:
    calls = [tc("read_file", file_path="missing.txt") for _ in range(3)]
    agent, _, events = make_agent(ctx, [reply(c) for c in calls] + [finish()])
    agent.run_turn("read it")
    results = tool_messages(agent.history)
    assert "change approach" not in results[calls[1].id]
    assert "failed 3 times in a row" in results[calls[2].id] and "change approach" in results[calls[2].id]
    assert any("failed 3 times" in e["message"] for e in events.of("notice"))


def test_a_different_call_in_between_resets_the_repeat_guard(ctx: ToolContext) -> None:
    calls = [tc("read_file", file_path="missing.txt"), tc("list_dir"), tc("read_file", file_path="missing.txt"),
             tc("read_file", file_path="missing.txt")]
    agent, _, _ = make_agent(ctx, [reply(c) for c in calls] + [finish()])
    agent.run_turn("read it")
    assert all("failed" not in text.split("\n\n")[-1] for text in tool_messages(agent.history).values())


def test_reads_in_one_reply_come_back_in_order(ctx: ToolContext, ws: Path) -> None:
    for name in "abcdef":
        (ws / f"{name}.txt").write_text(f"content of {name}\n")
    calls = [tc("read_file", file_path=f"{name}.txt") for name in "abcdef"]
    agent, _, _ = make_agent(ctx, [reply(*calls), finish()])
    agent.run_turn("read all")
    results = list(tool_messages(agent.history).values())[:6]
    assert [r.split("\t")[1].strip() for r in results] == [f"content of {name}" for name in "abcdef"]


def test_cancel_during_the_model_reply_closes_the_turn_cleanly(ctx: ToolContext) -> None:
    def cancelled_midway(cancel: threading.Event | None) -> AssistantTurn:
        assert cancel is not None
        cancel.set()
        return AssistantTurn(content="I was about to", tool_calls=[tc("list_dir")])

    agent, _, _ = make_agent(ctx, [cancelled_midway])
    result = agent.run_turn("go")
    assert result.status == "cancelled"
    assert agent.history[-1] == {"role": "assistant", "content": "I was about to"}
    assert_history_valid(agent.history)


def test_cancel_while_tools_run_answers_the_remaining_calls(ctx: ToolContext, ws: Path) -> None:
    agent_box: list[Agent] = []
    approver = Approver(answer=False, on_ask=lambda: agent_box[0].cancel.set())
    second = tc("read_file", file_path="a.txt")
    agent, model, _ = make_agent(
        ctx, [reply(tc("write_file", file_path="x.txt", content="x"), second), finish()], approver=approver
    )
    agent_box.append(agent)
    result = agent.run_turn("go")
    assert result.status == "cancelled" and len(model.requests) == 1
    assert tool_messages(agent.history)[second.id].startswith("Error [cancelled]")
    assert_history_valid(agent.history)
    follow_up = agent.run_turn("carry on")
    assert follow_up.status == "finished"


def test_a_failed_model_request_ends_the_run_with_its_message(ctx: ToolContext) -> None:
    agent, _, _ = make_agent(ctx, [SneakyError("HTTP 401: the API key is wrong")])
    result = agent.run_turn("go")
    assert result.status == "error" and "the API key is wrong" in result.message


def test_an_empty_reply_is_nudged_once_then_an_error(ctx: ToolContext) -> None:
    agent, model, _ = make_agent(ctx, [reply(), reply()])
    result = agent.run_turn("go")
    assert result.status == "error" and "empty reply" in result.message
    assert model.requests[1][-1] == {"role": "user", "content": "continue: answer or call a tool"}


def test_a_reasoning_only_reply_is_nudged_once_and_the_model_may_then_answer(ctx: ToolContext) -> None:
    agent, model, events = make_agent(ctx, [reply(reasoning="Let me think."), reply(text="The answer.")])
    result = agent.run_turn("go")
    assert (result.status, result.message) == ("answered", "The answer.")
    assert model.requests[1][-1] == {"role": "user", "content": "continue: answer or call a tool"}
    assert events.of("reasoning")[0]["text"] == "Let me think."
    assert "Let me think." not in json.dumps(model.requests[1])


def test_reasoning_only_twice_is_an_error_that_says_the_model_only_reasoned(ctx: ToolContext) -> None:
    agent, model, _ = make_agent(ctx, [reply(reasoning="Hmm."), reply(reasoning="Hmm again."), finish()])
    result = agent.run_turn("go")
    assert result.status == "error" and "only reasoned" in result.message
    assert len(model.requests) == 2, "one nudge, not more"
    assert [m["content"] for m in agent.history if m["role"] == "user"].count("continue: answer or call a tool") == 1


def test_reasoning_is_shown_but_never_sent_back(ctx: ToolContext) -> None:
    agent, model, events = make_agent(ctx, [reply(tc("list_dir"), reasoning="secret plan"), finish()])
    agent.run_turn("go")
    assert events.of("reasoning")[0]["text"] == "secret plan"
    assert "secret plan" not in json.dumps(model.requests[1])


def test_a_tool_that_crashes_becomes_an_internal_error_result(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: an exception escaping a tool must not end the run or leave a call without a result."""

    def broken(found: Any, args: Any, ctx: ToolContext) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("sneakycode.permissions.gate.run", broken)
    agent, model, _ = make_agent(ctx, [reply(tc("list_dir")), reply(text="Recovered.")])
    result = agent.run_turn("go")
    assert result.status == "answered"
    text = first_result(model.requests[1])
    assert text.startswith("Error [internal_error]") and "disk on fire" in text


def test_usage_is_summed_over_the_run(ctx: ToolContext) -> None:
    agent, _, events = make_agent(ctx, [reply(tc("list_dir")), finish()])
    result: RunResult = agent.run_turn("go")
    assert (result.prompt_tokens, result.completion_tokens) == (20, 10)
    assert len(events.of("usage")) == 2


def test_update_tasks_is_shown_to_the_user(ctx: ToolContext) -> None:
    tasks = [{"id": "1", "content": "Write the test", "status": "in_progress"}]
    agent, _, events = make_agent(ctx, [reply(tc("update_tasks", tasks=tasks)), finish()])
    agent.run_turn("plan")
    assert events.of("tasks")[0]["tasks"] == tasks
    assert ctx.tasks == tasks


def test_a_context_length_refusal_compacts_and_retries_once(ctx: ToolContext, ws: Path) -> None:
    """The estimate can be low for a model's tokenizer; the server's refusal must not end the run."""
    (ws / "big.txt").write_text(("word " * 15 + "\n") * 1500)
    refusal = ModelError("the conversation no longer fits", kind="context_length")
    agent, model, events = make_agent(
        ctx,
        [reply(tc("read_file", file_path="big.txt")), reply(tc("list_dir")), refusal, reply(text="Fine.")],
        context_window=1_000_000,
    )
    result = agent.run_turn("read it")
    assert (result.status, result.message) == ("answered", "Fine.")
    retried = json.dumps(model.requests[-1])
    assert "word word" not in retried and "elided to fit the context window" in retried
    assert any("context is smaller than assumed" in e["message"] for e in events.of("notice"))


def test_set_mode_and_clear_are_the_agents_public_controls(ctx: ToolContext, ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    agent, model, events = make_agent(
        ctx,
        [reply(tc("read_file", file_path="a.txt")), reply(text="read"),
         reply(tc("write_file", file_path="b.txt", content="b")), reply(text="refused"),
         reply(tc("str_replace", file_path="a.txt", old_str="a", new_str="z")), reply(text="must read first")],
        approver=Approver(True),
    )
    assert agent.mode == "default"
    agent.run_turn("read a.txt")
    agent.set_mode("plan")
    assert agent.mode == "plan"
    agent.run_turn("write b.txt")
    assert not (ws / "b.txt").exists()
    assert events.of("permission")[-1]["rule"] == "mode: plan"
    agent.set_mode("default")
    agent.clear()
    assert [m["role"] for m in agent.history] == ["system"]
    agent.run_turn("edit a.txt")
    assert (ws / "a.txt").read_text() == "a\n", "after clear() a file must be read again before an edit"
    assert model.requests[-2][1] == {"role": "user", "content": "edit a.txt"}


def test_an_8k_window_fits_a_2000_line_read_with_a_read_on_hint(ctx: ToolContext, ws: Path) -> None:
    """Issue 12: with the 64 KB default cap, one read of a 2,000-line file was ~21k tokens, over an 8k window."""
    (ws / "long.py").write_text("".join(f"value_{n} = {n}  # a line of ordinary length\n" for n in range(2000)))
    agent, model, _ = make_agent(ctx, [reply(tc("read_file", file_path="long.py")), finish()], context_window=8192)
    assert agent.run_turn("Summarise long.py").status == "finished"
    budget = 8192 // 4 * 3
    result = first_result(agent.history)
    assert len(result.encode()) <= budget
    shown = int(result.split("(lines 1-")[1].split(" ")[0])
    assert 1 < shown < 2000 and result.rstrip().endswith(f"read on with start_line={shown + 1})")
    sent = model.requests[1]
    assert estimate_history_tokens(sent) + agent.tools_tokens < 8192


def test_a_2k_window_keeps_the_request_verbatim(ctx: ToolContext, ws: Path) -> None:
    """Regression: the tools alone pass a 2,048 window's compaction threshold, and the request was summarised."""
    (ws / "a.py").write_text("x = 1\n")
    request = "Read a.py and tell me what x is. " * 5
    few = tuple(t for t in all_tools() if t.name in ("read_file", "finish"))
    agent, model, _ = make_agent(ctx, [reply(tc("read_file", file_path="a.py")), finish("x is 1")],
                                 context_window=2048, tools=few)
    assert agent.run_turn(request).status == "finished"
    for sent in model.requests:
        assert {"role": "user", "content": request} in sent


def test_a_request_that_cannot_fit_ends_with_the_window_the_sizes_and_the_fix(ctx: ToolContext) -> None:
    """Issue 26: with every tool on a 2,048-token window the request cannot fit; it is never sent (nor
    compacted in a loop): the run ends with a context_overflow error that says what to change."""
    agent, model, _ = make_agent(ctx, [finish("never")], context_window=2048, reserve=512)
    result = agent.run_turn("Read a.py and tell me what x is.")
    assert result.status == "error" and model.requests == []
    assert "[context_overflow]" in result.message and "context window of 2,048 tokens" in result.message
    assert "system prompt and tools ~" in result.message and "reply reservation 512" in result.message
    assert "--ctx-size" in result.message and "tools.enabled" in result.message


def test_the_approver_is_told_each_calls_own_id(ctx: ToolContext, ws: Path) -> None:
    """Regression (issue 36): the approver got only the tool and its arguments, so a face had to guess which of
    two alike calls a question was about; now it gets the pending call with the model's id for it."""
    seen: list[PendingCall] = []

    class Recording:
        def approve(self, call: PendingCall, reason: str) -> bool:
            seen.append(call)
            return False

    first, second = tc("write_file", file_path="a.txt", content="x"), tc("write_file", file_path="a.txt", content="x")
    agent, _model, _events = make_agent(ctx, [reply(first, second), finish()], approver=Recording())
    agent.run_turn("write it twice")
    assert [(c.id, c.name, c.arguments["file_path"]) for c in seen] == [(first.id, "write_file", "a.txt"),
                                                                       (second.id, "write_file", "a.txt")]
