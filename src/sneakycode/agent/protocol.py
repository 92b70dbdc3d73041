"""The narrow seams of the agent: what the loop needs from a model and an event sink (the Approver is the
permission gate's seam: `permissions.gate.Approver`).

The loop depends only on these; the OpenAI-compatible client, the terminal UI, headless mode, the MCP
server and tests each provide their own implementations.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from sneakycode.agent.events import Event
from sneakycode.agent.messages import Message

__all__ = ["AssistantTurn", "ChatModel", "Event", "EventSink", "Message", "ToolCall", "Usage"]


@dataclass
class ToolCall:
    """One call the model asked for; `invalid` (non-empty) says why a call written as text cannot run, and the
    loop answers it with an `invalid_tool_call` result instead of running it."""

    id: str
    name: str
    arguments: str
    invalid: str = ""


@dataclass
class Usage:
    """One reply's tokens. `cached_tokens` of the prompt were served from the server's prompt cache (priced
    lower by hosted providers; not re-read by a local server); `cache_reported` says whether the server told
    (OpenAI/vLLM `prompt_tokens_details.cached_tokens`, llama.cpp `timings.cache_n`) or cached is merely 0.
    `prefill_seconds`: how long the server took to read the uncached prompt (llama.cpp `timings.prompt_ms`)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    cached_tokens: int = 0
    cache_reported: bool = False
    prefill_seconds: float | None = None

    @property
    def prefilled_tokens(self) -> int:
        """The prompt tokens the server had to evaluate: those it did not find in its cache."""
        return max(0, self.prompt_tokens - self.cached_tokens)


@dataclass
class AssistantTurn:
    """One model reply, fully assembled (streamed deltas joined, tool-call fragments merged)."""

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str = ""
    reasoning_field: str = ""
    """Where the reasoning arrived: `reasoning_content`, `reasoning`, `think` (tags in the content), or ""."""
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


class ChatModel(Protocol):
    """Sends the history and tool schemas, returns the assistant's reply. `on_activity` is called whenever
    anything arrives from the server (text, reasoning, a tool call's fragment): what tells a slow model from a
    stalled one. `max_tokens`: this request's reply cap instead of the model's usual one (a summary has its
    own)."""

    def complete(
        self,
        messages: list[Message],
        tools: list[dict[str, Any]],
        *,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
        on_activity: Callable[[], None] | None = None,
        max_tokens: int | None = None,
    ) -> AssistantTurn: ...


class EventSink(Protocol):
    """Receives everything the user may want to see, as it happens."""

    def emit(self, event: Event) -> None: ...
