"""Context management (estimates, repair, elision, summaries) and the project context in the system prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.context import (
    ELIDED_MARK,
    SUMMARY_MARK,
    ContextManager,
    estimate_history_tokens,
    estimate_message_tokens,
    repair_history,
)
from sneakycode.agent.messages import AssistantMessage
from sneakycode.agent.prompts import base_prompt, build_system_prompt
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.errors import SneakyError
from sneakycode.testing.scripted_model import ScriptedModel
from sneakycode.tools.base import ToolContext
from tests.conftest import call


def summary_model(answer: str | Exception = "They read files and fixed a bug.", times: int = 1) -> ScriptedModel:
    """A model asked for a summary (`times` times at most: a summary larger than the window takes several)."""
    return ScriptedModel([answer if isinstance(answer, Exception) else AssistantTurn(content=answer)] * times)


class History:
    """Builds a valid history of tool calls with real results."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": "system prompt"},
            {"role": "user", "content": "Fix the bug in big.py"},
        ]
        self.count = 0

    def call(self, name: str, **args: Any) -> str:
        self.count += 1
        call_id = f"c{self.count}"
        result = call(self.ctx, name, **args).render()
        self.messages.append(
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            ]}
        )
        self.messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        return call_id

    def content_of(self, call_id: str) -> str:
        return next(m["content"] for m in self.messages if m.get("tool_call_id") == call_id)


@pytest.fixture
def big_files(ws: Path) -> list[str]:
    names = []
    for index in range(4):
        name = f"big{index}.py"
        (ws / name).write_text("".join(f"value_{index}_{n} = {n}\n" for n in range(400)))
        names.append(name)
    return names


def test_estimates_grow_with_content_and_count_tool_calls() -> None:
    small = estimate_message_tokens({"role": "user", "content": "hi"})
    big = estimate_message_tokens({"role": "user", "content": "x" * 3000})
    calls = [{"function": {"name": "read_file", "arguments": "x" * 300}}]
    with_call = estimate_message_tokens({"role": "assistant", "content": "", "tool_calls": calls})
    assert small < with_call < big
    assert big >= 1000  # errs high: 3 characters per token


def test_nothing_happens_below_the_threshold(ctx: ToolContext, big_files: list[str]) -> None:
    history = History(ctx)
    history.call("read_file", file_path=big_files[0])
    before = json.dumps(history.messages)
    assert ContextManager(1_000_000, ctx.workspace).compact(history.messages, 0, summary_model()) is None
    assert json.dumps(history.messages) == before


def test_old_tool_outputs_are_elided_first_with_a_note_saying_how_to_get_them_back(
    ctx: ToolContext, big_files: list[str]
) -> None:
    history = History(ctx)
    ids = [history.call("read_file", file_path=name) for name in big_files]
    window = estimate_history_tokens(history.messages) + 200
    model = summary_model()
    report = ContextManager(window, ctx.workspace).compact(history.messages, 0, model)
    assert report is not None and report.elided and model.requests == []
    first = history.content_of(ids[0])
    assert first.startswith(ELIDED_MARK) and big_files[0] in first and "Call read_file again" in first
    assert "value_3_399" in history.content_of(ids[-1]), "the newest result (not yet seen) stays whole"
    assert estimate_history_tokens(history.messages) <= window * 0.5


def test_an_elided_read_must_be_read_again_before_editing(ctx: ToolContext, big_files: list[str]) -> None:
    history = History(ctx)
    for name in big_files:
        history.call("read_file", file_path=name)
    report = ContextManager(estimate_history_tokens(history.messages) + 200, ctx.workspace).compact(
        history.messages, 0, summary_model()
    )
    assert report is not None and big_files[0] in report.forgotten_files
    refused = call(ctx, "write_file", file_path=big_files[0], content="new\n")
    assert refused.code is not None and refused.code.value == "not_read"
    assert call(ctx, "write_file", file_path=big_files[3], content="new\n").success, "its read is still in view"


def test_a_later_read_in_view_keeps_the_file_editable(ctx: ToolContext, big_files: list[str]) -> None:
    history = History(ctx)
    history.call("read_file", file_path=big_files[0])
    history.call("read_file", file_path=big_files[1])
    history.call("read_file", file_path=big_files[0], start_line=1, end_line=2)
    history.call("list_dir")
    report = ContextManager(estimate_history_tokens(history.messages) + 100, ctx.workspace).compact(
        history.messages, 0, summary_model()
    )
    assert report is not None and big_files[0] not in report.forgotten_files
    assert big_files[1] in report.forgotten_files


