"""Tool calling: a tiny tool the model must call, asked once for one call and once for two in one reply.

Native `tool_calls` are checked whole: one call (not the pieces of one split into many, as some servers stream
them), arguments that parse. A reply without native calls is read with the agent's own dialect parsers
(agent/model/dialects), so the doctor says which text dialect the model wrote and that `tool_calls = "text"`
reads it, or that the server's parser swallowed the call (no calls and no text), naming the flag to fix it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sneakycode.api.model_facts import (
    DIALECTS,
    ModelConfig,
    ToolCall,
    output_cap,
    parse_text_tool_calls,
    text_call_dialect_for,
)
from sneakycode.api.probe import Endpoint, Exchange
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.fixes import orphan_fragments_fix, tool_parser_fix

TOOL_NAME = "get_weather"
PARAMETERS = {"type": "object", "properties": {"city": {"type": "string", "description": "The city's name."}},
              "required": ["city"]}
TOOL = {"type": "function", "function": {"name": TOOL_NAME, "description": "The current weather in a city.",
                                         "parameters": PARAMETERS}}
SCHEMAS = {TOOL_NAME: PARAMETERS}
SYSTEM = {"role": "system", "content": "You are a helpful assistant. Use the tools you are given."}
ONE = [SYSTEM, {"role": "user", "content": "What is the weather in Paris right now? Call get_weather."}]
TWO = [SYSTEM, {"role": "user", "content": "What is the weather in Paris and in Tokyo right now? Call get_weather "
                "once for each city, both calls in this one reply."}]
MAX_TOKENS = 512
"""Room for a reasoning model to think before it calls."""


@dataclass
class ToolFindings:
    mode: str | None = None
    """The tool_calls setting that worked: native, text, or None (neither)."""
    dialect: str | None = None
    exchange: Exchange | None = None
    """The one-call probe's exchange: the reasoning check answers its call."""


def _arguments(call: ToolCall) -> dict[str, Any] | None:
    try:
        value = json.loads(call.arguments or "{}")
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def text_dialect(content: str, model: str) -> str | None:
    """The dialect whose parser reads a call of the probe tool in `content`, the model family's first."""
    family = text_call_dialect_for(model)
    for dialect in sorted(DIALECTS, key=lambda d: d.name != family):
        if dialect.name == "reasoning" or dialect.opener.search(content) is None:
            continue
        blocks = list(dialect.find(content, SCHEMAS, family))
        if any(call.name == TOOL_NAME and not call.invalid for block in blocks for call in block.calls):
            return dialect.name
    return None


def _send(endpoint: Endpoint, config: ModelConfig, messages: list[dict[str, Any]]) -> tuple[Exchange, str]:
    """The probe streamed, as the agent sends it; once without streaming if the stream came back empty."""
    tokens = min(MAX_TOKENS, output_cap(config))
    exchange = endpoint.send(messages, tools=[TOOL], max_tokens=tokens)
    if exchange.empty_stream:
        return endpoint.send(messages, tools=[TOOL], max_tokens=tokens, stream=False), (
            " (the streamed request came back empty, so it was sent again without streaming, as SneakyCode does)")
    return exchange, ""


