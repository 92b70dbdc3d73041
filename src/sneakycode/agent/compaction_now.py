"""Compaction on request (`/compact [focus]`): the whole conversation so far becomes one summary the model
writes, with the user's focus if they gave one.

The automatic compaction in `context.py` waits for the window to fill and keeps the newest turn whole; a
person asking for it wants a clean slate now, so everything but the system prompt is summarised. Files read
before count as unread afterwards (the model must read a file again before it edits it), as after /clear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sneakycode.agent.context import SUMMARY_INPUT_CHARS, SUMMARY_MARK, SUMMARY_PROMPT, estimate_history_tokens
from sneakycode.agent.images import content_text
from sneakycode.agent.messages import Message, tool_calls_of

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent

ACKNOWLEDGEMENT = "Understood: I will continue from this summary, and read files again before I edit them."


@dataclass(frozen=True)
class ManualCompaction:
    messages_before: int
    tokens_before: int
    tokens_after: int

    def describe(self) -> str:
        return (f"compacted {self.messages_before} message(s) from ~{self.tokens_before:,} to "
                f"~{self.tokens_after:,} tokens; files must be read again before they are edited")


def render_conversation(messages: list[Message], limit: int = SUMMARY_INPUT_CHARS) -> str:
    """The messages as plain text for the summariser; when too long, the newest part is kept."""
    lines = []
    for message in messages:
        text = content_text(message["content"])
        for call in tool_calls_of(message):
            function = call["function"]
            text += f"\n[calls {function['name']} {function['arguments']}]"
        lines.append(f"## {message['role']}\n{text.strip()}")
    rendered = "\n\n".join(lines)
    return rendered if len(rendered) <= limit else "[...older part cut...]\n" + rendered[-limit:]


def compact_now(agent: Agent, focus: str = "") -> ManualCompaction | None:
    """Summarise everything after the system prompt; None when there is nothing to compact. Raises
    SneakyError when the model cannot be reached (the history is then left as it was)."""
    old = agent.history[1:]
    if not old:
        return None
    agent.hooks.before_compact("manual")
    tokens_before = estimate_history_tokens(agent.history)
    prompt = SUMMARY_PROMPT + (f"\nFocus the summary on: {focus}" if focus else "")
    reply = agent.model.complete(
        [{"role": "system", "content": prompt}, {"role": "user", "content": render_conversation(old)}],
        [],
        cancel=agent.cancel,
    )
    summary = reply.content.strip() or "(the summary came back empty)"
    agent.history[1:] = [
        {"role": "user", "content": f"{SUMMARY_MARK}, made at the user's request (/compact); files read before "
                                    f"must be read again]\n{summary}"},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
    ]
    agent.ctx.workspace.ledger.clear()
    result = ManualCompaction(len(old), tokens_before, estimate_history_tokens(agent.history))
    if agent.transcript is not None:
        agent.transcript.write("history", messages=agent.history, reason=result.describe())
    agent.spending.add(reply.usage)
    return result
