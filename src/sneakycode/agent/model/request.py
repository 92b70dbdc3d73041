"""One chat request as the client sends it, and what a transport must do with it.

The body is plain JSON (the chat-completions fields), the same whichever transport carries it: the thin client
on httpx2 (`http_transport`, the default) or the official SDK (`sdk_transport`, the `model_client` setting).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from sneakycode.agent.messages import Message
from sneakycode.agent.model.providers import ModelConfig, cache_request_fields


@dataclass
class ChatRequest:
    messages: list[Message]
    tools: list[dict[str, Any]]
    max_tokens: int
    on_activity: Callable[[], None] = lambda: None  # told of every chunk: the agent's stall watch counts on it
    effort: dict[str, Any] = field(default_factory=dict)  # the fields that ask for the reasoning effort
    on_reasoning: Callable[[str], None] | None = None  # told the reasoning as it arrives (an editor shows it)

    def tool_schemas(self) -> dict[str, dict[str, Any]]:
        """Each offered tool's parameters schema, by name: text calls are checked and typed against them."""
        return {str(t.get("function", {}).get("name")): t.get("function", {}).get("parameters", {}) for t in self.tools}


def request_body(config: ModelConfig, request: ChatRequest, *, stream: bool) -> dict[str, Any]:
    """The JSON body of `POST /chat/completions` for this request."""
    body: dict[str, Any] = {"model": config.model, "messages": request.messages}
    if request.tools:  # an empty list is left out: some servers refuse `tools: []`
        body["tools"] = request.tools
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    # OpenAI's own API wants the newer name (its reasoning models refuse max_tokens); other servers the old.
    body["max_completion_tokens" if config.provider == "openai" else "max_tokens"] = request.max_tokens
    # Only for the server kinds that define them (providers.cache_request_fields, reasoning_policy).
    body.update(cache_request_fields(config))
    body.update(request.effort)
    return body


class Transport(Protocol):
    """Carries a request body to the server. Every failure is raised as one of `failures`' exceptions (a status,
    a timeout, a broken connection, an error event) or as a JSON or malformed-reply error, so one classification
    serves both transports."""

    def stream(self, body: dict[str, Any]) -> Generator[dict[str, Any], None, None]:
        """The chunks of a streamed reply, as dicts; closing the iterator closes the connection."""
        ...

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole reply of a request that did not ask to stream."""
        ...

    def model_ids(self) -> list[str]:
        """The ids `GET /models` lists (for the message about an unknown model)."""
        ...

    def close(self) -> None: ...

    @property
    def closed(self) -> bool: ...
