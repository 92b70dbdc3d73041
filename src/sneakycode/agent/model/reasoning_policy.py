"""What each model family was trained to see of its own reasoning on later requests, and how it takes a
reasoning effort: the table beside the dialect table (`families.py`), sources in docs/providers.md.

`drop`: never sent back. `chain`: sent back on the assistant messages that called tools (the chain the
model is working through), not on a final answer. `keep`: sent back on every assistant message. What was
sent once is never taken out again (the history is recorded once and never rewritten), so every request's
messages are a byte prefix of the next one's under every policy.

The field reasoning rides in back is the one it arrived in (`reasoning_content`, `reasoning`, or `<think>`
in the content), so a server reads back what it wrote; the family's `field` is used when that is unknown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

History = Literal["drop", "chain", "keep"]
Field = Literal["reasoning_content", "reasoning", "reasoning_details", "think", "harmony"]
EffortStyle = Literal["reasoning_effort", "system_line", "enable_thinking", "none"]
HISTORIES: tuple[History, ...] = ("drop", "chain", "keep")


@dataclass(frozen=True)
class ReasoningPolicy:
    family: str
    history: History
    field: Field
    effort: EffortStyle
    source: str


DEFAULT = ReasoningPolicy("other", "drop", "reasoning_content", "none", "OpenAI-compatible convention")

# First match wins; the sources are quoted in docs/providers.md ("Reasoning kept per family").
FAMILY_POLICIES: tuple[tuple[re.Pattern[str], ReasoningPolicy], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), policy)
    for pattern, policy in (
        (r"gpt-oss", ReasoningPolicy("gpt-oss", "chain", "harmony", "system_line",
                                     "https://cookbook.openai.com/articles/openai-harmony")),
        (r"deepseek-?r1", ReasoningPolicy("deepseek-r1", "drop", "reasoning_content", "none",
                                          "https://api-docs.deepseek.com/guides/reasoning_model")),
        (r"deepseek-?v3\.2(?!-?exp)|deepseek-?v4", ReasoningPolicy(
            "deepseek-v3.2", "chain", "reasoning_content", "reasoning_effort",
            "https://api-docs.deepseek.com/guides/thinking_mode")),
        (r"deepseek", ReasoningPolicy("deepseek", "drop", "reasoning_content", "none",
                                      "https://api-docs.deepseek.com/guides/reasoning_model")),
        (r"kimi|moonshot", ReasoningPolicy("kimi-k2", "keep", "reasoning_content", "none",
                                           "https://platform.moonshot.ai/docs/guide/use-kimi-k2-thinking-model")),
        (r"glm-?4\.[5-9]|glm-?4-?moe|glm-?[5-9](?:\b|\.)", ReasoningPolicy(
            "glm", "chain", "reasoning_content", "none", "https://docs.z.ai/guides/capabilities/thinking-mode")),
        (r"minimax-?m[1-9]", ReasoningPolicy("minimax-m2", "keep", "think", "none",
                                             "https://platform.minimax.io/docs/api-reference/text-openai-api")),
        (r"qwen3|qwq", ReasoningPolicy("qwen3", "chain", "reasoning_content", "enable_thinking",
                                       "https://huggingface.co/Qwen/Qwen3-8B#best-practices")),
    )
)
HOSTED_EFFORT = frozenset({"openai", "openrouter", "groq"})
"""Providers whose API takes OpenAI's `reasoning_effort` parameter."""


def reasoning_policy_for(model: str | None, configured: str = "auto") -> ReasoningPolicy:
    """`model`'s family policy, with the configured `reasoning_history` (drop, chain, keep) over its default."""
    policy = next((p for pattern, p in FAMILY_POLICIES if model and pattern.search(model)), DEFAULT)
    if configured in HISTORIES and configured != policy.history:
        history: History = "drop" if configured == "drop" else "chain" if configured == "chain" else "keep"
        return ReasoningPolicy(policy.family, history, policy.field, policy.effort,
                               f"reasoning_history = {configured!r} (configured)")
    return policy


def effort_request(policy: ReasoningPolicy, effort: str | None, provider: str) -> tuple[dict[str, Any], str]:
    """(the request fields, the system-prompt line) that ask for `effort`, the way the family takes it: OpenAI's
    `reasoning_effort`, gpt-oss's `Reasoning: high` line (its hosted APIs take `reasoning_effort`), Qwen3's
    `enable_thinking` (it has no levels: low turns thinking off). Nothing for a family without one."""
    if not effort:
        return {}, ""
    style = policy.effort
    if style == "system_line" and provider in HOSTED_EFFORT:
        style = "reasoning_effort"
    if style == "none" and policy.family == "other" and provider in {"openai", "openrouter"}:
        style = "reasoning_effort"  # o-series, GPT-5 and what OpenRouter routes
    if style == "reasoning_effort":
        return {"reasoning_effort": effort}, ""
    if style == "system_line":
        return {}, f"Reasoning: {effort}"
    if style == "enable_thinking":
        return {"chat_template_kwargs": {"enable_thinking": effort != "low"}}, ""
    return {}, ""
