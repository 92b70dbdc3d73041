"""`allowed-tools` of a custom command or skill: allow rules granted only while its request runs.

Entries are our rules (`TOOL` or `TOOL(PATTERN)`) or the names Claude Code's files use (`Bash(git add:*)`,
`Edit`, `Read`), translated through the tools' facets (tools/claude_names.py), so a command written for
Claude Code works unchanged. The grant is an overlay on the session's settings: deny and ask rules, plan mode and the
shell policy still decide first, and the overlay is gone when the request ends, however it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from sneakycode.permissions.rules import parse_rule
from sneakycode.tools.base import Tool, ToolContext
from sneakycode.tools.claude_names import tools_ruled_by
from sneakycode.tools.registry import all_tools


def translate(entries: tuple[str, ...], tools: tuple[Tool, ...] | None = None) -> tuple[list[str], list[str]]:
    """(our allow rules, entries that name no tool we have and were dropped)."""
    known = all_tools() if tools is None else tools
    names = {t.name for t in known}
    rules: list[str] = []
    dropped: list[str] = []
    for entry in entries:
        parsed = parse_rule(entry)
        if parsed is None:
            dropped.append(entry)
            continue
        name, pattern = parsed
        if name in names:
            rules.append(entry)
            continue
        mapped = [t.name for t in tools_ruled_by(name, known)]
        if not mapped:
            dropped.append(entry)
        rules.extend(f"{target}({pattern})" if pattern else target for target in mapped)
    return list(dict.fromkeys(rules)), dropped


@contextmanager
def granted(ctx: ToolContext, rules: list[str], origin: str) -> Iterator[None]:
    """Allow `rules` (attributed to `origin`) in `ctx` for the duration of the block."""
    if not rules:
        yield
        return
    before = ctx.loaded
    permissions = before.settings.permissions
    allow = [*permissions.allow, *(rule for rule in rules if rule not in permissions.allow)]
    settings = before.settings.model_copy(
        update={"permissions": permissions.model_copy(update={"allow": allow})}
    )
    origins = dict(before.rule_origins)
    origins["permissions.allow"] = [*origins.get("permissions.allow", []), *((rule, origin) for rule in rules)]
    earlier = ctx.granted
    ctx.granted = replace(before, settings=settings, rule_origins=origins)
    try:
        yield
    finally:
        ctx.granted = earlier
