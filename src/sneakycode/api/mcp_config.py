"""The MCP servers whose tools the model gets, outside a session: list them (started as a session would, then
stopped), add and remove them in the user's config or the workspace's `.sneakycode/config.toml`.

Edits go through tomlkit (config/toml_edit.py), which keeps the file's comments and layout; a new entry is
validated by the same settings model a session reads it with, before anything is written.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from sneakycode.config import PROJECT_CONFIG, LoadedSettings, user_config_path

__all__ = ["add_server", "config_file", "remove_server", "server_rows", "servers_report", "validate_server"]


def server_rows(loaded: LoadedSettings) -> list[Any]:
    """Every configured server with its status, tool count and origin: each is started, counted, stopped."""
    from sneakycode.extensions.mcp.manager import running_servers

    with tempfile.TemporaryDirectory(prefix="sneakycode-mcp-") as logs, running_servers(loaded, Path(logs)) as servers:
        return list(servers.rows())


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


def config_file(scope: str, loaded: LoadedSettings | None) -> Path:
    """The file a `user` or `project` server lives in (`loaded`: the workspace's settings, for `project`)."""
    if scope == "user":
        return user_config_path()
    assert loaded is not None and loaded.base is not None
    return loaded.base / PROJECT_CONFIG


def validate_server(entry: dict[str, Any]) -> None:
    """Check `entry` with the settings model a session reads servers with; raises when it is not a server."""
    from sneakycode.config import McpServerSettings

    McpServerSettings.model_validate(entry)


def add_server(path: Path, name: str, entry: dict[str, Any]) -> bool:
    """Write server `name` = `entry` into `path` (True when it replaced one); nothing is written when the
    entry is not a valid server."""
    import tomlkit

    from sneakycode.config.toml_edit import read_document, write_document

    validate_server(entry)
    document = read_document(path)
    mcp = document.setdefault("mcp", tomlkit.table())
    servers = mcp.setdefault("servers", tomlkit.table())
    replaced = name in servers
    table = tomlkit.table()
    for key, value in entry.items():
        table[key] = tomlkit.inline_table() if isinstance(value, dict) and not value else value
    servers[name] = table
    write_document(path, document)
    return replaced


def remove_server(path: Path, name: str) -> bool:
    """Remove server `name` from `path`; False when it was not there."""
    from sneakycode.config.toml_edit import read_document, write_document

    document = read_document(path)
    servers = document.get("mcp", {}).get("servers", {})
    if name not in servers:
        return False
    del servers[name]
    write_document(path, document)
    return True
