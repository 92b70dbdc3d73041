"""Mistral `[TOOL_CALLS]`: a JSON list (v3 tokenizers: Mistral 7B v0.3, Nemo), or `NAME{json}` per call
(v11+: Small 3.x, Devstral, Magistral), optionally `NAME[CALL_ID]id[ARGS]{json}` (v13). Each call may repeat
the marker, and a closing `[/TOOL_CALLS]` may follow; neither costs the calls already read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import (
    Block,
    Dialect,
    json_values,
    no_call_block,
    read_json,
    skip_space,
    unreadable_block,
    why,
)
from sneakycode.agent.model.text_call_args import Schemas, call_from_json_object, call_with_arguments
from sneakycode.agent.protocol import ToolCall

MARKER, CLOSER = "[TOOL_CALLS]", "[/TOOL_CALLS]"
_NAMED = re.compile(r"\s*([A-Za-z_][\w.\-]*)\s*(?:\[CALL_ID\]\s*[^\[{\s]*\s*)?(\[ARGS\])?\s*")


def _one(content: str, body: int, schemas: Schemas) -> tuple[list[ToolCall], int, str]:
    """The calls after one marker at `body`, where they end, and why they cannot be read ("" if they can)."""
    named = _NAMED.match(content, body)
    if named and content.startswith("{", named.end()):
        try:
            arguments, end = read_json(content, named.end())
        except ValueError as exc:
            return [], len(content), f"the arguments of {named.group(1)} are not valid JSON ({why(exc)})"
        return [call_with_arguments(named.group(1), arguments, "mistral", schemas)], end, ""
    if named and named.group(2):
        return [], len(content), f"no JSON arguments follow {named.group(1)}[ARGS]"
    try:
        values, end = json_values(content, body, separators=",")
    except ValueError as exc:
        return [], len(content), f"the {MARKER} call is not valid JSON ({why(exc)})"
    return [call_from_json_object(v, "mistral", schemas) for v in values], end, ""


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    position = content.find(MARKER)
    while position >= 0:
        start, calls, end = position, [], position
        while content.startswith(MARKER, position):  # the calls of one turn, each after its own marker
            body = position + len(MARKER)
            found, end, problem = _one(content, body, schemas)
            if problem:
                yield unreadable_block(start, end, problem, "mistral", schemas)
                return
            if not found:
                end = body
                break
            calls.extend(found)
            after = skip_space(content, end)
            if content.startswith(CLOSER, after):
                end = after + len(CLOSER)
                after = skip_space(content, end)
            position = after
        if calls:
            yield Block(start, end, calls)
            position = content.find(MARKER, end)
            continue
        reason = f"no JSON tool call follows {MARKER}"
        block = no_call_block(content, start, end, len(content), reason, "mistral", schemas)
        end = block.end
        yield block
        position = content.find(MARKER, end)


DIALECT = Dialect("mistral", re.compile(re.escape(MARKER)), (MARKER,), find)
