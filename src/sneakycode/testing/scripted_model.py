"""An in-process ChatModel that plays back replies, for tests and demos that need no HTTP at all.

The HTTP twin is testing/server.py (the real client against a real server); this one drives the loop and
context code directly. A reply may be an AssistantTurn, an exception to raise, or a callable that gets the
cancel event (to act like a model that is interrupted mid-answer).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from sneakycode.agent.protocol import AssistantTurn, Message

Reply = AssistantTurn | Exception | Callable[[threading.Event | None], AssistantTurn]


class ScriptedModel:
    """Plays replies in order and keeps a copy of every request's messages and tools."""

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.requests: list[list[Message]] = []
        self.tools: list[list[dict[str, Any]]] = []
        self.caps: list[int | None] = []

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        on_activity: Callable[[], None] | None = None,
        max_tokens: int | None = None,
    ) -> AssistantTurn:
        self.requests.append(copy.deepcopy(messages))
        self.caps.append(max_tokens)
        self.tools.append(tools)
        if not self.replies:
            raise AssertionError("the scripted model ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            return reply(cancel)
        if on_text and reply.content:
            on_text(reply.content)
        return reply
