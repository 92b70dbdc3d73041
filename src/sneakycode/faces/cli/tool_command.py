"""`sneakycode tool NAME 'JSON' [NAME 'JSON' ...]`: run tools exactly as the model would, in one session.

Prints the model-facing rendering of each result (or one JSON object per line with --json). Exit 0 when
every call succeeded, 1 when any failed, 2 on a usage error. Imports only the tool layer, so it starts fast.
The person typing the call has approved it, so `ask` counts as approved; a deny rule still refuses it
(permission_denied, with the rule that refused it).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.text import loggable

if TYPE_CHECKING:
    from sneakycode.api.tool_calls import ToolCalls


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "Run tools exactly as the model would, in one session, and print what it would see."
    parser.add_argument("calls", nargs="*", metavar="NAME 'JSON-ARGS'", help="tool name and JSON arguments")
    parser.add_argument("--json", action="store_true", help="print one structured result per line")
    parser.add_argument("--list", action="store_true", help="list the tools with their tiers")


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.options import Options
    from sneakycode.api.tool_calls import ToolCalls, tool_listing
    from sneakycode.faces.shared.startup import config_error_exit, notify_untrusted, workspace_option

    if args.list:
        # Regression (issue 37): `code` was left out; it is offered to the model only where a language
        # server runs, and runs here like any other.
        for found in tool_listing():
            print(f"{found.name}\t{found.tier}" + ("\tonly where a language server runs" if found.conditional else ""))
        return ExitCode.OK
    calls: list[str] = args.calls
    if not calls or len(calls) % 2:
        usage = "usage: sneakycode tool NAME 'JSON-ARGS' [NAME 'JSON-ARGS' ...] [--workspace DIR] [--json]"
        print(usage, file=sys.stderr)
        return ExitCode.USAGE
    try:
        tools = ToolCalls(Options(workspace=workspace_option(args.workspace)), kind="tool", one_shot=True)
        notify_untrusted(tools.loaded)
    except ConfigError as exc:
        return config_error_exit("tool", exc)
    try:
        return _run_calls(tools, calls, args.json)
    finally:
        tools.close()  # a job started by one of the calls lives only as long as this command



def _run_calls(tools: ToolCalls, calls: list[str], as_json: bool) -> int:
    status = ExitCode.OK
    for index in range(0, len(calls), 2):
        name, raw = calls[index], calls[index + 1]
        result = tools.run(name, raw)
        if not result.success:
            status = ExitCode.FAILURE
        if as_json:
            print(json.dumps({"tool": name, **result.to_dict()}, ensure_ascii=False))
        else:
            if len(calls) > 2:
                print(f"=== {name}")
            print(loggable(result.render()))
    return status
