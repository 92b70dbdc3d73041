"""Streaming, usage and the output cap, from one short streamed request with a small max_tokens; and the
speed the probes measured on the way (time to first token, prompt and generated tokens per second)."""

from __future__ import annotations

import math
from typing import Any

from sneakycode.api.model_facts import ModelConfig, estimate_text_tokens
from sneakycode.api.probe import Endpoint, Exchange
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.fixes import usage_fix

CAP = 16
"""The output cap of the counting probe: far below what counting to 100 takes."""
MIN_TIMED_PROMPT = 256
"""Fewer prompt tokens read than this time the server's latency, not its reading."""
SLOW_GENERATION = 5.0
"""Generated tokens per second below which an agent's turns get painfully slow."""
COUNT = [{"role": "user", "content": "Count from 1 to 100, the numbers separated by spaces, nothing else."}]


def check_stream(report: Report, endpoint: Endpoint, config: ModelConfig) -> Exchange:
    exchange = endpoint.send(COUNT, max_tokens=CAP)
    kind = config.server_kind
    if exchange.failure is not None:
        report.add(Check("streaming", "fail", f"a streamed request failed: {exchange.failure.summary}", "server",
                         "see the server's log"))
        report.skip(["usage", "output_cap"], "skipped: the streamed request failed")
        return exchange
    if exchange.empty_stream:
        report.add(Check("streaming", "warn", "HTTP 200 with an empty event stream: SneakyCode falls back to "
                         "requests without streaming (no live text, no stall watch)", "server",
                         "upgrade the server; its streaming is broken"))
        report.skip(["usage", "output_cap"], "skipped: the stream was empty")
        return exchange
    first = round(exchange.first_token or 0.0, 3)
    data: dict[str, Any] = {"chunks": exchange.chunks, "first_token_seconds": first}
    if exchange.chunks >= 2:
        report.add(Check("streaming", "pass", f"{exchange.chunks} chunks, the first after {first} s", data=data))
    else:
        report.add(Check("streaming", "warn", f"the reply came in {exchange.chunks} chunk: the server buffers it, so "
                         "text shows only at the end and a stall cannot be told from a long reply", "server",
                         "upgrade the server or turn its response buffering off (a proxy in between?)", data))
    turn = exchange.turn
    usage = exchange.usage
    if usage is None:
        report.add(Check("usage", "warn", "no token usage in the stream (stream_options.include_usage ignored): "
                         "SneakyCode estimates tokens as characters / 4, so budgets, costs and the window's fill are "
                         "approximate", "server", usage_fix(kind)))
        produced = estimate_text_tokens(turn.content + turn.reasoning)
    else:
        cached = f", {usage.cached_tokens} cached" if usage.cache_reported else ""
        report.add(Check("usage", "pass", f"{usage.prompt_tokens} prompt{cached} and {usage.completion_tokens} "
                         "completion tokens reported", data={"prompt_tokens": usage.prompt_tokens,
                                                             "completion_tokens": usage.completion_tokens}))
        produced = usage.completion_tokens
    cap_data = {"max_tokens": CAP, "completion_tokens": produced, "finish_reason": turn.finish_reason}
    counted = "" if usage is not None else " (estimated)"
    if produced > 2 * CAP:
        report.add(Check("output_cap", "fail", f"{produced}{counted} tokens came for max_tokens={CAP}: the server "
                         "ignores the cap, so a rambling reply can fill the whole window", "server",
                         "upgrade the server (max_tokens must bound the reply); max_output_tokens cannot help",
                         cap_data))
    else:
        report.add(Check("output_cap", "pass", f"stopped at {produced}{counted} tokens, finish_reason="
                         f"{turn.finish_reason}, for max_tokens={CAP}", data=cap_data))
    return exchange


def generated_per_second(exchange: Exchange | None) -> float | None:
    """Tokens per second while the reply streamed: llama.cpp's own figure, else measured from the first chunk to
    the last."""
    if exchange is None or not exchange.ok:
        return None
    server = exchange.timings.get("predicted_per_second")
    if isinstance(server, int | float) and server > 0:
        return round(float(server), 1)
    if exchange.first_token is None or exchange.last_token is None:
        return None
    # Without usage, the chunks count the tokens: local servers send one token a chunk.
    made = exchange.usage.completion_tokens if exchange.usage is not None else exchange.chunks
    span = exchange.last_token - exchange.first_token
    return round((made - 1) / span, 1) if made > 1 and span > 0 else None


def prompt_per_second(exchange: Exchange | None) -> float | None:
    """Prompt tokens read per second: llama.cpp's own figure, else the uncached prompt over the first token's wait;
    None when too little of the prompt was read to tell (most of it came from the cache)."""
    if exchange is None or not exchange.ok:
        return None
    usage = exchange.usage
    read = usage.prefilled_tokens if usage is not None else exchange.prompt_estimate
    if not read or read < MIN_TIMED_PROMPT:
        return None
    server = exchange.timings.get("prompt_per_second")
    if isinstance(server, int | float) and server > 0:
        return round(float(server), 1)
    return round(read / exchange.first_token, 1) if exchange.first_token else None


def check_speed(report: Report, config: ModelConfig, long: Exchange | None, short: Exchange | None) -> None:
    if (long is None or not long.ok) and (short is None or not short.ok):
        report.skip(["speed"], "skipped: no reply to time")
        return
    read, made = prompt_per_second(long) or prompt_per_second(short), generated_per_second(short)
    data: dict[str, Any] = {"prompt_tokens_per_second": read, "generated_tokens_per_second": made}
    parts = []
    if long is not None and long.ok and long.first_token is not None:
        prompt = str(long.usage.prompt_tokens) if long.usage is not None else f"~{long.prompt_estimate}"
        cached = f" ({long.usage.cached_tokens} cached)" if long.usage is not None and long.usage.cached_tokens else ""
        data["first_token_seconds_long_prompt"] = round(long.first_token, 3)
        parts.append(f"first token after {long.first_token:.2f} s on a {prompt}-token prompt{cached}")
    if short is not None and short.ok and short.first_token is not None:
        data["first_token_seconds"] = round(short.first_token, 3)
        parts.append(f"{short.first_token:.2f} s on a short one")
    parts.append(f"{read if read is not None else '?'} prompt tokens/s, {made if made is not None else '?'} "
                 "generated tokens/s")
    measured = "; ".join(parts)
    full_read = config.context_window / read if read else None
    if full_read is not None and full_read > config.request_timeout:
        data["full_window_seconds"] = round(full_read)
        report.add(Check("speed", "warn", f"{measured}: reading a full {config.context_window}-token window would "
                         f"take ~{round(full_read)} s, over request_timeout ({config.request_timeout:g} s)", "config",
                         f"request_timeout = {math.ceil(full_read * 1.5)} in the config", data))
    elif made is not None and made < SLOW_GENERATION:
        report.add(Check("speed", "warn", f"{measured}: a 500-token reply takes {round(500 / made)} s", "server",
                         "a smaller model or quantization, a GPU, or fewer other jobs on the machine", data))
    else:
        report.add(Check("speed", "pass", measured, data=data))
