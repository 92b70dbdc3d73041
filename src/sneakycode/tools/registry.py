"""The single list of tools, and the one way to run a tool call the way the model made it.

`parse_arguments` and `validate` turn the model's JSON into the tool's pydantic model; `run` runs the tool,
turns any ToolError into a failed result and caps the rendered output at `ToolContext.output_limit`. Nothing above
this module calls a tool function directly, and every caller comes through `permissions.gate`.
"""

from __future__ import annotations

import difflib
import importlib
import json
from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from sneakycode.errors import ConfigError, ErrorCode, ToolError
from sneakycode.tools.base import Tool, ToolArgs, ToolContext, ToolResult
from sneakycode.tools.context import running_budget

if TYPE_CHECKING:
    from sneakycode.config import Settings

MAX_ARGUMENT_DEPTH = 32

# Modules in the order their tools are offered to the model.
TOOL_MODULES = (
    "sneakycode.tools.read",
    "sneakycode.tools.search.tools",
    "sneakycode.tools.write",
    "sneakycode.tools.edit.tools",
    "sneakycode.tools.shell",
    "sneakycode.tools.jobs",
    "sneakycode.tools.web.tools",
    "sneakycode.tools.web.search",
    "sneakycode.tools.tasks",
    "sneakycode.tools.control",
)
# Tools offered only where they can work (api/assembly.py asks `offered_if`), so not in the default array:
# `code` needs a language server for a language of the workspace.
CONDITIONAL_TOOL_MODULES = ("sneakycode.tools.lsp.tool",)


@cache
def _module_tools(module_name: str) -> tuple[Tool, ...]:
    module = importlib.import_module(module_name)
    return tuple(value for value in vars(module).values() if isinstance(value, Tool))


@cache
def all_tools() -> tuple[Tool, ...]:
    return tuple(found for module_name in TOOL_MODULES for found in _module_tools(module_name))


@cache
def conditional_tools() -> tuple[Tool, ...]:
    return tuple(found for module_name in CONDITIONAL_TOOL_MODULES for found in _module_tools(module_name))


def known_tools() -> tuple[Tool, ...]:
    """Every built-in tool, the conditional ones included (for the docs and `tools.enabled`)."""
    return (*all_tools(), *conditional_tools())


def tools_by_name() -> dict[str, Tool]:
    return {t.name: t for t in all_tools()}


def get_tool(name: str) -> Tool | None:
    # A single call (`sneakycode tool`, MCP) needs one tool module, and importing the others would cost it
    # more than the call: modules are imported in order only until one declares `name`.
    for module_name in (*TOOL_MODULES, *CONDITIONAL_TOOL_MODULES):
        for found in _module_tools(module_name):
            if found.name == name:
                return found
    return None


def openai_schemas(tools: tuple[Tool, ...] | None = None) -> list[dict[str, Any]]:
    return [t.openai_schema() for t in (all_tools() if tools is None else tools)]


EDIT_FORMATS = ("replace", "patch", "both")


def offered_tools(
    enabled: list[str] | None, edit_format: str = "both", settings: Settings | None = None
) -> tuple[Tool, ...]:
    """The tools a model is offered: those `enabled` names (None: every one), keeping only the edit tools of
    `edit_format` unless that would leave none, and a tool with an `offered_if` only when `settings` satisfy
    it (no settings: never). A tool that ends the run is always offered (without it a run could only end by
    answering in prose). An unknown name is a ConfigError that lists the known ones."""
    everything = all_tools()
    known = [t.name for t in known_tools()]
    if enabled is not None:
        unknown = [name for name in enabled if name not in known]
        if unknown:
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.5)
            raise ConfigError(
                f"tools.enabled names no tool {unknown[0]!r}{f' (did you mean {close[0]!r}?)' if close else ''}; "
                f"the tools are: {', '.join(known)}"
            )
    if edit_format not in EDIT_FORMATS:
        raise ConfigError(f"tools.edit_format must be one of {', '.join(EDIT_FORMATS)}, got {edit_format!r}")
    chosen = [t for t in everything if t.ends_run or enabled is None or t.name in enabled]
    chosen = [t for t in chosen if t.offered_if is None or (settings is not None and t.offered_if(settings))]
    if edit_format != "both" and any(t.edit_format == edit_format for t in chosen):
        chosen = [t for t in chosen if t.edit_format in (None, edit_format)]
    return tuple(chosen)


