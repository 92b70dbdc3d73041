"""MCP prompts as slash commands, against the SDK-built fixture server: listed with their arguments, words
mapped to the declared arguments, the server's messages sent as the request, mistakes refused before
anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.errors import ConfigError
from sneakycode.extensions.invocation import Extensions, invoke
from sneakycode.extensions.mcp.manager import McpServers
from sneakycode.permissions.gate import Gate
from tests.extensions.mcp.servers import fixture_server
from tests.extensions.mcp.test_client import started


@pytest.fixture
def fx(ws: Path) -> Iterator[tuple[Extensions, Gate, McpServers]]:
    running, ctx = started(ws, {"fx": fixture_server()})
    try:
        yield Extensions(prompts=tuple(running.prompts)), Gate(ctx), running
    finally:
        running.close()


def request(fx: tuple[Extensions, Gate, McpServers], line: str) -> str:
    extensions, gate, _ = fx
    return invoke(line, extensions, gate, trusted=False).prompt


def test_prompts_are_listed_with_their_arguments(fx: tuple[Extensions, Gate, McpServers]) -> None:
    entries = dict(fx[0].slash_entries())
    assert entries["mcp__fx__greet"] == "<who> (MCP server fx) Greet someone."
    assert entries["mcp__fx__review"] == "<file> [focus] (MCP server fx) Review a file."


def test_positional_words_fill_the_arguments_in_order_and_the_last_takes_the_rest(
    fx: tuple[Extensions, Gate, McpServers],
) -> None:
    text = request(fx, "/mcp__fx__review app.py the error handling")
    assert text == ("Review app.py, looking for the error handling.\n\n"
                    "[resource file:///checklist.md]\n1. names 2. tests")
    assert request(fx, "/mcp__fx__review app.py").startswith("Review app.py, looking for anything.")
    assert request(fx, '/mcp__fx__greet "Ada Lovelace"') == "Please greet Ada Lovelace warmly."


def test_name_value_sets_an_argument_by_name(fx: tuple[Extensions, Gate, McpServers]) -> None:
    assert request(fx, "/mcp__fx__review focus=naming lib.py").startswith("Review lib.py, looking for naming.")
    # `a=b` that names no argument is an ordinary word
    assert request(fx, "/mcp__fx__greet x=1") == "Please greet x=1 warmly."


def test_a_missing_argument_is_refused_with_the_usage(fx: tuple[Extensions, Gate, McpServers]) -> None:
    with pytest.raises(ConfigError, match=r"/mcp__fx__review needs file \(usage: /mcp__fx__review <file> \[focus\]\)"):
        request(fx, "/mcp__fx__review")
    with pytest.raises(ConfigError, match="needs file"):
        request(fx, "/mcp__fx__review focus=naming")


def test_a_stopped_server_is_refused_by_name(fx: tuple[Extensions, Gate, McpServers]) -> None:
    running = fx[2]
    running.close()
    with pytest.raises(ConfigError, match="/mcp__fx__greet: MCP server fx cannot give the prompt"):
        request(fx, "/mcp__fx__greet Ada")
