"""Turn a scripted Turn into the JSON an OpenAI-compatible server sends: one completion or a list of chunks.

Chunks are cut into `chunk_size` pieces so clients really have to join content and tool-call fragments.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

from sneakycode.testing.script import Script, ScriptedToolCall, Turn


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _call_id(step: int, index: int, call: ScriptedToolCall) -> str:
    return call.id or f"call_{step}_{index}"


def _qwen_xml(name: str, arguments: dict[str, Any]) -> str:
    params = "".join(
        f"<parameter={key}>\n{value if isinstance(value, str) else json.dumps(value)}\n</parameter>\n"
        for key, value in arguments.items()
    )
    return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def _deepseek(name: str, arguments: dict[str, Any]) -> str:
    fence = f"```json\n{json.dumps(arguments)}\n```"
    return f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n{fence}<｜tool▁call▁end｜>"


def _as_text(turn: Turn, style: str) -> str:
    """The quirk `tool_calls_as_text`: the calls written into the content the way local models do."""
    objects = [{"name": c.name, "arguments": json.loads(c.arguments or "{}")} for c in turn.tool_calls]
    if style == "tagged":
        blocks = "".join(f"<tool_call>\n{json.dumps(o)}\n</tool_call>" for o in objects)
    elif style == "qwen_xml":
        blocks = "\n".join(_qwen_xml(o["name"], o["arguments"]) for o in objects)
    elif style == "llama":
        llama = [{"name": o["name"], "parameters": o["arguments"]} for o in objects]
        blocks = "<|python_tag|>" + "; ".join(json.dumps(o) for o in llama)
    elif style == "mistral":
        blocks = "[TOOL_CALLS]" + json.dumps(objects)
    elif style == "deepseek":
        blocks = "<｜tool▁calls▁begin｜>" + "".join(_deepseek(o["name"], o["arguments"]) for o in objects)
        blocks += "<｜tool▁calls▁end｜>"
    elif style == "fenced":
        return "```json\n" + json.dumps(objects[0] if len(objects) == 1 else objects) + "\n```"
    else:
        return json.dumps(objects[0] if len(objects) == 1 else objects)
    return f"{turn.content}\n{blocks}" if turn.content else blocks


def effective_turn(turn: Turn, script: Script) -> Turn:
    """The turn as this server would really send it (tool calls moved into the text, or lost, when quirked)."""
    if script.quirks.get("swallow_tool_calls") and turn.tool_calls:
        return Turn(reasoning=turn.reasoning, reasoning_field=turn.reasoning_field, finish_reason="stop",
                    usage=turn.usage, chunk_delay=turn.chunk_delay, timings=turn.timings)
    style = script.quirks.get("tool_calls_as_text")
    if not style or not turn.tool_calls:
        return turn
    return Turn(
        content=_as_text(turn, style),
        reasoning=turn.reasoning,
        reasoning_field=turn.reasoning_field,
        finish_reason=turn.finish_reason or "stop",
        usage=turn.usage,
        chunk_delay=turn.chunk_delay,
        timings=turn.timings,
    )


def prompt_text(request: dict[str, Any]) -> str:
    """What the server counts as the prompt: the messages and the tools, as JSON."""
    return json.dumps(request.get("messages", [])) + json.dumps(request.get("tools", []))


def refusal(request: dict[str, Any], script: Script) -> tuple[int, str, str | None] | None:
    """The (status, message, code) a quirked server refuses this request with, or None when it takes it."""
    null_status = script.quirks.get("reject_null_content")
    if null_status and any(
        m.get("role") == "assistant" and m.get("tool_calls") and m.get("content") is None
        for m in request.get("messages", []) if isinstance(m, dict)
    ):
        return int(null_status), "assistant message content must be a string", None
    window = script.quirks.get("max_prompt_tokens")
    prompt = len(prompt_text(request)) // 4
    if window is not None and prompt + int(request.get("max_tokens") or 0) > window:
        return 400, (f"This model's maximum context length is {window} tokens. However, you requested "
                     f"{prompt + int(request.get('max_tokens') or 0)} tokens."), "context_length_exceeded"
    return None


class PromptCache:
    """The quirk `prompt_cache`: the last prompt read, and how much of the next one starts the same way."""

    def __init__(self) -> None:
        self._last = ""
        self._lock = threading.Lock()

    def cached_tokens(self, request: dict[str, Any]) -> int:
        text = prompt_text(request)
        with self._lock:
            shared = len(os.path.commonprefix([self._last, text]))  # noqa: RUF071 (characters are meant)
            self._last = text
        return shared // 4


def usage_of(
    turn: Turn, request: dict[str, Any], script: Script | None = None, cached: int | None = None
) -> dict[str, Any]:
    if turn.usage is None and script is not None and script.prompt_tokens is not None:
        usage: dict[str, Any] = {"prompt_tokens": script.prompt_tokens, "completion_tokens": 1}
    elif turn.usage is not None:
        usage = {"prompt_tokens": 0, "completion_tokens": 0, **turn.usage}
    else:
        reply = turn.content + turn.reasoning + "".join(c.name + c.arguments for c in turn.tool_calls)
        usage = {"prompt_tokens": len(prompt_text(request)) // 4, "completion_tokens": len(reply) // 4 + 1}
    cap = script.quirks.get("truncate_prompt") if script is not None else None
    if cap is not None:
        usage["prompt_tokens"] = min(usage["prompt_tokens"], cap)
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": min(cached, usage["prompt_tokens"])}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


def _finish_reason(turn: Turn) -> str:
    return turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")


def completion_body(
    turn: Turn, step: int, request: dict[str, Any], script: Script | None = None, cached: int | None = None
) -> dict[str, Any]:
    """A non-streamed `chat.completion` object (`cached`: the prompt tokens the quirk `prompt_cache` reuses)."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": _call_id(step, i, c), "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(turn.tool_calls)
        ]
    if turn.reasoning:
        message[turn.reasoning_field] = turn.reasoning
    body = {
        "id": f"chatcmpl-{step}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(turn)}],
        "usage": usage_of(turn, request, script, cached),
    }
    return {**body, "timings": turn.timings} if turn.timings is not None else body


