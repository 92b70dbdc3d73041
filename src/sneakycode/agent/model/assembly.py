"""Assemble one assistant reply from streamed chunks (or a whole completion), as plain JSON dicts.

Servers differ in how they stream tool calls: OpenAI sends the id and name once and then argument
fragments; llama.cpp and some Ollama builds repeat the id and the full name in every delta. A repeated id
or name is taken once, never concatenated. A new id on an index already in use starts a new call. Some
servers (older vLLM and llama.cpp builds) stream the rest of a call's arguments under a new `index` with no id
and no name: such an orphan fragment is joined onto the call it continues, but only while that call's
arguments are still incomplete JSON (anything else keeps its own slot, and a nameless call is dropped).
`joined_fragments` counts the repairs, so doctor can name the server's fault.
`<think>` blocks in the content are reasoning (see `think_tags`): the joined turn never has them in its
content, and `visible_content` is what may be shown while the reply streams.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from sneakycode.agent.model.think_tags import split_think
from sneakycode.agent.protocol import AssistantTurn, ToolCall, Usage

REASONING_KEYS = ("reasoning_content", "reasoning")


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _reasoning_of(message: dict[str, Any]) -> str:
    return "".join(message[key] for key in REASONING_KEYS if isinstance(message.get(key), str))


def _reasoning_key(message: dict[str, Any]) -> str:
    """The key reasoning arrived under (sent back under the same one, see agent/reasoning_history.py)."""
    return next((key for key in REASONING_KEYS if isinstance(message.get(key), str) and message[key]), "")


def usage_from(payload: dict[str, Any]) -> Usage | None:
    """Server-reported usage, from `usage` or Groq's older `x_groq.usage`."""
    raw = payload.get("usage") or (payload.get("x_groq") or {}).get("usage")
    if not isinstance(raw, dict) or raw.get("prompt_tokens") is None:
        return None
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
        cached_tokens=int(cached or 0),
        cache_reported=isinstance(cached, int),
    )


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def with_timings(usage: Usage | None, timings: Any) -> Usage | None:
    """Usage completed by llama.cpp's `timings` (on its last chunk, or the whole completion): `prompt_n` tokens
    evaluated, `cache_n` reused from the slot's cache, `prompt_ms` spent reading them. Its usage counts the
    whole prompt (prompt_n + cache_n); a server that sent timings but no usage gets one built from them."""
    if not isinstance(timings, dict):
        return usage
    evaluated, reused = _count(timings.get("prompt_n")), _count(timings.get("cache_n"))
    if evaluated is None or reused is None:
        return usage
    if usage is None:
        usage = Usage(prompt_tokens=evaluated + reused, completion_tokens=_count(timings.get("predicted_n")) or 0)
    usage.cached_tokens = min(reused, usage.prompt_tokens)
    usage.cache_reported = True
    prompt_ms = timings.get("prompt_ms")
    if isinstance(prompt_ms, int | float) and not isinstance(prompt_ms, bool) and prompt_ms >= 0:
        usage.prefill_seconds = round(prompt_ms / 1000, 3)
    return usage


def _incomplete_json(arguments: str) -> bool:
    """Arguments not yet a whole JSON value: none yet (a server that sends every fragment under a new index),
    or begun and unfinished. Whole JSON arguments end in `}` (or `]`), so only those are parsed: a
    fragment-per-index stream is not parsed once per fragment."""
    text = arguments.strip()
    if not text:
        return True
    if not text.endswith(("}", "]")):
        return True
    try:
        json.loads(text)
    except ValueError:
        return True
    except RecursionError:  # nested too deep to tell: not joined onto (today's behaviour)
        return False
    return False


def estimate_text_tokens(text: str) -> int:
    """The rough rule used when a server reports no usage: four characters per token."""
    return (len(text) + 3) // 4


