"""The scripted server's script: which replies it plays, which failures it injects, which quirks it has.

A script is JSON (or the same structure in Python)::

    {
      "steps": [                                  # one per chat-completion request, in order
        {"content": "Reading it.", "tool_calls": [{"name": "read_file", "arguments": {"file_path": "a.py"}}]},
        {"fault": "status", "status": 429, "retry_after": "0.05"},
        {"content": "Done.", "reasoning": "It was easy."},
        {"content": "Cached.", "usage": {"prompt_tokens": 900, "prompt_tokens_details": {"cached_tokens": 800}},
         "timings": {"prompt_n": 100, "cache_n": 800, "prompt_ms": 250.0}}   # llama.cpp's, on the last chunk
      ],
      "models": ["scripted-model"],               # GET /models; if given, other model names get a 404
      "api_key": "secret",                        # if given, another bearer token gets a 401
      "chunk_size": 16,                           # characters per streamed content/arguments delta
      "quirks": {"repeat_tool_call_ids": true},   # server-wide misbehaviour of real local servers
      "server_kind": "ollama",                    # answer that server's info endpoint (ollama: POST /api/show,
                                                  # llamacpp: GET /props, vllm: max_model_len in /v1/models,
                                                  # lmstudio: GET /api/v0/models)
      "context_window": 4096,                     # the window that endpoint reports
      "prompt_tokens": 900,                       # reported for every reply without its own usage (truncation)
      "delay": 0.5,                               # seconds every chat request waits before it is answered
      "no_tools_reply": {"content": "A summary."},# a request that offers no tools (a summary) gets this
                                                  # reply, without using a step
      "reasoning_contract": "kimi"                # play a family's reasoning contract (testing/contracts.py)
    }

A bare list is shorthand for ``{"steps": [...]}``. Stdlib only, like the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CONTRACTS = ("kimi", "deepseek", "chain", "minimax")  # testing/contracts.py
FAULTS = ("status", "drop", "drop_mid_stream", "malformed_sse", "empty_stream", "hang")
TURN_KEYS = {
    "content", "tool_calls", "reasoning", "reasoning_field", "finish_reason", "usage", "chunk_delay", "timings",
}
FAULT_KEYS = {"fault", "status", "retry_after", "headers", "message", "code", "seconds"}
TEXT_CALL_STYLES = ("tagged", "qwen_xml", "llama", "mistral", "deepseek", "fenced", "bare")
SERVER_KINDS = ("ollama", "llamacpp", "vllm", "lmstudio")
QUIRKS = {
    # Every streamed tool-call delta repeats the call's id and full name (llama.cpp, some Ollama builds).
    "repeat_tool_call_ids": bool,
    # A streaming request that carries tools gets HTTP 200 and an empty event stream (llama.cpp).
    "empty_stream_with_tools": bool,
    # An assistant message with tool_calls and `content: null` is answered with this status (500 or 422).
    "reject_null_content": int,
    # stream_options.include_usage is ignored: no usage chunk is sent.
    "ignore_include_usage": bool,
    # Tool calls are written into the content instead of `tool_calls`, in one of TEXT_CALL_STYLES: "tagged"
    # (Hermes <tool_call>{...}</tool_call>), "qwen_xml" (Qwen3-Coder <function=...>), "llama" (<|python_tag|>),
    # "mistral" ([TOOL_CALLS][...]), "deepseek" (<｜tool▁call▁begin｜>), "fenced" (```json) or "bare" (JSON alone).
    "tool_calls_as_text": str,
    # A server whose tool-call parser does not match the model's format: a reply with tool calls arrives with
    # neither the calls nor any text (vLLM with the wrong --tool-call-parser, a mismatched chat template).
    "swallow_tool_calls": bool,
    # Each streamed arguments fragment arrives as a call of its own (a new index and id): one call split into many.
    "split_streamed_arguments": bool,
    # Each streamed arguments fragment after the first arrives under a new index with no id and no name (older
    # vLLM and llama.cpp builds): only the index says which call it belongs to, and it says it wrongly.
    "orphan_argument_fragments": bool,
    # The reported prompt_tokens never exceed this: a server that silently cuts the prompt to its window (Ollama).
    "truncate_prompt": int,
    # A request whose prompt (characters / 4) and max_tokens exceed this is refused with HTTP 400, as vLLM and
    # llama-cpp-python refuse a prompt over their window ("maximum context length is N tokens").
    "max_prompt_tokens": int,
    # Like a llama.cpp slot, the server keeps the last prompt it read; a request that starts the same way
    # reports the shared part (characters / 4) as usage.prompt_tokens_details.cached_tokens.
    "prompt_cache": bool,
}


class ScriptError(ValueError):
    """The script is malformed; the message names the step and key."""


@dataclass
class ScriptedToolCall:
    name: str
    arguments: str
    id: str | None = None


@dataclass
class Turn:
    """One assistant reply."""

    content: str = ""
    tool_calls: list[ScriptedToolCall] = field(default_factory=list)
    reasoning: str = ""
    reasoning_field: str = "reasoning_content"
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    chunk_delay: float = 0.0
    timings: dict[str, Any] | None = None
    """llama.cpp's `timings` object, sent on the completion and on the chunk with the finish_reason."""


@dataclass
class Fault:
    """One injected failure; it consumes a request like a turn does."""

    kind: str
    status: int = 500
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "injected failure"
    code: str | None = None
    seconds: float = 30.0


