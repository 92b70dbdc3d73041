"""`sneakycode doctor`: check the endpoint and model layer by layer and print the findings (text, or --json for
CI). Exit 0 when no check failed, 1 when one did, 2 when the configuration names no usable endpoint, 130 on
Ctrl-C (every request in flight is closed first)."""

from __future__ import annotations

import argparse
import json
import sys

from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, protect_key, workspace_option


def add_doctor_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Does this model work here? Check the endpoint and model layer by layer (server, key, model, context "
        "window, streaming, usage, output cap, tool calls, reasoning, prompt caching, speed): each check's "
        "verdict, what it measured and, when it fails, the layer at fault and the fix. Exit 0 when no check "
        "fails, 1 when one does (see docs/models.md)."
    )
    parser.add_argument("--provider", help="groq, openai, openrouter, ollama, lmstudio, vllm, llamacpp, custom")
    parser.add_argument("--model")
    parser.add_argument("--base-url")
    parser.add_argument("--api-key")
    parser.add_argument("--json", action="store_true", help="print the report as one JSON document (for CI)")
    parser.add_argument("--save", action="store_true",
                        help="write the settings that worked to your config, for this model")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="the most each request may take (default: request_timeout for the long prompt, 60 s "
                        "for the others)")
    parser.add_argument("--trust-project", action="store_true",
                        help="apply .sneakycode/config.toml in full for this run")


def run_doctor_command(args: argparse.Namespace) -> int:
    from sneakycode.api.options import Options
    from sneakycode.doctor import run_doctor
    from sneakycode.doctor.render import render_text
    from sneakycode.doctor.save import save_settings

    try:
        if args.timeout is not None and args.timeout <= 0:
            raise ConfigError("--timeout must be a positive number of seconds")
        options = Options(workspace=workspace_option(args.workspace), provider=args.provider, model=args.model,
                          base_url=args.base_url, api_key=args.api_key, trust_project=args.trust_project)
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
