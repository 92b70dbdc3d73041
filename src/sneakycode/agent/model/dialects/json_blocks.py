"""The dialects whose calls are JSON after a model-specific token: Granite `<|tool_call|>[...]`, FireFunction v2 and
Phi-4-mini `functools[...]`, Jamba and
Hunyuan-A13B `<tool_calls>[...]</tool_calls>`, MiniMax-Text `<tool_calls>` with one JSON object per line (the
same tag holds Hunyuan's `<tool_call>NAME<tool_sep><arg_key>..` in its newer models), Command R7B
`<|START_ACTION|>[{"tool_name": ..., "parameters": ...}]<|END_ACTION|>` and InternLM
`<|action_start|><|plugin|>{...}<|action_end|>`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sneakycode.agent.model.dialects.base import Block, Dialect, json_values, skip_space, unreadable_block, why
from sneakycode.agent.model.text_call_args import (
    ARGUMENT_KEYS,
    Schemas,
    call_from_json_object,
    call_from_xml_parameters,
)
from sneakycode.agent.protocol import ToolCall

FUNCTOOLS = "functools"
_HUNYUAN_CALL = re.compile(r"<tool_call>(.*?)<tool_sep>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_HUNYUAN_ARG = re.compile(r"<arg_key>(.*?)</arg_key>\s*<arg_value>(.*?)(?:</arg_value>|\Z)", re.DOTALL)


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
            opens_reply = not content[:position].strip()
            stop = len(content) if opens_reply else body
            yield unreadable_block(position, stop, f"no JSON tool call follows {opener}", dialect, schemas)
            end = stop
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


def _hunyuan_calls(body: str, schemas: Schemas) -> list[ToolCall]:
    return [
        call_from_xml_parameters(
            name.strip(), [(k.strip(), v) for k, v in _HUNYUAN_ARG.findall(arguments)], schemas, "hunyuan"
        )
        for name, arguments in _HUNYUAN_CALL.findall(body)
    ]


def find_tool_calls_tag(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    """`<tool_calls>`: a JSON list (Jamba, Hunyuan-A13B), JSON lines (MiniMax) or Hunyuan's tagged calls."""
    position = content.find("<tool_calls>")
    while position >= 0:
        body = position + len("<tool_calls>")
        closing = content.find("</tool_calls>", body)
        inner = content[body : len(content) if closing < 0 else closing]
        end = len(content) if closing < 0 else closing + len("</tool_calls>")
        first = skip_space(inner, 0)
        shape = "jamba"
        if inner.startswith("<tool_call>", first):
            shape = "hunyuan"
        elif inner[first : first + 1] == "{":
            shape = "minimax"
        dialect = family if family in ("jamba", "hunyuan", "minimax") else shape
        if shape == "hunyuan":
            calls = _hunyuan_calls(inner, schemas)
            yield Block(position, end, calls) if calls else unreadable_block(
                position, end, "the <tool_calls> block holds no readable call", dialect, schemas
            )
        else:
            try:
                values, stop = json_values(inner, first, separators=",")
            except ValueError as exc:
                values, stop = [], -1
                problem = f"the <tool_calls> block is not valid JSON ({why(exc)})"
            else:
                problem = "the <tool_calls> block holds text after its JSON" if inner[stop:].strip() else ""
            if problem or not values:
                problem = problem or "the <tool_calls> block holds no call"
                yield unreadable_block(position, end, problem, dialect, schemas)
            else:
                yield Block(position, end, [call_from_json_object(v, dialect, schemas) for v in values])
        position = content.find("<tool_calls>", end)


FUNCTOOLS_LIST = Dialect("functools", re.compile(r"functools\["), (), find_functools)
GRANITE = Dialect("granite", re.compile(re.escape("<|tool_call|>")), ("<|tool_call|>",), find_granite)
COMMAND_R = Dialect("command_r7b", re.compile(re.escape("<|START_ACTION|>")), ("<|START_ACTION|>",), find_command_r)
INTERNLM = Dialect("internlm", re.compile(re.escape("<|action_start|>")), ("<|action_start|>",), find_internlm)
TOOL_CALLS_TAG = Dialect("jamba", re.compile(re.escape("<tool_calls>")), ("<tool_calls>",), find_tool_calls_tag)
