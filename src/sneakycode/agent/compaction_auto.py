"""Automatic compaction, from the loop's side: before each model request the prompt is measured against
the window (system prompt, tools, history, reply reservation, margin; see context.ContextManager), compacted
at most once per model turn, and checked; a request that still does not fit ends the run with a
`context_overflow` error naming the window, the sizes and the fix, instead of being sent or compacted again.

The summaries are written by the small model when one is set (its tokens count at its price).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sneakycode.agent.estimate import estimate_history_tokens
from sneakycode.agent.summary import Summariser
from sneakycode.errors import ModelError
from sneakycode.tools.tasks import render_tasks

if TYPE_CHECKING:
    from sneakycode.agent.loop import Agent


def summariser_of(agent: Agent) -> Summariser:
    """Who writes the agent's summaries: the small model when the session has one, else its own model."""
    small = agent.small
    if small is not None:
        return Summariser(small.model, small.window, small.name)
    return Summariser(agent.model, agent.context.window, agent.model_name)


def compact(agent: Agent) -> bool:
    """Compact the agent's history when it nears the window and this model turn has not compacted yet."""
    if agent.compacted_this_turn or not agent.context.needed(agent.history, agent.tools_tokens):
        return False
    agent.hooks.before_compact("auto")
    summariser = summariser_of(agent)
    report = agent.context.compact(agent.history, agent.tools_tokens, summariser, agent.cancel,
                                   tasks=render_tasks(agent.ctx.tasks))
    if report is None:
        return False
    for usage in report.summary_usage:
        agent.account_chore(usage, summariser.name)
    agent.compacted(report.describe())
    return True


def fit_request(agent: Agent) -> None:
    """Before a model request: size each tool result to the room left, compact if needed, then raise
    ModelError (context_overflow) when the request still does not fit."""
    agent.fit_output_budget()
    compact(agent)
    agent.context.check_fits(agent.history, agent.tools_tokens)


def after_context_length(agent: Agent, exc: ModelError) -> None:
    """The server refused the request as too long although the estimate said it fits (the window is smaller
    than assumed): assume one below what was sent, then compact (unless this turn already did) and check
    again, so the request is sent once more only when it fits."""
    agent.context.assume_smaller(estimate_history_tokens(agent.history) + agent.tools_tokens)
    agent.sink.emit({"type": "notice", "message": f"the model's context is smaller than assumed ({exc})"})
    fit_request(agent)
