"""A reply that is nothing but JSON calls, with no marker: Llama 3.x's bare `{"name": ..., "parameters": ...}`
(several separated by `;`), xLAM's list of `{"name": ..., "arguments": ...}`, llama.cpp's generic
`{"tool_calls": [...]}`, OpenAI's `{"function": {...}}`, any of them in a ```json fence.

With no marker, the JSON is a call only when it is the whole reply (after a lead-in sentence for xLAM and
Llama 3, whose own stacks look for it there), every object names an offered tool, and every object carries its
`arguments` (or `parameters`): the serving stacks require the key, so `{"name": "some_tool"}` alone is text,
and so is JSON that merely looks like a call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from sneakycode.agent.model.dialects.base import END_TOKENS, FENCE, Block, Dialect, json_values, skip_space
from sneakycode.agent.model.dialects.reasoning import answer_start
from sneakycode.agent.model.text_call_args import ARGUMENT_KEYS, Schemas, call_from_json_object

_AFTER_PROSE = ("xlam", "llama3_json")
_LINE_OPENER = re.compile(r"^[ \t]*(```|\{|\[)", re.MULTILINE)
_CANDIDATES = 16


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


def _calls(text: str, schemas: Schemas) -> list[Any] | None:
    """The call objects `text` is made of (fenced or not), or None when it is anything else."""
    text = END_TOKENS.sub("", text).strip()
    fenced = FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        values, end = json_values(text, 0)
    except ValueError:
        if not text.startswith("["):
            return None
        # A list the reply ends before closing (`[{...}, {...}`), as Ollama reads it: whole objects only.
        try:
            values, end = json_values(text, 1, separators=",")
        except ValueError:
            return None
    objects = [obj for value in values for obj in _objects(value)]
    rest = text[end:].strip()
    # A stray `]` after a whole list (`[{...}]]`) is read past, as Ollama does; any other text is not a call.
    if (rest and not (text.startswith("[") and not rest.strip("]").strip())) or not objects:
        return None
    if not all(_is_call(obj, schemas) for obj in objects):
        return None
    return objects


def find(content: str, schemas: Schemas, family: str | None) -> Iterator[Block]:
    start = answer_start(content)
    candidates = [skip_space(content, start)]
    if family in _AFTER_PROSE:  # their own stacks find the JSON after a lead-in sentence
        candidates += [m.start(1) for m in _LINE_OPENER.finditer(content, start)][-_CANDIDATES:]
    for candidate in candidates:
        objects = _calls(content[candidate:], schemas)
        if objects is not None:
            yield Block(candidate, len(content), [call_from_json_object(obj, "json", schemas) for obj in objects])
            return


DIALECT = Dialect("json", re.compile(r"\{|\[|```"), (), find)