def check_tool_calls(report: Report, endpoint: Endpoint, config: ModelConfig) -> ToolFindings:
    found = ToolFindings()
    exchange, note = _send(endpoint, config, ONE)
    found.exchange = exchange
    kind, family = config.server_kind, text_call_dialect_for(config.model)
    if exchange.failure is not None:
        refused = exchange.failure.kind in ("bad_request", "server") and "tool" in exchange.failure.summary.lower()
        # Ollama refuses tools for a model whose template has none ("does not support tools").
        report.add(Check("tool_calls", "fail", f"a request with a tool failed: {exchange.failure.summary}",
                         "model" if refused else "server",
                         tool_parser_fix(kind, family) if refused else "see the server's log"))
        return found
    turn = exchange.turn
    calls = turn.tool_calls
    data: dict[str, Any] = {"native_calls": len(calls), "deltas": len(exchange.call_deltas),
                            "finish_reason": turn.finish_reason, "content": turn.content[:300]}
    if calls:
        parsed = [_arguments(c) for c in calls]
        data["calls"] = [{"name": c.name, "arguments": c.arguments[:200]} for c in calls]
        if len(calls) > 1 and None in parsed and _arguments(ToolCall("", "", "".join(c.arguments for c in calls))):
            report.add(Check("tool_calls", "fail", f"one call arrived as {len(calls)} calls, its arguments split "
                             f"between them ({', '.join(repr(c.arguments) for c in calls[:4])}...){note}", "server",
                             "upgrade the server: it streams each fragment of a call's arguments as a new call "
                             "(a new index or id per delta)", data))
            return found
        if None in parsed:
            report.add(Check("tool_calls", "fail", f"native tool_calls whose arguments are not a JSON object: "
                             f"{calls[0].arguments[:120]!r}{note}", "model" if len(calls) == 1 else "server",
                             "a model trained for tool calls, or the server's tool parser for its family: "
                             + tool_parser_fix(kind, family), data))
            return found
        found.mode = "native"
        shown = f"{calls[0].name}({calls[0].arguments})"
        if joined := exchange.builder.joined_fragments:
            data["orphan_fragments"] = joined
            report.add(Check("tool_calls", "warn", f"native tool_calls: {shown}, but {joined} "
                             "of its argument fragments arrived under a new index with no id and no name; SneakyCode "
                             f"joined them back (other clients drop them){note}", "server", orphan_fragments_fix(kind),
                             data))
            return found
        pieces = sum(1 for d in exchange.call_deltas if (d.get("function") or {}).get("arguments"))
        streamed = f", its arguments streamed in {pieces} pieces and joined whole" if pieces > 1 else ""
        city = str((parsed[0] or {}).get("city", ""))
        if calls[0].name == TOOL_NAME and "paris" in city.lower():
            report.add(Check("tool_calls", "pass", f"native tool_calls: {shown}{streamed}{note}", data=data))
        else:
            report.add(Check("tool_calls", "warn", f"native tool_calls, but not the call asked for: {shown}{note}",
                             "model", "a larger or tool-trained model calls the right tool with the right arguments",
                             data))
        return found
    dialect = text_dialect(turn.content, config.model)
    read, _ = parse_text_tool_calls(turn.content, SCHEMAS, anywhere=True, model=config.model)
    if dialect is not None and any(c.name == TOOL_NAME and not c.invalid for c in read):
        found.mode, found.dialect = "text", dialect
        data["dialect"] = dialect
        report.add(Check(
            "tool_calls", "warn", f"no native tool_calls: the model wrote its call as text in the {dialect} dialect, "
            f"which SneakyCode reads with tool_calls = \"text\"{note}", "server",
            f"turn the server's tool parser on so calls arrive natively: {tool_parser_fix(kind, family or dialect)}; "
            "or keep tool_calls = \"text\" in the config (doctor --save writes it)", data))
        return found
    if not turn.content.strip():
        if turn.finish_reason == "length":
            report.add(Check("tool_calls", "fail", f"the reply used all {min(MAX_TOKENS, output_cap(config))} "
                             f"output tokens {'reasoning' if turn.reasoning else ''} and called nothing{note}",
                             "model", "max_output_tokens = 4096 in the config, or a model that thinks less", data))
            return found
        report.add(Check(
            "tool_calls", "fail", f"the reply has no tool_calls and no text (finish_reason={turn.finish_reason}): "
            f"the server's tool-call parser took the call and lost it{note}", "server",
            f"the parser that matches the model's format: {tool_parser_fix(kind, family)}", data))
        return found
    report.add(Check(
        "tool_calls", "fail", f"the model answered in prose and called nothing: {turn.content.strip()[:120]!r}{note}",
        "model", "if the server drops the tools from the prompt, turn them on: "
        f"{tool_parser_fix(kind, family)}; otherwise the model does not call tools: choose a tool-trained model",
        data))
    return found


def check_parallel(report: Report, endpoint: Endpoint, config: ModelConfig, found: ToolFindings) -> None:
    if found.mode is None:
        report.skip(["parallel_calls"], "skipped: no tool call came through")
        return
    exchange, note = _send(endpoint, config, TWO)
    if exchange.failure is not None:
        report.add(Check("parallel_calls", "fail", f"the request failed: {exchange.failure.summary}", "server",
                         "see the server's log"))
        return
    turn = exchange.turn
    calls = turn.tool_calls
    if found.mode == "text" and not calls:
        calls, _ = parse_text_tool_calls(turn.content, SCHEMAS, anywhere=True, model=config.model)
    cities = sorted({str((_arguments(c) or {}).get("city", "")).lower() for c in calls if c.name == TOOL_NAME})
    data = {"calls": len(calls), "cities": cities}
    how = "native" if found.mode == "native" else "text"
    if len(cities) >= 2:
        report.add(Check("parallel_calls", "pass", f"{len(calls)} {how} calls in one reply ({', '.join(cities)})"
                         f"{note}", data=data))
    else:
        report.add(Check("parallel_calls", "warn", f"asked for two calls in one reply, got {len(calls)}{note}: the "
                         "model calls one tool per turn, which works, in more turns", "model",
                         "nothing to set", data))
