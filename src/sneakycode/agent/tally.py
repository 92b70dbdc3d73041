"""What a run used: its totals (turns, calls, tokens; the RunResult it ends with) and the session's spending
(tokens and cost at each model's price), counted from the loop's requests, its chores (summaries, titles) and
its subagents' runs. Subagents and chores add from other threads, so every count takes one lock."""

from __future__ import annotations

import threading

from sneakycode.agent.budgets import Spending
from sneakycode.agent.events import UsageEvent
from sneakycode.agent.protocol import Usage
from sneakycode.agent.results import RunResult


class Tally:
    """The totals of the run under way and the session's spending (shared with subagents)."""

    def __init__(self, spending: Spending) -> None:
        self.spending = spending
        self.totals = RunResult("answered", "")
        self._lock = threading.Lock()

    def start(self) -> RunResult:
        """Totals for a new run (a new request), from zero."""
        self.totals = RunResult("answered", "")
        return self.totals

    def add(self, usage: Usage, model_name: str) -> None:
        """Count a request's usage (the loop's own or a chore's) in this run and the session's spending, at
        the price of the model that ran it."""
        with self._lock:
            self.totals.add_usage(usage.prompt_tokens, usage.completion_tokens, usage.estimated,
                                  usage.cached_tokens, usage.cache_reported, usage.prefill_seconds)
        self.spending.add(usage, model_name)

    def absorb(self, other: RunResult) -> None:
        """Count a subagent's turns, calls and tokens as this run's (max_turns and budgets see them)."""
        with self._lock:
            self.totals.turns += other.turns
            self.totals.tool_calls += other.tool_calls
            self.totals.add_usage(other.prompt_tokens, other.completion_tokens, other.usage_estimated,
                                  other.cached_tokens, other.cache_reported, other.prefill_seconds)

    def usage_event(self, usage: Usage, history_tokens: int) -> UsageEvent:
        """The `usage` event of one of the loop's requests, with the session's running counts."""
        return {
            "type": "usage",
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "estimated": usage.estimated,
            "history_tokens_estimate": history_tokens,
            "cached_tokens": usage.cached_tokens,
            "prefilled_tokens": usage.prefilled_tokens,
            "cache_reported": usage.cache_reported,
            "prefill_seconds": usage.prefill_seconds,
            "session_cached_tokens": self.spending.cached_tokens,
            "session_prefilled_tokens": self.spending.prefilled_tokens,
            "session_prefill_seconds": self.spending.prefill_seconds,
        }
