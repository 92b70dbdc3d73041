"""The exceptions SneakyCode raises on purpose (see the hierarchy in `sneakycode.errors`)."""

from __future__ import annotations

from typing import Any, Literal

from sneakycode.errors.codes import ErrorCode
from sneakycode.errors.docs import ERROR_DOCS


class SneakyError(Exception):
    """Base of the exceptions SneakyCode raises on purpose."""


class ConfigError(SneakyError):
    """A configuration source is wrong; the message names the file or variable, the key and what was expected."""


class ToolError(SneakyError):
    """Raised inside a tool; the registry turns it into a failed ToolResult with the same fields."""

    def __init__(
        self,
        code: ErrorCode,
        error: str,
        *,
        detail: str = "",
        hint: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"[{code}] {error}")
        self.code = code
        self.error = error
        self.detail = detail
        self.hint = hint if hint is not None else ERROR_DOCS[code].hint
        self.data = data or {}


ModelErrorKind = Literal[
    "auth",  # the server rejected the API key (401/403)
    "model_not_found",  # the server does not offer the model (404)
    "rate_limit",  # 429, retries used up or Retry-After too long
    "server",  # 5xx, 408/409, a malformed reply or an error event in the stream, retries used up
    "connection",  # the server could not be reached, retries used up
    "timeout",  # no response within request_timeout, or a stream that stalled, retries used up
    "context_length",  # the server says the request is over the model's context window
    "bad_request",  # any other 4xx
    "empty_reply",  # no text and no tool calls, twice
    "output_truncated",  # cut at the output cap inside a tool call, even with twice the cap
    "context_truncated",  # the server silently read far fewer prompt tokens than were sent
    "context_overflow",  # the request does not fit the window even after compaction (never sent)
    "repetition",  # the run's, not a request's: the model kept repeating a call, text or reasoning after a note
]
"""What went wrong with a model request: the one list every producer and consumer of ModelError uses."""


class ModelError(SneakyError):
    """The model request failed after the client's own recovery (retries, fallbacks) ran out; `kind` says how
    (one of ModelErrorKind)."""

    def __init__(self, message: str, *, kind: ModelErrorKind) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


class CheckpointError(SneakyError):
    """A workspace snapshot or a rewind could not be done; the message says what git or the disk said."""
