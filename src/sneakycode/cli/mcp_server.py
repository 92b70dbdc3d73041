"""`sneakycode mcp`: the same tools over the Model Context Protocol on stdio (official `mcp` SDK).

One tool session serves the whole connection, so the read gate and undo journal work as in the agent.
The MCP client is the one that asks its user, so `ask` decisions run; deny rules and plan mode still
refuse. `finish` and `update_tasks` belong to SneakyCode's own loop and are not offered.
"""

from __future__ import annotations

import argparse
from typing import Any

from sneakycode.errors import ConfigError

AGENT_ONLY_TOOLS = frozenset({"finish", "update_tasks"})


def run_mcp_command(args: argparse.Namespace) -> int:
    import anyio

    from sneakycode.cli.startup import config_error_exit, workspace_settings
    from sneakycode.tools.context import open_tool_context

    try:
        loaded = workspace_settings(args.workspace)
    except ConfigError as exc:
        return config_error_exit("mcp", exc)
    ctx = open_tool_context(loaded, kind="mcp")
    anyio.run(_serve, ctx)
    return 0


async def _serve(ctx: Any) -> None:
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from sneakycode import __version__
    from sneakycode.permissions.direct import run_direct_call
    from sneakycode.tools.registry import all_tools

    offered = [t for t in all_tools() if t.name not in AGENT_ONLY_TOOLS]

    async def list_tools(_request: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.parameters_schema())
                for t in offered
            ]
        )

    async def call_tool(_request: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        name = params.name
        arguments = dict(params.arguments or {})
        if name in AGENT_ONLY_TOOLS:
            name = f"{name} (not offered over MCP)"
        result = await anyio.to_thread.run_sync(run_direct_call, name, arguments, ctx)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.render())],
            structured_content=result.to_dict(),
            is_error=not result.success,
        )

    server: Server[Any] = Server(
        "sneakycode",
        version=__version__,
        instructions="SneakyCode's workspace tools: paths are relative to the workspace root.",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
