"""The status line under the prompt: model, mode, how full the context is, tokens and cost so far, and the
running jobs when there are any. Built from plain values, so the wording is tested without a terminal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.api.session import Session

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
    cached_tokens: int | None = None  # None: the server does not say what its prompt cache served
    prompt_tokens: int = 0
    prefill_seconds: float | None = None  # None: the server does not say how long reading prompts took


def status_text(facts: StatusFacts) -> str:
    """` model · mode · context 12% · 3,400 tokens · cached 91% · prefill 4.2 s · $0.0021 · jobs: [1] npm run dev`."""
    share = 100 * facts.context_tokens / facts.context_window if facts.context_window else 0.0
    parts = [
        facts.model,
        facts.mode,
        f"context {share:.0f}% of {_short(facts.context_window)}",
        f"{facts.tokens:,} tokens",
    ]
    if facts.cached_tokens is not None and facts.prompt_tokens:
        parts.append(f"cached {100 * facts.cached_tokens / facts.prompt_tokens:.0f}%")
    if facts.prefill_seconds is not None:
        parts.append(f"prefill {facts.prefill_seconds:.1f} s")
    if facts.cost is not None:
        parts.append(f"${facts.cost:.4f}")
    if facts.jobs:
        shown = (f"[{number}] {command[:JOB_COMMAND_CHARS]}" for number, command in facts.jobs)
        parts.append("jobs: " + "  ".join(shown) + " (/jobs)")
    return " " + " · ".join(parts)


def cache_summary(cached: int, prompt: int, reported: bool) -> str:
    """What the server's prompt cache did for the session, in words (/stats)."""
    if not reported:
        return "not reported by this server"
    share = f" ({100 * cached / prompt:.0f}%)" if prompt else ""
    return f"{cached:,} of {prompt:,} prompt tokens served from the cache{share}, {max(0, prompt - cached):,} read anew"


def _short(tokens: int) -> str:
    return f"{tokens // 1000}k" if tokens >= 1000 else str(tokens)


def session_status(run: Session) -> StatusFacts:
    """The facts of a live session: the context as the loop estimates it (history plus tool schemas)."""
    used = run.usage()
    return StatusFacts(
        model=used.model,
        mode=used.mode,
        context_tokens=used.context_tokens,
        context_window=used.context_window,
        tokens=used.tokens,
        cost=used.cost,
        jobs=used.running_jobs,
        cached_tokens=used.cached_tokens if used.cache_reported else None,
        prompt_tokens=used.prompt_tokens,
        prefill_seconds=used.prefill_seconds,
    )