class TurnBuilder:
    """Collects deltas; `turn()` returns the joined reply (usage None if the server sent none)."""

    def __init__(self) -> None:
        self.content = ""
        self.reasoning = ""
        self.reasoning_field = ""
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.timings: Any = None
        self.saw_choice = False
        self._calls: list[_PartialCall] = []
        self._slot: dict[int, int] = {}
        self.joined_fragments = 0

    def add_chunk(self, chunk: dict[str, Any]) -> None:
        self.usage = usage_from(chunk) or self.usage
        self.timings = chunk.get("timings") or self.timings
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            self.saw_choice = True
            delta = choice.get("delta") or {}
            self.content += _text(delta.get("content"))
            self.reasoning += _reasoning_of(delta)
            self.reasoning_field = self.reasoning_field or _reasoning_key(delta)
            for call_delta in delta.get("tool_calls") or []:
                self._add_call_delta(call_delta)
            self.finish_reason = choice.get("finish_reason") or self.finish_reason

    def _add_call_delta(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        call_id = delta.get("id") or ""
        if index is None:
            index = self._index_for_id(call_id)
        slot = self._slot.get(index)
        if slot is None and self._continues_previous(delta):
            slot = self._slot[index] = len(self._calls) - 1
            self.joined_fragments += 1
        if slot is not None and call_id and self._calls[slot].id and self._calls[slot].id != call_id:
            slot = None
        if slot is None:
            self._calls.append(_PartialCall())
            slot = self._slot[index] = len(self._calls) - 1
        call = self._calls[slot]
        call.id = call.id or call_id
        function = delta.get("function") or {}
        name = _text(function.get("name"))
        if name and name != call.name:
            call.name = name if name.startswith(call.name) else call.name + name
        call.arguments += _text(function.get("arguments"))

    def _continues_previous(self, delta: dict[str, Any]) -> bool:
        """Whether a delta under a new index is the rest of the previous call's arguments: it has no id and
        no name, and the previous call has a name and arguments that are not yet a whole JSON value."""
        function = delta.get("function") or {}
        if not self._calls or delta.get("id") or function.get("name") or not _text(function.get("arguments")):
            return False
        previous = self._calls[-1]
        return bool(previous.name) and _incomplete_json(previous.arguments)

    def _index_for_id(self, call_id: str) -> int:
        for index, slot in self._slot.items():
            if call_id and self._calls[slot].id == call_id:
                return index
        if call_id or not self._slot:
            return max(self._slot, default=-1) + 1
        return max(self._slot)

    def add_completion(self, completion: dict[str, Any]) -> None:
        self.usage = usage_from(completion)
        self.timings = completion.get("timings")
        for choice in completion.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            self.saw_choice = True
            message = choice.get("message") or {}
            self.content = _text(message.get("content"))
            self.reasoning = _reasoning_of(message)
            self.reasoning_field = _reasoning_key(message)
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                self._calls.append(
                    _PartialCall(call.get("id") or "", _text(function.get("name")), _text(function.get("arguments")))
                )
            self.finish_reason = choice.get("finish_reason")

    def reported_usage(self) -> Usage | None:
        """What the server said the reply used (usage and timings joined), or None when it said nothing."""
        return with_timings(self.usage, self.timings)

    def reasoning_so_far(self) -> str:
        """The reasoning streamed so far (its field, then `<think>` blocks), as `turn()` will join it."""
        thought = split_think(self.content, streaming=True)[0] if "<" in self.content else ""
        start = thought.rfind("<")  # a closing tag still arriving is not reasoning
        if start >= 0 and any(tag.startswith(thought[start:]) for tag in ("</think>", "</thinking>")):
            thought = thought[:start].rstrip()
        return "\n\n".join(part for part in (self.reasoning, thought) if part)

    def visible_content(self) -> str:
        """The answer streamed so far, without reasoning written between `<think>` tags."""
        return split_think(self.content, streaming=True)[1]

    def tool_calls(self) -> list[ToolCall]:
        return [
            ToolCall(id=c.id or f"call_{uuid.uuid4().hex[:24]}", name=c.name, arguments=c.arguments)
            for c in self._calls
            if c.name
        ]

    def turn(self) -> AssistantTurn:
        thought, answer = split_think(self.content)
        return AssistantTurn(
            content=answer,
            tool_calls=self.tool_calls(),
            reasoning="\n\n".join(part for part in (self.reasoning, thought) if part),
            reasoning_field=self.reasoning_field or ("think" if thought else ""),
            usage=self.reported_usage() or Usage(),
            finish_reason=self.finish_reason,
        )
