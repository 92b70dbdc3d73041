"""`sneakycode map [PATH] [--tokens N]`: print the repository map the model gets with a first request.

PATH is a folder (the map of the files under it) or a file (the whole map, focused on that file); the deny
rules and ignore files apply as they do for the model. The tag index is kept in this command's session
folder, started from the newest one another session of the workspace left (so a second run is warm).
"""

from __future__ import annotations

import argparse
import sys

from sneakycode.config.repo_map import DEFAULT_CEILING, DEFAULT_SHARE
from sneakycode.errors import ConfigError, ToolError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings
from sneakycode.faces.cli.text import loggable
from sneakycode.permissions.rules import hidden_paths
from sneakycode.tools.codemap.repomap import Focus, build_map
from sneakycode.tools.context import open_tool_context

DEFAULT_WINDOW = 32_768  # agent/loop.py's, when no context_window is configured


def add_map_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Print the repository map: the most-used definitions of the source files, ranked, within a token budget "
        "(what the model gets with the first request; see docs/code-intelligence.md)."
    )
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a folder to map, or a file to focus on")
    parser.add_argument("--tokens", type=int, metavar="N", help="the budget in tokens (default: the model's)")


def run_map_command(args: argparse.Namespace) -> int:
    try:
        loaded = workspace_settings(args.workspace)
        if args.tokens is not None and args.tokens < 1:
            raise ConfigError(f"--tokens must be a positive number, not {args.tokens}")
        ctx = open_tool_context(loaded, kind="map")
    except ConfigError as exc:
        return config_error_exit("map", exc)
    settings = loaded.settings
    window = settings.context_window or DEFAULT_WINDOW
    tokens = args.tokens or settings.repo_map.max_tokens or min(window // DEFAULT_SHARE, DEFAULT_CEILING)
    hidden = hidden_paths(loaded)
    try:
        target = ctx.workspace.resolve(args.path, must_exist=True)
    except ToolError as exc:
        print(f"sneakycode map: {loggable(exc.error)}", file=sys.stderr)
        return ExitCode.FAILURE
    shown = ctx.workspace.display(target)
    rule = hidden(shown) if shown != "." else None
    if rule is not None:
        print(f"sneakycode map: {shown!r} is kept from the model by the deny rule `{rule}`", file=sys.stderr)
        return ExitCode.FAILURE
    is_file = target.is_file()
    repo_map = build_map(
        ctx.workspace.root,
        max_tokens=tokens,
        hidden=hidden,
        max_file_bytes=min(settings.repo_map.max_file_bytes, settings.max_file_size_bytes),
        cache_dir=ctx.session_dir,
        focus=Focus(frozenset([shown]) if is_file else frozenset()),
        under="" if is_file else shown,
    )
    if repo_map.text:
        print(loggable(repo_map.text))  # the repository's names and lines: never a workflow command
    print(
        f"{repo_map.definitions:,} definitions from {repo_map.files:,} source files, about {repo_map.tokens:,} "
        f"of {tokens:,} tokens.",
        file=sys.stderr,
    )
    if repo_map.refresh.capped:
        print(f"sneakycode map: more than {repo_map.refresh.capped:,} source files; the rest are left out of the map "
              "(map a folder: `sneakycode map PATH`)", file=sys.stderr)
    return ExitCode.OK
