"""The tool contract: a pydantic args model plus a function returning ToolResult, declared with `@tool`.

A tool's name, model-facing description (the function's docstring), JSON schema, permission tier and
read-only flag all come from that one declaration; the registry, the OpenAI schema, the MCP schema and the
docs are derived from it.
"""

from __future__ import annotations

import base64
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.context import ToolContext

if TYPE_CHECKING:
    from sneakycode.config import Settings

__all__ = [
    "ErrorCode", "ImagePart", "Preview", "Tier", "Tool", "ToolArgs", "ToolContext", "ToolError", "ToolResult", "tool",
]


class Tier(StrEnum):
    """Permission tier from the tool reference: auto-approved or asks the user first."""

    AUTO = "auto"
    CONFIRM = "confirm"


@dataclass(frozen=True)
class ImagePart:
    """An image a tool hands to the model beside its text (read_file on a PNG): already scaled to what
    providers accept. Chat APIs take images only in user messages, so the agent loop sends it in a user
    message right after the call's results; the tool's text says it is attached there."""

    media_type: str
    data: bytes = field(repr=False)
    width: int
    height: int

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode('ascii')}"


@dataclass
class ToolResult:
    """One tool call's outcome; `render()` is exactly what the model sees (and `image`, when set, follows it)."""

    success: bool
    content: str = ""
    message: str = ""
    error: str | None = None
    code: ErrorCode | None = None
    data: dict[str, Any] = field(default_factory=dict)
    image: ImagePart | None = None

    @classmethod
    def ok(cls, content: str = "", message: str = "", **data: Any) -> ToolResult:
        return cls(success=True, content=content, message=message, data=data)

    @classmethod
    def fail(cls, code: ErrorCode, error: str, *, detail: str = "", hint: str | None = None, **data: Any) -> ToolResult:
        err = ToolError(code, error, detail=detail, hint=hint, data=data)
        return cls.from_error(err)

    @classmethod
    def from_error(cls, err: ToolError) -> ToolResult:
        """On failure `content` holds the supporting detail and `message` the recovery hint."""
        return cls(success=False, content=err.detail, message=err.hint, error=err.error, code=err.code, data=err.data)

    def render(self) -> str:
        if self.success:
            if self.content and self.message:
                return f"{self.content}\n\n{self.message}"
            return self.content or self.message or "(no output)"
        parts = [f"Error [{self.code}]: {self.error}"]
        if self.content:
            parts.append(self.content)
        if self.message:
            parts.append(f"Hint: {self.message}")
        return "\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "success": self.success,
            "content": self.content,
            "message": self.message,
            "error": self.error,
            "code": self.code.value if self.code else None,
            "data": self.data,
        }
        if self.image is not None:  # its size, not its bytes: this is for people and scripts
            image = self.image
            shown["image"] = {"media_type": image.media_type, "width": image.width, "height": image.height,
                              "bytes": len(image.data)}
        return shown


class ToolArgs(BaseModel):
    """Base of every tool's arguments: unknown fields are errors, never silently ignored, and types are
    strict (the model's "yes" is not a boolean and "3" is not a line number: it is told, not guessed for)."""

    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


ArgsT = TypeVar("ArgsT", bound=ToolArgs)
ToolFunc = Callable[[Any, ToolContext], ToolResult]


class Preview(NamedTuple):
    """What a person should see before approving a call: the text, and the syntax to highlight it as."""

    text: str
    syntax: str = "text"


class ProposedEdit(NamedTuple):
    """The file an edit call would leave, computed without writing anything (shown as a diff before approval).
    `before` is None for a file that does not exist yet."""

    path: str
    before: str | None
    after: str


