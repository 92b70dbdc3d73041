"""The message list against the model's context window: token estimates, repair and compaction.

Near the window, old images go first (each replaced by a note; see agent/images.py), then old tool
outputs: each is replaced by a note that says what it was and how to
get it back. Eliding the result of a tool that records reads (read_file) also clears that file from the
read ledger (unless a later read of it is still in view), so the model must read the file again before it
edits it, instead of editing from memory. If that is not enough, the older turns are summarised by the
model into one message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.agent.images import TOOL_IMAGES, content_text, drop_images, image_tokens
from sneakycode.agent.messages import Message, ToolMessage, UserMessage, tool_calls_of
from sneakycode.agent.protocol import ChatModel
from sneakycode.errors import SneakyError, ToolError
from sneakycode.tools.registry import get_tool
from sneakycode.workspace.files import Workspace

CHARS_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 4
ELIDE_MIN_CHARS = 300
ELIDED_MARK = "[elided to fit the context window:"
SUMMARY_MARK = "[Summary of the earlier conversation"
SUMMARY_INPUT_CHARS = 60_000
# At most this share of the window for any one tool result, so a small window (8k on a local server) still
# holds the tools, the system prompt and a full result; never below the smallest max_output_bytes.
TOOL_OUTPUT_SHARE = 0.25
MIN_OUTPUT_BUDGET = 1024

SUMMARY_PROMPT = (
    "Summarise this coding-agent conversation for the agent itself, which will continue the work from your "
    "summary alone. Keep: the user's requests verbatim, decisions made, files read or changed (paths), "
    "commands run and their outcome, errors still open, and what remains to do. Be concise; no preamble."
)


def estimate_message_tokens(message: Message) -> int:
    """A deliberately high estimate (3 characters per token, images by their size) of what one message costs."""
    chars = len(content_text(message["content"]))
    for call in tool_calls_of(message):
        function = call["function"]
        chars += len(function["name"]) + len(function["arguments"]) + 20
    return chars // CHARS_PER_TOKEN + image_tokens(message) + MESSAGE_OVERHEAD_TOKENS


def estimate_history_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_message_tokens(m) for m in messages)


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
    """Keeps the history under `high` x window, compacting down to `target` x window."""

    window: int
    workspace: Workspace
    high: float = 0.75
    target: float = 0.5

    def output_budget(self) -> int:
        """Bytes one tool result may take in this window: TOOL_OUTPUT_SHARE of it at CHARS_PER_TOKEN."""
        return max(MIN_OUTPUT_BUDGET, int(self.window * TOOL_OUTPUT_SHARE) * CHARS_PER_TOKEN)

    def needed(self, messages: list[Message], fixed_tokens: int) -> bool:
        """Whether `compact` would change anything: the history nears the window and has something older than
        the request and the results the model has not seen yet."""
        keep_from = _last_assistant_index(messages)
        request = _last_user_index(messages)
        before = estimate_history_tokens(messages) + fixed_tokens
        return before > self.high * self.window and not all(i == request for i in range(1, keep_from))

    def compact(
        self,
        messages: list[Message],
        fixed_tokens: int,
        model: ChatModel,
        cancel: threading.Event | None = None,
    ) -> CompactionReport | None:
        """Compact `messages` in place when they (plus `fixed_tokens`, the tool schemas) near the window.

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
        goal = int(self.target * self.window)
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
            self._summarise(messages, keep_from, request, model, cancel, report, elided_reads, calls)
        report.forgotten_files = self._forget_unseen_reads(messages, elided_reads, _calls_by_id(messages))
        report.tokens_after = estimate_history_tokens(messages) + fixed_tokens
        return report

    def _summarise(
        self,
        messages: list[Message],
        keep_from: int,
        request: int,
        model: ChatModel,
        cancel: threading.Event | None,
        report: CompactionReport,
        elided_reads: list[str],
        calls: dict[str, tuple[str, dict[str, Any]]],
    ) -> None:
        """Replace the messages before `keep_from` by one summary; the request at `request`, when among them,
        stays whole right after the summary, so the model never works from a summary of what it was asked."""
        kept = [messages[request]] if 0 < request < keep_from else []
        old = [m for i, m in enumerate(messages[1:keep_from], start=1) if i != request]
        for message in old:
            if message["role"] == "tool":
                name, arguments = calls.get(message["tool_call_id"], ("", {}))
                elided_reads.extend(_read_paths(name, arguments))
        requests = [content_text(m["content"]) for m in old if _is_request(m)]
        try:
            reply = model.complete(
                [
                    {"role": "system", "content": SUMMARY_PROMPT},
                    {"role": "user", "content": _render_for_summary(old, self._summary_input_limit())},
                ],
                [],
                cancel=cancel,
            )
            summary = reply.content.strip() or "(the summary came back empty)"
        except SneakyError as exc:
            report.summary_error = str(exc)
            summary = "(no summary could be made; the earlier messages were dropped)"
        first_request = requests[0] if requests else ""
        text = f"{SUMMARY_MARK}, made to fit the context window; files read before must be read again]\n"
        if first_request:
            text += f"The original request: {first_request[:4000]}\n\n"
        if kept:
            text += "The request being worked on follows this summary, word for word.\n\n"
        summary_message: UserMessage = {"role": "user", "content": text + summary}
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

    def _summary_input_limit(self) -> int:
        return min(SUMMARY_INPUT_CHARS, self.window * CHARS_PER_TOKEN // 2)

    def _real(self, user_path: str) -> Path | None:
        try:
            return self.workspace.resolve(user_path)
        except ToolError:
            return None


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


def _render_for_summary(messages: list[Message], limit: int) -> str:
    lines = []
    for message in messages:
        role = message["role"]
        content = content_text(message["content"])
        if len(content) > 2000:
            content = content[:2000] + f" ... [{len(content) - 2000} more characters]"
        if content:
            lines.append(f"{role}: {content}")
        for call in tool_calls_of(message):
            function = call["function"]
            lines.append(f"{role} called {function['name']}({function['arguments'][:500]})")
    text = "\n".join(lines)
    return text if len(text) <= limit else "...\n" + text[-limit:]
