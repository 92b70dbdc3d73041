"""The conversation as Markdown (`/export`): the user's requests, the model's replies, each tool call with
its arguments and each result, in order. The system prompt is left out: it is ours, not the conversation."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sneakycode.agent.images import content_text


def _fence(text: str, info: str = "") -> str:
    """A code fence longer than any run of backticks inside `text`, so the text cannot close it."""
    ticks = 3
    while "`" * ticks in text:
        ticks += 1
    fence = "`" * ticks
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def _arguments(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


def conversation_markdown(history: Sequence[Mapping[str, Any]], title: str) -> str:
    parts = [f"# {title}"]
    names: dict[str, str] = {}
    for message in history:
        role = message.get("role")
        text = content_text(message.get("content")).strip()
        if role == "user":
            parts.append(f"## User\n\n{text}")
        elif role == "assistant":
            section = "## Assistant" + (f"\n\n{text}" if text else "")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                names[call.get("id", "")] = function.get("name", "?")
                section += f"\n\n**Tool call** `{function.get('name', '?')}`\n\n"
                section += _fence(_arguments(function.get("arguments", "")), "json")
            parts.append(section)
        elif role == "tool":
            name = names.get(message.get("tool_call_id", ""), "tool")
            parts.append(f"**Result** of `{name}`\n\n{_fence(text)}")
    return "\n\n".join(parts) + "\n"
