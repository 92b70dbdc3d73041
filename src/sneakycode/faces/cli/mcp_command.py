"""`sneakycode mcp [serve|list|add|remove]`: serve SneakyCode's tools, or manage the servers it uses.

`list` starts every configured server (as a session would) to count its tools, then stops them. `add` and
`remove` edit the user's config or the workspace's `.sneakycode/config.toml` with tomlkit (config/toml_edit.py),
which keeps the file's comments and layout.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from sneakycode.config import PROJECT_CONFIG, user_config_path
from sneakycode.config.toml_edit import read_document, write_document
from sneakycode.errors import ConfigError
from sneakycode.faces.cli.exit_codes import ExitCode
from sneakycode.faces.cli.startup import config_error_exit, workspace_settings


def run_mcp_command(args: argparse.Namespace) -> int:
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
    from sneakycode.extensions.mcp.manager import running_servers

    loaded = workspace_settings(args.workspace, notify=False)
    with tempfile.TemporaryDirectory(prefix="sneakycode-mcp-") as logs, running_servers(loaded, Path(logs)) as servers:
        print(servers_report(servers.rows()))
    return ExitCode.OK


def servers_report(rows: list[Any]) -> str:
    """The table `mcp list` and `/mcp` show: one server a line, what went wrong indented below it."""
    if not rows:
        return "No MCP servers are configured. Add one with `sneakycode mcp add NAME -- COMMAND ARGS...`."
    lines = []
    width = max(len(row.name) for row in rows)
    for row in rows:
        tools = f"{row.tools} tools" if row.tools is not None else "-"
        lines.append(f"{row.name.ljust(width)}  {row.status:<13} {tools:<10} {row.target}")
        lines.append(f"{' ' * width}  from {row.origin}")
        if row.detail:
            lines.append(f"{' ' * width}  {row.detail}")
    return "\n".join(lines)


def _config_path(scope: str, args: argparse.Namespace) -> Path:
    if scope == "user":
        return user_config_path()
    loaded = workspace_settings(args.workspace, notify=False)
    assert loaded.base is not None
    return loaded.base / PROJECT_CONFIG


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key:
            raise ConfigError(f"{flag} {value!r} is not KEY=VALUE")
        pairs[key] = rest
    return pairs


def _add(args: argparse.Namespace) -> int:
    import tomlkit

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
    from sneakycode.config import McpServerSettings

    McpServerSettings.model_validate(entry)
    path = _config_path(args.scope, args)
    document = read_document(path)
    mcp = document.setdefault("mcp", tomlkit.table())
    servers = mcp.setdefault("servers", tomlkit.table())
    replaced = args.server in servers
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = tomlkit.inline_table() if isinstance(value, dict) and not value else value
    servers[args.server] = table
    write_document(path, document)
    print(f"{'Replaced' if replaced else 'Added'} MCP server {args.server} in {path}.")
    if args.scope == "project":
        print("It comes with the repository, so it starts once the workspace is trusted (`sneakycode trust`).")
    return ExitCode.OK


def _remove(args: argparse.Namespace) -> int:
    scopes = [args.scope] if args.scope else ["user", "project"]
    removed = []
    for scope in scopes:
        path = _config_path(scope, args)
        document = read_document(path)
        servers = document.get("mcp", {}).get("servers", {})
        if args.server in servers:
            del servers[args.server]
            write_document(path, document)
            removed.append(str(path))
    if not removed:
        print(f"sneakycode mcp: no MCP server {args.server!r} in the {' or '.join(scopes)} config", file=sys.stderr)
        return ExitCode.FAILURE
    print(f"Removed MCP server {args.server} from {' and '.join(removed)}.")
    return ExitCode.OK
