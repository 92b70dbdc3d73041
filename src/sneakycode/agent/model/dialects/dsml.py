"""DeepSeek V3.2's DSML: `<｜DSML｜function_calls>` (V4: `<｜DSML｜tool_calls>`) holding one
`<｜DSML｜invoke name="NAME">` per call, closed by `</｜DSML｜invoke>`. Its body is either
`<｜DSML｜parameter name="KEY" string="true|false">VALUE</｜DSML｜parameter>` tags (`string="true"`: the value
is text, taken as written; `"false"`: a JSON value) or one JSON object; an empty body or a self-closed
`<｜DSML｜invoke name="NAME"/>` is a call with no arguments.

Read strictly, as SGLang's strict DSML mode does: a body with anything else in it (prose, a parameter tag
without its marker or its `string` attribute, a `string="false"` value that is not JSON) is unreadable, so
nothing in the reply runs and the model is told the format, rather than a call running with arguments lost.
The tags are spelled with the full-width bar; the ASCII `|` some servers leave is read too. The grammar is
three tags, so it is read here with regular expressions rather than an XML library (it is not XML: the
`｜DSML｜` prefix is no valid tag name).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from sneakycode.agent.model.dialects.base import Block, Dialect, no_call_block
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments, invalid_call
from sneakycode.agent.protocol import ToolCall

_M = r"[｜|]DSML[｜|]"
OPEN = re.compile(rf"<{_M}(function_calls|tool_calls)>")
_INVOKE = re.compile(rf'<{_M}invoke\s+name="([^"\n]*)"\s*(/?)>')
_INVOKE_END = re.compile(rf"</{_M}invoke>")
_PARAMETER = re.compile(rf'<{_M}parameter\s+name="([^"\n]*)"\s+string="(true|false)"\s*>(.*?)</{_M}parameter>',
                        re.DOTALL)
DIALECT_NAME = "deepseek_v32"


class _Unreadable(ValueError):
    pass


def _arguments(body: str) -> dict[str, Any]:
    """The arguments an invoke's body holds; raises _Unreadable when it holds anything else."""
    stripped = body.strip()
    if not stripped:
        return {}
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise _Unreadable("its JSON body is not valid JSON") from exc
        if not isinstance(value, dict):
            raise _Unreadable("its JSON body is not an object")
        return value
    if _PARAMETER.sub("", body).strip():
        raise _Unreadable("its body holds text that is not <｜DSML｜parameter> tags")
    arguments: dict[str, Any] = {}
    for found in _PARAMETER.finditer(body):
        key, is_string, value = found.group(1), found.group(2) == "true", found.group(3)
        if is_string:
            arguments[key] = value
            continue
        try:
            arguments[key] = json.loads(value)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise _Unreadable(f'the value of {key!r} is marked string="false" but is not JSON') from exc
    return arguments


def _calls(region: str, schemas: Schemas) -> list[ToolCall]:
    calls: list[ToolCall] = []
    position = 0
    while (invoke := _INVOKE.search(region, position)) is not None:
        name = invoke.group(1).strip()
        if invoke.group(2):  # <｜DSML｜invoke name="NAME"/>
            calls.append(call_with_arguments(name, {}, DIALECT_NAME, schemas))
            position = invoke.end()
            continue
        closing = _INVOKE_END.search(region, invoke.end())
        following = _INVOKE.search(region, invoke.end())
        if closing is None or (following is not None and following.start() < closing.start()):
            reason = f"the <｜DSML｜invoke> of {name} is not closed with </｜DSML｜invoke>"
            calls.append(invalid_call(reason, DIALECT_NAME, schemas, name))
            position = invoke.end() if following is None else following.start()
            continue
        try:
            calls.append(call_with_arguments(name, _arguments(region[invoke.end() : closing.start()]),
                                             DIALECT_NAME, schemas))
        except _Unreadable as exc:
            calls.append(invalid_call(f"the call of {name} cannot be read: {exc}", DIALECT_NAME, schemas, name))
        position = closing.end()
    return calls


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    position = 0
    while (opened := OPEN.search(content, position)) is not None:
        close = re.compile(rf"</{_M}{opened.group(1)}>")
        closing = close.search(content, opened.end())
        end = len(content) if closing is None else closing.end()
        calls = _calls(content[opened.end() : len(content) if closing is None else closing.start()], schemas)
        if not calls:
            reason = "the DSML tool-call block holds no <｜DSML｜invoke>"
            yield no_call_block(content, opened.start(), opened.end(), end, reason, DIALECT_NAME, schemas)
            return
        yield Block(opened.start(), end, calls, token=closing is not None)
        position = end


DIALECT = Dialect(
    DIALECT_NAME,
    OPEN,
    ("<｜DSML｜function_calls>", "<｜DSML｜tool_calls>"),
    find,
)
