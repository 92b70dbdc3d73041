"""The `code` tool: definition, references, symbols and hover from the language server of the file's language.

Offered (api/assembly.py) only when a server is configured or on PATH for a language the workspace holds; not
one of the registry's default tools, so the tools array of a workspace without one is unchanged. This module
is only the declaration: what the call does (ops.py) loads pygls and lsprotocol, which cost a session that
never calls it 0.7 s.
"""

from __future__ import annotations

from typing import Literal

from pydantic.json_schema import SkipJsonSchema

from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool


class CodeArgs(ToolArgs):
    op: Literal["definition", "references", "symbols", "hover"]
    path: str | None = None
    # 1-based; checked in _position rather than by `minimum` in the schema, which the model pays for per request.
    line: int | None = None
    symbol: str | None = None
    # Accepted but not advertised: every request pays for the schema, and `symbol` says the same for nearly every
    # call (a column for a name that occurs twice on a line; `query`, the older name of a symbols search).
    column: SkipJsonSchema[int | None] = None
    query: SkipJsonSchema[str | None] = None


@tool(
    name="code",
    tier=Tier.AUTO,
    read_only=True,
    paths=("path",),
    headline="symbol",
    mcp=False,
    example={"op": "definition", "path": "src/app.py", "line": 12, "symbol": "parse_config"},
    guidance="To find code, prefer `code` to grep: symbols with query=NAME finds a definition; definition, "
    "references and hover work at any use of a name.",
)
def code(args: CodeArgs, ctx: ToolContext) -> ToolResult:
    """Language server: definition, references or hover of symbol on path:line; symbols: path's outline, or
    symbol searched."""
    from sneakycode.tools.lsp.ops import run_code

    return run_code(args, ctx)