@dataclass(frozen=True)
class Tool:
    """One tool and everything the rest of SneakyCode needs to know about it; nothing outside tools/ lists
    tool names, it asks these facets instead."""

    name: str
    description: str
    args_model: type[ToolArgs]
    func: ToolFunc
    tier: Tier
    read_only: bool = False  # changes nothing, so it may run alongside other read-only calls
    edits_files: bool = False  # auto-edit mode approves it (outside .sneakycode/)
    paths: tuple[str, ...] = ()  # arguments that are workspace paths; permission rules match them
    directories: tuple[str, ...] = ()  # those of `paths` that always name a folder
    command: str | None = None  # the argument that is a shell command line (command rules, shell policy)
    command_cwd: str | None = None  # the argument naming the folder it runs in (its relative paths start there)
    url: str | None = None  # the argument that is a URL: `TOOL(domain:HOST-GLOB)` rules match its host
    ends_run: bool = False  # a successful call ends the agent's run
    mcp: bool = True  # offered by `sneakycode mcp`; tools of SneakyCode's own loop are not
    quiet_on_success: bool = False  # the terminal shows no result line when it succeeds
    records_read: bool = False  # a success puts its path in the read ledger; eliding the result un-reads it
    headline: str | None = None  # the argument shown beside the name in one-line displays
    preview: Callable[[dict[str, Any]], Preview] | None = None  # shown before approval (default: the JSON)
    # For an edit: the file as the call would leave it, against the file as it is now (a ToolError if it would fail).
    proposed: Callable[[Any, ToolContext], ProposedEdit] | None = None
    # The run's own checks, writing nothing: raises the ToolError a run would fail with as things stand. The gate
    # calls it before asking anyone, so a call bound to fail gets its error and the user no question.
    dry_check: Callable[[Any, ToolContext], object] | None = None
    example: dict[str, Any] = field(default_factory=dict)  # a typical call, for docs/tools.md
    edit_format: str | None = None  # the edit style it offers ("replace", "patch"); tools.edit_format picks
    guidance: str = ""  # one line of the system prompt, sent only while the tool is offered
    # Decide the call as another call would be (a job's kill as its command line): (tool, arguments) or None.
    decided_as: Callable[[dict[str, Any], ToolContext], tuple[Tool, dict[str, Any]] | None] | None = None
    # Claude Code's names for it that no other facet implies (Grep, Glob, Task): see tools/claude_names.py.
    claude_names: tuple[str, ...] = ()
    # Offered to a model only when this holds for the settings (web_search: a search backend is configured);
    # `sneakycode tool` and permission checks know the tool either way.
    offered_if: Callable[[Settings], bool] | None = None
    # Its results are URLs the model may fetch next: deny rules on URLs keep a denied one out of them.
    lists_urls: bool = False

    def parameters_schema(self) -> dict[str, Any]:
        return compact_schema(self.args_model.model_json_schema())

    def argument_problems(self, arguments: dict[str, Any]) -> list[str]:
        """What is wrong with `arguments` beyond what `args_model` checks, one `LOCATION: message` line each
        (an MCP server's input schema); a built-in tool's model checks everything."""
        return []

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters_schema()},
        }

    def path_arguments(self, arguments: dict[str, Any]) -> list[tuple[str, bool]]:
        """The call's path values (defaults included), each with whether it names a folder."""
        fields = self.args_model.model_fields
        found = []
        for name in self.paths:
            value = arguments.get(name, fields[name].default if not fields[name].is_required() else None)
            if isinstance(value, str):
                found.append((value, name in self.directories))
        return found

    def url_of(self, arguments: dict[str, Any]) -> str | None:
        """The call's URL argument, for tools that fetch one (domain rules match its host)."""
        value = arguments.get(self.url) if self.url else None
        return value if isinstance(value, str) else None

    def headline_of(self, arguments: dict[str, Any]) -> str:
        """The one argument that says what this call is about (the command, the path, the pattern), or ""."""
        key = self.headline or self.command or self.url or (self.paths[0] if self.paths else None)
        value = arguments.get(key) if key else None
        return value if isinstance(value, str) else ""

    def preview_of(self, arguments: dict[str, Any]) -> Preview:
        if self.preview is not None:
            return self.preview(arguments)
        return Preview(json.dumps(arguments, indent=2, ensure_ascii=False), "json")


def tool(*, name: str, tier: Tier, **facets: Any) -> Callable[[Callable[[ArgsT, ToolContext], ToolResult]], Tool]:
    """Declare a tool from a function `(args: SomeArgs, ctx: ToolContext) -> ToolResult`; `facets` are the
    Tool fields after `tier` (read_only, edits_files, paths, ...)."""

    def wrap(func: Callable[[ArgsT, ToolContext], ToolResult]) -> Tool:
        hints = get_type_hints(func)
        args_model = hints[next(iter(inspect.signature(func).parameters))]
        declared = Tool(
            name=name,
            description=" ".join(inspect.cleandoc(func.__doc__ or "").split()),
            args_model=args_model,
            func=func,
            tier=tier,
            **facets,
        )
        named = {*declared.paths, *(a for a in (declared.command, declared.command_cwd, declared.url) if a)}
        unknown = named - set(args_model.model_fields)
        if unknown:
            raise TypeError(f"tool {name}: facets name arguments it does not have: {unknown}")
        return declared

    return wrap


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The args schema as sent to the model, stripped of what costs characters on every request and tells the
    model nothing: titles, inlined $refs, `additionalProperties` (we validate ourselves and name unknown
    fields), and the `anyOf [T, null]` + `default: null` wrapping of optional fields (leaving them out of
    `required` already says they are optional), and `default: false` of optional flags."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            node = _unwrap_optional(node)
            node = {k: v for k, v in node.items() if not _says_nothing(k, v, node)}
            return {k: walk(v) for k, v in node.items() if k not in ("title", "$defs", "additionalProperties")}
        if isinstance(node, list):
            return [walk(item) for item in node]
        return node

    result: dict[str, Any] = walk(schema)
    result.pop("description", None)
    return result


def _says_nothing(key: str, value: Any, node: dict[str, Any]) -> bool:
    """Whether a schema keyword tells the model nothing it needs, at a cost on every request: an optional
    flag's `default: false` and a count's `default: 0` (off unless set), a path's `default: "."` (the
    workspace, where every path starts), a choice's default when it is the first choice listed, the lower
    bounds every count and pattern has anyway (`minimum` 0 or 1, `minLength` 1) and the guards against runaway
    values (`maximum` 1,000 and up): the arguments are still checked against all of them, with a coded error
    naming the field. Also the `type` of a list of strings (`enum` already says it)."""
    if key == "default":
        choices = node.get("enum")
        return (value is False or (value == 0 and node.get("type") == "integer") or value == "."
                or (isinstance(choices, list) and bool(choices) and value == choices[0]))
    if key in ("minimum", "minLength"):
        return value in (0, 1)
    if key == "maximum":
        return isinstance(value, int) and value >= 1000
    if key == "type" and value == "string":
        choices = node.get("enum")
        return isinstance(choices, list) and all(isinstance(choice, str) for choice in choices)
    return False


def _unwrap_optional(node: dict[str, Any]) -> dict[str, Any]:
    variants = node.get("anyOf")
    if not isinstance(variants, list) or len(variants) != 2 or {"type": "null"} not in variants:
        return node
    inner = next(v for v in variants if v != {"type": "null"})
    merged = {k: v for k, v in node.items() if k not in ("anyOf", "default") or (k == "default" and v is not None)}
    return {**inner, **merged}
