"""The first layer: is the server there, does it take the key, does it offer the model (GET /models)."""

from __future__ import annotations

import time
from dataclasses import replace
from urllib.parse import urlparse

from sneakycode.api.model_facts import LOOPBACK_HOSTS, PLACEHOLDER_KEY, PRESETS
from sneakycode.api.probe import Endpoint, failure_of
from sneakycode.doctor.checks import Check, Report

# Who a local server says owns its models (`owned_by` in GET /models) tells the software, for the fixes to name
# when no info endpoint answered (llama-cpp-python has none).
OWNERS = {"me": "llama-cpp-python", "llamacpp": "llamacpp", "vllm": "vllm", "library": "ollama",
          "organization_owner": "lmstudio"}
LATER = ["context_window", "window_honoured", "prompt_cache", "streaming", "usage", "output_cap", "tool_calls",
         "parallel_calls", "reasoning_history", "reasoning", "speed"]
"""The checks after the endpoint's, skipped together when the endpoint cannot be used."""


def key_fix(endpoint: Endpoint) -> str:
    """Where to put the right key for this provider."""
    config = endpoint.config
    env = PRESETS[config.provider].api_key_env if config.provider in PRESETS else None
    where = f"export {env}=KEY, " if env else ""
    return f"{where}--api-key KEY, or api_key_env = \"VARIABLE\" in the config (the key came from {config.key_source})"


def auth_failed(report: Report, endpoint: Endpoint, summary: str, request: str) -> None:
    status = "403 (forbidden)" if "403" in summary else "401 (unauthorized)"
    placeholder = endpoint.config.api_key == PLACEHOLDER_KEY
    report.add(Check(
        "auth", "fail", f"{request} was refused with HTTP {status}: {summary}"
        + (" (no key was sent: none is configured)" if placeholder else ""),
        "config", key_fix(endpoint), {"status": 403 if "403" in summary else 401},
    ))


def check_endpoint(report: Report, endpoint: Endpoint) -> bool:
    """Add reachable, auth and model; False when nothing more can be asked of the endpoint."""
    config = endpoint.config
    start = time.monotonic()
    listed: list[tuple[str, str]] | None = None
    try:
        listed, failure = endpoint.models(), None
    except Exception as exc:
        failure = failure_of(exc)
    offered = [name for name, _ in listed] if listed is not None else None
    owner = next((OWNERS[o] for _, o in listed or [] if o in OWNERS), "")
    if owner and not config.server_kind:
        endpoint.config = replace(config, server_kind=owner)
        report.server_kind = owner
    ms = round((time.monotonic() - start) * 1000)
    if failure is not None and failure.kind in ("connection", "timeout"):
        url = urlparse(config.base_url)
        on_this_machine = url.hostname in LOOPBACK_HOSTS
        if on_this_machine:
            fix = f"start the server (nothing answers at {url.netloc})" + (
                f": {config.help}" if config.local and config.help else "") + "; or correct base_url"
        else:
            fix = f"check base_url ({config.base_url}; it usually ends in /v1) and the network"
        report.add(Check("reachable", "fail", f"GET {config.base_url}/models: {failure.summary}",
                         "server" if on_this_machine else "network", fix, {"ms": ms}))
        report.skip(["auth", "model", *LATER], "skipped: the server cannot be reached")
        return False
    report.add(Check("reachable", "pass", f"GET /models answered in {ms} ms", data={"ms": ms}))
    if failure is not None and failure.kind == "auth":
        auth_failed(report, endpoint, failure.summary, "GET /models")
        report.skip(["model", *LATER], "skipped: the key was refused")
        return False
    key = "no key needed" if config.api_key == PLACEHOLDER_KEY else f"the key from {config.key_source} was accepted"
    if offered is None:
        summary = failure.summary if failure is not None else "no answer"
        report.add(Check("auth", "pass", f"{key} (GET /models did not list models, so chat requests tell)"))
        report.add(Check("model", "warn", f"GET /models lists no models ({summary}); the chat requests below "
                         "show whether the model is served", "server"))
        return True
    report.add(Check("auth", "pass", key))
    shown = ", ".join(offered[:10]) + (f", ... ({len(offered)} in all)" if len(offered) > 10 else "")
    if config.model in offered:
        report.add(Check("model", "pass", f"{config.model} is listed (from {config.model_source})",
                         data={"offered": offered[:50]}))
    else:
        # Single-model servers (llama.cpp, llama-cpp-python) answer whatever name is asked for: the first chat
        # request settles it (see `model_refused`).
        report.add(Check("model", "warn", f"{config.model} (from {config.model_source}) is not among the listed "
                         f"models: {shown or '(none)'}", "config",
                         "--model NAME or model = \"NAME\" in the config, with a listed NAME",
                         {"offered": offered[:50]}))
    return True


def model_refused(report: Report, summary: str) -> None:
    """The first chat request said the model does not exist: the model check fails."""
    check = next(c for c in report.checks if c.name == "model")
    check.verdict, check.layer = "fail", "config"
    check.measured += f"; the chat request was refused: {summary}"
    check.fix = check.fix or "--model NAME or model = \"NAME\" in the config, with a model the server offers"
