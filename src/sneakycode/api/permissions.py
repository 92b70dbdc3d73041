"""Permission decisions without running anything, for `sneakycode permissions check|list` and the terminal's
/permissions: one call decided exactly as the agent would (permissions/decide.py, the same settings layers),
and the effective rules with their origins. Nothing here decides twice: `check_call` is `decide`."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from sneakycode.config import LoadedSettings, PermissionMode
from sneakycode.tools.base import Tool

__all__ = ["MCP_PREFIX", "MODES", "CallCheck", "check_call", "network_lines", "rules_report", "tool_names"]

MCP_PREFIX = "mcp__"
MODES: tuple[str, ...] = tuple(PermissionMode)
"""The permission modes' names, as `--mode` takes them."""
SECTIONS = (
    ("permissions.deny", "deny: always refused"),
    ("permissions.ask", "ask: always asks, even when allowed"),
    ("permissions.allow", "allow: approved without asking"),
    ("tools.shell.denied_commands", "tools.shell.denied_commands: refused wherever they appear in a command line"),
    ("tools.shell.allowed_commands", "tools.shell.allowed_commands: approved when every part of a line matches"),
)


@dataclass(frozen=True)
class CallCheck:
    """How one call would be decided, and what a person should know beside it."""

    decision: str
    """allow, ask or deny."""
    reason: str
    rule: str | None
    commands: list[str]
    known_tool: bool
    """A built-in tool (not an MCP server's, not a typo)."""
    takes_command: bool
    """The tool runs a command line, so `commands` are its parts."""
    notes: list[str] = field(default_factory=list)
    """For a tool offered only once configured, or one that lists URLs: whether it is offered, which deny
    rules keep URLs out of its results."""


def tool_names() -> list[str]:
    """The built-in tools' names."""
    from sneakycode.tools.registry import all_tools

    return [found.name for found in all_tools()]


def check_call(loaded: LoadedSettings, tool: str, args: dict[str, Any], mode: str | None) -> CallCheck:
    """Decide `tool(args)` under `loaded` (and `mode` when given) exactly as the agent would; runs nothing."""
    from sneakycode.permissions.decide import decide
    from sneakycode.tools.registry import all_tools

    verdict = decide(tool, args, loaded, loaded.workspace, mode)
    found = next((found for found in all_tools() if found.name == tool), None)
    return CallCheck(verdict.decision.value, verdict.reason, verdict.rule, list(verdict.commands), found is not None,
                     found is not None and found.command is not None,
                     _listing_notes(found, loaded) if found is not None else [])


def _listing_notes(found: Tool, loaded: LoadedSettings) -> list[str]:
    from sneakycode.permissions.rules import url_deny_rules

    notes = []
    if found.offered_if is not None and not found.offered_if(loaded.settings):
        notes.append(f"offered: no, {found.name} is not configured (see docs/web.md), so the model does not get it")
    if found.lists_urls:
        rules = url_deny_rules(loaded)
        shown = ", ".join(rule.describe() for rule in rules) if rules else "(no domain deny rule)"
        notes.append(f"results left out: URLs these deny rules refuse: {shown}")
    return notes


def rules_report(loaded: LoadedSettings) -> str:
    """Every effective rule with where it came from, the mode, the tool tiers and rules that never match."""
    from sneakycode.permissions.rules import rule_set
    from sneakycode.tools.registry import all_tools

    settings = loaded.settings
    lines = [
        f"Permissions for {loaded.workspace}",
        f"mode: {settings.permissions.mode} (from {loaded.origin_of('permissions.mode')})",
        "order: deny > plan mode > ask > allow > mode > tier",
        *network_lines(loaded),
    ]
    for key, title in SECTIONS:
        lines.extend(["", title])
        entries = loaded.rule_origins.get(key, [])
        if not entries:
            lines.append("  (none)")
        width = max((len(rule) for rule, _ in entries), default=0)
        lines.extend(f"  {rule.ljust(width)}  from {source}" for rule, source in entries)
    tools = all_tools()
    lines.extend(["", "tiers (when no rule or mode decides):"])
    for tier in ("auto", "confirm"):
        names = [found.name for found in tools if found.tier.value == tier]
        lines.append(f"  {tier}: {', '.join(names) or '(none)'}")
    warnings = _warnings(loaded, {found.name: found for found in tools})
    malformed = rule_set(loaded).malformed
    warnings.extend(f"{key} entry {entry!r} ({origin}) is not TOOL or TOOL(PATTERN); it is ignored"
                    for key, entry, origin in malformed)
    if warnings:
        lines.extend(["", "warnings:", *(f"  {warning}" for warning in warnings)])
    return "\n".join(lines)


def network_lines(loaded: LoadedSettings) -> list[str]:
    """Where sandboxed commands may connect (the effective tools.shell.network and its list), with origins."""
    from sneakycode.config.network import effective_network

    policy = effective_network(loaded.settings.tools.shell)
    keys = ("tools.shell.network", "tools.shell.sandbox_network", "tools.shell.allowed_hosts",
            "tools.shell.allowed_ports")  # fmt: skip
    origins = ", ".join(f"{key.rpartition('.')[2]} from {loaded.origin_of(key)}" for key in keys
                        if loaded.origin_of(key) != "default")  # fmt: skip
    lines = [f"sandbox network: {policy.mode}" + (f" ({origins})" if origins else " (default)")]
    if policy.mode == "allowlist":
        lines.append(f"  hosts: {', '.join(policy.hosts) or '(none: every connection is refused)'}")
        lines.append(f"  ports: {', '.join(map(str, policy.ports))}")
    return lines


def _warnings(loaded: LoadedSettings, tools: dict[str, Any]) -> list[str]:
    from sneakycode.permissions.rules import parse_rule

    found: list[str] = []
    for kind in ("deny", "ask", "allow"):
        key = f"permissions.{kind}"
        for entry, source in loaded.rule_origins.get(key, []):
            parsed = parse_rule(entry)
            if parsed is None:
                continue
            tool, pattern = parsed
            if pattern is not None and not entry.rstrip().endswith(")"):
                found.append(f"{key} rule {entry!r} ({source}) lacks its closing `)`; read as {tool}({pattern})")
            if tool.startswith(MCP_PREFIX) or "*" in tool or "?" in tool:
                continue  # MCP server tools and globs name tools that exist only while a session runs
            if tool not in tools:
                close = difflib.get_close_matches(tool, list(tools), n=1, cutoff=0.5)
                hint = f"; did you mean {close[0]}?" if close else ""
                found.append(f"{key} rule {entry!r} ({source}) names no SneakyCode tool{hint}")
            elif pattern and tools[tool].lists_urls and tools[tool].url is None and kind != "deny":
                found.append(f"{key} rule {entry!r} ({source}): a pattern of {tool} only keeps results out, in a "
                             "deny rule; here it never matches")
            elif pattern and tools[tool].command is None and not tools[tool].paths and not (
                tools[tool].url or tools[tool].lists_urls
            ):
                found.append(f"{key} rule {entry!r} ({source}): {tool} takes no path, so the pattern never matches")
    return found
