"""The message list against the model's context window: repair, the fit check and compaction.

Every request must fit: the system prompt, the tools array, the history and the reply reservation (the
reply cap the request asks for), with a margin, within the window. Compaction starts from that measured
headroom, before a request is sent, never after one failed. Near the limit, old images go first (each
replaced by a note; see agent/images.py), then old tool outputs: each is replaced by a note that says what it
was and how to get it back. Eliding the result of a tool that records reads (read_file) also clears that file
from the read ledger (unless a later read of it is still in view), so the model must read the file again
before it edits it, instead of editing from memory. If that is not enough, the older turns are summarised
(see agent/summary.py: in chunks when they are larger than the summarising model's window) into one message
that keeps the user's requests word for word, the task list, the files changed and the last tool results.
When the request still does not fit, `check_fits` says so with the sizes and the fix: never a loop.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.agent.estimate import (
    CHARS_PER_TOKEN,
    MESSAGE_OVERHEAD_TOKENS,
    estimate_history_tokens,
    estimate_message_tokens,
    margin_for,
)
from sneakycode.agent.images import TOOL_IMAGES, content_text, drop_images, image_tokens
from sneakycode.agent.messages import Message, ToolMessage, UserMessage, tool_calls_of
from sneakycode.agent.protocol import ChatModel, Usage
from sneakycode.agent.summary import SUMMARY_PROMPT, Keeps, Summariser, render_lines, requests_in, summarise
from sneakycode.errors import ModelError, SneakyError, ToolError
from sneakycode.tools.registry import get_tool
from sneakycode.workspace.files import Workspace

__all__ = [
    "CHARS_PER_TOKEN", "MESSAGE_OVERHEAD_TOKENS", "SUMMARY_PROMPT", "CompactionReport", "ContextManager",
    "estimate_history_tokens", "estimate_message_tokens", "repair_history",
]  # fmt: skip

ELIDE_MIN_CHARS = 300
ELIDED_MARK = "[elided to fit the context window:"
SUMMARY_MARK = "[Summary of the earlier conversation"
# At most this share of the window for any one tool result, so a small window (8k on a local server) still
# holds the tools, the system prompt and a full result; never below the smallest max_output_bytes. With the
# fixed part known, also at most a third of the room left for the history, so one result never fills it.
TOOL_OUTPUT_SHARE = 0.25
RESULT_SHARE_OF_ROOM = 1 / 3
MIN_OUTPUT_BUDGET = 1024
MIN_SUMMARY_ROOM = 256  # tokens a summary message gets even when the kept messages leave less
LAST_RESULTS_KEPT = 2
FIX = (
    "Fix: give the server a bigger window (llama.cpp `--ctx-size`, Ollama `OLLAMA_CONTEXT_LENGTH` or the "
    "model's num_ctx, vLLM `--max-model-len`) and set context_window to match, offer fewer tools with "
    "tools.enabled, or lower max_output_tokens."
)


def repair_history(messages: list[Message]) -> int:
    """Give every tool call without a result a `cancelled` result (a run that died mid-turn leaves such
    calls, and servers reject the history then). Returns how many results were added."""
    added = 0
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        calls = tool_calls_of(message)
        if not calls:
            continue
        answered = set()
        while index < len(messages) and (result := messages[index])["role"] == "tool":
            answered.add(result["tool_call_id"])
            index += 1
        for call in calls:
            if call["id"] not in answered:
                messages.insert(index, _interrupted_result(call["id"]))
                index += 1
                added += 1
    return added


def _interrupted_result(call_id: str) -> ToolMessage:
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": "Error [cancelled]: the session ended before this call ran; it had no effect.\n"
        "Hint: Check the current state (read the file, list the folder) before you continue.",
    }


@dataclass
class CompactionReport:
    tokens_before: int
    tokens_after: int
    elided: list[str] = field(default_factory=list)
    images_dropped: int = 0
    summarised_messages: int = 0
    forgotten_files: list[str] = field(default_factory=list)
    summary_error: str | None = None
    summary_usage: list[Usage] = field(default_factory=list)
    """What each summary request used (its tokens count toward the budgets, at the summarising model's price)."""

    def describe(self) -> str:
        parts = [f"context compacted from ~{self.tokens_before} to ~{self.tokens_after} tokens"]
        if self.images_dropped:
            parts.append(f"{self.images_dropped} old image(s) dropped")
        if self.elided:
            parts.append(f"{len(self.elided)} old tool outputs elided")
        if self.summarised_messages:
            parts.append(f"{self.summarised_messages} older messages summarised")
        if self.summary_error:
            parts.append(f"summary failed ({self.summary_error}); older messages dropped")
        if self.forgotten_files:
            parts.append("must re-read before editing: " + ", ".join(self.forgotten_files))
        return "; ".join(parts)


@dataclass
class ContextManager:
    """Keeps the history under `high` x its room, compacting it down to `target` x that room. The room is
    what the prompt may take (`limit`: the window less the reply reservation and the margin) less what every
    request carries anyway (the system prompt and the tools), so a big tools array does not make every turn
    compact. A tool result takes at most a third of the room (`output_budget`), less than the gap between
    `high` and `target`, so a compaction lasts more than one turn."""

    window: int
    workspace: Workspace
    reserve: int = 0
    """The reply cap each request asks for (max_tokens): the window must hold it besides the prompt."""
    high: float = 0.75
    target: float = 0.4

    def limit(self) -> int:
        """Tokens the prompt (system prompt, tools, history) may take: the window less reply and margin."""
        return self.window - self.reserve - margin_for(self.window)

    def assume_smaller(self, sent: int) -> None:
        """The server refused `sent` tokens as too long: assume a window below what was sent (with the reply
        reservation), never below 1,024 tokens."""
        self.window = max(1024, int((sent + self.reserve) * 0.9))

    def output_budget(self, fixed_tokens: int | None = None) -> int:
        """Bytes one tool result may take: TOOL_OUTPUT_SHARE of the window at CHARS_PER_TOKEN, and with
        `fixed_tokens` (system prompt and tools) known, a third of the room they leave."""
        tokens = int(self.window * TOOL_OUTPUT_SHARE)
        if fixed_tokens is not None:
            tokens = min(tokens, int(max(0, self.limit() - fixed_tokens) * RESULT_SHARE_OF_ROOM))
        return max(MIN_OUTPUT_BUDGET, tokens * CHARS_PER_TOKEN)

    def needed(self, messages: list[Message], fixed_tokens: int) -> bool:
        """Whether `compact` would change anything: the prompt nears its room and the history has something
        older than the request and the results the model has not seen yet."""
        keep_from = _last_assistant_index(messages)
        request = _last_user_index(messages)
        fixed = _fixed(messages, fixed_tokens)
        history = estimate_history_tokens(messages) + fixed_tokens - fixed
        return history > self.high * self.room(fixed) and not all(i == request for i in range(1, keep_from))

    def room(self, fixed: int) -> int:
        """Tokens the history may take beside `fixed` (system prompt and tools)."""
        return max(0, self.limit() - fixed)

    def check_fits(self, messages: list[Message], fixed_tokens: int) -> None:
        """Raise ModelError (context_overflow) when the request would not fit the window: it names the
        window, the sizes and the fix. Never sends anything."""
        system = estimate_message_tokens(messages[0]) if messages else 0
        history = estimate_history_tokens(messages) - system
        if system + fixed_tokens + history <= self.limit():
            return
        raise ModelError(
            f"[context_overflow] the next request does not fit the model's context window of {self.window:,} "
            f"tokens, even after compacting: system prompt and tools ~{system + fixed_tokens:,} tokens, history "
            f"~{history:,}, reply reservation {self.reserve:,} (max_output_tokens), margin "
            f"{margin_for(self.window):,}. {FIX}",
            kind="context_overflow",
        )

    def compact(
        self,
        messages: list[Message],
        fixed_tokens: int,
        model: ChatModel | Summariser,
        cancel: threading.Event | None = None,
        *,
        tasks: str = "",
    ) -> CompactionReport | None:
        """Compact `messages` in place when they (plus `fixed_tokens`, the tool schemas) near the limit.
        `model` writes the summary (a Summariser: the small model, with its window); `tasks` is the task list,
        kept in the summary word for word.

        Everything from the last assistant message on (results the model has not seen yet) is kept whole, and
        so is the latest user message (the request being worked on). With nothing older than those there is
        nothing to compact, however full the window: the tools and system prompt alone may fill a tiny one.
        """
        if not self.needed(messages, fixed_tokens):
            return None
        before = estimate_history_tokens(messages) + fixed_tokens
        keep_from = _last_assistant_index(messages)
        request = _last_user_index(messages)
        report = CompactionReport(before, before)
        calls = _calls_by_id(messages)
        fixed = _fixed(messages, fixed_tokens)
        goal = fixed + int(self.target * self.room(fixed))
        # The tool results as they were before eliding: the summary keeps the last ones word for word.
        originals = {m["tool_call_id"]: m["content"] for m in messages[1:keep_from] if m["role"] == "tool"}
        elided_reads: list[str] = []
        total = before
        for index, message in enumerate(messages[1:keep_from], start=1):
            if total <= goal:
                break
            if index != request and image_tokens(message):
                old_cost = estimate_message_tokens(message)
                report.images_dropped += drop_images(message)
                total += estimate_message_tokens(message) - old_cost
        for message in messages[1:keep_from]:
            if total <= goal:
                break
            if message["role"] != "tool":
                continue
            content = message["content"]
            if len(content) < ELIDE_MIN_CHARS or content.startswith(ELIDED_MARK):
                continue
            name, arguments = calls.get(message["tool_call_id"], ("a tool", {}))
            old_cost = estimate_message_tokens(message)
            message["content"] = _elision_note(name, arguments, len(content))
            total += estimate_message_tokens(message) - old_cost
            report.elided.append(f"{name}({_brief(arguments)})")
            elided_reads.extend(_read_paths(name, arguments))
        if total > goal:
            summariser = model if isinstance(model, Summariser) else Summariser(model, self.window)
            kept = estimate_history_tokens([messages[0], *messages[keep_from:]]) + fixed_tokens
            if 0 < request < keep_from:
                kept += estimate_message_tokens(messages[request])
            room = max(MIN_SUMMARY_ROOM, goal - kept)
            self._summarise(messages, keep_from, request, summariser, cancel, report, elided_reads, calls,
                            room=room, keeps=Keeps(tasks=tasks), originals=originals)
        report.forgotten_files = self._forget_unseen_reads(messages, elided_reads, _calls_by_id(messages))
        report.tokens_after = estimate_history_tokens(messages) + fixed_tokens
        return report

    def _summarise(
        self,
        messages: list[Message],
        keep_from: int,
        request: int,
        summariser: Summariser,
        cancel: threading.Event | None,
        report: CompactionReport,
        elided_reads: list[str],
        calls: dict[str, tuple[str, dict[str, Any]]],
        *,
        room: int,
        keeps: Keeps,
        originals: dict[str, str],
    ) -> None:
        """Replace the messages before `keep_from` by one summary message of at most `room` tokens; the
        request at `request`, when among them, stays whole right after it, so the model never works from a
        summary of what it was asked."""
        kept = [messages[request]] if 0 < request < keep_from else []
        old = [m for i, m in enumerate(messages[1:keep_from], start=1) if i != request]
        for message in old:
            text = content_text(message["content"])
            if message["role"] == "user" and text.startswith(SUMMARY_MARK):
                keeps.requests.extend(requests_in(text))
            elif _is_request(message):
                keeps.requests.append(text)
            for call in tool_calls_of(message):
                name, arguments = calls.get(call["id"], ("", {}))
                found = get_tool(name)
                if found is not None and found.edits_files:
                    keeps.files_changed.extend(value for value, _ in found.path_arguments(arguments))
            if message["role"] == "tool":
                name, arguments = calls.get(message["tool_call_id"], ("", {}))
                elided_reads.extend(_read_paths(name, arguments))
                before = originals.get(message["tool_call_id"], text)
                if not before.startswith(ELIDED_MARK):
                    keeps.last_results.append(f"{name}({_brief(arguments)}): {before}")
        keeps.last_results = keeps.last_results[-LAST_RESULTS_KEPT:]
        cap = summariser.cap(room // 2)
        try:
            made = summarise(summariser, render_lines(old), cap=cap, cancel=cancel)
            report.summary_usage = made.usage
            summary = made.text or "(the summary came back empty)"
        except SneakyError as exc:
            report.summary_error = str(exc)
            summary = "(no summary could be made; the earlier messages were dropped)"
        text = f"{SUMMARY_MARK}, made to fit the context window; files read before must be read again]\n"
        if kept:
            text += "The request being worked on follows this summary, word for word.\n"
        fixed = keeps.render(max(0, (room - cap) * CHARS_PER_TOKEN - len(text) - 20))
        text += (fixed + "\n\n" if fixed else "") + "Summary:\n" + summary
        summary_message: UserMessage = {"role": "user", "content": text}
        messages[1:keep_from] = [summary_message, *kept]
        report.summarised_messages = len(old)

    def _forget_unseen_reads(
        self, messages: list[Message], paths: list[str], calls: dict[str, tuple[str, dict[str, Any]]]
    ) -> list[str]:
        """Clear ledger entries of elided reads, unless another read of the same file is still in view."""
        still_seen = set()
        for message in messages:
            if message["role"] != "tool" or message["content"].startswith(ELIDED_MARK):
                continue
            name, arguments = calls.get(message["tool_call_id"], ("", {}))
            for path in _read_paths(name, arguments):
                real = self._real(path)
                if real is not None:
                    still_seen.add(real)
        forgotten = []
        for path in dict.fromkeys(paths):
            real = self._real(path)
            if real is None or real in still_seen or not self.workspace.ledger.has_read(real):
                continue
            self.workspace.ledger.forget(real)
            forgotten.append(self.workspace.display(real))
        return forgotten

    def _real(self, user_path: str) -> Path | None:
        try:
            return self.workspace.resolve(user_path)
        except ToolError:
            return None


def _fixed(messages: list[Message], tools_tokens: int) -> int:
    """What every request carries besides the conversation: the system prompt (the first message) and tools."""
    return (estimate_message_tokens(messages[0]) if messages else 0) + tools_tokens


def _last_assistant_index(messages: list[Message]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "assistant":
            return index
    return len(messages)


def _is_request(message: Message) -> bool:
    """A user message that asks something (not the one carrying tool results' images)."""
    return message["role"] == "user" and not message.get(TOOL_IMAGES)


def _last_user_index(messages: list[Message]) -> int:
    """The latest user message (a request: not the one carrying tool results' images), or -1 when there is none."""
    for index in range(len(messages) - 1, -1, -1):
        if _is_request(messages[index]):
            return index
    return -1


def _calls_by_id(messages: list[Message]) -> dict[str, tuple[str, dict[str, Any]]]:
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        for call in tool_calls_of(message):
            function = call["function"]
            try:
                arguments = json.loads(function["arguments"] or "{}")
            except (ValueError, RecursionError):
                arguments = {}
            found[call["id"]] = (function["name"], arguments if isinstance(arguments, dict) else {})
    return found


def _brief(arguments: dict[str, Any]) -> str:
    parts = []
    for key, value in arguments.items():
        text = json.dumps(value, ensure_ascii=False)
        parts.append(f"{key}={text if len(text) <= 60 else text[:57] + '...'}")
    return ", ".join(parts)


def _read_paths(name: str, arguments: dict[str, Any]) -> list[str]:
    """The files a call put in the read ledger (tools that record reads), as the model wrote them."""
    found = get_tool(name)
    if found is None or not found.records_read:
        return []
    return [value for value, _ in found.path_arguments(arguments)]


def _elision_note(name: str, arguments: dict[str, Any], size: int) -> str:
    again = (
        f"Call {name} again if you need it; this file must be read again before you edit it."
        if _read_paths(name, arguments)
        else "Repeat the call if you need its output again."
    )
    return f"{ELIDED_MARK} the result of {name}({_brief(arguments)}), {size} characters. {again}]"
