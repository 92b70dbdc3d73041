"""`sneakycode permissions check|list`: try a call against the rules, and see the rules with their origins.

`check` decides exactly as the agent would (same function, same settings layers) and runs nothing; it
exits 0 whatever the decision and 2 on a usage error. `list` prints the effective rules, each with the
file, environment variable or flag it came from; the REPL's /permissions shows the same `rules_report`.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import Any

from sneakycode.config import LoadedSettings
from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings
from sneakycode.tools.base import Tool

MCP_PREFIX = "mcp__"
SECTIONS = (
    ("permissions.deny", "deny: always refused"),
    ("permissions.ask", "ask: always asks, even when allowed"),
    ("permissions.allow", "allow: approved without asking"),
    ("tools.shell.denied_commands", "tools.shell.denied_commands: refused wherever they appear in a command line"),
    ("tools.shell.allowed_commands", "tools.shell.allowed_commands: approved when every part of a line matches"),
)


def run_permissions_command(args: argparse.Namespace) -> int:
    try:
        loaded = workspace_settings(args.workspace)
    except ConfigError as exc:
        return config_error_exit("permissions", exc)
    if args.action == "list":
        print(rules_report(loaded))
        return ExitCode.OK
    return _check(args, loaded)


def _usage(message: str) -> int:
    print(f"sneakycode permissions: {message}", file=sys.stderr)
    return ExitCode.USAGE


def _check(args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from sneakycode.permissions.decide import decide
    from sneakycode.tools.registry import all_tools

    try:
        call_args: Any = json.loads(args.args)
    except json.JSONDecodeError as exc:
        return _usage(f"JSON-ARGS is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(call_args, dict):
        return _usage(f"JSON-ARGS must be a JSON object, got {type(call_args).__name__}")
    names = [found.name for found in all_tools()]
    if args.tool.startswith(MCP_PREFIX):
        print(f"note: {args.tool!r} is an MCP server's tool: rules that name it (or a glob like "
              f"{MCP_PREFIX}SERVER__*) decide; without one it asks", file=sys.stderr)
    elif args.tool not in names:
        close = difflib.get_close_matches(args.tool, names, n=3, cutoff=0.5)
        hint = f" (closest: {', '.join(close)})" if close else f" (tools: {', '.join(names)})"
        print(f"note: {args.tool!r} is not a SneakyCode tool{hint}", file=sys.stderr)
    verdict = decide(args.tool, call_args, loaded, loaded.workspace, args.mode)
    if args.json:
        payload = {
            "decision": verdict.decision.value,
            "reason": verdict.reason,
            "rule": verdict.rule,
            "commands": verdict.commands,
        }
        print(json.dumps(payload, ensure_ascii=False))
        return ExitCode.OK
    print(verdict.decision.value)
    print(f"  reason: {verdict.reason}")
    print(f"  rule: {verdict.rule or '(none)'}")
    found = next((found for found in all_tools() if found.name == args.tool), None)
    if found is not None and found.command is not None:
        print("  commands:" if verdict.commands else "  commands: (none)")
        for command in verdict.commands:
            print(f"    {command}")
    if found is not None:
        for line in _listing_notes(found, loaded):
            print(f"  {line}")
    return ExitCode.OK


def _listing_notes(found: Tool, loaded: LoadedSettings) -> list[str]:
    """For a tool that is offered only once configured, or that lists URLs: whether it is offered, and which
    deny rules keep URLs out of its results."""
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