Step = Turn | Fault


@dataclass
class Script:
    steps: list[Step] = field(default_factory=list)
    models: list[str] | None = None
    api_key: str | None = None
    chunk_size: int = 16
    quirks: dict[str, Any] = field(default_factory=dict)
    server_kind: str | None = None
    context_window: int = 8192
    prompt_tokens: int | None = None
    delay: float = 0.0
    """Seconds each chat request waits before its step is played: a model's thinking time, for benchmarks."""
    no_tools_reply: Turn | None = None
    """The reply to every request that offers no tools (compaction summaries), played without using a step,
    so a script need not know when the client will summarise."""
    reasoning_contract: str | None = None
    """A model family's reasoning contract (kimi, deepseek, chain, minimax): see testing/contracts.py."""

    def offered_models(self) -> list[str]:
        return self.models if self.models else ["scripted-model"]


def _check_keys(where: str, data: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise ScriptError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _parse_tool_call(where: str, data: Any) -> ScriptedToolCall:
    if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
        raise ScriptError(f"{where}: a tool call needs a string 'name' (and 'arguments', an object or JSON text)")
    _check_keys(where, data, {"name", "arguments", "id"})
    arguments = data.get("arguments", {})
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return ScriptedToolCall(name=data["name"], arguments=text, id=data.get("id"))


def _parse_step(index: int, data: Any) -> Step:
    where = f"step {index}"
    if not isinstance(data, Mapping):
        raise ScriptError(f"{where}: expected an object, got {type(data).__name__}")
    if "fault" in data:
        _check_keys(where, data, FAULT_KEYS)
        if data["fault"] not in FAULTS:
            raise ScriptError(f"{where}: fault must be one of {', '.join(FAULTS)}, got {data['fault']!r}")
        headers = {str(k): str(v) for k, v in dict(data.get("headers", {})).items()}
        if "retry_after" in data:
            headers["Retry-After"] = str(data["retry_after"])
        return Fault(
            kind=data["fault"],
            status=int(data.get("status", 500)),
            headers=headers,
            message=str(data.get("message", f"injected {data['fault']} failure")),
            code=data.get("code"),
            seconds=float(data.get("seconds", 30.0)),
        )
    _check_keys(where, data, TURN_KEYS)
    calls = [_parse_tool_call(f"{where} tool call {i}", c) for i, c in enumerate(data.get("tool_calls", []))]
    return Turn(
        content=str(data.get("content", "")),
        tool_calls=calls,
        reasoning=str(data.get("reasoning", "")),
        reasoning_field=str(data.get("reasoning_field", "reasoning_content")),
        finish_reason=data.get("finish_reason"),
        usage=data.get("usage"),
        chunk_delay=float(data.get("chunk_delay", 0.0)),
        timings=data.get("timings"),
    )


def parse_script(data: Any) -> Script:
    """Validate a script given as parsed JSON; raises ScriptError naming the step and key at fault."""
    if isinstance(data, Script):
        return data
    if isinstance(data, list):
        data = {"steps": data}
    if not isinstance(data, Mapping):
        raise ScriptError(f"a script is an object or a list of steps, got {type(data).__name__}")
    _check_keys(
        "script",
        data,
        {"steps", "models", "api_key", "chunk_size", "quirks", "server_kind", "context_window", "prompt_tokens",
         "delay", "no_tools_reply", "reasoning_contract"},
    )
    if data.get("reasoning_contract") not in (None, *CONTRACTS):
        raise ScriptError(f"reasoning_contract: expected one of {', '.join(CONTRACTS)}")
    if data.get("server_kind") not in (None, *SERVER_KINDS):
        raise ScriptError(f"server_kind: expected one of {', '.join(SERVER_KINDS)}, got {data['server_kind']!r}")
    quirks = dict(data.get("quirks", {}))
    for name, value in quirks.items():
        if name not in QUIRKS:
            raise ScriptError(f"quirks: unknown quirk {name!r}; known: {', '.join(sorted(QUIRKS))}")
        if not isinstance(value, QUIRKS[name]):
            raise ScriptError(f"quirks.{name}: expected {QUIRKS[name].__name__}, got {value!r}")
    if quirks.get("tool_calls_as_text") not in (None, *TEXT_CALL_STYLES):
        raise ScriptError(f"quirks.tool_calls_as_text: expected one of {', '.join(TEXT_CALL_STYLES)}")
    return Script(
        steps=[_parse_step(i, step) for i, step in enumerate(data.get("steps", []))],
        models=data.get("models"),
        api_key=data.get("api_key"),
        chunk_size=max(1, int(data.get("chunk_size", 16))),
        quirks=quirks,
        server_kind=data.get("server_kind"),
        context_window=int(data.get("context_window", 8192)),
        prompt_tokens=None if data.get("prompt_tokens") is None else int(data["prompt_tokens"]),
        delay=max(0.0, float(data.get("delay", 0.0))),
        no_tools_reply=None if data.get("no_tools_reply") is None else _no_tools_reply(data["no_tools_reply"]),
        reasoning_contract=data.get("reasoning_contract"),
    )


def _no_tools_reply(data: Any) -> Turn:
    turn = _parse_step(-1, data)
    if not isinstance(turn, Turn):
        raise ScriptError("no_tools_reply: expected a reply (content, ...), not a fault")
    return turn