def parse_arguments(raw: str | dict[str, Any] | None) -> dict[str, Any]:
    """JSON text (or an already-parsed dict) to a dict; a parse error names the position. Arguments nested
    deeper than MAX_ARGUMENT_DEPTH are refused: no tool takes them, and deeper structures would exhaust
    Python's recursion limit in whatever walks them next (validation, the transcript)."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        value: Any = raw
    else:
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENTS,
                f"the arguments are not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                detail=f"Received: {raw[:300]}",
            ) from None
        except RecursionError:
            raise _too_deep() from None
    if not isinstance(value, dict):
        raise ToolError(ErrorCode.INVALID_ARGUMENTS, f"the arguments must be a JSON object, got {type(value).__name__}")
    if _depth(value) > MAX_ARGUMENT_DEPTH:
        raise _too_deep()
    return value


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in `value`, counted without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            if level <= MAX_ARGUMENT_DEPTH:
                stack.extend((child, level + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _too_deep() -> ToolError:
    return ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        f"the arguments nest lists or objects more than {MAX_ARGUMENT_DEPTH} levels deep",
        hint="Send the tool's parameters as a flat JSON object, as its schema describes.",
    )


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


def unknown_tool(name: str, offered: list[str] | None = None) -> ToolResult:
    """`offered`: the names this caller offers, when that is not every tool (MCP leaves the loop's own out)."""
    names = offered if offered is not None else [t.name for t in all_tools()]
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.4)
    suggestion = f"Closest: {', '.join(close)}. " if close else ""
    return ToolResult.fail(
        ErrorCode.UNKNOWN_TOOL,
        f"there is no tool named {name!r}",
        detail=f"Available tools: {', '.join(names)}",
        hint=f"{suggestion}Call one of the available tools.",
    )


def validate(found: Tool, arguments: dict[str, Any]) -> ToolArgs:
    """The call's arguments checked against the tool's model (and, for a tool that has one, its own schema);
    a ToolError names every problem."""
    try:
        args = found.args_model.model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            f"invalid arguments for {found.name}",
            detail=describe_validation_error(exc),
        ) from None
    problems = found.argument_problems(arguments)
    if problems:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            f"invalid arguments for {found.name}",
            detail="\n".join(f"- {problem}" for problem in problems),
        )
    return args


def run(found: Tool, args: ToolArgs, ctx: ToolContext) -> ToolResult:
    """Run a tool on validated arguments: a ToolError becomes a failed result, and the output is capped.
    Callers reach this through `permissions.gate`, which parses, validates and decides each call once."""
    with running_budget(found.name, ctx.cancel):
        try:
            result = found.func(args, ctx)
        except ToolError as err:
            result = ToolResult.from_error(err)
        except OSError as exc:
            # A refusal by the system that the tool did not foresee (the path changed under it, say) is still an
            # io_error for the model, not a traceback that ends `sneakycode tool` or an MCP request.
            result = ToolResult.fail(ErrorCode.IO_ERROR, f"{found.name}: {exc.strerror or exc}")
    return cap_result(result, ctx.output_limit)


def cap_result(result: ToolResult, max_bytes: int) -> ToolResult:
    """Last line of defence: no rendering, error and hint included, ever exceeds max_bytes (tools
    bound their content first; a 100 KB pattern or tool name echoed in an error must not pass either)."""
    if len(result.render().encode("utf-8")) <= max_bytes:
        return result
    share = max_bytes // 4
    if result.error is not None:
        result.error = clip_text(result.error, share)
    result.message = clip_text(result.message, share)
    room = max_bytes - len(ToolResult(result.success, "", result.message, result.error, result.code).render()
                           .encode("utf-8")) - 100
    encoded = result.content.encode("utf-8")
    if len(encoded) > room:
        kept = encoded[: max(room, 0)].decode("utf-8", errors="ignore")
        cut = len(encoded) - len(kept.encode("utf-8"))
        result.content = f"{kept}\n... [output cut: {cut} more bytes over the {max_bytes}-byte output limit]"
        result.data["truncated"] = True
    return result


def clip_text(text: str, max_bytes: int) -> str:
    encoded = text.encode("utf-8")
    if len(encoded) <= max_bytes:
        return text
    kept = encoded[: max_bytes - 40].decode("utf-8", errors="ignore")
    return f"{kept}... [{len(encoded) - len(kept.encode('utf-8'))} more bytes cut]"
