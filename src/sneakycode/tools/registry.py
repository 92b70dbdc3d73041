"""The single list of tools, and the one way to run a tool call the way the model made it.

`execute` parses and validates the arguments with the tool's pydantic model, runs the tool, turns any
ToolError into a failed result and caps the rendered output at max_output_bytes. Nothing above this module
calls a tool function directly.
"""

from __future__ import annotations

import difflib
import importlib
import json
from functools import cache
from typing import Any

from pydantic import ValidationError

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tool, ToolContext, ToolResult

# Modules in the order their tools are offered to the model.
TOOL_MODULES = (
    "sneakycode.tools.read",
    "sneakycode.tools.search.tools",
    "sneakycode.tools.write",
    "sneakycode.tools.edit.tools",
    "sneakycode.tools.shell",
    "sneakycode.tools.tasks",
    "sneakycode.tools.control",
)


@cache
def _module_tools(module_name: str) -> tuple[Tool, ...]:
    module = importlib.import_module(module_name)
    return tuple(value for value in vars(module).values() if isinstance(value, Tool))


@cache
def all_tools() -> tuple[Tool, ...]:
    return tuple(found for module_name in TOOL_MODULES for found in _module_tools(module_name))


def tools_by_name() -> dict[str, Tool]:
    return {t.name: t for t in all_tools()}


def get_tool(name: str) -> Tool | None:
    # A single call (`sneakycode tool`, MCP) needs one tool module, and importing the others would cost it
    # more than the call: modules are imported in order only until one declares `name`.
    for module_name in TOOL_MODULES:
        for found in _module_tools(module_name):
            if found.name == name:
                return found
    return None


def openai_schemas() -> list[dict[str, Any]]:
    return [t.openai_schema() for t in all_tools()]


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """JSON text (or an already-parsed dict) to a dict; a parse error names the position."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            f"the arguments are not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            detail=f"Received: {raw[:300]}",
        ) from None
    if not isinstance(value, dict):
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"the arguments must be a JSON object, got {type(value).__name__}")
    return value


def describe_validation_error(exc: ValidationError) -> str:
    problems = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        if err["type"] == "missing":
            problems.append(f"- {loc}: required field is missing")
        elif err["type"] == "extra_forbidden":
            problems.append(f"- {loc}: unknown field (not a parameter of this tool)")
        else:
            problems.append(f"- {loc}: {err['msg']} (got {err.get('input')!r:.80})")
    return "\n".join(problems)


def unknown_tool(name: str) -> ToolResult:
    names = [t.name for t in all_tools()]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
    suggestion = f"Closest: {', '.join(close)}. " if close else ""
    return ToolResult.fail(
        ErrorCode.UNKNOWN_TOOL,
        f"there is no tool named {name!r}",
        detail=f"Available tools: {', '.join(names)}",
        hint=f"{suggestion}Call one of the available tools.",
    )


def execute(name: str, raw_args: str | dict[str, Any] | None, ctx: ToolContext) -> ToolResult:
    """Run one tool call exactly as the model made it. Never raises for a bad call."""
    found = get_tool(name)
    if found is None:
        return unknown_tool(name)
    try:
        arguments = parse_arguments(raw_args)
        try:
            args = found.args_model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                f"invalid arguments for {name}",
                detail=describe_validation_error(exc),
            ) from None
        result = found.func(args, ctx)
    except ToolError as err:
        result = ToolResult.from_error(err)
    return cap_result(result, ctx.settings.max_output_bytes)


def cap_result(result: ToolResult, max_bytes: int) -> ToolResult:
    """Last line of defence: no rendering ever exceeds max_output_bytes (tools bound themselves first)."""
    encoded = result.content.encode("utf-8")
    if len(encoded) <= max_bytes:
        return result
    kept = encoded[: max_bytes - 200].decode("utf-8", errors="ignore")
    cut = len(encoded) - len(kept.encode("utf-8"))
    result.content = f"{kept}\n... [output cut: {cut} more bytes over max_output_bytes={max_bytes}]"
    result.data["truncated"] = True
    return result
