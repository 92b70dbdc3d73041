"""The editor's MCP servers (`mcpServers` of session/new, load and resume) as `[mcp.servers.NAME]` tables: the
user chose them in the editor, so they are started like servers they configured themselves."""

from __future__ import annotations

from typing import Any

from acp import RequestError, schema


def mcp_servers_of(servers: list[Any] | None) -> dict[str, dict[str, Any]]:
    """The editor's MCP servers as `[mcp.servers.NAME]` tables (stdio, streamable HTTP or SSE)."""
    tables: dict[str, dict[str, Any]] = {}
    for server in servers or []:
        if isinstance(server, schema.McpServerStdio):
            tables[server.name] = {"command": server.command, "args": list(server.args),
                                   "env": {pair.name: pair.value for pair in server.env}, "transport": "stdio"}
        elif isinstance(server, (schema.HttpMcpServer, schema.SseMcpServer)):
            tables[server.name] = {"url": server.url, "transport": server.type,
                                   "headers": {pair.name: pair.value for pair in server.headers}}
        else:
            raise RequestError.invalid_params({"mcpServers": f"{type(server).__name__} servers are not supported"})
    return tables


