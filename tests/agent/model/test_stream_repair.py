"""What servers break in a streamed reply, repaired where it is safe (issue 38), through the real openai SDK
client against the scripted server and a real run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import sneakycode
from sneakycode.agent.model.assembly import TurnBuilder
from sneakycode.testing.server import ScriptedServer

LONG = "def add(a, b):\n    return a - b\n" * 3


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_argument_fragments_under_new_nameless_indexes_are_joined_and_the_tool_runs_whole(ws: Path) -> None:
    """A server that streams the rest of a call's arguments under a new index with no id and no name: today only
    the first fragment survived and the model got invalid_tool_call forever; now the write runs whole."""
    script = {"steps": [_call("write_file", file_path="calc.py", content=LONG), _call("finish", message="Written.")],
              "chunk_size": 5, "quirks": {"orphan_argument_fragments": True}}
    with ScriptedServer(script) as server:
        result = sneakycode.run("write calc.py", workspace=ws, base_url=server.base_url, model="m", api_key="k",
                                isolated=True, mode="auto-edit")
        second = server.chat_requests[1]
    assert result.status == "finished", result.message
    assert (ws / "calc.py").read_text() == LONG
    tool_results = [m["content"] for m in second["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 1 and "invalid_tool_call" not in tool_results[0]


def _stream(*deltas: dict[str, Any]) -> TurnBuilder:
    builder = TurnBuilder()
    for delta in deltas:
        builder.add_chunk({"choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
    return builder


def test_a_fragment_is_joined_only_while_the_previous_arguments_are_incomplete() -> None:
    """Only the safe case is repaired: a nameless fragment after a call whose arguments are already whole JSON
    keeps today's behaviour (its own slot, dropped for having no name), and a named call stays a call."""
    head = {"index": 0, "id": "a", "function": {"name": "read_file", "arguments": '{"file_path": '}}
    joined = _stream(head, {"index": 1, "function": {"arguments": '"x.py"}'}})
    assert [(c.name, json.loads(c.arguments)) for c in joined.tool_calls()] == [("read_file", {"file_path": "x.py"})]
    assert joined.joined_fragments == 1
    bare = {"index": 0, "id": "a", "function": {"name": "read_file", "arguments": ""}}
    every = _stream(bare, {"index": 1, "function": {"arguments": '{"file_path": '}},
                    {"index": 2, "function": {"arguments": '"x.py"}'}})
    assert [(c.name, json.loads(c.arguments)) for c in every.tool_calls()] == [("read_file", {"file_path": "x.py"})]
    whole = {"index": 0, "id": "a", "function": {"name": "read_file", "arguments": '{"file_path": "x.py"}'}}
    kept = _stream(whole, {"index": 1, "function": {"arguments": '{"more": 1}'}})
    assert [c.arguments for c in kept.tool_calls()] == ['{"file_path": "x.py"}'] and kept.joined_fragments == 0
    second = {"index": 1, "id": "b", "function": {"name": "list_dir", "arguments": "{}"}}
    two = _stream(head, second)
    assert [c.name for c in two.tool_calls()] == ["read_file", "list_dir"] and two.joined_fragments == 0
