"""`<tool_calls>`, shared by three families: Jamba and Hunyuan-A13B put a JSON list in it, MiniMax-Text one JSON
object per line, and Hunyuan's newer models `<tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V
</arg_value></tool_call>` (their tokens may carry a suffix, `<tool_calls:opensource>`, and the separator may be
left out). The body's shape says which; a broken block is answered in the family's format when it is known.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import (
    Block,
    Dialect,
    json_values,
    no_call_block,
    skip_space,
    unreadable_block,
    why,
)
from sneakycode.agent.model.text_call_args import (
    Schemas,
    call_from_json_object,
    call_from_xml_parameters,
    invalid_call,
)
from sneakycode.agent.protocol import ToolCall

OPEN = re.compile(r"<tool_calls(?::[\w.\-]+)?>")
CLOSE = re.compile(r"</tool_calls(?::[\w.\-]+)?>")
_SUFFIXED = re.compile(r"<(/?)(tool_call|tool_sep|arg_key|arg_value)(?::[\w.\-]+)?>")
_CALL = re.compile(r"<tool_call>(.*?)(?:<tool_sep>|(?=<arg_key>)|(?=</tool_call>))(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_ARG = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)(?:</arg_value>|\Z)", re.DOTALL)


def _tagged_calls(body: str, schemas: Schemas) -> list[ToolCall]:
    body = _SUFFIXED.sub(r"<\1\2>", body)
    return [
        call_from_xml_parameters(name.strip(), [(k.strip(), v) for k, v in _ARG.findall(arguments)], schemas, "hunyuan")
        for name, arguments in _CALL.findall(body)
    ]


def _block(content: str, start: int, body: int, end: int, inner: str, schemas: Schemas, family: str | None) -> Block:
    first = skip_space(inner, 0)
    shape = "jamba"
    if inner.startswith("<tool_call", first):
        shape = "hunyuan"
    elif inner[first : first + 1] == "{":
        shape = "minimax"
    dialect = family if family in ("jamba", "hunyuan", "minimax") else shape
    if shape == "hunyuan":
        calls = _tagged_calls(inner, schemas)
        if calls:
            return Block(start, end, calls)
        return unreadable_block(start, end, "the <tool_calls> block holds no readable call", dialect, schemas)
    try:
        values, stop = json_values(inner, first, separators=",")
    except ValueError as exc:
        if shape == "minimax" and _one_object_per_line(inner):
            return Block(start, end, _lines(inner, dialect, schemas), independent=True)
        return unreadable_block(start, end, f"the <tool_calls> block is not valid JSON ({why(exc)})", dialect, schemas)
    if not values:
        return no_call_block(content, start, body, end, "the <tool_calls> block holds no call", dialect, schemas)
    if inner[stop:].strip():
        return unreadable_block(start, end, "the <tool_calls> block holds text after its JSON", dialect, schemas)
    # MiniMax's lines stand alone, as vLLM runs them: one without a name or arguments does not stop the others.
    calls = [call_from_json_object(v, dialect, schemas) for v in values]
    return Block(start, end, calls, independent=shape == "minimax")


def _one_object_per_line(inner: str) -> bool:
    lines = [line.strip() for line in inner.splitlines() if line.strip()]
    return bool(lines) and all(line.startswith("{") and line.endswith("}") for line in lines)


def _lines(inner: str, dialect: str, schemas: Schemas) -> list[ToolCall]:
    """MiniMax-Text's one call per line, each read on its own: a line that is not JSON is an invalid call of
    its own (the model is told), the others stand, as vLLM's MiniMax parser reads them."""
    calls: list[ToolCall] = []
    for line in (line.strip() for line in inner.splitlines()):
        if not line:
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = f"a line of the <tool_calls> block is not valid JSON ({why(exc)})"
            calls.append(invalid_call(reason, dialect, schemas))
            continue
        calls.append(call_from_json_object(value, dialect, schemas))
    return calls


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    position = 0
    while (opened := OPEN.search(content, position)) is not None:
        closing = CLOSE.search(content, opened.end())
        inner = content[opened.end() : len(content) if closing is None else closing.start()]
        end = len(content) if closing is None else closing.end()
        yield _block(content, opened.start(), opened.end(), end, inner, schemas, family)
        position = end


DIALECT = Dialect("jamba", OPEN, ("<tool_calls>",), find)
