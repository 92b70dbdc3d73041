"""End to end (issue 26): compaction that fits, converges and is cheap. `sneakycode -p` against the scripted
server reporting a small window (llama.cpp /props): long sessions finish without a request over the window
and with at most one compaction per model turn; a request that cannot fit ends with a clear error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.estimate import estimate_history_tokens, estimate_tools_tokens
from sneakycode.agent.summary import ROLLING_PROMPT, SUMMARY_PROMPT
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.faces.cli.test_headless import ENV, call, finish

TURNS = 30
REQUEST = "Read every module in the package, one at a time, and tell me which one defines `value_29_0`."
SUMMARY = "The agent read modules one by one; none defined the name yet."


def modules(ws: Path, count: int, lines: int) -> list[str]:
    names = []
    for index in range(count):
        name = f"mod{index:02d}.py"
        (ws / name).write_text("".join(f"value_{index}_{n} = {n * 7919 % 1000}\n" for n in range(lines)))
        names.append(name)
    return names


def session(
    ws: Path, window: int, tools: list[str] | None, lines: int
) -> tuple[int, dict[str, Any], list[dict[str, Any]]]:
    """A 30-turn session (one read per turn, then finish) on a server with `window` tokens; returns the exit
    code, the JSON result and every chat request the server received."""
    names = modules(ws, TURNS, lines)
    steps = [call("read_file", file_path=name) for name in names] + [finish("mod29.py defines it.")]
    script = {"steps": steps, "server_kind": "llamacpp", "context_window": window,
              "no_tools_reply": {"content": SUMMARY}}
    env = dict(ENV)
    if tools is not None:
        env["SNEAKYCODE_TOOLS__ENABLED"] = json.dumps(tools)
    with ScriptedServer(script) as server:
        result = run_cli("-p", REQUEST, "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                         str(ws), "--output-format", "json", "--yes", env=env, timeout=120)
        requests = server.chat_requests
    assert result.stdout, result.stderr
    return result.code, json.loads(result.stdout), requests


def is_compaction_start(request: dict[str, Any]) -> bool:
    return request["messages"][0]["content"] == SUMMARY_PROMPT


@pytest.mark.parametrize(("window", "tools", "lines"), [(4096, ["read_file", "finish"], 60), (8192, None, 120)])
def test_a_30_turn_session_never_sends_a_request_over_the_window_and_compacts_at_most_once_a_turn(
    ws: Path, window: int, tools: list[str] | None, lines: int
) -> None:
    """Issue 26, compaction that fits and converges: every request (prompt by the project's own estimate,
    plus the reply cap it asks for) fits the window the server reports; summaries happen, and never more
    than one between two model turns; the user's request reaches every turn word for word."""
    code, result, requests = session(ws, window, tools, lines)
    assert code == 0 and result["status"] == "finished", result
    for request in requests:
        used = estimate_history_tokens(request["messages"]) + estimate_tools_tokens(request.get("tools", []))
        assert used + request["max_tokens"] <= window, (used, request["max_tokens"])
    main = [r for r in requests if r.get("tools")]
    assert len(main) == TURNS + 1
    compactions_between: list[int] = []
    count = 0
    for request in requests:
        if request.get("tools"):
            compactions_between.append(count)
            count = 0
        elif is_compaction_start(request):
            count += 1
        else:
            assert request["messages"][0]["content"] == ROLLING_PROMPT
    assert max(compactions_between) == 1 and sum(compactions_between) >= 2
    for request in main:
        assert {"role": "user", "content": REQUEST} in request["messages"]
    summaries = [r for r in requests if not r.get("tools")]
    assert all(r["max_tokens"] < main[0]["max_tokens"] for r in summaries), "a summary has its own, smaller cap"
    assert result["usage"]["prompt_tokens"] > 0


def test_a_request_that_cannot_fit_the_window_ends_with_the_sizes_and_the_fix_and_sends_nothing(ws: Path) -> None:
    """Issue 26, convergence: every tool on a 4,096-token window cannot fit beside the reply reservation; the
    run ends at once with exit 1 and a context_overflow error naming the window, the sizes and the fix, and
    the server never gets a request (no compaction loop)."""
    script = {"steps": [finish("never")], "server_kind": "llamacpp", "context_window": 4096,
              "no_tools_reply": {"content": SUMMARY}}
    with ScriptedServer(script) as server:
        result = run_cli("-p", REQUEST, "--base-url", server.base_url, "--model", "scripted-model", "--workspace",
                         str(ws), env={**ENV, "SNEAKYCODE_MAX_OUTPUT_TOKENS": "2048"})
        sent = server.chat_requests
    assert result.code == 1 and sent == []
    assert "[context_overflow]" in result.stderr and "context window of 4,096 tokens" in result.stderr
    assert "reply reservation 2,048" in result.stderr and "system prompt and tools ~" in result.stderr
    assert "--ctx-size" in result.stderr and "tools.enabled" in result.stderr and "context_window" in result.stderr
