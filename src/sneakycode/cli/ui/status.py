"""The status line under the prompt: model, mode, how full the context is, tokens and cost so far, and the
running jobs when there are any. Built from plain values, so the wording is tested without a terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent
    from sneakycode.tools.base import ToolContext

JOB_COMMAND_CHARS = 40


@dataclass(frozen=True)
class StatusFacts:
    model: str
    mode: str
    context_tokens: int
    context_window: int
    tokens: int
    cost: float | None  # None: no price known for this model
    jobs: tuple[tuple[int, str], ...] = ()


def status_text(facts: StatusFacts) -> str:
    """` model · mode · context 12% · 3,400 tokens · $0.0021 · jobs: [1] npm run dev`."""
    share = 100 * facts.context_tokens / facts.context_window if facts.context_window else 0.0
    parts = [
        facts.model,
        facts.mode,
        f"context {share:.0f}% of {_short(facts.context_window)}",
        f"{facts.tokens:,} tokens",
    ]
    if facts.cost is not None:
        parts.append(f"${facts.cost:.4f}")
    if facts.jobs:
        shown = (f"[{number}] {command[:JOB_COMMAND_CHARS]}" for number, command in facts.jobs)
        parts.append("jobs: " + "  ".join(shown) + " (/jobs)")
    return " " + " · ".join(parts)


def _short(tokens: int) -> str:
    return f"{tokens // 1000}k" if tokens >= 1000 else str(tokens)


def agent_status(agent: Agent, model: str) -> StatusFacts:
    """The facts of a live session: the context as the loop estimates it (history plus tool schemas)."""
    from sneakycode.agent.context import estimate_history_tokens

    spent = agent.spending
    return StatusFacts(
        model=model,
        mode=str(agent.mode),
        context_tokens=estimate_history_tokens(agent.history) + agent.tools_tokens,
        context_window=agent.context.window,
        tokens=spent.tokens,
        cost=spent.cost_usd,
        jobs=running_jobs(agent.ctx),
    )


def running_jobs(ctx: ToolContext) -> tuple[tuple[int, str], ...]:
    return tuple((job.id, job.command) for job in ctx.jobs.running())
