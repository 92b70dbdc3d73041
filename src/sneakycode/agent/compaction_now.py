"""Compaction on request (`/compact [focus]`): the whole conversation so far becomes one summary the model
writes, with the user's focus if they gave one.

The automatic compaction in `context.py` waits for the window to fill and keeps the newest turn whole; a
person asking for it wants a clean slate now, so everything but the system prompt is summarised. Files read
before count as unread afterwards (the model must read a file again before it edits it), as after /clear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sneakycode.agent.compaction_auto import summariser_of
from sneakycode.agent.context import SUMMARY_MARK, estimate_history_tokens
from sneakycode.agent.images import content_text
from sneakycode.agent.messages import Message
from sneakycode.agent.summary import Keeps, render_lines, requests_in, summarise
from sneakycode.tools.tasks import render_tasks

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


def _requests(messages: list[Message]) -> list[str]:
    found: list[str] = []
    for message in messages:
        if message["role"] != "user" or message.get("tool_images"):
            continue
        text = content_text(message["content"])
        found.extend(requests_in(text) if text.startswith(SUMMARY_MARK) else [text])
    return found


def compact_now(agent: Agent, focus: str = "") -> ManualCompaction | None:
    """Summarise everything after the system prompt (in chunks when it is larger than the summarising
    model's window); None when there is nothing to compact. Raises SneakyError when the model cannot be
    reached (the history is then left as it was)."""
    old = agent.history[1:]
    if not old:
        return None
    agent.hooks.before_compact("manual")
    tokens_before = estimate_history_tokens(agent.history)
    summariser = summariser_of(agent)
    room = max(512, agent.context.limit() // 2 - agent.fixed_tokens())
    cap = summariser.cap(room // 2)
    made = summarise(summariser, render_lines(old), cap=cap, focus=focus, cancel=agent.cancel)
    keeps = Keeps(requests=_requests(old), tasks=render_tasks(agent.ctx.tasks)).render((room - cap) * 3)
    summary = made.text or "(the summary came back empty)"
    compacted: list[Message] = [
        {"role": "user", "content": f"{SUMMARY_MARK}, made at the user's request (/compact); files read before "
                                    f"must be read again]\n" + (keeps + "\n\nSummary:\n" if keeps else "") + summary},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
    ]
    result = ManualCompaction(len(old), tokens_before, estimate_history_tokens([agent.history[0], *compacted]))
    agent.replace_conversation(compacted, result.describe())  # files read before count as unread
    for usage in made.usage:
        agent.account_chore(usage, summariser.name)
    return result
