"""The tool budget: when the MCP tools' schemas would cost more than `mcp.max_tool_chars` on every request,
the model gets `mcp_search` instead, which finds tools by words in their names and descriptions, returns
them with their schemas and makes them callable from then on (the way Claude Code defers MCP tools).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from pydantic import Field

from sneakycode.tools.base import Tier, Tool, ToolArgs, ToolContext, ToolResult, tool

Offer = Callable[[tuple[Tool, ...]], None]
_WORD = re.compile(r"[a-z0-9]+")


class McpSearchArgs(ToolArgs):
    query: str = Field(description="words from the tool's name or purpose; `server:NAME` lists one server's tools")
    limit: int = Field(5, ge=1, le=20, description="how many tools to return")


def schema_chars(tools: Sequence[Tool]) -> int:
    """What the tools add to every request, in characters of compact JSON."""
    return len(json.dumps([t.openai_schema() for t in tools], separators=(",", ":"), ensure_ascii=False))


def rank(tools: Sequence[Tool], query: str) -> list[Tool]:
    """Tools matching the query, best first: `server:NAME` selects a server; otherwise every query word
    found in the name counts three, in the description one, and a tool with no word found is left out."""
    words = _WORD.findall(query.lower())
    server = re.fullmatch(r"\s*server:\s*(\S+)\s*", query)
    if server is not None:
        return [t for t in tools if t.name.startswith(f"mcp__{server.group(1)}__")]
    scored = []
    for position, found in enumerate(tools):
        name, description = " ".join(_WORD.findall(found.name.lower())), found.description.lower()
        score = sum(3 * (word in name) + (word in description) for word in words)
        if score:
            scored.append((-score, position, found))
    return [found for _, _, found in sorted(scored, key=lambda item: item[:2])]


def search_tool(catalog: Callable[[], Sequence[Tool]], offer: Callable[[], Offer | None]) -> Tool:
    """`mcp_search` over the tools `catalog` returns (the servers still up); `offer` gives the session's way
    to make found tools callable (None before a session is attached)."""

    @tool(
        name="mcp_search",
        tier=Tier.AUTO,
        read_only=True,
        mcp=False,
        headline="query",
        example={"query": "create issue"},
        guidance="Tools of the user's MCP servers are not listed; find them with mcp_search, then call them by name.",
    )
    def mcp_search(args: McpSearchArgs, ctx: ToolContext) -> ToolResult:
        """Find tools of the connected MCP servers by words from their name or purpose (or `server:NAME`);
        returns each match's name, description and parameters, and the matches become callable tools."""
        tools = list(catalog())
        found = rank(tools, args.query)[: args.limit]
        if not found:
            servers = sorted({t.name.split("__")[1] for t in tools if t.name.count("__") >= 2})
            return ToolResult.ok(
                f"No MCP tool matches {args.query!r}. Servers: {', '.join(servers) or '(none running)'}; "
                "try other words, or `server:NAME` for all of one server's tools."
            )
        adder = offer()
        if adder is not None:
            adder(tuple(found))
        listed = [
            f"{t.name}: {t.description}\nparameters: {json.dumps(t.parameters_schema(), ensure_ascii=False)}"
            for t in found
        ]
        note = f"{len(found)} of {len(tools)} MCP tools matched; these can be called now:"
        return ToolResult.ok("\n\n".join([note, *listed]), tools=[t.name for t in found])

    return mcp_search
