"""finish: the model's explicit signal that the task is done; the agent loop stops on it."""

from __future__ import annotations

from pydantic import Field

from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool


class FinishArgs(ToolArgs):
    message: str = Field("Task complete.", description="for the user")


@tool(
    name="finish",
    tier=Tier.AUTO,
    read_only=True,
    ends_run=True,
    mcp=False,
    quiet_on_success=True,
    headline="message",
    example={"message": "Added the --verbose flag and a test for it; all tests pass."},
    guidance="When the task is done, or cannot be done, call finish with a short summary for the user.",
)
def finish(args: FinishArgs, ctx: ToolContext) -> ToolResult:
    """End the run when the task is done or cannot be, saying what was done and what is left."""
    return ToolResult.ok(args.message, finished=True)
