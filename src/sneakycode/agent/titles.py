"""Session titles, a chore of the small model: after the first request of a new session, the small model
(`[models] small`) names the session in a few words; `sneakycode sessions` (and editors, through ACP) list it
by that title. Without a small model no title is asked for: a second request to the main model after every
first turn would cost a local user a prefill for a label.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sneakycode.agent.messages import SystemMessage, UserMessage
from sneakycode.errors import SneakyError

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent

TITLE_PROMPT = (
    "Name this coding session in at most eight words, from the user's first request below. Answer with the "
    "title alone: no quotes, no full stop."
)
TITLE_TOKENS = 24
TITLE_CHARS = 80
REQUEST_CHARS = 2000


def clean_title(text: str) -> str:
    """The model's answer as a one-line title: reasoning tags, quotes and trailing punctuation dropped."""
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    line = next((line for line in text.strip().splitlines() if line.strip()), "")
    line = " ".join(line.split()).strip("\"'`*# ").rstrip(".")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 3].rstrip() + "..."


def write_title(agent: Agent, request: str) -> str | None:
    """Ask the small model for the session's title (the caller asks once, after a new session's first
    request) and record it in the transcript. Any failure leaves the session untitled: a label is never worth
    failing a run for."""
    small = agent.small
    if small is None or agent.transcript is None or agent.cancel.is_set():
        return None
    messages: list[SystemMessage | UserMessage] = [
        {"role": "system", "content": TITLE_PROMPT},
        {"role": "user", "content": request[:REQUEST_CHARS]},
    ]
    try:
        reply = small.model.complete(list(messages), [], max_tokens=TITLE_TOKENS, cancel=agent.cancel)
    except SneakyError:
        return None
    agent.account_chore(reply.usage, small.name)
    title = clean_title(reply.content or "")
    if not title:
        return None
    agent.transcript.write("title", title=title)
    return title
