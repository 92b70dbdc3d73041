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

from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.text import loggable

if TYPE_CHECKING:
    from sneakycode.permissions.gate import Gate


def run_tool_command(args: argparse.Namespace) -> int:
    from sneakycode.api.options import Options
    from sneakycode.api.tool_host import open_tools
    from sneakycode.faces.cli.startup import config_error_exit, notify_untrusted, workspace_option
    from sneakycode.tools.registry import all_tools, conditional_tools

    if args.list:
        for found in all_tools():
            print(f"{found.name}\t{found.tier.value}")
        # Regression (issue 37): `code` was left out; it is offered to the model only where a language
        # server runs, and runs here like any other.
        for found in conditional_tools():
            print(f"{found.name}\t{found.tier.value}\tonly where a language server runs")
        return ExitCode.OK
    calls: list[str] = args.calls
    if not calls or len(calls) % 2:
        usage = "usage: sneakycode tool NAME 'JSON-ARGS' [NAME 'JSON-ARGS' ...] [--workspace DIR] [--json]"
        print(usage, file=sys.stderr)
        return ExitCode.USAGE
    try:
        gate = open_tools(Options(workspace=workspace_option(args.workspace)), kind="tool", one_shot=True)
        notify_untrusted(gate.ctx.loaded)
    except ConfigError as exc:
        return config_error_exit("tool", exc)
    try:
        return _run_calls(gate, calls, args.json)
    finally:
        gate.ctx.close()  # a job started by one of the calls lives only as long as this command


def _run_calls(gate: Gate, calls: list[str], as_json: bool) -> int:
    status = ExitCode.OK
    for index in range(0, len(calls), 2):
        name, raw = calls[index], calls[index + 1]
        result = gate.run_direct(name, raw)
        if not result.success:
            status = ExitCode.FAILURE
        if as_json:
            print(json.dumps({"tool": name, **result.to_dict()}, ensure_ascii=False))
        else:
            if len(calls) > 2:
                print(f"=== {name}")
            print(loggable(result.render()))
    return status
