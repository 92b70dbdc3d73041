"""Summaries the model writes of older messages, made to fit the window of the model that writes them.

The part to summarise may be larger than that window (a long session, a small model for chores), so it is
cut into chunks that each fit and summarised in turn: the first request summarises the first chunk, each
later one gets the summary so far and the next chunk and returns the whole summary again (a rolling
summary). Every request carries its own reply cap, so prompt + cap + margin never exceed the window.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from sneakycode.agent.estimate import CHARS_PER_TOKEN, estimate_history_tokens, margin_for
from sneakycode.agent.images import content_text
from sneakycode.agent.messages import Message, tool_calls_of
from sneakycode.agent.protocol import ChatModel, Usage
from sneakycode.errors import ModelError

SUMMARY_PROMPT = (
    "Summarise this coding-agent conversation for the agent itself, which will continue the work from your "
    "summary alone. Keep: the user's requests verbatim, decisions made, files read or changed (paths), "
    "commands run and their outcome, errors still open, and what remains to do. Be concise; no preamble."
)
ROLLING_PROMPT = (
    "You are updating a running summary of a coding-agent conversation, for the agent itself, which will "
    "continue the work from the summary alone. You get the summary so far, then the next part of the "
    "conversation; answer with the whole updated summary. Keep: the user's requests verbatim, decisions "
    "made, files read or changed (paths), commands run and their outcome, errors still open, and what "
    "remains to do. Be concise; no preamble."
)
MAX_SUMMARY_TOKENS = 1024
MIN_SUMMARY_TOKENS = 64
MIN_CHUNK_TOKENS = 128
MESSAGE_CLIP_CHARS = 2000
CALL_CLIP_CHARS = 500


@dataclass(frozen=True)
class Summariser:
    """The model that writes summaries (the small model when one is set), its window, and its name for the
    price its tokens are counted at ("" is the main model)."""

    model: ChatModel
    window: int
    name: str = ""

    def cap(self, room: int | None = None) -> int:
        """The reply cap of a summary request: an eighth of the window, at most 1,024 tokens, and no more
        than `room` (what the summary may take in the history it goes back into)."""
        cap = min(MAX_SUMMARY_TOKENS, self.window // 8)
        if room is not None:
            cap = min(cap, room)
        return max(MIN_SUMMARY_TOKENS, cap)


@dataclass
class Summary:
    text: str
    usage: list[Usage] = field(default_factory=list)
    requests: int = 0


def render_lines(messages: list[Message]) -> list[str]:
    """One plain-text line (block) per message and per tool call, long ones clipped, for the summariser."""
    lines = []
    for message in messages:
        role = message["role"]
        content = content_text(message["content"])
        if len(content) > MESSAGE_CLIP_CHARS and role != "user":
            content = content[:MESSAGE_CLIP_CHARS] + f" ... [{len(content) - MESSAGE_CLIP_CHARS} more characters]"
        if content:
            lines.append(f"{role}: {content}")
        for call in tool_calls_of(message):
            function = call["function"]
            lines.append(f"{role} called {function['name']}({function['arguments'][:CALL_CLIP_CHARS]})")
    return lines


def _chunks(lines: list[str], limit: int) -> list[str]:
    """The lines joined into chunks of at most `limit` characters; a line longer than that is cut."""
    chunks: list[str] = []
    current = ""
    for line in lines:
        if len(line) > limit:
            line = line[: limit - 40] + " ... [cut to fit]"
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


def summarise(
    summariser: Summariser,
    lines: list[str],
    *,
    cap: int,
    focus: str = "",
    cancel: threading.Event | None = None,
) -> Summary:
    """Summarise `lines` (see render_lines) in as many requests as it takes for each to fit the summariser's
    window with a reply of `cap` tokens. Raises ModelError (context_overflow) when not even one chunk fits,
    and whatever the model raises."""
    extra = f"\nFocus the summary on: {focus}" if focus else ""
    overhead = estimate_history_tokens([
        {"role": "system", "content": ROLLING_PROMPT + extra},
        {"role": "user", "content": "Summary so far:\n\n\nNext part of the conversation:\n"},
    ])
    # Room for a chunk: the window less the reply, the margin, the prompt and the summary so far (at most `cap`).
    room = summariser.window - cap - margin_for(summariser.window) - overhead - cap
    if room < MIN_CHUNK_TOKENS:
        raise ModelError(
            f"[context_overflow] the summarising model's window of {summariser.window} tokens is too small to "
            f"summarise in (a {cap}-token summary needs more); set a larger context_window for it",
            kind="context_overflow",
        )
    summary = Summary("")
    for chunk in _chunks(lines, room * CHARS_PER_TOKEN) or ["(nothing)"]:
        if summary.requests == 0:
            messages: list[Message] = [
                {"role": "system", "content": SUMMARY_PROMPT + extra},
                {"role": "user", "content": chunk},
            ]
        else:
            messages = [
                {"role": "system", "content": ROLLING_PROMPT + extra},
                {"role": "user", "content": f"Summary so far:\n{summary.text}\n\nNext part of the conversation:\n"
                                            f"{chunk}"},
            ]
        reply = summariser.model.complete(messages, [], cancel=cancel, max_tokens=cap)
        summary.requests += 1
        summary.usage.append(reply.usage)
        # Clipped to what `cap` allows by our estimate, so the next request (and the history) fit as planned.
        summary.text = reply.content.strip()[: cap * CHARS_PER_TOKEN]
    return summary


REQUESTS_HEAD = "The user's requests so far, word for word (oldest first):"
REQUESTS_END = "[end of the requests]"
_REQUEST_LINE = re.compile(r"^\[request \d+\]$", re.MULTILINE)


def requests_in(summary_text: str) -> list[str]:
    """The requests an earlier summary message kept word for word (so a later summary keeps them too)."""
    start = summary_text.find(REQUESTS_HEAD)
    end = summary_text.find(REQUESTS_END, start)
    if start < 0 or end < 0:
        return []
    block = summary_text[start + len(REQUESTS_HEAD):end]
    return [part.strip("\n") for part in _REQUEST_LINE.split(block)[1:]]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 40)] + f" ... [{len(text) - limit} more characters]"


def requests_section(requests: list[str], limit: int) -> str:
    """The requests word for word within `limit` characters: the first (the task) always, then the newest
    ones going back; those left out are counted, and a single request too long for the room is cut."""
    if not requests:
        return ""
    chosen = {0}
    used = len(requests[0])
    for index in range(len(requests) - 1, 0, -1):
        if used + len(requests[index]) > limit:
            break
        chosen.add(index)
        used += len(requests[index])
    lines = [REQUESTS_HEAD]
    for index, text in enumerate(requests):
        if index in chosen:
            lines.append(f"[request {index + 1}]\n{_clip(text, limit) if index == 0 else text}")
        elif index - 1 in chosen:
            lines.append(f"[{len(requests) - len(chosen)} request(s) left out for space]")
    lines.append(REQUESTS_END)
    return "\n".join(lines)


@dataclass
class Keeps:
    """What a summary message carries word for word besides the model's summary."""

    requests: list[str] = field(default_factory=list)
    tasks: str = ""
    files_changed: list[str] = field(default_factory=list)
    last_results: list[str] = field(default_factory=list)

    def render(self, limit: int) -> str:
        """The sections within `limit` characters: requests up to half of it, then the task list, the files
        changed, and the last tool results in what is left."""
        parts = []
        if self.requests:
            parts.append(requests_section(self.requests, limit // 2))
        left = limit - sum(len(p) for p in parts)
        if self.tasks:
            parts.append(_clip("The task list:\n" + self.tasks, max(0, left // 2)))
            left = limit - sum(len(p) for p in parts)
        if self.files_changed:
            parts.append(_clip("Files changed: " + ", ".join(dict.fromkeys(self.files_changed)), max(0, left // 2)))
            left = limit - sum(len(p) for p in parts)
        if self.last_results and left > 200:
            each = left // len(self.last_results)
            parts.append("The last tool results:\n" + "\n".join(_clip(r, each - 1) for r in self.last_results))
        return "\n\n".join(p for p in parts if p)
