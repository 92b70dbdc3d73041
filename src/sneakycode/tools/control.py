"""finish: the model's explicit signal that the task is done; the agent loop stops on it."""

from __future__ import annotations

from pydantic import Field

from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool


class FinishArgs(ToolArgs):
    message: str = Field("Task complete.", description="Final message to the user: what was done.")


@tool(name="finish", tier=Tier.AUTO, read_only=True)
def finish(args: FinishArgs, ctx: ToolContext) -> ToolResult:
    """Call when the task is complete (or cannot be completed), with a short summary for the user of what
    was done and anything left open. This ends the run."""
    return ToolResult.ok(args.message, finished=True)
