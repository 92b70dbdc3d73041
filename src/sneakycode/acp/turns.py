"""How a turn ends, in the protocol's words, and what the model's last reply said about why it stopped.

The loop reports how a request ended (`Result.status`, `Result.budget`); a refusal (`content_filter`) or a
reply cut at its token cap (`length`) is only in the model's finish reason, which `FinishWatch` keeps: it
wraps the session's model and passes everything through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp import schema

from sneakycode.agent.protocol import AssistantTurn, ChatModel
from sneakycode.api.result import Result


class FinishWatch:
    """The session's ChatModel, remembering the finish reason of its latest reply; with `on_reasoning`, the
    reasoning is passed on as it arrives (before the answer's text), and `streamed` says what was, so the
    whole thought reported after the reply is not shown twice."""

    def __init__(self, model: ChatModel, on_reasoning: Callable[[str], None] | None = None) -> None:
        self.model = model
        self.last: str | None = None
        self.on_reasoning = on_reasoning
        self.streamed = ""

    def complete(self, messages: Any, tools: Any, **options: Any) -> AssistantTurn:
        self.streamed = ""
        if self.on_reasoning is not None and getattr(self.model, "streams_reasoning", False):
            options["on_reasoning"] = self._reasoning
        turn = self.model.complete(messages, tools, **options)
        self.last = turn.finish_reason
        return turn

    def _reasoning(self, text: str) -> None:
        self.streamed += text
        if self.on_reasoning is not None:
            self.on_reasoning(text)

    def __getattr__(self, name: str) -> Any:  # close() and whatever else a face asks of the model
        return getattr(self.model, name)


def stop_reason(result: Result, finish: str | None) -> schema.StopReason:
    """`end_turn`, `cancelled`, `max_turn_requests` (max_turns, and the cost and time budgets), `max_tokens`
    (the token budget, or a reply cut at its cap), `refusal` (the provider's content filter)."""
    if result.status == "cancelled":
        return "cancelled"
    if result.status == "turn_limit":
        return "max_turn_requests"
    if result.status == "budget":
        return "max_tokens" if result.budget == "max_tokens" else "max_turn_requests"
    if finish == "content_filter":
        return "refusal"
    if finish == "length":
        return "max_tokens"
    return "end_turn"
