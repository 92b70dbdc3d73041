"""Tools without a model, for the faces that run calls a person or another agent chose: `sneakycode tool`
and `sneakycode mcp serve`. The same settings, tool context and gate as a Session's, so tools run in exactly
the same conditions everywhere; only the model and the loop are left out (and so are their imports)."""

from __future__ import annotations

from sneakycode.api.options import Options
from sneakycode.api.settings import load_options
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import Tool
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.registry import offered_tools


def open_tools(options: Options, *, kind: str, one_shot: bool = False) -> Gate:
    """A gate over a new tool session for `options.workspace` (the caller closes `gate.ctx`); a ConfigError
    when the workspace or a setting does not work. `kind` names the session in `sneakycode sessions`; a
    `one_shot` session (one command's calls) starts no language server ahead of need."""
    return Gate(open_tool_context(load_options(options), kind=kind, one_shot=one_shot))


def served_tools(gate: Gate) -> list[Tool]:
    """The tools `sneakycode mcp serve` offers: `tools.enabled`, both edit tools under `auto` (the client's
    model family is unknown here), and only those whose `mcp` facet is on (not finish or the task list)."""
    chosen = gate.ctx.settings.tools
    fmt = "both" if chosen.edit_format == "auto" else chosen.edit_format
    return [t for t in offered_tools(chosen.enabled, fmt, gate.ctx.settings) if t.mcp]
