"""`sneakycode doctor`: the endpoint and model checked layer by layer, in the order a session depends on them.

Settings come from `api.settings.load_options` (flags > SNEAKYCODE_* > project > user > defaults, as for every
command), the endpoint, model and key from the agent's own resolution, the window from its own discovery; so
the doctor examines exactly what a session would use. When a layer fails so that nothing after it can be
asked (no server, a refused key, a server that stopped answering), the later checks say they were skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from sneakycode.api.assembly import with_server_window
from sneakycode.api.errors import ConfigError
from sneakycode.api.model_facts import DiscoveredWindow, History, ModelConfig, edit_format_for, split_think
from sneakycode.api.model_facts import resolve_endpoint as resolve_model_config
from sneakycode.api.options import Options
from sneakycode.api.probe import Endpoint, Exchange, reported_window
from sneakycode.api.settings import load_options
from sneakycode.api.vocabulary import LoadedSettings
from sneakycode.doctor.checks import Check, Report
from sneakycode.doctor.endpoint import LATER, auth_failed, check_endpoint, model_refused
from sneakycode.doctor.reasoning_back import check_reasoning_back
from sneakycode.doctor.stream import check_speed, check_stream
from sneakycode.doctor.tools import ToolFindings, check_parallel, check_tool_calls
from sneakycode.doctor.window import check_cache, check_honoured, check_reported

UNNAMED = "(none named)"
"""The model's name when none is configured and the server lists none: nothing is saved for it."""
SHORT_TIMEOUT = 60.0
"""The most a short probe may take by default; the long-prompt probes get request_timeout."""


def resolve(
    options: Options, on_settings: Callable[[LoadedSettings], None] | None = None
) -> tuple[LoadedSettings, ModelConfig]:
    """The settings and the model config a session would use (ConfigError when there is none)."""
    loaded = load_options(options)
    if on_settings is not None:
        on_settings(loaded)
    try:
        config = resolve_model_config(loaded, options.api_key)
    except ConfigError:
        settings = loaded.settings
        if settings.model or not (settings.base_url or settings.provider):
            raise
        # No model named and the server did not list one: the endpoint checks say why, in their own words.
        unnamed = replace(loaded, settings=settings.model_copy(update={"model": UNNAMED}))
        config = resolve_model_config(unnamed, options.api_key)
    return loaded, with_server_window(config)


def run_doctor(
    options: Options, *, timeout: float | None = None, on_settings: Callable[[LoadedSettings], None] | None = None
) -> Report:
    """Every check against the endpoint `options` resolve to; `timeout` bounds each request (default:
    request_timeout for the long prompt, at most SHORT_TIMEOUT for the others). `on_settings` is shown the
    settings once loaded (the command line holds the key they name)."""
    loaded, config = resolve(options, on_settings)
    long_timeout = timeout or config.request_timeout
    endpoint = Endpoint(config, timeout or min(SHORT_TIMEOUT, config.request_timeout))
    reported = None
    if config.local or config.provider == "custom":
        reported = reported_window(config)
        if reported is not None and not config.server_kind:
            config = endpoint.config = replace(config, server_kind=reported.kind)
    report = Report(config.provider, config.base_url, config.model, config.server_kind)
    try:
        if check_endpoint(report, endpoint):
            _examine(report, endpoint, loaded, endpoint.config, reported, long_timeout)
    finally:
        endpoint.close()
    return report


def _examine(report: Report, endpoint: Endpoint, loaded: LoadedSettings, config: ModelConfig,
             window: DiscoveredWindow | None, long_timeout: float) -> None:
    check_reported(report, config, window)
    endpoint.timeout, short_timeout = long_timeout, endpoint.timeout
    found = check_honoured(report, endpoint, config, window)
    first = found.probe
    if first is not None and first.failure is not None and first.failure.kind in ("auth", "model_not_found"):
        report.checks.pop()  # not a window finding: the key or the model, said where it belongs
        if first.failure.kind == "auth":
            report.checks[:] = [c for c in report.checks if c.name != "auth"]
            auth_failed(report, endpoint, first.failure.summary, "a chat request")
        else:
            model_refused(report, first.failure.summary)
        report.skip([n for n in LATER if n != "context_window"], "skipped: the chat request was refused")
        return
    check_cache(report, endpoint, config, found)
    endpoint.timeout = short_timeout
    exchanges = [e for e in (found.probe, found.repeat) if e is not None]
    if found.stopped:
        report.skip(["streaming", "usage", "output_cap", "tool_calls", "parallel_calls", "reasoning_history"],
                    "skipped: the server stopped answering")
        tools = ToolFindings()
        short: Exchange | None = None
        history: History | None = None
    else:
        short = check_stream(report, endpoint, config)
        exchanges.append(short)
        tools = ToolFindings()
        history = None
        if short.failure is not None and short.failure.kind in ("connection", "timeout"):
            report.skip(["tool_calls", "parallel_calls", "reasoning_history"],
                        "skipped: the server did not answer a short request")
        else:
            tools = check_tool_calls(report, endpoint, config)
            check_parallel(report, endpoint, config, tools)
            history = check_reasoning_back(report, endpoint, config, tools)
    check_reasoning(report, exchanges)
    check_speed(report, config, found.probe, short)
    if config.model != UNNAMED:
        report.settings = worked(loaded, config, found.honoured, tools)
        if history is not None:
            report.settings["reasoning_history"] = history


def check_reasoning(report: Report, exchanges: list[Exchange]) -> None:
    """Where the model's reasoning arrives: a reasoning field, `<think>` tags in the content, or nowhere."""
    answered = [e for e in exchanges if e.ok]
    if not answered:
        report.skip(["reasoning"], "skipped: no reply to read")
        return
    in_field = sum(bool(e.builder.reasoning.strip()) for e in answered)
    in_tags = sum(bool(split_think(e.builder.content)[0]) for e in answered)
    only = [e for e in answered if e.turn.finish_reason == "length" and e.turn.reasoning and not e.turn.content]
    data = {"reasoning_field": in_field, "think_tags": in_tags, "replies": len(answered)}
    if in_field:
        report.add(Check("reasoning", "pass", f"reasoning_content in {in_field} of {len(answered)} replies (the server "
                         "keeps it apart from the answer)", data=data))
    elif in_tags:
        report.add(Check("reasoning", "pass", f"<think> tags in the content of {in_tags} of {len(answered)} replies: "
                         "SneakyCode splits them off (a server reasoning parser would do it: vLLM --reasoning-parser, "
                         "llama.cpp --reasoning-format deepseek)", data=data))
    else:
        report.add(Check("reasoning", "pass", "no reasoning seen: the model answers directly", data=data))
    if only:
        check = report.checks[-1]
        check.verdict, check.layer = "warn", "config"
        check.measured += f"; {len(only)} replies spent their whole output cap reasoning"
        check.fix = "max_output_tokens = 8192 in the config, so a reasoning model has room to answer"


def worked(loaded: LoadedSettings, config: ModelConfig, window: int | None, tools: ToolFindings) -> dict[str, object]:
    """The settings that worked for this model, by the keys of `[model_settings."MODEL"]`."""
    settings: dict[str, object] = {}
    if tools.mode is not None:
        settings["tool_calls"] = tools.mode
    if window is not None:
        settings["context_window"] = window
    settings["edit_format"] = edit_format_for(config.model, loaded.settings.tools.edit_format)
    return settings
