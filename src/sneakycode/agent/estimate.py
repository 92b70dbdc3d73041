"""What a request costs in tokens, estimated high (3 characters per token, images by their size), and the
margin kept free of the window for what the estimate may still miss (the chat template's own tokens).

Every fit decision (when to compact, whether a summary request fits, whether the request may be sent at
all) uses these, so the same numbers decide everywhere.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sneakycode.agent.images import content_text, image_tokens
from sneakycode.agent.messages import Message, tool_calls_of

CHARS_PER_TOKEN = 3
MESSAGE_OVERHEAD_TOKENS = 4
MIN_MARGIN_TOKENS = 64
MARGIN_SHARE = 1 / 32


def estimate_message_tokens(message: Message) -> int:
    """A deliberately high estimate (3 characters per token, images by their size) of what one message costs."""
    chars = len(content_text(message["content"]))
    for call in tool_calls_of(message):
        function = call["function"]
        chars += len(function["name"]) + len(function["arguments"]) + 20
    if message["role"] == "assistant":  # reasoning the family's policy sends back fills the window too
        chars += len(message.get("reasoning_content", "")) + len(message.get("reasoning", ""))
        chars += sum(len(detail["text"]) for detail in message.get("reasoning_details", []))
    return chars // CHARS_PER_TOKEN + image_tokens(message) + MESSAGE_OVERHEAD_TOKENS


def estimate_history_tokens(messages: Sequence[Message]) -> int:
    return sum(estimate_message_tokens(m) for m in messages)


def estimate_tools_tokens(tools: Sequence[dict[str, Any]]) -> int:
    """The tools array as the request carries it (compact JSON), at 3 characters per token."""
    return len(json.dumps(list(tools), separators=(",", ":"))) // CHARS_PER_TOKEN


def margin_for(window: int) -> int:
    """Tokens of a window no request plans to use: 1/32 of it, at least 64."""
    return max(MIN_MARGIN_TOKENS, int(window * MARGIN_SHARE))
