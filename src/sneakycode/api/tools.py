"""`@sneakycode.tool`: a program's own Python tools, declared like the built-ins (a pydantic `ToolArgs`
model and a function returning `ToolResult`), decided by the same permission gate and bounded by the same
output caps.

    class Weather(sneakycode.ToolArgs):
        city: str = Field(description="city name")

    @sneakycode.tool
    def weather(args: Weather, ctx: sneakycode.ToolContext) -> sneakycode.ToolResult:
        "The weather in a city."
        return sneakycode.ToolResult.ok(f"sunny in {args.city}")

A tool is read-only and runs without asking unless `read_only=False` (then it asks, like an edit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import overload

from sneakycode.tools.base import Tier, Tool, ToolResult
from sneakycode.tools.base import tool as declare

ToolFunction = Callable[..., ToolResult]


@overload
def tool(func: ToolFunction, /) -> Tool: ...


@overload
def tool(*, name: str | None = None, read_only: bool = True, description: str | None = None) -> Callable[
    [ToolFunction], Tool]: ...


def tool(func: ToolFunction | None = None, /, *, name: str | None = None, read_only: bool = True,
         description: str | None = None) -> Tool | Callable[[ToolFunction], Tool]:
    """Declare a program's tool from `func(args: SomeToolArgs, ctx) -> ToolResult`: its name (the
    function's, unless `name`), description (the docstring, unless `description`) and JSON schema (the args
    model's) come from that one definition. Pass the result in `Options(tools=[...])`."""

    def make(function: ToolFunction) -> Tool:
        tier = Tier.AUTO if read_only else Tier.CONFIRM
        declared = declare(name=name or function.__name__, tier=tier, read_only=read_only, mcp=False)(function)
        return replace(declared, description=description) if description is not None else declared

    return make(func) if func is not None else make
