"""How a run ended (RunResult) and how one tool call ended inside it (Outcome)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sneakycode.agent.budgets import add_seconds
from sneakycode.tools.base import ToolResult

RunStatus = Literal["finished", "answered", "turn_limit", "budget", "cancelled", "error"]


@dataclass
class RunResult:
    """How one run (one user request) ended; `message` is what the user is told."""

    status: RunStatus
    message: str
    turns: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_estimated: bool = False
    cached_tokens: int = 0  # of prompt_tokens, served from the server's prompt cache
    cache_reported: bool = False  # whether any reply said what was cached
    prefill_seconds: float | None = None  # time the server spent reading prompts, where it says (llama.cpp)
    budget: str | None = None  # which budget stopped the run (status "budget"): max_tokens, max_cost, timeout
    error_kind: str | None = None  # status "error" from a failed model request: its errors.ModelErrorKind

    def add_usage(self, prompt: int, completion: int, estimated: bool, cached: int, cache_reported: bool,
                  prefill_seconds: float | None) -> None:
        """Count one request's tokens (or a subagent's run's) in this run's."""
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        self.usage_estimated |= estimated
        self.cached_tokens += cached
        self.cache_reported |= cache_reported
        self.prefill_seconds = add_seconds(self.prefill_seconds, prefill_seconds)


@dataclass
class Outcome:
    result: ToolResult
    finished: bool = False
    notes: list[str] | None = None  # what PostToolUse hooks add below the result
    bug: Exception | None = None  # what a tool raised unexpectedly (the result says internal_error)
