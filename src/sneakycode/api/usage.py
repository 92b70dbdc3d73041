"""What a session has used, for a face's status line and `/stats`: how full the context is (as the loop
estimates it: history plus tool schemas), tokens, the prompt cache, cost, and the running jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts


@dataclass(frozen=True)
class Usage:
    """A snapshot: `cost` is None when no price is known for the model (`price_source` says where a known
    price came from); `cached_tokens` counts only when `cache_reported`; `running_jobs` are (id, command)."""

    model: str
    mode: str
    context_tokens: int
    context_window: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cache_reported: bool
    prefill_seconds: float | None
    cost: float | None
    price_source: str | None
    running_jobs: tuple[tuple[int, str], ...]
    jobs_started: int

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageVerbs:
    """Mixed into `Session`: `usage()`."""

    _parts: Parts

    def usage(self) -> Usage:
        """What the session has used so far (safe to call while a request runs: it only reads)."""
        from sneakycode.agent.context import estimate_history_tokens

        agent, ctx = self._parts.agent, self._parts.ctx
        spent = agent.spending
        jobs = ctx.session.jobs
        table = jobs.table().jobs if jobs.started else {}
        return Usage(
            model=self._parts.config.model,
            mode=str(agent.mode),
            context_tokens=estimate_history_tokens(agent.history) + agent.tools_tokens,
            context_window=agent.context.window,
            prompt_tokens=spent.prompt_tokens,
            completion_tokens=spent.completion_tokens,
            cached_tokens=spent.cached_tokens,
            cache_reported=spent.cache_reported,
            prefill_seconds=spent.prefill_seconds,
            cost=spent.cost_usd,
            price_source=spent.price.source if spent.price is not None else None,
            running_jobs=tuple((job.id, job.command) for job in list(table.values()) if job.running),
            jobs_started=len(table),
        )
