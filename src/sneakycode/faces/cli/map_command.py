"""`sneakycode map [PATH] [--tokens N]`: print the repository map the model gets with a first request.

PATH is a folder (the map of the files under it) or a file (the whole map, focused on that file); the deny
rules and ignore files apply as they do for the model (api/repo_map.py).
"""

from __future__ import annotations

import argparse
import sys

from sneakycode.api.errors import ConfigError
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings
from sneakycode.faces.shared.text import loggable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Print the repository map: the most-used definitions of the source files, ranked, within a token budget "
        "(what the model gets with the first request; see docs/code-intelligence.md)."
    )
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a folder to map, or a file to focus on")
    parser.add_argument("--tokens", type=int, metavar="N", help="the budget in tokens (default: the model's)")


def run(args: argparse.Namespace) -> int:
    from sneakycode.api.repo_map import MapRefused, repository_map

    try:
        loaded = workspace_settings(args.workspace)
        if args.tokens is not None and args.tokens < 1:
            raise ConfigError(f"--tokens must be a positive number, not {args.tokens}")
        built = repository_map(loaded, args.path, args.tokens)
    except ConfigError as exc:
        return config_error_exit("map", exc)
    except MapRefused as exc:
        print(f"sneakycode map: {loggable(str(exc))}", file=sys.stderr)
        return ExitCode.FAILURE
    if built.text:
        print(loggable(built.text))  # the repository's names and lines: never a workflow command
    print(f"{built.definitions:,} definitions from {built.files:,} source files, about {built.tokens:,} "
          f"of {built.budget:,} tokens.", file=sys.stderr)
    if built.capped:
        print(f"sneakycode map: more than {built.capped:,} source files; the rest are left out of the map "
              "(map a folder: `sneakycode map PATH`)", file=sys.stderr)
    return ExitCode.OK
