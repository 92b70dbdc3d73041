"""Tool calls that a local model wrote into its text instead of the `tool_calls` field.

Qwen- and Hermes-style models served without a tool-call parser answer with
``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` blocks, or with nothing but the JSON object.
Parsing them keeps such models usable; a bare object counts only if it names a tool that was offered, so a
reply that merely shows JSON is left alone.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Collection
from typing import Any

from sneakycode.agent.protocol import ToolCall

TAG_OPEN = "<tool_call>"
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_JSON_OPENERS = ("{", "[{", "```json")
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


def _call_from(obj: Any) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = obj["function"]
    name = obj.get("name")
    if not isinstance(name, str) or not name:
        return None
    arguments = obj.get("arguments", obj.get("parameters", {}))
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ToolCall(id=f"call_{uuid.uuid4().hex[:24]}", name=name, arguments=text)


def _parse_tagged(content: str) -> tuple[list[ToolCall], str]:
    calls = []
    for match in _TAGGED.finditer(content):
        try:
            call = _call_from(json.loads(match.group(1)))
        except (json.JSONDecodeError, RecursionError):
            call = None
        if call is None:
            return [], content
        calls.append(call)
    return calls, _TAGGED.sub("", content).strip()


def _parse_bare(content: str, known_tools: Collection[str]) -> list[ToolCall]:
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    if not text.startswith(("{", "[")):
        return []
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return []
    objects = value if isinstance(value, list) else [value]
    calls = [_call_from(obj) for obj in objects]
    if not calls or any(c is None or c.name not in known_tools for c in calls):
        return []
    return [c for c in calls if c is not None]


def parse_text_tool_calls(content: str, known_tools: Collection[str]) -> tuple[list[ToolCall], str]:
    """The tool calls written in `content` and the text left once they are removed (([], content) if none)."""
    if TAG_OPEN in content:
        return _parse_tagged(content)
    calls = _parse_bare(content, known_tools)
    return (calls, "") if calls else ([], content)


def held_back_length(content: str) -> int:
    """How many trailing characters of streamed text to withhold because they may start a tool call.

    Everything from a `<tool_call>` tag on, a reply that opens with a JSON object, and a tail that could be
    the start of the tag are held back; the rest can be shown to the user as it arrives.
    """
    tag = content.find(TAG_OPEN)
    if tag >= 0:
        return len(content) - tag
    stripped = content.lstrip()
    if any(stripped.startswith(opener) or opener.startswith(stripped) for opener in _JSON_OPENERS):
        return len(content)
    for size in range(min(len(TAG_OPEN) - 1, len(content)), 0, -1):
        if TAG_OPEN.startswith(content[-size:]):
            return size
    return 0
