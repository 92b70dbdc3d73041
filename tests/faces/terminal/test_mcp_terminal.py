"""MCP prompts and resources in the interactive terminal: a server's prompt is in /help, completes with Tab
and runs as /mcp__SERVER__PROMPT; `@SERVER:URI` in a typed line attaches the resource."""

from __future__ import annotations

from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.extensions.mcp.servers import fixture_server, user_servers
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def test_prompts_are_listed_completed_and_run_and_resources_attached(ws: Path) -> None:
    user_servers({"fx": fixture_server()})
    steps = [call("finish", message="Greeted."), call("finish", message="Read the notes.")]
    with ScriptedServer({"steps": steps}) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/help")
        styled = r"(?:\x1b\[[0-9;]*m)*"  # bold names: NO_COLOR drops colours, not bold
        child.expect(rf"/mcp__fx__review{styled}\s+{styled}<file> \[focus\] \(MCP server fx\) Review a file\.")
        wait_for_prompt(child)
        child.send("/mcp__fx__gr\t")
        child.expect_exact("/mcp__fx__greet")
        child.sendline(" Ada")
        child.expect("Greeted.")
        wait_for_prompt(child)
        child.sendline("What do @fx:file:///notes.txt and @nope:file:///x say?")
        child.expect_exact("@nope:file:///x was not attached")
        child.expect("Read the notes.")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        greet, notes = server.chat_requests
    assert greet["messages"][1] == {"role": "user", "content": "Please greet Ada warmly."}
    sent = next(m["content"] for m in reversed(notes["messages"]) if m["role"] == "user")
    assert "the notes say: ship on Friday" in sent and sent.startswith("What do @fx:file:///notes.txt")
