"""End to end (issue 26, model roles): with `[models] small` set, the chores (compaction summaries, the
explore subagent) go to the small model and the turns to the main one; the JSON result's usage and cost
count both, each at its own price. Unset, everything goes to the main model as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.titles import TITLE_PROMPT, TITLE_TOKENS
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.faces.cli.test_headless import ENV, call, finish

MAIN_USAGE = {"prompt_tokens": 4000, "completion_tokens": 20}
SUMMARY_USAGE = {"prompt_tokens": 3000, "completion_tokens": 50}
PRICES = """
[pricing."scripted-model"]
input = 1.0
output = 2.0

[pricing."small-model"]
input = 0.1
output = 0.2
"""


def step(turn: dict[str, Any]) -> dict[str, Any]:
    return {**turn, "usage": MAIN_USAGE}


def run(ws: Path, home: Path, small: str | None) -> tuple[int, dict[str, Any], list[dict[str, Any]], str]:
    """Main: explore, then six reads (the history fills the 4,096 window and is compacted), then finish."""
    config = home / ".config" / "sneakycode" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text((f'[models]\nsmall = "{small}"\n' if small else "") + PRICES)
    names = []
    for index in range(6):
        names.append(f"mod{index}.py")
        (ws / names[-1]).write_text("".join(f"value_{index}_{n} = {n * 7919 % 1000}\n" for n in range(60)))
    steps = [
        step(call("task", agent="explore", prompt="Which module defines value_5_0?")),
        step(call("read_file", file_path="mod0.py")),  # the explorer's
        step({"content": "mod5.py, probably; mod0.py does not."}),  # the explorer's answer
        *(step(call("read_file", file_path=name)) for name in names),
        step(finish("mod5.py defines it.")),
    ]
    script = {"steps": steps, "server_kind": "llamacpp", "context_window": 4096,
              "no_tools_reply": {"content": "Read modules; none defines it yet.", "usage": SUMMARY_USAGE}}
    env = {**ENV, "SNEAKYCODE_TOOLS__ENABLED": json.dumps(["read_file", "task", "finish"])}
    with ScriptedServer(script) as server:
        result = run_cli("-p", "Find the module that defines value_5_0.", "--base-url", server.base_url,
                         "--model", "scripted-model", "--workspace", str(ws), "--output-format", "json", "--yes",
                         env=env, timeout=120)
        requests = server.chat_requests
    assert result.stdout, result.stderr
    return result.code, json.loads(result.stdout), requests, result.stderr


def kinds(requests: list[dict[str, Any]]) -> dict[str, list[str]]:
    """The model each kind of request went to: summaries (no tools), the explorer's, the main turns'."""
    found: dict[str, list[str]] = {"summary": [], "explore": [], "main": []}
    for request in requests:
        if not request.get("tools"):
            found["summary"].append(request["model"])
        elif "read-only explorer" in request["messages"][0]["content"]:
            found["explore"].append(request["model"])
        else:
            found["main"].append(request["model"])
    return found


def test_the_small_model_runs_summaries_and_explore_and_the_result_counts_both_at_their_prices(
    ws: Path, isolated_home: Path
) -> None:
    code, result, requests, stderr = run(ws, isolated_home, "small-model")
    assert code == 0 and result["status"] == "finished", stderr
    went = kinds(requests)
    assert went["summary"] and set(went["summary"]) == {"small-model"}
    assert went["explore"] == ["small-model", "small-model"]
    assert len(went["main"]) == 8 and set(went["main"]) == {"scripted-model"}
    main_calls = len(went["main"]) + len(went["explore"])  # every step reports MAIN_USAGE
    summaries = len(went["summary"])
    assert result["usage"]["prompt_tokens"] == main_calls * 4000 + summaries * 3000
    assert result["usage"]["completion_tokens"] == main_calls * 20 + summaries * 50
    on_main = len(went["main"]) * (4000 * 1.0 + 20 * 2.0)
    on_small = len(went["explore"]) * (4000 * 0.1 + 20 * 0.2) + summaries * (3000 * 0.1 + 50 * 0.2)
    assert result["cost"]["usd"] == pytest.approx((on_main + on_small) / 1_000_000, abs=1e-6)


def test_without_a_small_model_everything_goes_to_the_main_model(ws: Path, isolated_home: Path) -> None:
    code, result, requests, stderr = run(ws, isolated_home, None)
    assert code == 0 and result["status"] == "finished", stderr
    went = kinds(requests)
    assert went["summary"] and went["explore"]
    assert {model for models in went.values() for model in models} == {"scripted-model"}


def test_the_small_model_names_a_new_session_and_sessions_lists_it_by_that_title(
    ws: Path, isolated_home: Path
) -> None:
    """Session titles are a chore too: one short request to the small model after the first request, with
    the user's words and its own tiny reply cap; `sneakycode sessions` shows the title."""
    code, _, requests, stderr = run(ws, isolated_home, "small-model")
    assert code == 0, stderr
    titles = [r for r in requests if r["messages"][0]["content"] == TITLE_PROMPT]
    assert len(titles) == 1 and titles[0]["model"] == "small-model" and titles[0]["max_tokens"] == TITLE_TOKENS
    assert titles[0]["messages"][1]["content"] == "Find the module that defines value_5_0."
    listed = run_cli("sessions", "--workspace", str(ws), env=ENV)
    assert "Read modules; none defines it yet" in listed.stdout, listed.stdout


def test_without_a_small_model_no_title_is_asked_for_and_sessions_shows_the_request(
    ws: Path, isolated_home: Path
) -> None:
    _, _, requests, _ = run(ws, isolated_home, None)
    assert not [r for r in requests if r["messages"][0]["content"] == TITLE_PROMPT]
    listed = run_cli("sessions", "--workspace", str(ws), env=ENV)
    assert "Find the module that defines value_5_0." in listed.stdout, listed.stdout