def stream_chunks(
    turn: Turn, step: int, request: dict[str, Any], script: Script, cached: int | None = None
) -> list[dict[str, Any]]:
    """The `chat.completion.chunk` objects of a streamed reply, in order (without the final [DONE])."""
    size = script.chunk_size
    repeat_ids = bool(script.quirks.get("repeat_tool_call_ids"))
    split = bool(script.quirks.get("split_streamed_arguments"))
    orphans = bool(script.quirks.get("orphan_argument_fragments"))
    base = {
        "id": f"chatcmpl-{step}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request.get("model", "scripted-model"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({turn.reasoning_field: piece}) for piece in _pieces(turn.reasoning, size)]
    chunks += [chunk({"content": piece}) for piece in _pieces(turn.content, size)]
    index = 0
    for number, call in enumerate(turn.tool_calls):
        call_id = _call_id(step, number, call)
        head = {"index": index, "id": call_id, "type": "function", "function": {"name": call.name, "arguments": ""}}
        chunks.append(chunk({"tool_calls": [head]}))
        for part, piece in enumerate(_pieces(call.arguments, size)):
            delta: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if split and part:  # every fragment after the first opens a call of its own
                index += 1
                delta = {**head, "index": index, "id": f"{call_id}_{part}", "function": {"name": call.name,
                                                                                         "arguments": piece}}
            elif orphans and part:  # a new index, and neither the id nor the name to say whose
                index += 1
                delta = {"index": index, "function": {"arguments": piece}}
            elif repeat_ids:
                delta = {**head, "function": {"name": call.name, "arguments": piece}}
            chunks.append(chunk({"tool_calls": [delta]}))
        index += 1
    last = chunk({}, _finish_reason(turn))
    chunks.append({**last, "timings": turn.timings} if turn.timings is not None else last)
    wants_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    if wants_usage and not script.quirks.get("ignore_include_usage"):
        chunks.append({**base, "choices": [], "usage": usage_of(turn, request, script, cached)})
    return chunks
