"""`sneakycode mcp serve` (and `sneakycode mcp`): the same tools over the Model Context Protocol on stdio
(official `mcp` SDK).

One tool session serves the whole connection, so the read gate and undo journal work as in the agent.
The MCP client is the one that asks its user, so `ask` decisions run; deny rules and plan mode still
refuse. Tools of SneakyCode's own loop (finish, the task list: their `mcp` facet is off) are not offered.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sneakycode.api.errors import ConfigError

if TYPE_CHECKING:
    from sneakycode.api.tool_calls import OfferedTool, ToolCalls


def run_mcp_server(args: argparse.Namespace) -> int:
    import anyio

    from sneakycode.api.options import Options
    from sneakycode.api.tool_calls import ToolCalls
    from sneakycode.faces.shared.startup import config_error_exit, notify_untrusted, workspace_option

    try:
        tools = ToolCalls(Options(workspace=workspace_option(args.workspace)), kind="mcp")
        notify_untrusted(tools.loaded)
        offered = tools.served()
    except ConfigError as exc:
        return config_error_exit("mcp", exc)
    try:
        anyio.run(_serve, tools, offered)
    finally:
        tools.close()  # the client went away: the jobs it started go too
    return 0


async def _serve(tools: ToolCalls, offered: list[OfferedTool]) -> None:
    import anyio
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server

    from sneakycode.version import __version__

    names = {t.name for t in offered}

    async def list_tools(_request: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[types.Tool(name=t.name, description=t.description, input_schema=t.schema) for t in offered]
        )

    async def call_tool(_request: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        if params.name in names:
            result = await anyio.to_thread.run_sync(tools.run, params.name, arguments)
        else:
            result = tools.unknown(params.name, sorted(names))
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
