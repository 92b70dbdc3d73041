"""`sneakycode doctor`: check the endpoint and model layer by layer and print the findings (text, or --json for
CI). Exit 0 when no check failed, 1 when one did, 2 when the configuration names no usable endpoint, 130 on
Ctrl-C (every request in flight is closed first)."""

from __future__ import annotations

import argparse
import json
import sys

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import add_flags, add_model_flags, model_flags
from sneakycode.faces.shared.startup import config_error_exit, protect_key, workspace_option


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Does this model work here? Check the endpoint and model layer by layer (server, key, model, context "
        "window, streaming, usage, output cap, tool calls, reasoning, prompt caching, speed): each check's "
        "verdict, what it measured and, when it fails, the layer at fault and the fix. Exit 0 when no check "
        "fails, 1 when one does (see docs/models.md)."
    )
    add_model_flags(parser)
    parser.add_argument("--json", action="store_true", help="print the report as one JSON document (for CI)")
    parser.add_argument("--save", action="store_true",
                        help="write the settings that worked to your config, for this model")
    add_flags(parser, "--timeout", "--trust-project", help={
        "--timeout": "the most each request may take (default: request_timeout for the long prompt, 60 s for the "
                     "others)"})


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.options import Options
    from sneakycode.api.startup import wipe_arguments
    from sneakycode.doctor import run_doctor
    from sneakycode.doctor.render import render_text
    from sneakycode.doctor.save import save_settings

    wipe_arguments([args.api_key])  # /proc/PID/cmdline is readable by every process on the machine
    try:
        if args.timeout is not None and args.timeout <= 0:
            raise ConfigError("--timeout must be a positive number of seconds")
        options = Options(workspace=workspace_option(args.workspace), **model_flags(args),
                          trust_project=args.trust_project)
        report = run_doctor(options, timeout=args.timeout, on_settings=protect_key)
        if args.save and report.settings:
            report.saved_to = str(save_settings(report.model, report.settings))
    except ConfigError as exc:
        return config_error_exit("doctor", exc)
    except KeyboardInterrupt:
        print("sneakycode doctor: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    print(json.dumps(report.to_dict(), indent=2) if args.json else render_text(report))
    return ExitCode.FAILURE if report.failed else ExitCode.OK
