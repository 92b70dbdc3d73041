"""Issue 26, compaction that fits: summaries in chunks that each fit the summarising model's window, with
their own reply cap, keeping the user's requests word for word, the task list, the files changed and the
last tool results; and at most one compaction per model turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sneakycode.agent.context import SUMMARY_MARK, ContextManager
from sneakycode.agent.estimate import estimate_history_tokens
from sneakycode.agent.loop import Agent
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.agent.summary import ROLLING_PROMPT, SUMMARY_PROMPT, Summariser, requests_in
from sneakycode.errors import ModelError
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext
from sneakycode.tools.registry import all_tools
from tests.agent.test_loop import Events


def long_history(turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "system prompt"},
                                      {"role": "user", "content": "First: port the parser to Rust, keep the API."}]
    for index in range(turns):
        messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": f"c{index}", "type": "function",
                         "function": {"name": "write_file", "arguments": json.dumps(
                             {"file_path": f"src/part{index}.rs", "content": "x"})}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{index}", "content": f"wrote part {index} " * 60})
        messages.append({"role": "user", "content": f"Request {index}: also handle case {index}, word for word."})
        messages.append({"role": "assistant", "content": f"Handling case {index}. " * 30})
    messages.append({"role": "assistant", "content": "", "tool_calls": [{"id": "last", "type": "function",
                     "function": {"name": "list_dir", "arguments": "{}"}}]})
    messages.append({"role": "tool", "tool_call_id": "last", "content": "src/"})
    return messages


def test_a_history_larger_than_the_small_models_window_is_summarised_in_chunks_that_each_fit(ctx: ToolContext) -> None:
    """A 40-turn history against a 2,048-token summarising model: several requests, each (prompt + its own
    reply cap) inside that window, the later ones carrying the summary so far."""
    messages = long_history(40)
    small = ScriptedModel([AssistantTurn(content=f"summary {i}", usage=Usage(100, 10)) for i in range(40)])
    manager = ContextManager(16_384, ctx.workspace, reserve=2048)
    report = manager.compact(messages, 0, Summariser(small, 2048, "small-model"), tasks="[>] 1. port the lexer")
    assert report is not None and len(small.requests) >= 3 and len(report.summary_usage) == len(small.requests)
    for sent, cap in zip(small.requests, small.caps, strict=True):
        assert cap is not None and cap <= 2048 // 8
        assert estimate_history_tokens(sent) + cap <= 2048
    assert small.requests[0][0]["content"] == SUMMARY_PROMPT
    assert all(sent[0]["content"] == ROLLING_PROMPT for sent in small.requests[1:])
    assert "summary 0" in small.requests[1][1]["content"], "the rolling summary carries what came before"
    text = messages[1]["content"]
    assert text.startswith(SUMMARY_MARK) and text.endswith(f"summary {len(small.requests) - 1}")
    assert "First: port the parser to Rust, keep the API." in text
    assert "Request 38: also handle case 38, word for word." in text
    assert messages[2] == {"role": "user", "content": "Request 39: also handle case 39, word for word."}
    assert "[>] 1. port the lexer" in text and "src/part39.rs" in text
    assert "The last tool results:" in text and "wrote part 39" in text
    assert estimate_history_tokens(messages) <= manager.target * manager.limit()


def test_a_second_summary_keeps_the_requests_the_first_one_kept(ctx: ToolContext) -> None:
    messages = long_history(10)
    manager = ContextManager(4096, ctx.workspace, reserve=512)
    model = ScriptedModel([AssistantTurn(content="first summary")] * 20)
    assert manager.compact(messages, 0, model) is not None
    kept = requests_in(messages[1]["content"])
    assert kept[0] == "First: port the parser to Rust, keep the API." and len(kept) >= 2
    messages.extend(long_history(10)[2:])
    assert manager.compact(messages, 0, model) is not None
    again = requests_in(messages[1]["content"])
    assert again[0] == kept[0] and kept[-1] in again


class Server:
    """A model like the scripted server with `no_tools_reply` (summaries are answered apart from the turns)
    that refuses, as too long, the first request sent after the history was compacted."""

    def __init__(self, turns: list[AssistantTurn], events: Events) -> None:
        self.turns = turns
        self.events = events
        self.refused = 0

    def complete(self, messages: list[Any], tools: list[dict[str, Any]], *, on_text: Any = None, cancel: Any = None,
                 max_tokens: int | None = None, on_activity: Any = None) -> AssistantTurn:
        if not tools:
            return AssistantTurn(content="summary")
        if not self.refused and any(n["message"].startswith("context compacted") for n in self.events.of("notice")):
            self.refused += 1
            raise ModelError("the request exceeds the context", kind="context_length")
        return self.turns.pop(0)


def test_at_most_one_compaction_per_turn_then_a_clear_error_instead_of_a_loop(ctx: ToolContext) -> None:
    """The server says the request is too long in a turn that already compacted: no second compaction; the
    run ends with context_overflow (the window, the sizes, the fix), and nothing more is sent."""
    (Path(ctx.workspace.root) / "a.txt").write_text("a line of text\n" * 200)
    few = tuple(t for t in all_tools() if t.name in ("read_file", "finish"))
    reads = [AssistantTurn(tool_calls=[ToolCall(f"r{i}", "read_file", '{"file_path": "a.txt"}')]) for i in range(12)]
    events = Events()
    model = Server(reads, events)
    agent = Agent(Binding(BoundModel(model, window=4096, reserve=512)), Calls(ctx, None, few), Conversation(),
                  RunConfig(events, main=True))
    result = agent.run_turn("Read a.txt again and again.")
    per_turn: dict[int, int] = {}
    turn = 0
    for event in events.items:
        if event["type"] == "turn":
            turn = event["turn"]
        elif event["type"] == "notice" and event["message"].startswith("context compacted"):
            per_turn[turn] = per_turn.get(turn, 0) + 1
    assert model.refused == 1 and per_turn and max(per_turn.values()) == 1
    assert result.status == "error" and "[context_overflow]" in result.message
    assert "context window of" in result.message and "--ctx-size" in result.message
    assert result.turns == max(per_turn), "the run ended in the turn that compacted and was refused"
