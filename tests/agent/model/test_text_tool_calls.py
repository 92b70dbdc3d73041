"""Tool calls written as text in every dialect (a corpus of real-shaped replies, near misses included), and
the assembly of streamed tool-call deltas in the shapes servers send."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sneakycode.agent.model.assembly import TurnBuilder
from sneakycode.agent.model.text_tool_calls import held_back_length, parse_text_tool_calls

STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "read_file": {"type": "object", "properties": {"path": STR, "start_line": INT, "end_line": INT}},
    "run_command": {"type": "object", "properties": {"command": STR, "timeout": INT, "background": BOOL}},
    "write_file": {"type": "object", "properties": {"path": STR, "content": STR}},
    "grep_files": {"type": "object", "properties": {"pattern": STR, "paths": {"type": "array"},
                                                    "options": {"type": "object"}}},
}
BAD = "INVALID"  # the block is a call that cannot run: the model gets `invalid_tool_call` back
READ = {"path": "src/app.py"}
LS = {"command": "ls -la"}
DS_BEGIN, DS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL, DS_CALL_END, DS_SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"


def ds(name: str, args: str) -> str:
    return f"{DS_CALL}function{DS_SEP}{name}\n```json\n{args}\n```{DS_CALL_END}"


# (reply, [(tool, arguments) or (tool, BAD)], text left for the user); [] means nothing runs.
CORPUS: list[tuple[str, list[tuple[str, Any]], str]] = [
    # Hermes / Qwen2.5
    ('<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>',
     [("read_file", READ)], ""),
    ('Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>',
     [("read_file", READ)], "Let me look."),
    ('<tool_call>{"name": "read_file", "arguments": {"path": "src/app.py"}}</tool_call>\n<tool_call>{"name": '
     '"run_command", "arguments": {"command": "ls -la"}}</tool_call>', [("read_file", READ), ("run_command", LS)], ""),
    ('<tool_call>{"name": "run_command", "arguments": {"command": "ls -la"}}', [("run_command", LS)], ""),
    ('<tool_call>{"name": "run_command", "arguments": "{\\"command\\": \\"ls -la\\"}"}</tool_call>',
     [("run_command", LS)], ""),
    ('<tool_call>\n{"name": "run_command", "arguments": {"command": "ls -la"}}\n</tool_call><|im_end|>',
     [("run_command", LS)], ""),
    ('<tool_call>{"name": "deploy_prod", "arguments": {}}</tool_call>', [("invalid_tool_call", BAD)], ""),
    ('<tool_call>{"name": "read_file", "arguments": {"path": "a.py"</tool_call>', [("invalid_tool_call", BAD)], ""),
    ("<tool_call>I should read the file first.</tool_call>", [("invalid_tool_call", BAD)], ""),
    ('<tool_call>{"arguments": {"path": "a.py"}}</tool_call>', [("invalid_tool_call", BAD)], ""),
    ('<tool_call>{"name": "read_file", "arguments": "{path: a.py}"}</tool_call>', [("read_file", BAD)], ""),
    # Qwen3-Coder XML, values typed by the schema
    ("<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n<parameter=start_line>\n10"
     "\n</parameter>\n</function>\n</tool_call>", [("read_file", {"path": "src/app.py", "start_line": 10})], ""),
    ("<tool_call>\n<function=run_command>\n<parameter=command>\nls -la\n</parameter>\n<parameter=background>\n"
     "True\n</parameter>\n</function>\n</tool_call>", [("run_command", {"command": "ls -la", "background": True})], ""),
    ("<tool_call>\n<function=write_file>\n<parameter=path>\nn.txt\n</parameter>\n<parameter=content>\n42\n"
     "</parameter>\n</function>\n</tool_call>", [("write_file", {"path": "n.txt", "content": "42"})], ""),
    ("<tool_call>\n<function=write_file>\n<parameter=path>\nm.py\n</parameter>\n<parameter=content>\ndef f():\n"
     "    return 1\n\n</parameter>\n</function>\n</tool_call>",
     [("write_file", {"path": "m.py", "content": "def f():\n    return 1\n"})], ""),
    ('<tool_call>\n<function=grep_files>\n<parameter=pattern>\nTODO\n</parameter>\n<parameter=paths>\n["src", '
     '"tests"]\n</parameter>\n<parameter=options>\n{"ignore_case": true}\n</parameter>\n</function>\n</tool_call>',
     [("grep_files", {"pattern": "TODO", "paths": ["src", "tests"], "options": {"ignore_case": True}})], ""),
    ("I'll check.\n<function=read_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n</function>",
     [("read_file", READ)], "I'll check."),
    ("<tool_call>\n<function=read_file>\n<parameter=path>\na.py\n</parameter>\n<parameter=start_line>\nten\n"
     # Kept as written, as vLLM and SGLang keep it (issue 38): the tool's schema check refuses it, coded.
     "</parameter>\n</function>\n</tool_call>", [("read_file", {"path": "a.py", "start_line": "ten"})], ""),
    ("<tool_call>\n<function=grep_files>\n<parameter=pattern>\nx\n</parameter>\n<parameter=paths>\n[src\n"
     "</parameter>\n</function>\n</tool_call>", [("grep_files", BAD)], ""),
    ("<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>",
     [("invalid_tool_call", BAD)], ""),
    # Llama 3.x
    ('<|python_tag|>{"name": "read_file", "parameters": {"path": "src/app.py"}}<|eom_id|>', [("read_file", READ)], ""),
    ('<|python_tag|>{"name": "read_file", "parameters": {"path": "src/app.py"}}; {"name": "run_command", '
     '"parameters": {"command": "ls -la"}}', [("read_file", READ), ("run_command", LS)], ""),
    ('{"name": "run_command", "parameters": {"command": "ls -la"}}', [("run_command", LS)], ""),
    ('{"type": "function", "name": "read_file", "parameters": {"path": "src/app.py"}}<|eot_id|>',
     [("read_file", READ)], ""),
    ("<|python_tag|>print(open('a.py').read())", [("invalid_tool_call", BAD)], ""),
    ('<|python_tag|>{"name": "read_file", "parameters": {"path": ', [("invalid_tool_call", BAD)], ""),
    # Mistral
    ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "src/app.py"}}]', [("read_file", READ)], ""),
    ('[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "src/app.py"}}, {"name": "run_command", '
     '"arguments": {"command": "ls -la"}}]</s>', [("read_file", READ), ("run_command", LS)], ""),
    ('[TOOL_CALLS]read_file[ARGS]{"path": "src/app.py"}', [("read_file", READ)], ""),
    ('[TOOL_CALLS][{"name": "launch", "arguments": {}}]', [("invalid_tool_call", BAD)], ""),
    ('[TOOL_CALLS][{"name": "read_file", "arguments": {"path": }]', [("invalid_tool_call", BAD)], ""),
    # DeepSeek V3 / R1 and V3.1
    (DS_BEGIN + ds("read_file", '{"path": "src/app.py"}') + DS_END, [("read_file", READ)], ""),
    ("Reading both.\n" + DS_BEGIN + ds("read_file", '{"path": "src/app.py"}') + ds("run_command", '{"command": '
     '"ls -la"}') + DS_END + "<｜end▁of▁sentence｜>", [("read_file", READ), ("run_command", LS)], "Reading both."),
    (f'{DS_BEGIN}{DS_CALL}read_file{DS_SEP}{{"path": "src/app.py"}}{DS_CALL_END}{DS_END}', [("read_file", READ)], ""),
    (DS_BEGIN + ds("read_file", '{"path": ') + DS_END, [("read_file", BAD)], ""),
    (DS_BEGIN + ds("format_disk", "{}") + DS_END, [("invalid_tool_call", BAD)], ""),
    # Fenced and bare JSON, the whole reply
    ('```json\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n```', [("read_file", READ)], ""),
    ('```\n{"name": "run_command", "arguments": {"command": "ls -la"}}\n```', [("run_command", LS)], ""),
    ('```json\n{"function": {"name": "read_file", "arguments": "{\\"path\\": \\"src/app.py\\"}"}}\n```',
     [("read_file", READ)], ""),
    ('[{"name": "read_file", "arguments": {"path": "src/app.py"}}, {"name": "run_command", "arguments": '
     '{"command": "ls -la"}}]', [("read_file", READ), ("run_command", LS)], ""),
    ('{"name": "run_command", "arguments": ["ls"]}', [("run_command", BAD)], ""),
]

# Replies that look like calls but are not: nothing runs and the user sees the text unchanged.
NEAR_MISSES = [
    'The config looks like {"name": "read_file", "arguments": {}} in the docs.',
    '{"name": "deploy", "arguments": {}}',
    '{"name": "read_file", "arguments": {',
    '{"title": "no name key"}',
    '```json\n{"name": "Ada", "age": 36}\n```',
    'To call a tool, write `<tool_call>{"name": "write_file", "arguments": {"path": "x"}}</tool_call>` and the '
    "agent runs it. That is all there is to it.",
    'Here is how the Hermes format works:\n\n```\n<tool_call>\n{"name": "run_command", "arguments": {"command": '
    '"rm -rf /"}}\n</tool_call>\n```\n\nThe server parses that block.',
    "Mistral models prefix calls with [TOOL_CALLS] followed by a JSON list, as the docs explain.",
    'Llama writes <|python_tag|>{"name": "read_file", "parameters": {}} and then stops; see the model card.',
    'I ran it:\n```json\n{"name": "read_file", "arguments": {"path": "a.py"}}\n```\nand got the file back.',
    "Plain answer: the bug is on line 3, where `a - b` should be `a + b`.",
    "[1, 2, 3] is the sorted list.",
]


@pytest.mark.parametrize(("content", "expected", "rest"), CORPUS)
def test_each_dialect_becomes_the_calls_it_names_or_a_call_the_model_is_told_to_fix(
    content: str, expected: list[tuple[str, Any]], rest: str
) -> None:
    calls, remaining = parse_text_tool_calls(content, SCHEMAS)
    got = [(c.name, BAD if c.invalid else json.loads(c.arguments)) for c in calls]
    assert got == expected and remaining == rest
    assert len({c.id for c in calls}) == len(calls)
    for call in calls:
        if call.invalid:
            assert "Nothing was run" in call.invalid and "read_file" in call.invalid and "TOOL" in call.invalid


@pytest.mark.parametrize("content", NEAR_MISSES)
def test_near_misses_are_left_as_text(content: str) -> None:
    assert parse_text_tool_calls(content, SCHEMAS) == ([], content)


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) + len(NEAR_MISSES) >= 40


QUOTED = 'Use `<tool_call>{"name": "write_file", "arguments": {"path": "x"}}</tool_call>` to write. Done.'


def test_a_call_quoted_in_prose_runs_only_when_text_calls_count_anywhere() -> None:
    assert parse_text_tool_calls(QUOTED, SCHEMAS) == ([], QUOTED)
    calls, _ = parse_text_tool_calls(QUOTED, SCHEMAS, anywhere=True)
    assert [c.name for c in calls] == ["write_file"]


def test_only_the_blocks_that_close_the_reply_run_when_an_earlier_one_is_quoted() -> None:
    reply = QUOTED + '\n<tool_call>{"name": "read_file", "arguments": {"path": "src/app.py"}}</tool_call>'
    calls, rest = parse_text_tool_calls(reply, SCHEMAS)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("read_file", READ)] and rest == QUOTED


@pytest.mark.parametrize(
    ("content", "held"),
    [("Plain answer.", 0), ("Reading <tool", 5), ("Reading <tool_call>{", 12), ('{"name"', 7), ("Use a < b", 0),
     ("[", 1), ("```js", 5), ("```python", 0), ("[TOOL_", 6), ("Done <|python", 8)],
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
