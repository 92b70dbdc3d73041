"""Tool calls that a person (or an MCP client acting for one) makes directly, without the agent loop.

The caller has already chosen the call, so `ask` counts as approved; deny rules and plan mode still refuse,
with the same reason the agent would give.
"""

from __future__ import annotations

from typing import Any

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.permissions.decide import Decision, decide
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.registry import execute, parse_arguments


def run_direct_call(name: str, raw_args: str | dict[str, Any] | None, ctx: ToolContext) -> ToolResult:
    try:
        arguments = parse_arguments(raw_args)
    except ToolError as err:
        return ToolResult.from_error(err)
    verdict = decide(name, arguments, ctx.loaded, ctx.workspace.root)
    if verdict.decision is Decision.DENY:
        return ToolResult.fail(ErrorCode.PERMISSION_DENIED, verdict.reason, rule=verdict.rule)
    return execute(name, arguments, ctx)
