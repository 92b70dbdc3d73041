"""The context window: what the server reports, what SneakyCode will use, and whether a prompt of known size
is really read whole (Ollama's small default window cuts the front of a longer prompt without a word). The
same long prompt, sent twice, shows whether the server reuses what it has read (prompt caching)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sneakycode.api.model_facts import TRUNCATION_RATIO, DiscoveredWindow, ModelConfig, estimate_text_tokens
from sneakycode.api.probe import Endpoint, Exchange
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.fixes import cache_fix, window_fix

PROBE_TOKENS = 5120
"""The largest prompt the window probe sends: over Ollama's default window (4,096) by a margin, cheap on a hosted
API, and on a CPU that reads some 30 tokens a second, under three minutes."""
PROBE_SHARE = 0.75
"""Of the window SneakyCode will use, the share the probe fills (the rest is room for the reply)."""
# Words that tokenizers cut about as the four-characters-a-token estimate says (measured with SmolLM2's: 1.07
# tokens per estimated one), so the prompt's real size is close to the estimate and well inside the window.
_LINE = "Note {}: the quick brown fox jumps over the lazy dog, and the dog sleeps on.\n"
_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


def probe_messages(window: int) -> tuple[list[dict[str, str]], int]:
    """A prompt of lines filling PROBE_SHARE of `window` (at most PROBE_TOKENS), the question last so a server
    that cuts from the front still answers, and its low token estimate (characters / 4)."""
    target = min(PROBE_TOKENS, int(window * PROBE_SHARE))
    per_line = estimate_text_tokens(_LINE.format(_WORDS[0]))
    lines = "".join(_LINE.format(_WORDS[i % len(_WORDS)]) for i in range(max(1, target // per_line - 10)))
    text = f"{lines}\nThe text above has numbered lines. Reply with the single word OK."
    return [{"role": "user", "content": text}], estimate_text_tokens(text)


@dataclass
class WindowFindings:
    honoured: int | None = None
    """The window that worked, for --save (None: none proven)."""
    probe: Exchange | None = None
    repeat: Exchange | None = None
    stopped: bool = False
    """The server dropped the connection: the later probes are skipped."""


def check_reported(report: Report, config: ModelConfig, reported: DiscoveredWindow | None) -> None:
    used, source = config.context_window, config.context_window_source
    if reported is None:
        if config.context_window_source.startswith("configured"):
            report.add(Check("context_window", "pass", f"{used} tokens ({source}); the server reports none, so the "
                             "probe below checks it", data={"used": used}))
        elif config.local or config.provider == "custom":
            report.add(Check("context_window", "warn", f"the server reports no window; SneakyCode uses {used} tokens "
                             f"({source})", "config", f"context_window = N in the config, N the server's window "
                             f"(for example {window_fix(config.server_kind, used)})", {"used": used}))
        else:
            report.add(Check("context_window", "pass", f"{used} tokens ({source})", data={"used": used}))
        return
    data = {"reported": reported.tokens, "used": used, "reported_by": reported.source}
    if used > reported.tokens:
        report.add(Check(
            "context_window", "fail", f"SneakyCode is configured for {used} tokens ({source}) but {reported.source} "
            f"runs {reported.tokens}", "config",
            f"context_window = {reported.tokens} in the config, or a larger server window: "
            f"{window_fix(reported.kind, used)}", data))
    else:
        report.add(Check("context_window", "pass", f"{reported.tokens} tokens reported by {reported.source}; "
                         f"SneakyCode uses {used} ({source})", data=data))


def check_honoured(report: Report, endpoint: Endpoint, config: ModelConfig,
                   reported: DiscoveredWindow | None) -> WindowFindings:
    found = WindowFindings()
    messages, sent = probe_messages(config.context_window)
    found.probe = probe = endpoint.send(messages, max_tokens=8)
    probe.prompt_estimate = sent
    if probe.empty_stream:
        # llama-cpp-python fails a prompt over its window after the stream began: the stream is empty, and only
        # the same request without streaming says why (the agent's client falls back the same way).
        found.probe = probe = endpoint.send(messages, max_tokens=8, stream=False)
    kind = config.server_kind
    data: dict[str, object] = {"sent_estimate": sent, "window": config.context_window}
    if probe.failure is not None:
        failure = probe.failure
        found.stopped = failure.kind == "connection"
        if over_window(failure.kind, failure.summary):
            server_window = window_in(failure.summary)
            data["server_window"] = server_window
            trusted = reported is not None and reported.tokens >= config.context_window
            setting = f"context_window = {server_window or 'N'} in the config" + (
                "" if server_window else ", N the server's window")
            report.add(Check("window_honoured", "fail", f"a ~{sent}-token prompt, within the {config.context_window} "
                             f"tokens SneakyCode uses ({config.context_window_source}), was refused as too long "
                             f"({failure.summary})", "server" if trusted else "config",
                             f"{setting}; or a larger server window: {window_fix(kind, config.context_window)}", data))
            found.honoured = server_window if server_window and server_window >= 1024 else None
        elif failure.kind == "timeout":
            report.add(Check("window_honoured", "fail", f"a ~{sent}-token prompt got no complete reply within "
                             f"{endpoint.timeout:g} s: the server reads too slowly for that (a session's first "
                             "request is about as long)", "server",
                             f"a faster server or a smaller model; or request_timeout = {round(endpoint.timeout * 3)}"
                             " in the config (and doctor --timeout) if a slow start is acceptable", data))
        else:
            report.add(Check("window_honoured", "fail", f"a ~{sent}-token prompt failed: {failure.summary}",
                             "server", _failure_fix(config, failure.kind), data))
        return found
    usage = probe.usage
    if usage is None or usage.estimated:
        report.add(Check("window_honoured", "warn", f"sent ~{sent} prompt tokens, but the server reports no usage, "
                         "so a cut prompt cannot be seen", "server", "see the usage check", data))
        return found
    data["prompt_tokens"] = usage.prompt_tokens
    if usage.prompt_tokens < TRUNCATION_RATIO * sent:
        read = usage.prompt_tokens
        report.add(Check(
            "window_honoured", "fail", f"the server read {read} prompt tokens of at least ~{sent} sent: it cut the "
            "prompt to a smaller window, silently", "server",
            f"{window_fix(kind, config.context_window)}; or context_window = {max(1024, read // 512 * 512)} in the "
            "config", data))
        small = reported.tokens if reported is not None and reported.tokens < config.context_window else None
        found.honoured = small or max(1024, read // 512 * 512)
        return found
    report.add(Check("window_honoured", "pass", f"read {usage.prompt_tokens} prompt tokens of ~{sent} sent, whole",
                     data=data))
    found.honoured = config.context_window
    return found


TIMING_FLOOR = 0.2
"""Seconds the first answer's first token must take before a twice-as-fast second one counts as a cache hit:
below it, connection reuse and noise alone make the second faster."""


def check_cache(report: Report, endpoint: Endpoint, config: ModelConfig, found: WindowFindings) -> None:
    first = found.probe
    if first is None or not first.ok or found.stopped:
        report.skip(["prompt_cache"], "skipped: the long prompt did not go through")
        return
    messages, _ = probe_messages(config.context_window)
    found.repeat = second = endpoint.send(messages, max_tokens=8)
    if second.failure is not None:
        found.stopped = second.failure.kind == "connection"
        report.add(Check("prompt_cache", "fail", f"the repeated prompt failed: {second.failure.summary}", "server",
                         _failure_fix(config, second.failure.kind)))
        return
    usage, first_usage = second.usage, first.usage
    prompt = usage.prompt_tokens if usage is not None else 0
    ttft = [round(e.first_token or e.seconds, 3) for e in (first, second)]
    data = {"cached_tokens": usage.cached_tokens if usage else None, "prompt_tokens": prompt,
            "first_token_seconds": ttft}
    if usage is not None and usage.cache_reported and usage.cached_tokens >= 0.5 * prompt > 0:
        first_cached = first_usage.cached_tokens if first_usage is not None else 0
        report.add(Check("prompt_cache", "pass", f"the same prompt again: {usage.cached_tokens} of {prompt} prompt "
                         f"tokens cached (the first time {first_cached}); first token after {ttft[1]} s instead of "
                         f"{ttft[0]} s", data=data))
    elif ttft[1] < 0.5 * ttft[0] and ttft[0] >= TIMING_FLOOR:
        report.add(Check("prompt_cache", "pass", f"the same prompt again answered in {ttft[1]} s instead of "
                         f"{ttft[0]} s (the server does not report cached tokens)", data=data))
    else:
        said = f"only {usage.cached_tokens} of {prompt} prompt tokens reported cached" if (
            usage is not None and usage.cache_reported) else "no cached tokens reported"
        if ttft[0] < TIMING_FLOOR:  # a faster second answer proves nothing when both are this quick
            timing = (f"both first tokens came too soon to tell a cache by timing ({ttft[0]} s, then {ttft[1]} s; "
                      f"under {TIMING_FLOOR} s)")
        else:
            timing = f"the first token came after {ttft[1]} s, not twice as fast as the first time ({ttft[0]} s)"
        report.add(Check("prompt_cache", "warn", f"prompt caching not confirmed: the same prompt again, {said}, "
                         f"and {timing}; without a cache every turn reads the whole conversation again", "server",
                         cache_fix(config.server_kind, not (config.local or config.provider == "custom")), data))


def over_window(kind: str, summary: str) -> bool:
    """Whether a refusal says the prompt is over the window (also in words the agent's classifier does not know,
    such as llama-cpp-python's "exceed context window")."""
    text = summary.lower()
    return kind == "context_length" or ("context" in text and any(w in text for w in ("exceed", "too long")))


def window_in(summary: str) -> int | None:
    """The server's window when its refusal names it ("exceed context window of 4096", "context size (4096)")."""
    found = _WINDOW_IN.search(summary)
    return int(found.group(1)) if found else None


_WINDOW_IN = re.compile(r"context (?:window|length|size)\D{0,24}?(\d{3,8})", re.IGNORECASE)


def _failure_fix(config: ModelConfig, kind: str) -> str:
    if kind == "timeout":
        return "request_timeout = SECONDS in the config (or doctor --timeout), if the server is just slow"
    if kind == "connection":
        return "the server dropped the connection: see its log" + (f"; {config.help}" if config.help else "")
    return "see the server's log for the refusal"
