"""How a turn ends, in the protocol's words, and what the model's last reply said about why it stopped.

The loop reports how a request ended (`Result.status`, `Result.budget`); a refusal (`content_filter`) or a
reply cut at its token cap (`length`) is only in the model's finish reason, which each reply's `assistant`
event carries (live.py keeps the main agent's latest).
"""

from __future__ import annotations

from acp import schema

from sneakycode.api.result import Result


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
