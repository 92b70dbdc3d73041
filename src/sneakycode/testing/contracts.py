"""Model families' documented reasoning contracts, played by the scripted server (`"reasoning_contract"`):
what the family's own API does when the reasoning of earlier replies is, or is not, sent back.

- `kimi`: Moonshot's Kimi K2 thinking answers 400 "thinking is enabled but reasoning_content is missing in
  assistant tool call message" when an assistant message with tool calls lacks `reasoning_content`.
- `deepseek`: DeepSeek R1 (deepseek-reasoner) answers 400 when any input message carries `reasoning_content`.
- `chain`: DeepSeek V3.2/V4 thinking mode answers 400 "The reasoning_content in the thinking mode must be
  passed back to the API" when a tool-call message lacks its reasoning; the scripted server plays the same for
  the families that document keeping it within a tool chain (GLM, Qwen3, gpt-oss), whose real servers answer
  instead with a model that lost its plan.
- `minimax`: MiniMax M2 stops thinking (its replies lose their `<think>` block) once an earlier reply's
  `<think>` block was removed from the assistant messages.

Stdlib only, like the server.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from sneakycode.testing.script import Turn

_THINK = re.compile(r"<think>.*?</think>\s*", re.DOTALL)


def _assistants(request: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(i, m) for i, m in enumerate(request.get("messages", []))
            if isinstance(m, dict) and m.get("role") == "assistant"]


def _carries_reasoning(message: dict[str, Any]) -> bool:
    return any(isinstance(message.get(k), str | list) and message.get(k)
               for k in ("reasoning_content", "reasoning", "reasoning_details"))


def contract_refusal(contract: str | None, request: dict[str, Any]) -> tuple[int, str, str | None] | None:
    """The 400 the family's API answers this request with, or None when it takes it."""
    for index, message in _assistants(request):
        calls = bool(message.get("tool_calls"))
        if contract == "kimi" and calls and not message.get("reasoning_content"):
            return 400, ("thinking is enabled but reasoning_content is missing in assistant tool call message at "
                         f"index {index}"), "invalid_request_error"
        if contract == "chain" and calls and not _carries_reasoning(message):
            return 400, "The reasoning_content in the thinking mode must be passed back to the API.", \
                "invalid_request_error"
        if contract == "deepseek" and "reasoning_content" in message:
            return 400, ("deepseek-reasoner does not take reasoning_content in input messages (message "
                         f"{index}): remove it"), "invalid_request_error"
    return None


def contract_turn(contract: str | None, turn: Turn, request: dict[str, Any]) -> Turn:
    """The reply as the family writes it given this history (MiniMax stops thinking once a `<think>` is gone)."""
    if contract != "minimax":
        return turn
    if any("<think>" not in str(message.get("content") or "") for _, message in _assistants(request)):
        return replace(turn, content=_THINK.sub("", turn.content))
    return turn
