"""`<tool_calls>`, shared by three families: Jamba and Hunyuan-A13B put a JSON list in it, MiniMax-Text one JSON
object per line, and Hunyuan's newer models `<tool_call>NAME<tool_sep><arg_key>K</arg_key><arg_value>V
</arg_value></tool_call>` (their tokens may carry a suffix, `<tool_calls:opensource>`, and the separator may be
left out). The body's shape says which; a broken block is answered in the family's format when it is known.
"""

from __future__ import annotations

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
from sneakycode.agent.model.text_call_args import Schemas, call_from_json_object, call_from_xml_parameters
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
        return unreadable_block(start, end, f"the <tool_calls> block is not valid JSON ({why(exc)})", dialect, schemas)
    if not values:
        return no_call_block(content, start, body, end, "the <tool_calls> block holds no call", dialect, schemas)
    if inner[stop:].strip():
        return unreadable_block(start, end, "the <tool_calls> block holds text after its JSON", dialect, schemas)
    return Block(start, end, [call_from_json_object(v, dialect, schemas) for v in values])


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    position = 0
    while (opened := OPEN.search(content, position)) is not None:
        closing = CLOSE.search(content, opened.end())
        inner = content[opened.end() : len(content) if closing is None else closing.start()]
        end = len(content) if closing is None else closing.end()
        yield _block(content, opened.start(), opened.end(), end, inner, schemas, family)
        position = end


DIALECT = Dialect("jamba", OPEN, ("<tool_calls>",), find)
