"""Budgets of a run beyond max_turns: tokens (prompt + completion), cost in USD, and wall-clock time.

Spending counts from the Agent's creation, across every request of the session (a multi-turn stream-json
run shares one budget). Tokens and cost are checked before each model request: the reply that crosses a
budget still has its tool calls run (they cost no tokens, and leaving them unanswered would break the
history), then the run stops. The wall clock cannot wait for that: when it runs out the run is cancelled
like a Ctrl-C (the stream stops, the running command is killed, every call gets its result) and the run
ends as a budget stop, not an interruption.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sneakycode.agent.model.pricing import Price
from sneakycode.agent.protocol import Usage


@dataclass(frozen=True)
class Budgets:
    """Limits for a run; None is no limit. `timeout` is in seconds from when the Agent was created."""

    max_tokens: int | None = None
    max_cost: float | None = None
    timeout: float | None = None


@dataclass
class Spending:
    """What the session has used so far, and the price it is counted at (None: cost unknown)."""

    price: Price | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_reported: bool = False
    prefill_seconds: float | None = None
    cost: float = 0.0
    started: float = field(default_factory=time.monotonic)
    prices: dict[str, Price | None] = field(default_factory=dict)
    """The prices of the session's other models (the small model, a subagent's own), by model name."""
    by_model: dict[str, dict[str, float]] = field(default_factory=dict)
    """Tokens and cost per model name (a goal's fallback model is counted apart from the main one)."""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def prefilled_tokens(self) -> int:
        """Prompt tokens the server evaluated anew (not served from its cache)."""
        return max(0, self.prompt_tokens - self.cached_tokens)

    @property
    def cost_usd(self) -> float | None:
        return None if self.price is None else round(self.cost, 6)

    def add(self, usage: Usage, model: str = "") -> None:
        """Count one request's usage; `model` names the model that ran it when that is not the main one."""
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cached_tokens += usage.cached_tokens
        self.cache_reported |= usage.cache_reported
        self.prefill_seconds = add_seconds(self.prefill_seconds, usage.prefill_seconds)
        price = self.prices.get(model, self.price) if model else self.price
        spent = price.cost(usage) if price is not None else 0.0
        self.cost += spent
        mine = self.by_model.setdefault(model or "main", {"prompt_tokens": 0, "completion_tokens": 0, "usd": 0.0})
        mine["prompt_tokens"] += usage.prompt_tokens
        mine["completion_tokens"] += usage.completion_tokens
        mine["usd"] = round(mine["usd"] + spent, 6)

    def report(self) -> dict[str, object]:
        """The `cost` object of the headless JSON and `/stats`."""
        return {
            "usd": self.cost_usd,
            "price_source": self.price.source if self.price is not None else None,
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "prefilled_tokens": self.prefilled_tokens,
            "cache_reported": self.cache_reported,
            "prefill_seconds": self.prefill_seconds,
            "completion_tokens": self.completion_tokens,
            "seconds": round(time.monotonic() - self.started, 1),
        }


def add_seconds(total: float | None, more: float | None) -> float | None:
    """A sum of reported durations: None until one is reported (a server that keeps no clock is not 0 s)."""
    if more is None:
        return total
    return round((total or 0.0) + more, 3)


class BudgetKeeper:
    """Checks Budgets against Spending; owns the wall-clock timer."""

    def __init__(self, budgets: Budgets, spending: Spending) -> None:
        self.budgets = budgets
        self.spending = spending
        self.timed_out = False
        self._timer: threading.Timer | None = None

    def exhausted(self) -> str | None:
        """The name of the budget used up (`max_tokens`, `max_cost`, `timeout`), or None."""
        b, s = self.budgets, self.spending
        if self.timed_out or (b.timeout is not None and time.monotonic() - s.started >= b.timeout):
            return "timeout"
        if b.max_tokens is not None and s.tokens >= b.max_tokens:
            return "max_tokens"
        if b.max_cost is not None and s.cost >= b.max_cost:
            return "max_cost"
        return None

    def arm(self, cancel: Callable[[], None]) -> None:
        """Call `cancel` when the wall-clock budget runs out (from a timer thread)."""
        if self.budgets.timeout is None:
            return
        left = self.budgets.timeout - (time.monotonic() - self.spending.started)

        def expire() -> None:
            self.timed_out = True
            cancel()

        self._timer = threading.Timer(max(left, 0.0), expire)
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def describe(self, which: str) -> str:
        """What stopped the run and what had been used, in one sentence."""
        b, s = self.budgets, self.spending
        used = f"{s.tokens:,} tokens" + (f", ${s.cost:.4f}" if s.price is not None else "")
        if which == "timeout":
            return f"Stopped: the --timeout of {b.timeout:g} s ran out (used {used})."
        if which == "max_tokens":
            return f"Stopped: the token budget (--max-tokens {b.max_tokens:,}) is used up ({used})."
        return f"Stopped: the cost budget (--max-cost ${b.max_cost:g}) is used up ({used})."
