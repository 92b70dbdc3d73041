"""`sneakycode permissions check|list`: try a call against the rules, and see the rules with their origins.

`check` decides exactly as the agent would (api/permissions.py: the same function, the same settings layers)
and runs nothing; it exits 0 whatever the decision and 2 on a usage error. `list` prints the effective rules,
each with the file, environment variable or flag it came from; the terminal's /permissions shows the same
`rules_report`.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from typing import TYPE_CHECKING, Any

from sneakycode.api.errors import ConfigError
from sneakycode.api.permissions import MCP_PREFIX, check_call, rules_report, tool_names
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import add_flags, add_workspace_flag
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings

if TYPE_CHECKING:
    from sneakycode.api.vocabulary import LoadedSettings

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "See and test permission decisions without running anything."
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser("check", help="decide one call: allow, ask or deny, and why")
    check.add_argument("tool")
    check.add_argument("args", nargs="?", default="{}", metavar="JSON-ARGS")
    add_flags(check, "--mode")
    check.add_argument("--json", action="store_true")
    add_workspace_flag(check, nested=True)
    listing = sub.add_parser("list", help="the effective rules and where each came from")
    add_workspace_flag(listing, nested=True)


def run(args: argparse.Namespace) -> int:
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
    try:
        call_args: Any = json.loads(args.args)
    except json.JSONDecodeError as exc:
        return _usage(f"JSON-ARGS is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    if not isinstance(call_args, dict):
        return _usage(f"JSON-ARGS must be a JSON object, got {type(call_args).__name__}")
    names = tool_names()
    if args.tool.startswith(MCP_PREFIX):
        print(f"note: {args.tool!r} is an MCP server's tool: rules that name it (or a glob like "
              f"{MCP_PREFIX}SERVER__*) decide; without one it asks", file=sys.stderr)
    elif args.tool not in names:
        close = difflib.get_close_matches(args.tool, names, n=3, cutoff=0.5)
        hint = f" (closest: {', '.join(close)})" if close else f" (tools: {', '.join(names)})"
        print(f"note: {args.tool!r} is not a SneakyCode tool{hint}", file=sys.stderr)
    verdict = check_call(loaded, args.tool, call_args, args.mode)
    if args.json:
        payload = {"decision": verdict.decision, "reason": verdict.reason, "rule": verdict.rule,
                   "commands": verdict.commands}
        print(json.dumps(payload, ensure_ascii=False))
        return ExitCode.OK
    print(verdict.decision)
    print(f"  reason: {verdict.reason}")
    print(f"  rule: {verdict.rule or '(none)'}")
    if verdict.takes_command:
        print("  commands:" if verdict.commands else "  commands: (none)")
        for command in verdict.commands:
            print(f"    {command}")
    for line in verdict.notes:
        print(f"  {line}")
    return ExitCode.OK
