"""The assistant message a reply is recorded as, with its reasoning where the model family's policy wants it
on later requests (agent/model/reasoning_policy.py): nowhere (`drop`), on messages that called tools
(`chain`), or on every one (`keep`).

It is decided once, when the reply is recorded, and the history is never rewritten afterwards: each request's
messages are then a byte prefix of the next one's, so a server's prompt cache keeps everything it read. A
`chain` policy therefore keeps the reasoning of a finished chain (already sent, and cached) and adds none to
the final answer; a chat template that drops earlier turns' reasoning itself (Qwen3's) costs one re-read of
those messages when the next user message arrives, the template's doing (docs/providers.md).
"""

from __future__ import annotations

from typing import Any

from sneakycode.agent.messages import AssistantMessage
from sneakycode.agent.model.reasoning_policy import DEFAULT, ReasoningPolicy
from sneakycode.agent.protocol import AssistantTurn, ChatModel


def policy_of(model: ChatModel) -> ReasoningPolicy:
    """The model's reasoning policy: the OpenAI-compatible client's (its family, the user's setting); `drop`
    for a model that has none (scripted models, tests), the behaviour before policies."""
    policy: Any = getattr(model, "reasoning_policy", None)
    return policy if isinstance(policy, ReasoningPolicy) else DEFAULT


def assistant_message(reply: AssistantTurn, policy: ReasoningPolicy) -> AssistantMessage:
    """`reply` as the history records it (and every later request sends it)."""
    message: AssistantMessage = {"role": "assistant", "content": reply.content}
    reasoning = reply.reasoning  # as it came: GLM and DeepSeek want it back unmodified
    sent = reasoning.strip() and (policy.history == "keep" or (policy.history == "chain" and bool(reply.tool_calls)))
    if sent:
        field = reply.reasoning_field or policy.field
        if field == "think":
            message["content"] = f"<think>\n{reasoning.strip()}\n</think>\n\n{reply.content}"
        elif field == "reasoning":
            message["reasoning"] = reasoning
        elif field == "reasoning_details":
            message["reasoning_details"] = [{"type": "reasoning.text", "text": reasoning}]
        else:  # reasoning_content, and harmony's analysis channel (llama.cpp and vLLM read it from there)
            message["reasoning_content"] = reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in reply.tool_calls
        ]
    return message
