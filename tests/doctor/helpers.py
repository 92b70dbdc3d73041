"""Running `sneakycode doctor` (the CLI's main, in process) against the scripted server playing a model and its
server's faults."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_main

MODEL = "qwen2.5-coder-7b"
ENV = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
PARIS = {"name": "get_weather", "arguments": {"city": "Paris"}}
TOKYO = {"name": "get_weather", "arguments": {"city": "Tokyo"}}
ORDER = ["reachable", "auth", "model", "context_window", "window_honoured", "prompt_cache", "streaming", "usage",
         "output_cap", "tool_calls", "parallel_calls", "reasoning_history", "reasoning", "speed"]


def script(*, one: dict[str, Any] | None = None, two: dict[str, Any] | None = None, **more: Any) -> dict[str, Any]:
    """A model that answers the requests without tools with a short count, calls the probe tool when asked for
    one call (`one`) and twice when asked for two (`two`); `more` adds script keys (quirks, server_kind, ...)."""
    return {
        "models": [MODEL],
        "no_tools_reply": {"content": "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"},
        "steps": [one or {"tool_calls": [PARIS]}, two or {"tool_calls": [PARIS, TOKYO]}],
        **more,
    }


def doctor(server: ScriptedServer, ws: Path, *flags: str, env: dict[str, str] | None = None) -> CliResult:
    return run_main("doctor", "--base-url", server.base_url, "--model", MODEL, "--workspace", str(ws), *flags,
                    env={**ENV, **(env or {})})


def doctor_json(server: ScriptedServer, ws: Path, *flags: str, env: dict[str, str] | None = None
                ) -> tuple[int, dict[str, Any]]:
    result = doctor(server, ws, "--json", *flags, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result.code, json.loads(result.stdout)


def check(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in report["checks"] if c["name"] == name)


def verdicts(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["verdict"] for c in report["checks"]}