def test_older_turns_are_summarised_when_eliding_is_not_enough(ctx: ToolContext, big_files: list[str]) -> None:
    history = History(ctx)
    for name in big_files:
        history.call("read_file", file_path=name)
    for index in range(30):
        history.messages.append({"role": "user", "content": f"also remember point {index} " * 20})
        history.messages.append({"role": "assistant", "content": f"noted {index} " * 20})
    last = history.call("list_dir")
    model = summary_model("Read four files; nothing changed yet.", times=30)
    report = ContextManager(2000, ctx.workspace).compact(history.messages, 0, model)
    assert report is not None and report.summarised_messages > 0
    # The latest user message is the request being worked on: it stays whole, right after the summary.
    assert [m["role"] for m in history.messages] == ["system", "user", "user", "assistant", "tool"]
    assert history.messages[2]["content"] == "also remember point 29 " * 20
    summary = history.messages[1]["content"]
    assert summary.startswith(SUMMARY_MARK) and "Fix the bug in big.py" in summary and "nothing changed yet" in summary
    assert history.messages[-1]["tool_call_id"] == last
    assert model.requests[0][0]["role"] == "system"
    assert not call(ctx, "write_file", file_path=big_files[3], content="x\n").success


def test_a_failed_summary_still_shrinks_the_history_and_says_so(ctx: ToolContext) -> None:
    history = History(ctx)
    for index in range(40):
        history.messages.append({"role": "user", "content": f"message {index} " * 50})
        history.messages.append({"role": "assistant", "content": f"reply {index} " * 50})
    history.call("list_dir")
    report = ContextManager(2000, ctx.workspace).compact(history.messages, 0, summary_model(SneakyError("HTTP 500")))
    assert report is not None and report.summary_error == "HTTP 500"
    assert "no summary could be made" in history.messages[1]["content"]
    assert "summary failed" in report.describe()


def test_repair_answers_tool_calls_left_without_results() -> None:
    """Regression: a run that died mid-turn left calls unanswered, and every later request was rejected."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
    ]
    assert repair_history(messages) == 1
    assert messages[-1]["tool_call_id"] == "b" and messages[-1]["content"].startswith("Error [cancelled]")
    assert repair_history(messages) == 0


# ---- project context in the system prompt --------------------------------------------------------------


def test_the_system_prompt_is_short_and_states_the_conventions(ctx: ToolContext) -> None:
    prompt = build_system_prompt(ctx.workspace)
    assert prompt == base_prompt() and len(prompt) < 1200
    for convention in ("relative to the workspace root", "Read a file before you edit", "str_replace", "finish"):
        assert convention in prompt


def test_agents_md_and_context_md_are_appended(ctx: ToolContext, ws: Path) -> None:
    (ws / "AGENTS.md").write_text("Run tests with `make check`.\n")
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "context.md").write_text("The API lives in src/api.\n")
    prompt = build_system_prompt(ctx.workspace)
    assert prompt.index("make check") < prompt.index("src/api")
    assert "Project instructions from AGENTS.md" in prompt


def test_a_long_agents_md_is_cut_with_a_note(ctx: ToolContext, ws: Path) -> None:
    (ws / "AGENTS.md").write_text("rule\n" * 10_000)
    prompt = build_system_prompt(ctx.workspace, max_project_chars=1000)
    assert len(prompt) < len(base_prompt()) + 1300
    assert "[AGENTS.md cut here: 1000 of" in prompt and "read_file AGENTS.md for the rest" in prompt


def test_an_agents_md_link_leaving_the_workspace_is_not_followed(ctx: ToolContext, ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("TOP SECRET\n")
    (ws / "AGENTS.md").symlink_to(secret)
    assert "TOP SECRET" not in build_system_prompt(ctx.workspace)


def test_the_request_alone_is_never_compacted_even_when_the_tools_fill_the_window(ctx: ToolContext) -> None:
    """Regression: with a 2,048-token window the tools alone pass the threshold, and the user's request (the
    only message) was summarised away before the first model turn."""
    request = "Rename the helper in app.py " * 10
    messages = [{"role": "system", "content": "system prompt"}, {"role": "user", "content": request}]
    model = summary_model()
    assert ContextManager(2048, ctx.workspace).compact(messages, 5000, model) is None
    assert messages[1] == {"role": "user", "content": request} and not model.requests


def test_a_small_window_gives_tools_a_quarter_of_it_in_bytes(ctx: ToolContext) -> None:
    assert ContextManager(8192, ctx.workspace).output_budget() == 2048 * 3
    assert ContextManager(1024, ctx.workspace).output_budget() == 1024  # never below the smallest setting


def test_reasoning_sent_back_counts_toward_the_window() -> None:
    """Under a `chain` or `keep` policy the reasoning rides on the assistant message; the window estimate must
    see it, or compaction comes too late and the server refuses the prompt."""
    bare: AssistantMessage = {"role": "assistant", "content": "ok"}
    thinking: AssistantMessage = {"role": "assistant", "content": "ok", "reasoning_content": "x" * 3000}
    assert estimate_message_tokens(thinking) >= estimate_message_tokens(bare) + 1000
