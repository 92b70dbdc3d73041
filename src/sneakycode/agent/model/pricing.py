"""What a model's tokens cost: the configured `[pricing."MODEL"]` tables over a built-in, dated table for the
presets' default models, in USD per million tokens.

Built-in prices are the providers' list prices on the date given; providers change them, so a configured
entry always wins, and `cost` is an estimate for budgets and `/stats`, not a bill.
"""

from __future__ import annotations

from dataclasses import dataclass

from sneakycode.agent.protocol import Usage
from sneakycode.config import Settings


@dataclass(frozen=True)
class Price:
    """USD per million tokens; `source` says where the figures come from (shown beside a cost)."""

    input: float
    output: float
    cached_input: float | None = None
    source: str = "configured"

    def cost(self, usage: Usage) -> float:
        cached = min(usage.cached_tokens, usage.prompt_tokens)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        fresh = usage.prompt_tokens - cached
        return (fresh * self.input + cached * cached_rate + usage.completion_tokens * self.output) / 1_000_000


# (provider, model) -> price. OpenRouter's price depends on the upstream it routes to; Groq's list price is
# used as its estimate (one of those upstreams, and not the cheapest, so a budget errs on the safe side).
BUILTIN_PRICES: dict[tuple[str, str], Price] = {
    ("groq", "openai/gpt-oss-120b"): Price(0.15, 0.75, 0.075, "Groq list price, 2025-08"),
    ("openai", "gpt-4.1-mini"): Price(0.40, 1.60, 0.10, "OpenAI list price, 2025-04"),
    ("openrouter", "openai/gpt-oss-120b"): Price(0.15, 0.75, 0.075, "Groq list price as an estimate, 2025-08"),
}


def price_for(settings: Settings, provider: str, model: str) -> Price | None:
    """The configured price of `model`, else the built-in one for the provider's model; None when unknown."""
    configured = settings.pricing.get(model)
    if configured is not None:
        return Price(configured.input, configured.output, configured.cached_input, f'[pricing."{model}"]')
    return BUILTIN_PRICES.get((provider, model))
