"""`sneakycode mcp [serve|list|add|remove]`: serve SneakyCode's tools, or manage the servers it uses.

`list` starts every configured server (as a session would) to count its tools, then stops them. `add` and
`remove` edit the user's config or the workspace's `.sneakycode/config.toml`, keeping the file's comments and
layout (api/mcp_config.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sneakycode.api.errors import ConfigError
from sneakycode.api.mcp_config import (
    add_server,
    config_file,
    remove_server,
    server_rows,
    servers_report,
    validate_server,
)
from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.faces.shared.flags import add_workspace_flag
from sneakycode.faces.shared.startup import config_error_exit, workspace_settings

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Serve the tools over the Model Context Protocol on stdio (`serve`, the default), or manage the MCP "
        "servers whose tools the model gets."
    )
    sub = parser.add_subparsers(dest="action")
    add_workspace_flag(sub.add_parser("serve", help="serve the tools on stdio (what `sneakycode mcp` does)"),
                       nested=True)
    add_workspace_flag(sub.add_parser("list", help="the configured servers: status, tool count, where configured"),
                       nested=True)
    add = sub.add_parser("add", help="add a server: NAME -- COMMAND ARGS..., or NAME --url URL",
                         usage="sneakycode mcp add NAME [options] (-- COMMAND ARGS... | --url URL)")
    add.add_argument("server", metavar="NAME")
    add.add_argument("--url", help="a remote server's endpoint (streamable HTTP; SSE when --transport sse)")
    add.add_argument("--transport", choices=("stdio", "http", "sse"))
    add.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="a variable for the server")
    add.add_argument("--header", action="append", default=[], metavar="KEY=VALUE", help="an HTTP header")
    add.add_argument("--scope", choices=("user", "project"), default="user",
                     help="user: your config (default); project: the workspace's .sneakycode/config.toml")
    add_workspace_flag(add, nested=True)
    remove = sub.add_parser("remove", help="remove a server from the user or project config")
    remove.add_argument("server", metavar="NAME")
    remove.add_argument("--scope", choices=("user", "project"), help="where to remove it from (default: both)")
    add_workspace_flag(remove, nested=True)


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "action", None)
    if action in (None, "serve"):
        from sneakycode.faces.cli.mcp_server import run_mcp_server

        return run_mcp_server(args)
    try:
        if action == "list":
            return _list(args)
        if action == "add":
            return _add(args)
        return _remove(args)
    except ConfigError as exc:
        return config_error_exit("mcp", exc)


def _list(args: argparse.Namespace) -> int:
    loaded = workspace_settings(args.workspace, notify=False)
    print(servers_report(server_rows(loaded)))
    return ExitCode.OK


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} {value!r} is not KEY=VALUE")
        pairs[key] = rest
    return pairs


def _config_file(scope: str, args: argparse.Namespace) -> Path:
    return config_file(scope, workspace_settings(args.workspace, notify=False) if scope == "project" else None)


def _add(args: argparse.Namespace) -> int:
    if bool(args.url) == bool(args.command_line):
        raise ConfigError("give either -- COMMAND ARGS... (a stdio server) or --url URL (a remote one)")
    entry: dict[str, Any] = {}
    if args.command_line:
        entry["command"], entry["args"] = args.command_line[0], args.command_line[1:]
        if args.env:
            entry["env"] = _pairs(args.env, "--env")
    else:
        entry["url"] = args.url
        if args.header:
            entry["headers"] = _pairs(args.header, "--header")
    if args.transport:
        entry["transport"] = args.transport
    validate_server(entry)  # before the workspace's settings are read for a project server
    path = _config_file(args.scope, args)
    replaced = add_server(path, args.server, entry)
    print(f"{'Replaced' if replaced else 'Added'} MCP server {args.server} in {path}.")
    if args.scope == "project":
        print("It comes with the repository, so it starts once the workspace is trusted (`sneakycode trust`).")
    return ExitCode.OK


def _remove(args: argparse.Namespace) -> int:
    scopes = [args.scope] if args.scope else ["user", "project"]
    removed = []
    for scope in scopes:
        path = _config_file(scope, args)
        if remove_server(path, args.server):
            removed.append(str(path))
    if not removed:
        print(f"sneakycode mcp: no MCP server {args.server!r} in the {' or '.join(scopes)} config", file=sys.stderr)
        return ExitCode.FAILURE
    print(f"Removed MCP server {args.server} from {' and '.join(removed)}.")
    return ExitCode.OK
