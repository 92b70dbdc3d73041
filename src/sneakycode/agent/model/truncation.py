"""Catch a server that silently cut the prompt to fit its window (Ollama does, from the front: the system
prompt and the tools vanish and the model goes on without its instructions).

The check compares the `prompt_tokens` the server reports with a deliberately low estimate of what was
sent (the text alone, four characters per token, no template overhead), so an honest server never trips
it; a server that read under 70% of even that low estimate dropped part of the request.
"""

from __future__ import annotations

import json
from typing import Any

from sneakycode.agent.images import content_text
from sneakycode.agent.messages import Message, tool_calls_of
from sneakycode.agent.model.assembly import estimate_text_tokens
from sneakycode.agent.model.providers import ModelConfig
from sneakycode.errors import ModelError

TRUNCATION_RATIO = 0.7
MIN_CHECKED_TOKENS = 1000
"""Below this the estimate is too rough to judge, and a cut would not matter much."""


def low_prompt_estimate(messages: list[Message], tools: list[dict[str, Any]]) -> int:
    """A low estimate of the prompt's tokens: the messages' text and calls, and the tool schemas."""
    # Images are left out (their token cost is the server's to count), so the estimate stays low.
    text = "".join(content_text(m["content"]) for m in messages)
    for message in messages:
        for call in tool_calls_of(message):
            function = call["function"]
            text += function["name"] + function["arguments"]
    return estimate_text_tokens(text + (json.dumps(tools) if tools else ""))


def check_prompt_not_truncated(
    config: ModelConfig, messages: list[Message], tools: list[dict[str, Any]], reported: int
) -> None:
    """Raise ModelError(kind="context_truncated") when the server read far fewer tokens than were sent."""
    sent = low_prompt_estimate(messages, tools)
    if sent <= MIN_CHECKED_TOKENS or reported >= TRUNCATION_RATIO * sent:
        return
    raise ModelError(
        f"[context_truncated] {config.base_url} read only {reported} prompt tokens of at least ~{sent} sent: "
        f"the server cut the request to fit its context window ({config.context_window} tokens, from "
        f"{config.context_window_source}), so the model would go on without its instructions. Give the server "
        "a larger window and run again: Ollama `OLLAMA_CONTEXT_LENGTH=32768 ollama serve` (or the model's "
        "num_ctx), llama.cpp `llama-server --ctx-size 32768`, vLLM `vllm serve MODEL --max-model-len 32768`, "
        "LM Studio: the model's context length when loading it; then set context_window in the config to match.",
        kind="context_truncated",
    )
