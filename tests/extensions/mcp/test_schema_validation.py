"""Issue 25, MCP tools run with arguments their schema forbids: every call to an MCP tool is checked against
the server's inputSchema before it is sent. Through the CLI's main (`-p`, the scripted model server) and a real
MCP server written here, which records every call it receives."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main
from tests.extensions.mcp.servers import user_servers
from tests.faces.cli.test_headless import ENV, call, finish

# A stdio MCP server on the official SDK: `count` needs an integer n; `loose` has a schema that is not valid
# JSON Schema. Each call's arguments are appended to the file named by argv[1] as they arrive.
SERVER = '''
import json
import sys

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

RECORD = sys.argv[1]
TOOLS = [
    types.Tool(name="count", description="Count to n.", input_schema={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    types.Tool(name="loose", description="Take anything.", input_schema={
        "type": "object", "properties": {"n": {"type": "no-such-type"}}}),
]


async def list_tools(_ctx, _params):
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(_ctx, params):
    with open(RECORD, "a") as record:
        record.write(json.dumps({"tool": params.name, "arguments": params.arguments or {}}) + "\\n")
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name} got {params.arguments}")])


async def main():
    server = Server("recorder", version="1.0", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


anyio.run(main)
'''


def recorder(tmp_path: Path) -> Path:
    """Configure the recording server as `rec`; returns the file its calls are written to."""
    script = tmp_path / "recorder_server.py"
    script.write_text(SERVER)
    record = tmp_path / "received.jsonl"
    user_servers({"rec": {"command": sys.executable, "args": [str(script), str(record)]}})
    return record


def received(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def run(ws: Path, steps: list[dict[str, Any]]) -> tuple[CliResult, list[dict[str, Any]]]:
    with ScriptedServer({"models": ["scripted-model"], "steps": steps}) as server:
        result = run_main("-p", "count please", "--base-url", server.base_url, "--model", "scripted-model",
                          "--workspace", str(ws), "--yes", env=ENV, timeout=120)
    return result, server.chat_requests


def tool_replies(requests: list[dict[str, Any]]) -> list[str]:
    """The tool message the model got back after each of its calls, in order."""
    return [request["messages"][-1]["content"] for request in requests[1:]]


def test_calls_the_schema_forbids_never_reach_the_server(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, issue 25: an MCP call missing its required integer, or giving it as a string, is
    invalid_arguments with the validator's message and is never sent; the valid call runs."""
    record = recorder(tmp_path)
    result, requests = run(ws, [call("mcp__rec__count"), call("mcp__rec__count", n="3"),
                                call("mcp__rec__count", n=3), finish("counted")])
    assert result.code == 0, result.stderr
    missing, as_string, valid = tool_replies(requests)
    assert missing.startswith("Error [invalid_arguments]: invalid arguments for mcp__rec__count")
    assert "- (arguments): 'n' is a required property" in missing
    assert as_string.startswith("Error [invalid_arguments]")
    assert "- n: '3' is not of type 'integer'" in as_string
    assert "count got {'n': 3}" in valid
    assert received(record) == [{"tool": "count", "arguments": {"n": 3}}]


def test_a_text_call_never_reaches_the_server_without_its_required_argument(ws: Path, tmp_path: Path) -> None:
    """Issue 25: `<function=NAME>{"n": 3}</function>` written as text once reached the server as `{}`. The text
    parser now reads the JSON body, and the server gets exactly what the model wrote; a body without n would be
    refused here by the schema check (the test above), never sent."""
    record = recorder(tmp_path)
    result, _requests = run(ws, [{"content": '<function=mcp__rec__count>{"n": 3}</function>'}, finish("done")])
    assert result.code == 0, result.stderr
    assert received(record) == [{"tool": "count", "arguments": {"n": 3}}]


def test_a_tool_whose_schema_is_invalid_is_called_unchecked_and_the_user_is_told(ws: Path, tmp_path: Path) -> None:
    """A server's schema that is not JSON Schema checks nothing: the call goes to the server (which checks
    its own arguments) and the user is told at connect time, instead of every call failing."""
    record = recorder(tmp_path)
    result, requests = run(ws, [call("mcp__rec__loose", n="anything"), finish("done")])
    assert result.code == 0, result.stderr
    assert "the input schema of its tool loose is not valid JSON Schema" in result.stderr
    assert "calls to mcp__rec__loose are sent without checking their arguments here" in result.stderr
    assert received(record) == [{"tool": "loose", "arguments": {"n": "anything"}}]
    assert "loose got {'n': 'anything'}" in tool_replies(requests)[0]
