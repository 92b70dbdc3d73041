"""The status line under the prompt: model, mode, how full the context is, tokens and cost so far, and the
running jobs when there are any. Built from the session's `usage()` snapshot (plain values), so the wording is
tested without a terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.api.vocabulary import Usage

JOB_COMMAND_CHARS = 40


def status_text(facts: Usage) -> str:
    """` model · mode · context 12% · 3,400 tokens · cached 91% · prefill 4.2 s · $0.0021 · jobs: [1] npm run dev`."""
    share = 100 * facts.context_tokens / facts.context_window if facts.context_window else 0.0
    parts = [
        facts.model,
        facts.mode,
        f"context {share:.0f}% of {_short(facts.context_window)}",
        f"{facts.tokens:,} tokens",
    ]
    if facts.cache_reported and facts.prompt_tokens:
        parts.append(f"cached {100 * facts.cached_tokens / facts.prompt_tokens:.0f}%")
    if facts.prefill_seconds is not None:
        parts.append(f"prefill {facts.prefill_seconds:.1f} s")
    if facts.cost is not None:
        parts.append(f"${facts.cost:.4f}")
    if facts.running_jobs:
        shown = (f"[{number}] {command[:JOB_COMMAND_CHARS]}" for number, command in facts.running_jobs)
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
