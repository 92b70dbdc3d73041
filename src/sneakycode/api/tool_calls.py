"""Tools run the way the model would run them, for the faces where a person or another agent chooses the
calls: `sneakycode tool` and `sneakycode mcp serve`. Each call goes through the one gate (permissions/gate.py):
parsed, validated, decided and capped once; `ask` counts as approved (the caller chose the call), deny rules
and plan mode still refuse."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sneakycode.api.options import Options
from sneakycode.api.tool_host import open_tools, served_tools

if TYPE_CHECKING:
    from sneakycode.config import LoadedSettings
    from sneakycode.permissions.gate import Gate
    from sneakycode.tools.base import ToolResult

__all__ = ["OfferedTool", "ToolCalls", "ToolListing", "tool_listing"]


@dataclass(frozen=True)
class ToolListing:
    """One tool as `sneakycode tool --list` shows it."""

    name: str
    tier: str
    conditional: bool
    """Offered to the model only where a language server runs (it runs here like any other)."""


@dataclass(frozen=True)
class OfferedTool:
    """A tool as an MCP client sees it."""

    name: str
    description: str
    schema: dict[str, Any]


def tool_listing() -> list[ToolListing]:
    """Every built-in tool with its tier; the conditional ones (`code`) last."""
    from sneakycode.tools.registry import all_tools, conditional_tools

    return [*(ToolListing(t.name, t.tier.value, False) for t in all_tools()),
            *(ToolListing(t.name, t.tier.value, True) for t in conditional_tools())]


class ToolCalls:
    """One tool session over a workspace (the same settings, context and gate as a Session's); close it, and
    the jobs its calls started end with it."""

    def __init__(self, options: Options, *, kind: str, one_shot: bool = False) -> None:
        """A ConfigError when the workspace or a setting does not work. `kind` names the session in
        `sneakycode sessions`; a `one_shot` session starts no language server ahead of need."""
        self._gate: Gate = open_tools(options, kind=kind, one_shot=one_shot)

    @property
    def loaded(self) -> LoadedSettings:
        return self._gate.ctx.loaded

    def run(self, name: str, raw_args: str | dict[str, Any] | None) -> ToolResult:
        """Run one call as the model would; every failure is a ToolResult with its code."""
        return self._gate.run_direct(name, raw_args)

    def served(self) -> list[OfferedTool]:
        """The tools `mcp serve` offers (those whose `mcp` facet is on; both edit tools under `auto`)."""
        return [OfferedTool(t.name, t.description, t.parameters_schema()) for t in served_tools(self._gate)]

    def unknown(self, name: str, offered: list[str]) -> ToolResult:
        """The result for a tool this caller does not offer, naming the closest ones (capped like any other)."""
        from sneakycode.tools.registry import unknown_tool

        return self._gate.capped(unknown_tool(name, offered=offered))

    def close(self) -> None:
        self._gate.ctx.close()
