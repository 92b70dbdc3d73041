"""The dialects whose calls are JSON after a model-specific token: Granite `<|tool_call|>[...]`, FireFunction v2
and Phi-4-mini `functools[...]`, Command R7B `<|START_ACTION|>[{"tool_name": ..., "parameters": ...}]
<|END_ACTION|>` and InternLM `<|action_start|><|plugin|>{...}<|action_end|>`.
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
from sneakycode.agent.model.text_call_args import (
    ARGUMENT_KEYS,
    Schemas,
    call_from_json_object,
)

FUNCTOOLS = "functools"


def _json_after(
    content: str,
    opener: str,
    closer: str,
    dialect: str,
    schemas: Schemas,
    *,
    keys: tuple[str, ...] = ARGUMENT_KEYS,
    name_key: str = "name",
    required: bool = True,
) -> Iterator[Block]:
    """Each `opener` followed by JSON calls (objects, or a list of them) up to an optional `closer`."""
    position = content.find(opener)
    while position >= 0:
        body = position + len(opener)
        if opener == FUNCTOOLS and not content.startswith("[", body):  # the word, not the marker
            position = content.find(opener, body)
            continue
        closing = content.find(closer, body) if closer else -1
        try:
            values, end = json_values(content, body, separators=",;")
        except ValueError as exc:
            stop = len(content) if closing < 0 else closing + len(closer)
            reason = f"the {opener} call is not valid JSON ({why(exc)})"
            yield unreadable_block(position, stop, reason, dialect, schemas)
            return
        after = skip_space(content, end)
        if closer and content.startswith(closer, after):
            end = after + len(closer)
        if not values:
            reason = f"no JSON tool call follows {opener}"
            block = no_call_block(content, position, body, len(content), reason, dialect, schemas)
            yield block
            end = block.end
        else:
            read = [
                call_from_json_object(v, dialect, schemas, keys=keys, name_key=name_key, required=required)
                for v in values
            ]
            yield Block(position, end, read)
        position = content.find(opener, max(end, body))


def find_functools(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    return _json_after(content, FUNCTOOLS, "", "functools", schemas)


def find_granite(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    return _json_after(content, "<|tool_call|>", "", "granite", schemas)


def find_command_r(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    return _json_after(
        content,
        "<|START_ACTION|>",
        "<|END_ACTION|>",
        "command_r7b",
        schemas,
        keys=("parameters",),
        name_key="tool_name",
    )


def find_internlm(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    # InternLM's own parsers run a call that names no parameters with none, so a missing object is `{}` here.
    return _json_after(content, "<|action_start|><|plugin|>", "<|action_end|>", "internlm", schemas, required=False)


FUNCTOOLS_LIST = Dialect("functools", re.compile(r"functools\["), (), find_functools)
GRANITE = Dialect("granite", re.compile(re.escape("<|tool_call|>")), ("<|tool_call|>",), find_granite)
COMMAND_R = Dialect("command_r7b", re.compile(re.escape("<|START_ACTION|>")), ("<|START_ACTION|>",), find_command_r)
INTERNLM = Dialect("internlm", re.compile(re.escape("<|action_start|>")), ("<|action_start|>",), find_internlm)
