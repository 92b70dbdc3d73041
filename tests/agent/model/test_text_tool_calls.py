"""Tool calls written as text, and the assembly of streamed tool-call deltas in the shapes servers send."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sneakycode.agent.model.assembly import TurnBuilder
from sneakycode.agent.model.text_tool_calls import held_back_length, parse_text_tool_calls

KNOWN = {"read_file", "run_command"}


@pytest.mark.parametrize(
    ("content", "names", "rest"),
    [
        ('<tool_call>{"name": "read_file", "arguments": {"file_path": "a"}}</tool_call>', ["read_file"], ""),
        ('Looking.\n<tool_call>\n{"name": "read_file", "arguments": {}}\n</tool_call>', ["read_file"], "Looking."),
        ('<tool_call>{"name": "read_file", "arguments": {}}</tool_call><tool_call>{"name": "run_command", '
         '"parameters": {"command": "ls"}}</tool_call>', ["read_file", "run_command"], ""),
        ('<tool_call>{"name": "read_file", "arguments": {}}', ["read_file"], ""),
        ('{"name": "run_command", "arguments": {"command": "ls"}}', ["run_command"], ""),
        ('```json\n{"function": {"name": "read_file", "arguments": "{}"}}\n```', ["read_file"], ""),
        ('[{"name": "read_file", "arguments": {}}, {"name": "run_command", "arguments": {}}]',
         ["read_file", "run_command"], ""),
    ],
)
def test_tool_calls_in_text_are_found(content: str, names: list[str], rest: str) -> None:
    calls, remaining = parse_text_tool_calls(content, KNOWN)
    assert [c.name for c in calls] == names and remaining == rest
    assert all(isinstance(json.loads(c.arguments), dict) for c in calls)
    assert len({c.id for c in calls}) == len(calls)


@pytest.mark.parametrize(
    "content",
    [
        'The config looks like {"name": "read_file", "arguments": {}} in the docs.',
        '{"name": "deploy", "arguments": {}}',
        '{"name": "read_file", "arguments": {',
        "<tool_call>not json</tool_call>",
        '{"title": "no name key"}',
    ],
)
def test_text_that_is_not_a_tool_call_is_left_alone(content: str) -> None:
    assert parse_text_tool_calls(content, KNOWN) == ([], content)


@pytest.mark.parametrize(
    ("content", "held"),
    [("Plain answer.", 0), ("Reading <tool", 5), ("Reading <tool_call>{", 12), ('{"name"', 7), ("Use a < b", 0),
     ("[", 1), ("```js", 5), ("```python", 0)],
)
def test_only_what_may_become_a_tool_call_is_held_back(content: str, held: int) -> None:
    assert held_back_length(content) == held


def chunk(**delta: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta}]}


def test_deltas_without_index_are_grouped_by_id() -> None:
    builder = TurnBuilder()
    builder.add_chunk(chunk(tool_calls=[{"id": "a", "function": {"name": "read_file", "arguments": '{"file'}}]))
    builder.add_chunk(chunk(tool_calls=[{"function": {"arguments": '_path": "x"}'}}]))
    builder.add_chunk(chunk(tool_calls=[{"id": "b", "function": {"name": "run_command", "arguments": "{}"}}]))
    calls = builder.tool_calls()
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("a", "read_file", '{"file_path": "x"}'), ("b", "run_command", "{}")
    ]


def test_a_new_id_on_a_used_index_starts_a_new_call() -> None:
    builder = TurnBuilder()
    builder.add_chunk(chunk(tool_calls=[{"index": 0, "id": "a", "function": {"name": "read_file", "arguments": "{}"}}]))
    builder.add_chunk(chunk(tool_calls=[{"index": 0, "id": "b", "function": {"name": "read_file", "arguments": "{}"}}]))
    assert [c.id for c in builder.tool_calls()] == ["a", "b"]


def test_a_name_streamed_in_fragments_is_joined_and_a_missing_id_is_made_up() -> None:
    builder = TurnBuilder()
    builder.add_chunk(chunk(tool_calls=[{"index": 0, "function": {"name": "read_", "arguments": ""}}]))
    builder.add_chunk(chunk(tool_calls=[{"index": 0, "function": {"name": "file", "arguments": "{}"}}]))
    [call] = builder.tool_calls()
    assert call.name == "read_file" and call.id.startswith("call_")


def test_groq_usage_in_x_groq_is_read() -> None:
    builder = TurnBuilder()
    builder.add_chunk({"choices": [], "x_groq": {"usage": {"prompt_tokens": 12, "completion_tokens": 3}}})
    assert builder.usage is not None and (builder.usage.prompt_tokens, builder.usage.completion_tokens) == (12, 3)
