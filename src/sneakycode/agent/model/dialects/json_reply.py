"""A reply that is nothing but JSON calls, with no marker: Llama 3.x's bare `{"name": ..., "parameters": ...}`
(several separated by `;`), xLAM's list of `{"name": ..., "arguments": ...}`, llama.cpp's generic
`{"tool_calls": [...]}`, OpenAI's `{"function": {...}}`, any of them in a ```json fence.

With no marker, the JSON is a call only when it is the whole reply, every object names an offered tool, and
every object carries its `arguments` (or `parameters`): the serving stacks require the key, so
`{"name": "read_file"}` alone is text, and so is JSON that merely looks like a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sneakycode.agent.model.dialects.base import END_TOKENS, FENCE, Block, Dialect, json_values, skip_space
from sneakycode.agent.model.dialects.reasoning import answer_start
from sneakycode.agent.model.text_call_args import ARGUMENT_KEYS, Schemas, call_from_json_object


def _objects(value: Any) -> list[Any]:
    """The call objects a JSON value holds (llama.cpp's generic wrapper unwrapped)."""
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        return list(value["tool_calls"])
    if isinstance(value, dict) and isinstance(value.get("tool_call"), dict):
        return [value["tool_call"]]
    return [value]


def _is_call(obj: Any, schemas: Schemas) -> bool:
    inner = obj.get("function", obj) if isinstance(obj, dict) else None
    return isinstance(inner, dict) and inner.get("name") in schemas and any(key in inner for key in ARGUMENT_KEYS)


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    del family
    start = answer_start(content)
    text = END_TOKENS.sub("", content[start:]).strip()
    fenced = FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith(("{", "[")):
        return
    try:
        values, end = json_values(text, 0)
    except ValueError:
        return
    if text[end:].strip() or not values:
        return
    objects = [obj for value in values for obj in _objects(value)]
    if objects and all(_is_call(obj, schemas) for obj in objects):
        start = skip_space(content, start)
        yield Block(start, len(content), [call_from_json_object(obj, "json", schemas) for obj in objects])


DIALECT = Dialect("json", re.compile(r"\A\s*(?:\{|\[|```)|</think>\s*(?:\{|\[|```)"), (), find)
