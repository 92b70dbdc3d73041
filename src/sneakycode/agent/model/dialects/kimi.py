"""Kimi K2: `<|tool_calls_section_begin|>` then, per call, `<|tool_call_begin|>functions.NAME:IDX
<|tool_call_argument_begin|>{json}<|tool_call_end|>`, closed by `<|tool_calls_section_end|>` (the section
tokens also come in the singular, `<|tool_call_section_begin|>`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect, no_call_block, read_json, skip_space, why
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments, invalid_call
from sneakycode.agent.protocol import ToolCall

SECTION_BEGIN = re.compile(r"<\|tool_calls?_section_begin\|>")
SECTION_END = re.compile(r"<\|tool_calls?_section_end\|>")
CALL_BEGIN, ARGS_BEGIN, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
_ID = re.compile(r"\s*(?:functions\.)?([^\s<:]+?)(?::\d+)?\s*$")


def _call(inner: str, schemas: Schemas) -> ToolCall:
    head, sep, arguments = inner.partition(ARGS_BEGIN)
    named = _ID.match(head)
    if not sep or named is None:
        return invalid_call(f"the Kimi tool call has no {ARGS_BEGIN} after its id", "kimi_k2", schemas)
    start = skip_space(arguments, 0)
    try:
        value, end = read_json(arguments, start) if arguments.strip() else ({}, start)
    except ValueError as exc:
        reason = f"the arguments of {named.group(1)} are not valid JSON ({why(exc)})"
        return invalid_call(reason, "kimi_k2", schemas, named.group(1))
    if arguments[end:].strip():
        reason = f"the arguments of {named.group(1)} are followed by stray text"
        return invalid_call(reason, "kimi_k2", schemas, named.group(1))
    return call_with_arguments(named.group(1), value, "kimi_k2", schemas)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    opened = SECTION_BEGIN.search(content)
    if opened is None:
        return
    closing = SECTION_END.search(content, opened.end())
    end = len(content) if closing is None else closing.end()
    region = content[opened.end() : len(content) if closing is None else closing.start()]
    calls: list[ToolCall] = []
    position = region.find(CALL_BEGIN)
    while position >= 0:
        body = position + len(CALL_BEGIN)
        stop = region.find(CALL_END, body)
        following = region.find(CALL_BEGIN, body)
        if stop < 0 or (0 <= following < stop):
            stop = len(region) if following < 0 else following
        calls.append(_call(region[body:stop], schemas))
        position = region.find(CALL_BEGIN, stop)
    if not calls:
        reason = "the Kimi tool-call section holds no call"
        yield no_call_block(content, opened.start(), opened.end(), end, reason, "kimi_k2", schemas)
        return
    # Each call of a section stands alone, as vLLM's and SGLang's Kimi parsers run them: one with broken JSON
    # is answered on its own and does not stop the others (as with native tool calls).
    yield Block(opened.start(), end, calls, token=closing is not None, independent=True)


DIALECT = Dialect(
    "kimi_k2", SECTION_BEGIN, ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"), find
)
