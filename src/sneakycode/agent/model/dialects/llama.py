"""Llama 3.x `<|python_tag|>`: one or more JSON calls (`{"name": ..., "parameters": ...}`, separated by `;`),
or a built-in tool written as `brave_search.call(query="...")`. The bare JSON form, with no tag, is read by
`json_reply` under the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import (
    END_TOKENS,
    Block,
    Dialect,
    json_values,
    no_call_block,
    skip_space,
    unreadable_block,
    why,
)
from sneakycode.agent.model.dialects.pythonic import read_call
from sneakycode.agent.model.text_call_args import Schemas, call_from_json_object, call_with_arguments

MARKER = "<|python_tag|>"
_BUILTIN = re.compile(r"\s*([A-Za-z_]\w*)\.call\(")


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    position = content.find(MARKER)
    while position >= 0:
        body = position + len(MARKER)
        builtin = _BUILTIN.match(content, body)
        try:
            values, end = json_values(content, body)
        except ValueError as exc:
            reason = f"the {MARKER} call is not valid JSON ({why(exc)})"
            yield unreadable_block(position, len(content), reason, "llama", schemas)
            return
        if values:
            yield Block(position, end, [call_from_json_object(v, "llama", schemas) for v in values])
        elif builtin:
            name, arguments, problem = read_call(END_TOKENS.sub("", content[skip_space(content, body) :]))
            name = name.removesuffix(".call")
            if problem:
                yield unreadable_block(position, len(content), problem, "llama", schemas)
            else:
                yield Block(position, len(content), [call_with_arguments(name, arguments, "llama", schemas)])
            return
        else:
            reason = f"no JSON tool call follows {MARKER}"
            block = no_call_block(content, position, body, len(content), reason, "llama", schemas)
            end = block.end
            yield block
        position = content.find(MARKER, max(end, body))


DIALECT = Dialect("llama3_json", re.compile(re.escape(MARKER)), (MARKER,), find)
