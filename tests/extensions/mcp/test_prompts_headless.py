"""MCP prompts, resources and images end to end: `sneakycode -p` with the scripted model and the SDK-built
fixture server, asserting what the model server received."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main
from tests.extensions.mcp.servers import fixture_server, user_servers
from tests.faces.cli.test_headless import ENV, call, finish


def run(ws: Path, task: str, steps: list[dict[str, Any]]) -> tuple[CliResult, list[dict[str, Any]]]:
    with ScriptedServer({"models": ["scripted-model"], "steps": steps}) as server:
        result = run_main("-p", task, "--base-url", server.base_url, "--model", "scripted-model",
                          "--workspace", str(ws), "--yes", env=ENV, timeout=120)
    return result, server.chat_requests


def first_user_message(requests: list[dict[str, Any]]) -> Any:
    return next(m for m in requests[0]["messages"] if m["role"] == "user")["content"]


def image_parts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    parts = content if isinstance(content, list) else []
    return [part["image_url"]["url"] for part in parts if part["type"] == "image_url"]


def test_a_prompt_command_sends_the_servers_messages(ws: Path) -> None:
    user_servers({"fx": fixture_server()})
    result, requests = run(ws, "/mcp__fx__review file.py error handling", [finish("reviewed")])
    assert result.code == 0, result.stderr
    assert first_user_message(requests) == ("Review file.py, looking for error handling.\n\n"
                                            "[resource file:///checklist.md]\n1. names 2. tests")


def test_a_prompt_missing_its_argument_sends_nothing(ws: Path) -> None:
    user_servers({"fx": fixture_server()})
    result, requests = run(ws, "/mcp__fx__greet", [finish("never")])
    assert result.code == 2 and "/mcp__fx__greet needs who" in result.stderr
    assert requests == []


def test_a_resource_mention_attaches_the_resource(ws: Path) -> None:
    user_servers({"fx": fixture_server()})
    result, requests = run(ws, "What do @fx:file:///notes.txt and @gone:file:///x say?", [finish("Friday")])
    assert result.code == 0, result.stderr
    sent = first_user_message(requests)
    assert sent.startswith("What do @fx:file:///notes.txt and @gone:file:///x say?\n\n<resource server=\"fx\"")
    assert "the notes say: ship on Friday\n</resource>" in sent
    assert "@gone:file:///x was not attached: no MCP server gone is connected" in result.stderr


def test_images_from_resources_and_tool_results_reach_a_vision_model(ws: Path) -> None:
    user_servers({"fx": fixture_server()}, "supports_images = true\n")
    result, requests = run(ws, "Look at @fx:file:///pixel.png", [call("mcp__fx__picture"), finish("a pixel")])
    assert result.code == 0, result.stderr
    first = next(m for m in requests[0]["messages"] if m["role"] == "user")
    assert [url[:22] for url in image_parts(first)] == ["data:image/png;base64,"]
    after_call = requests[1]["messages"]
    tool, attached = after_call[-2], after_call[-1]
    assert tool["role"] == "tool" and "a one-pixel picture" in tool["content"]
    assert "attached below as an image" in tool["content"]
    assert attached["role"] == "user" and len(image_parts(attached)) == 1
