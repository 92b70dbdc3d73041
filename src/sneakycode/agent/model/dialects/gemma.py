"""Gemma: `call:NAME{key:value,...}` inside `<|tool_call>...<tool_call|>` (Gemma 4) or
`<start_function_call>...<end_function_call>` (FunctionGemma).

The arguments are not JSON: keys are bare, strings sit between `<|"|>` (or `<escape>`) delimiters and are taken
exactly as written (quotes and backslashes included), and numbers, `true`, `false`, `null`, nested `{...}` and
`[...]` are as in JSON. A JSON string (`"..."`) is read as JSON. The grammar is small and unlike anything a
library reads, so it is read here by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from sneakycode.agent.model.dialects.base import Block, Dialect, skip_space, unreadable_block
from sneakycode.agent.model.text_call_args import Schemas, call_with_arguments
from sneakycode.agent.protocol import ToolCall

WRAPPERS = (
    ("<|tool_call>", "<tool_call|>", "gemma"),
    ("<start_function_call>", "<end_function_call>", "functiongemma"),
)
_DELIMITERS = ('<|"|>', "<escape>")
_CALL = re.compile(r"\s*call:([^\W\d][\w.\-]*)")
_BARE = re.compile(r"[^,}\]\s]+")
_KEY = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s:{}\[\],]+))\s*:')
_DECODER = json.JSONDecoder()
_MAX_DEPTH = 64


class _Unreadable(ValueError):
    pass


def _value(text: str, index: int, depth: int) -> tuple[Any, int]:
    if depth > _MAX_DEPTH:
        raise _Unreadable("the arguments are nested too deeply")
    index = skip_space(text, index)
    for delimiter in _DELIMITERS:
        if text.startswith(delimiter, index):
            close = text.find(delimiter, index + len(delimiter))
            if close < 0:
                raise _Unreadable(f"a string opened with {delimiter} is not closed")
            return text[index + len(delimiter) : close], close + len(delimiter)
    if text.startswith('"', index):
        try:
            return _DECODER.raw_decode(text, index)
        except json.JSONDecodeError as exc:
            raise _Unreadable(f"a quoted string cannot be read ({exc.msg})") from exc
    if text.startswith("{", index):
        return _object(text, index + 1, depth + 1)
    if text.startswith("[", index):
        items: list[Any] = []
        index = skip_space(text, index + 1)
        while not text.startswith("]", index):
            item, index = _value(text, index, depth + 1)
            items.append(item)
            index = _separator(text, index, "]")
        return items, index + 1
    bare = _BARE.match(text, index)
    if bare is None:
        raise _Unreadable("a value is missing")
    try:
        value = json.loads(bare.group())
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"{bare.group()[:40]!r} is neither a delimited string nor a JSON value") from exc
    return value, bare.end()


def _separator(text: str, index: int, closer: str) -> int:
    index = skip_space(text, index)
    if text.startswith(",", index):
        return skip_space(text, index + 1)
    if text.startswith(closer, index):
        return index
    raise _Unreadable(f"expected ',' or {closer!r} at {text[index : index + 20]!r}")


def _object(text: str, index: int, depth: int) -> tuple[dict[str, Any], int]:
    """The object whose `{` ends just before `index`, and where it ends."""
    result: dict[str, Any] = {}
    index = skip_space(text, index)
    while not text.startswith("}", index):
        key = _KEY.match(text, index)
        if key is None:
            raise _Unreadable(f"expected a key at {text[index : index + 20]!r}")
        name = json.loads(f'"{key.group(1)}"') if key.group(1) is not None else key.group(2)
        result[name], index = _value(text, key.end(), depth)
        index = _separator(text, index, "}")
    return result, index + 1


def _call(text: str, schemas: Schemas, dialect: str) -> ToolCall:
    named = _CALL.match(text)
    if named is None or not text.startswith("{", named.end()):
        raise _Unreadable("it is not call:NAME{...}")
    arguments, end = _object(text, named.end() + 1, 0)
    if text[end:].strip():
        raise _Unreadable("text follows the call's arguments")
    return call_with_arguments(named.group(1), arguments, dialect, schemas)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    for opening, closing, dialect in WRAPPERS:
        start = content.find(opening)
        while start >= 0:
            closed = content.find(closing, start)
            end = len(content) if closed < 0 else closed + len(closing)
            body = content[start + len(opening) : len(content) if closed < 0 else closed]
            try:
                block = Block(start, end, [_call(body, schemas, dialect)])
            except (_Unreadable, IndexError) as exc:
                block = unreadable_block(start, end, f"the {opening} call cannot be read ({exc})", dialect, schemas)
            block.token = closed >= 0
            yield block
            start = content.find(opening, end)


DIALECT = Dialect(
    "gemma",
    re.compile(r"<\|tool_call>|<start_function_call>"),
    ("<|tool_call>", "<start_function_call>"),
    find,
)
