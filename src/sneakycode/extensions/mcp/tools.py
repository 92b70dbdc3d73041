"""A server's tools as SneakyCode tools: `mcp__SERVER__TOOL`, the server's own schema (cleaned of what
OpenAI-compatible endpoints reject), the confirm tier unless the server marks a tool read-only and the
configuration trusts that, arguments checked against the server's input schema before a call is sent
(validation.py), and a function that calls the server and turns its answer into a ToolResult.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mcp_types
from jsonschema.protocols import Validator
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict

from sneakycode.errors import ErrorCode
from sneakycode.extensions.mcp.connection import CallCancelled, CallTimedOut, Connection, ServerUnavailable
from sneakycode.extensions.mcp.results import convert_result
from sneakycode.extensions.mcp.validation import argument_problems, input_validator
from sneakycode.tools.base import Tier, Tool, ToolArgs, ToolContext, ToolResult

PREFIX = "mcp__"
MAX_NAME_CHARS = 64  # what OpenAI-compatible endpoints accept as a function name
MAX_DESCRIPTION_CHARS = 2000
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# Keywords that say nothing to the model, or that some endpoints reject ($schema above all).
_DROPPED_KEYWORDS = frozenset({"$schema", "$id", "$comment", "$anchor", "$defs", "definitions", "title"})
# Keywords whose value maps names to schemas (a property called "title" is not the keyword).
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
_MAX_REF_DEPTH = 8

OnUnavailable = Callable[[Connection], None]
OnNotice = Callable[[str], None]


class McpArgs(ToolArgs):
    """Any object: the tool's `validator` checks it against the server's schema."""

    model_config = ConfigDict(extra="allow", strict=True, defer_build=True)


@dataclass(frozen=True)
class McpTool(Tool):
    """A server's tool; `schema` is the cleaned input schema the model is given, `validator` checks a call's
    arguments against the server's own input schema (None when that schema is itself invalid)."""

    server: str = ""
    remote_name: str = ""
    schema: dict[str, Any] = field(default_factory=dict)
    validator: Validator | None = field(default=None, compare=False, repr=False)

    def parameters_schema(self) -> dict[str, Any]:
        return self.schema

    def argument_problems(self, arguments: dict[str, Any]) -> list[str]:
        return argument_problems(self.validator, arguments) if self.validator is not None else []


def tool_name(server: str, remote: str, taken: set[str]) -> str:
    """`mcp__SERVER__TOOL` in [A-Za-z0-9_-], at most 64 characters, unique among `taken` (a hash keeps
    two long or sanitised names apart)."""
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', remote)}"
    if len(name) <= MAX_NAME_CHARS and name not in taken:
        return name
    digest = hashlib.sha256(f"{server}\0{remote}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME_CHARS - 9]}_{digest}"


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema with local `$ref`s inlined and the keywords in _DROPPED_KEYWORDS removed; the root is
    always an object with `properties` (some endpoints reject one without)."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}

    def walk(node: Any, depth: int) -> Any:
        if isinstance(node, list):
            return [walk(item, depth) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            target = defs.get(ref.rsplit("/", 1)[-1]) if ref.startswith("#/") else None
            if target is None or depth >= _MAX_REF_DEPTH:  # remote or recursive: any value
                return {key: value for key, value in node.items() if key == "description"}
            return walk({**target, **{k: v for k, v in node.items() if k != "$ref"}}, depth + 1)
        cleaned: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED_KEYWORDS:
                continue
            if key in _SCHEMA_MAPS and isinstance(value, dict):
                cleaned[key] = {name: walk(sub, depth) for name, sub in value.items()}
            else:
                cleaned[key] = walk(value, depth)
        return cleaned

    result: dict[str, Any] = walk(schema, 0)
    result["type"] = "object"
    result.setdefault("properties", {})
    return result


def adapt_tools(
    connection: Connection, taken: set[str], on_unavailable: OnUnavailable, on_notice: OnNotice
) -> list[McpTool]:
    """Every tool the connected server listed, as SneakyCode tools; new names are added to `taken`, and a tool
    whose input schema is not valid JSON Schema is reported to `on_notice`."""
    adapted = []
    for remote in connection.tools:
        name = tool_name(connection.name, remote.name, taken)
        taken.add(name)
        adapted.append(_adapt(connection, remote, name, on_unavailable, on_notice))
    return adapted


def _adapt(
    connection: Connection, remote: mcp_types.Tool, name: str, on_unavailable: OnUnavailable, on_notice: OnNotice
) -> McpTool:
    validator, why = input_validator(remote.input_schema)
    if validator is None:
        on_notice(
            f"MCP server {connection.name}: the input schema of its tool {remote.name} is not valid JSON Schema "
            f"({why}); calls to {name} are sent without checking their arguments here."
        )
    annotations = remote.annotations
    read_only = bool(annotations and annotations.read_only_hint) and connection.spec.settings.trust_read_only
    schema = clean_schema(remote.input_schema)
    description = " ".join((remote.description or remote.title or remote.name).split())
    if len(description) > MAX_DESCRIPTION_CHARS:
        description = description[: MAX_DESCRIPTION_CHARS - 3] + "..."
    required = [key for key in schema.get("required", []) if schema["properties"].get(key, {}).get("type") == "string"]

    def run(args: McpArgs, ctx: ToolContext) -> ToolResult:
        return call_tool(connection, remote.name, dict(args.model_extra or {}), ctx, on_unavailable)

    return McpTool(
        name=name,
        description=f"[MCP server {connection.name}] {description}",
        args_model=McpArgs,
        func=run,
        tier=Tier.AUTO if read_only else Tier.CONFIRM,
        read_only=read_only,
        mcp=False,  # never served back out by `sneakycode mcp serve`
        headline=required[0] if required else None,
        server=connection.name,
        remote_name=remote.name,
        schema=schema,
        validator=validator,
    )


def call_tool(
    connection: Connection, remote: str, arguments: dict[str, Any], ctx: ToolContext, on_unavailable: OnUnavailable
) -> ToolResult:
    """One call to the server, every way it can end turned into a result the model can act on."""
    label = f"{connection.name}/{remote}"
    try:
        answer = connection.call(remote, arguments, ctx.cancel)
    except ServerUnavailable as exc:
        on_unavailable(connection)
        tail = connection.stderr_tail()
        detail = f"Its stderr ended with:\n{tail}" if tail else ""
        return ToolResult.fail(
            ErrorCode.MCP_ERROR, f"{label} was not run: {exc}", detail=detail,
            hint="Its tools are withdrawn for this session; continue without them.",
        )
    except CallTimedOut as exc:
        return ToolResult.fail(ErrorCode.TIMED_OUT, f"{label}: {exc}",
                               hint="Try a smaller request, or continue without this tool.")
    except CallCancelled:
        return ToolResult.fail(ErrorCode.CANCELLED, f"{label} was cancelled while the server worked on it")
    except MCPError as exc:
        return ToolResult.fail(ErrorCode.MCP_ERROR, f"{label} refused the call: {exc.message}")
    return convert_result(label, answer, ctx)

