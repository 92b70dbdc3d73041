"""How a turn ends, in the protocol's words, and what the model's last reply said about why it stopped.

The loop reports how a request ended (`Result.status`, `Result.budget`); a refusal (`content_filter`) or a
reply cut at its token cap (`length`) is only in the model's finish reason, which `FinishWatch` keeps: it
wraps the session's model and passes everything through.
"""

from __future__ import annotations

from typing import Any

from acp import schema

from sneakycode.agent.protocol import AssistantTurn, ChatModel
from sneakycode.api.result import Result


class FinishWatch:
    """The session's ChatModel, remembering the finish reason of its latest reply. (Reasoning as it arrives
    reaches the editor as the loop's `reasoning_delta` events, one path for every face.)"""

    def __init__(self, model: ChatModel) -> None:
        self.model = model
        self.last: str | None = None

    def complete(self, messages: Any, tools: Any, **options: Any) -> AssistantTurn:
        turn = self.model.complete(messages, tools, **options)
        self.last = turn.finish_reason
        return turn

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
