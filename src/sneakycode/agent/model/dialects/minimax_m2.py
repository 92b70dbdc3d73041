"""MiniMax-M2: `<minimax:tool_call>` holding `<invoke name="NAME">` with `<parameter name="KEY">VALUE</parameter>`
values, typed by the tool's schema."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect, no_call_block, unreadable_block
from sneakycode.agent.model.text_call_args import Schemas, call_from_xml_parameters, invalid_call
from sneakycode.agent.protocol import ToolCall

OPEN, CLOSE = "<minimax:tool_call>", "</minimax:tool_call>"
_INVOKE = re.compile(r'<invoke name="([^"]*)">(.*?)(?:</invoke>|\Z)', re.DOTALL)
_PARAMETER = re.compile(r'<parameter name="([^"]*)">(.*?)(?:</parameter>|\Z)', re.DOTALL)


def _call(name: str, body: str, schemas: Schemas) -> ToolCall:
    if _PARAMETER.sub("", body).strip():
        return invalid_call(f"the body of the {name} call is not <parameter> tags", "minimax_m2", schemas, name)
    return call_from_xml_parameters(name.strip(), _PARAMETER.findall(body), schemas, "minimax_m2")


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    position = content.find(OPEN)
    while position >= 0:
        closing = content.find(CLOSE, position)
        end = len(content) if closing < 0 else closing + len(CLOSE)
        inner = content[position + len(OPEN) : len(content) if closing < 0 else closing]
        calls = [_call(m.group(1), m.group(2), schemas) for m in _INVOKE.finditer(inner)]
        if not calls:
            reason = f"the {OPEN} block holds no <invoke>"
            yield no_call_block(content, position, position + len(OPEN), end, reason, "minimax_m2", schemas)
        elif _INVOKE.sub("", inner).strip():
            reason = f"the {OPEN} block holds text outside <invoke>"
            yield unreadable_block(position, end, reason, "minimax_m2", schemas)
        else:
            yield Block(position, end, calls)
        position = content.find(OPEN, end)


DIALECT = Dialect("minimax_m2", re.compile(re.escape(OPEN)), (OPEN,), find)
