""""Always allow" as a face answers it: the session-scope allow rules a call stands for, added for the rest of
the session so every later decision (subagents' included) sees them. The terminal's `a` and the editor's
"allow always" add the same rules (permissions/always.py derives them)."""

from __future__ import annotations

from sneakycode.permissions.always import allow_for_session, always_rules
from sneakycode.permissions.gate import PendingCall
from sneakycode.tools.base import ToolContext


def rules_for(ctx: ToolContext, call: PendingCall) -> list[str]:
    """The allow rules "always" adds for `call` (`str_replace(app.py)`, `run_command(pytest:*)`)."""
    return always_rules(call.name, call.arguments, ctx.loaded, ctx.workspace.root)


def allow_always(ctx: ToolContext, rules: list[str]) -> None:
    """Add `rules` as allow rules for the rest of the session."""
    allow_for_session(ctx.loaded, rules)
