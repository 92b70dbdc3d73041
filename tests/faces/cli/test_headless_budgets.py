"""Issue 16, the headless contract: every budget ends a scripted run cleanly (exit 3, which budget, what was
done, a transcript that is a valid history), stream-json events match the published schema, stdin drives a
multi-turn session, and a run that would ask never waits, even with a terminal on stdin."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pexpect
import pytest

from sneakycode.session.transcript import load_transcript
from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config, run_cli
from tests.faces.cli.test_headless import ENV, call, finish, headless

# Above the scripted requests' real size, so the client does not take the server for one that cut the prompt.
USAGE = {"prompt_tokens": 3000, "completion_tokens": 100}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


def reads(count: int) -> list[dict[str, Any]]:
    return [{**call("list_dir", path="."), "usage": USAGE} for _ in range(count)]


def assert_valid_transcript(home: Path, session_id: str) -> None:
    """Every tool call in the saved history has exactly one result, so the session can be resumed."""
    path = next(home.glob(f".local/state/sneakycode/sessions/{session_id}/transcript.jsonl"))
    messages = load_transcript(path).messages
    asked = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert asked and sorted(asked) == sorted(answered)


def budget_run(server: ScriptedServer, ws: Path, *flags: str) -> tuple[dict[str, Any], str, int, float]:
    started = time.monotonic()
    result = headless(server, ws, "Look around", "--output-format", "json", *flags)
    return json.loads(result.stdout), result.stderr, result.code, time.monotonic() - started


def test_max_turns_ends_the_run_with_exit_3(server: ScriptedServer, ws: Path, isolated_home: Path) -> None:
    server.add_steps(reads(3))
    summary, stderr, code, _ = budget_run(server, ws, "--max-turns", "2")
    assert code == 3 and summary["status"] == "turn_limit" and summary["budget"] == "max_turns"
    assert "Done: 2 turns, 2 tool calls" in stderr
    assert_valid_transcript(isolated_home, summary["session_id"])


def test_max_tokens_stops_before_the_request_that_would_exceed_it(
    server: ScriptedServer, ws: Path, isolated_home: Path
) -> None:
    server.add_steps([*reads(3), finish("never reached")])
    summary, stderr, code, _ = budget_run(server, ws, "--max-tokens", "5000")
    assert code == 3 and summary["status"] == "budget" and summary["budget"] == "max_tokens"
    assert summary["turns"] == 2 and summary["tool_calls"] == 2 and len(server.chat_requests) == 2
    assert summary["usage"]["total_tokens"] == 6200
    assert "token budget (--max-tokens 5,000) is used up" in stderr and "no files changed" in stderr
    assert_valid_transcript(isolated_home, summary["session_id"])


def test_max_cost_uses_the_configured_price(server: ScriptedServer, ws: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config" / "sneakycode" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[pricing."scripted-model"]\ninput = 100.0\noutput = 2000.0\n')
    server.add_steps([*reads(3), finish("never reached")])
    summary, stderr, code, _ = budget_run(server, ws, "--max-cost", "0.8")
    assert code == 3 and summary["budget"] == "max_cost" and summary["turns"] == 2
    # 2 x (3000 prompt tokens at $100/M + 100 completion tokens at $2000/M) = $1.00
    assert summary["cost"]["usd"] == pytest.approx(1.0) and summary["cost"]["price_source"].startswith("[pricing")
    assert "cost budget (--max-cost $0.8) is used up" in stderr
    assert_valid_transcript(isolated_home, summary["session_id"])


def test_max_cost_without_a_price_is_a_usage_error(server: ScriptedServer, ws: Path) -> None:
    result = headless(server, ws, "x", "--max-cost", "1")
    assert result.code == 2 and 'pricing."scripted-model"' in result.stderr
    assert server.chat_requests == []


def test_timeout_kills_the_running_command_and_ends_cleanly(
    server: ScriptedServer, ws: Path, isolated_home: Path
) -> None:
    server.add_steps([{**call("run_command", command="sleep 60", timeout=120)}, finish("never reached")])
    summary, stderr, code, took = budget_run(server, ws, "--yes", "--timeout", "2")
    assert code == 3 and summary["budget"] == "timeout" and took < 20
    assert "--timeout of 2 s ran out" in stderr
    assert_valid_transcript(isolated_home, summary["session_id"])


def test_timeout_cancels_a_model_that_never_answers(server: ScriptedServer, ws: Path, isolated_home: Path) -> None:
    server.add_steps([*reads(1), {"fault": "hang", "seconds": 60}])
    summary, _, code, took = budget_run(server, ws, "--timeout", "3")
    assert code == 3 and summary["budget"] == "timeout" and took < 20
    assert_valid_transcript(isolated_home, summary["session_id"])


def test_stream_json_events_match_the_published_schema(server: ScriptedServer, ws: Path) -> None:
    project_config(ws, '[permissions]\nallow = ["run_command(sleep *)"]\n')
    server.add_steps([
        {"content": "Starting.", "reasoning": "a plan", **call("run_command", command="sleep 30", background=True)},
        call("job", job_id=1),
        call("update_tasks", tasks=[{"id": "1", "content": "look", "status": "in_progress"}]),
        call("write_file", file_path="x.txt", content="x"),
        finish("Done."),
    ])
    result = headless(server, ws, "Serve", "--output-format", "stream-json")
    assert result.code == 0, result.stderr
    schema = json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        validator.validate(event)
    kinds = {e["type"] for e in events}
    assert {"start", "assistant", "reasoning", "tool_call", "permission", "tool_result", "usage", "tasks",
            "final"} <= kinds
    assert events[0]["schema"] == 1
    final = events[-1]
    assert [d["tool"] for d in final["denied"]] == ["write_file"]
    assert 'allow = ["write_file(x.txt)"]' in final["denied"][0]["how_to_allow"]
    assert [(j["command"], j["status"]) for j in final["jobs"]] == [("sleep 30", "killed")]
    assert "killed" in result.stderr


def test_input_format_stream_json_drives_one_session_turn_by_turn(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "First answer."}, {"content": "Second answer."}])
    lines = [
        {"type": "user", "message": {"role": "user", "content": "first question"}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "second question"}]}},
    ]
    result = run_cli(
        "--input-format", "stream-json", "--output-format", "stream-json", "--base-url", server.base_url,
        "--model", "scripted-model", "--workspace", str(ws), env=ENV,
        stdin="".join(json.dumps(line) + "\n" for line in lines),
    )  # fmt: skip
    assert result.code == 0, result.stderr
    finals = [e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "final"]
    assert [f["result"] for f in finals] == ["First answer.", "Second answer."]
    assert finals[0]["session_id"] == finals[1]["session_id"]
    sent = [(m["role"], m["content"]) for m in server.chat_requests[1]["messages"][1:]]
    assert sent == [("user", "first question"), ("assistant", "First answer."), ("user", "second question")]


def test_a_run_that_would_ask_exits_without_waiting_with_a_terminal_on_stdin(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([call("write_file", file_path="new.txt", content="x"), finish("Not allowed to write.")])
    argv = ["-m", "sneakycode.faces.cli.main", "-p", "Write new.txt", "--base-url", server.base_url, "--model",
            "scripted-model", "--workspace", str(ws)]  # fmt: skip
    child = pexpect.spawn(sys.executable, argv, env={**os.environ, **ENV}, timeout=60, encoding="utf-8")
    try:
        child.expect(pexpect.EOF)  # nothing was typed: a prompt would time out here instead
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "denied write_file" in child.before and "Not allowed to write." in child.before
    assert not (ws / "new.txt").exists()


def test_budgets_come_from_the_config_and_the_flags_win(server: ScriptedServer, ws: Path, isolated_home: Path) -> None:
    project_config(ws, "[budgets]\nmax_tokens = 5000\n", trusted=False)  # a project may set a budget the user has not
    server.add_steps([*reads(3), finish("never reached")])
    summary, stderr, code, _ = budget_run(server, ws)
    assert code == 3 and summary["budget"] == "max_tokens" and summary["turns"] == 2
    assert "token budget (--max-tokens 5,000) is used up" in stderr
    assert_valid_transcript(isolated_home, summary["session_id"])
    # The steps left (one read, then finish) cost 6,200 tokens: past the configured budget, within the flag's.
    summary, _, code, _ = budget_run(server, ws, "--max-tokens", "100000")
    assert code == 0 and summary["status"] == "finished" and summary["usage"]["total_tokens"] > 5000
