"""End to end: the real `sneakycode -p` CLI in a subprocess against the scripted server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli

# Fast retries, and the loopback server reached directly even where a proxy is configured.
ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def finish(message: str) -> dict[str, Any]:
    return call("finish", message=message)


@pytest.fixture
def project(ws: Path) -> Path:
    (ws / "calc.py").write_text(CALC)
    (ws / "test_calc.py").write_text(TEST_CALC)
    return ws


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


def headless(server: ScriptedServer, ws: Path, task: str, *flags: str, stdin: str | None = None) -> CliResult:
    return run_cli(
        "-p", task, "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws), *flags,
        env=ENV, stdin=stdin,
    )


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_read_edit_test_finish_changes_the_file_and_exits_0(server: ScriptedServer, project: Path) -> None:
    server.add_steps([
        call("read_file", file_path="calc.py"),
        call("str_replace", file_path="calc.py", old_str="return a - b", new_str="return a + b"),
        call("run_command", command=f"{sys.executable} -m pytest -q -p no:cacheprovider test_calc.py"),
        finish("Fixed add(); the test passes."),
    ])
    result = headless(server, project, "Fix the failing test in test_calc.py", "--yes")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Fixed add(); the test passes."
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    requests = server.chat_requests
    assert len(requests) == 4 and server.remaining_steps == 0
    assert "return a - b" in tool_results(requests[1])[0]
    assert "1 passed" in tool_results(requests[3])[-1]
    first = requests[0]
    assert first["messages"][0]["role"] == "system" and first["messages"][1]["content"].startswith("Fix the failing")
    assert {t["function"]["name"] for t in first["tools"]} >= {"read_file", "str_replace", "run_command", "finish"}


def test_model_failures_are_retried_and_the_run_recovers(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([
        {"fault": "status", "status": 429, "retry_after": "0.01"},
        {"fault": "status", "status": 503},
        {"fault": "drop"},
        finish("Recovered."),
    ])
    result = headless(server, ws, "Say hi")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Recovered."
    assert len(server.chat_requests) == 4


def test_plan_mode_refuses_writes(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([call("write_file", file_path="plan.txt", content="x"), finish("Could not write.")])
    result = headless(server, ws, "Write plan.txt", "--mode", "plan", "--yes")
    assert result.code == 0, result.stderr
    assert not (ws / "plan.txt").exists()
    refusal = tool_results(server.chat_requests[1])[0]
    assert refusal.startswith("Error [permission_denied]") and "plan" in refusal


def test_without_yes_writes_are_denied_and_both_sides_learn_how_to_allow_them(
    server: ScriptedServer, ws: Path
) -> None:
    server.add_steps([call("write_file", file_path="new.txt", content="x"), finish("I was not allowed to write.")])
    result = headless(server, ws, "Write new.txt")
    assert result.code == 0
    assert not (ws / "new.txt").exists()
    rule = 'allow = ["write_file(new.txt)"]'
    refusal = tool_results(server.chat_requests[1])[0]
    assert refusal.startswith("Error [permission_denied]") and "--yes" in refusal and rule in refusal
    assert "denied write_file" in result.stderr and "--yes" in result.stderr and rule in result.stderr


def test_continue_and_resume_carry_on_a_saved_session(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "Which file?"}, {"content": "calc.py it is."}, {"content": "Still here."}])
    first = json.loads(headless(server, ws, "Pick a file", "--output-format", "json").stdout)
    second = json.loads(headless(server, ws, "calc.py", "--continue", "--output-format", "json").stdout)
    assert second["session_id"] == first["session_id"]
    sent = [(m["role"], m["content"]) for m in server.chat_requests[1]["messages"][1:]]
    resumed = "[This session was resumed: files read earlier count as unread, so read a file again before you edit it.]"
    assert sent == [("user", "Pick a file"), ("assistant", "Which file?"), ("user", f"{resumed}\n\ncalc.py")]
    third = json.loads(headless(server, ws, "Again", "--resume", first["session_id"], "--output-format", "json").stdout)
    assert third["session_id"] == first["session_id"] and third["result"] == "Still here."
    assert len(server.chat_requests[2]["messages"]) == 6
    listed = run_cli("sessions", "--workspace", str(ws))
    assert first["session_id"] in listed.stdout and "Pick a file" in listed.stdout


def test_resuming_nothing_is_a_usage_error(server: ScriptedServer, ws: Path) -> None:
    result = headless(server, ws, "Go on", "--continue")
    assert result.code == 2 and "no saved session" in result.stderr
    result = headless(server, ws, "Go on", "--resume", "no-such-id")
    assert result.code == 2 and "sneakycode sessions" in result.stderr
    assert server.chat_requests == []


def test_json_output_is_one_object_with_the_run_summary(server: ScriptedServer, project: Path) -> None:
    server.add_steps([
        call("read_file", file_path="calc.py"),
        call("str_replace", file_path="calc.py", old_str="a - b", new_str="a + b"),
        finish("Done."),
    ])
    result = headless(server, project, "Fix add", "--yes", "--output-format", "json")
    assert result.code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["result"] == "Done." and summary["success"] is True and summary["status"] == "finished"
    assert (summary["turns"], summary["tool_calls"], summary["files_changed"]) == (3, 3, ["calc.py"])
    usage = summary["usage"]
    assert usage["prompt_tokens"] > 0 and usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert summary["session_id"]


def test_stream_json_prints_one_event_per_line(server: ScriptedServer, ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    server.add_steps([{"content": "Looking.", **call("read_file", file_path="a.txt")}, finish("Read it.")])
    result = headless(server, ws, "Read a.txt", "--output-format", "stream-json")
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "start" and kinds[-1] == "final"
    assert {"assistant", "tool_call", "tool_result", "usage"} <= set(kinds)
    assert kinds.index("tool_call") < kinds.index("tool_result")
    assert events[kinds.index("assistant")]["text"] == "Looking."
    assert "hello" in events[kinds.index("tool_result")]["content"]
    assert events[-1]["result"] == "Read it." and events[-1]["success"] is True


THOUGHT_CALL = '<tool_call>{"name": "write_file", "arguments": {"file_path": "evil.txt", "content": "x"}}</tool_call>'
NUDGE = {"role": "user", "content": "continue: answer or call a tool"}


def test_think_is_reasoning_its_tool_call_is_never_run_and_a_reasoning_only_reply_is_nudged(
    server: ScriptedServer, ws: Path
) -> None:
    server.add_steps([
        {"content": f"<think>I could write it: {THOUGHT_CALL}</think>\n"},
        {"content": "<think>No file needed.</think>\n\nThe answer is 4."},
    ])
    result = headless(server, ws, "What is 2 + 2?", "--yes", "--output-format", "stream-json")
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert not (ws / "evil.txt").exists(), "a tool call written inside <think> must never run"
    assert "tool_call" not in [e["type"] for e in events]
    thoughts = [e["text"] for e in events if e["type"] == "reasoning"]
    assert "I could write it" in thoughts[0] and thoughts[1] == "No file needed."
    assert events[-1]["result"] == "The answer is 4." and events[-1]["success"] is True
    second = server.chat_requests[1]["messages"]
    assert second[-1] == NUDGE
    assert "think" not in json.dumps(second) and "I could write it" not in json.dumps(second)


def test_a_model_that_only_reasons_twice_ends_in_a_clear_error(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "<think>Hmm."}, {"content": "", "reasoning": "Hmm again."}, {"content": "late"}])
    result = headless(server, ws, "What is 2 + 2?", "--output-format", "stream-json")
    assert result.code == 1
    final = json.loads(result.stdout.splitlines()[-1])
    assert final["success"] is False and "only reasoned" in final["result"]
    assert server.remaining_steps == 1 and server.chat_requests[1]["messages"][-1] == NUDGE


def test_the_task_can_come_from_stdin(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([{"content": "Hello."}])
    result = headless(server, ws, "-", stdin="Greet me\nplease\n")
    assert result.code == 0 and result.stdout.strip() == "Hello."
    assert server.chat_requests[0]["messages"][1]["content"] == "Greet me\nplease\n"


def test_the_turn_limit_exits_3_and_says_how_to_go_on(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([call("list_dir"), call("list_dir"), call("list_dir")])
    result = headless(server, ws, "Look around", "--max-turns", "2")
    assert result.code == 3
    assert "2 model turns" in result.stderr and "--resume " in result.stderr and "--max-turns" in result.stderr
    assert len(server.chat_requests) == 2


def test_one_turn_is_one_model_turn_and_one_turn(server: ScriptedServer, ws: Path) -> None:
    """Issue 37: "Stopped after 1 model turns", "Done: 1 turn(s), 1 tool call(s)"."""
    server.add_steps([call("list_dir"), call("list_dir")])
    result = headless(server, ws, "Look around", "--max-turns", "1")
    assert result.code == 3
    assert "Stopped after 1 model turn (" in result.stderr and "Done: 1 turn, 1 tool call," in result.stderr


def test_a_rejected_key_exits_4_with_the_reason(ws: Path) -> None:
    with ScriptedServer({"steps": [], "api_key": "right-key"}) as keyed:
        result = headless(keyed, ws, "Hi", "--api-key", "wrong-key")
    assert result.code == 4
    assert "rejected the API key" in result.stderr and "--api-key" in result.stderr
    # Issue 37: a custom server's help ("set base_url to ...") has nothing to do with a refused key.
    assert "base_url to" not in result.stderr


def test_a_failing_model_exits_1_with_the_reason(ws: Path) -> None:
    with ScriptedServer([{"fault": "status", "status": 400, "message": "bad tools array"}]) as server:
        result = headless(server, ws, "Hi")
    assert result.code == 1
    assert "refused the request (HTTP 400: bad tools array)" in result.stderr and "--resume " in result.stderr


def test_usage_errors_exit_2(server: ScriptedServer, ws: Path) -> None:
    assert headless(server, ws, "   ").code == 2
    missing = run_cli("-p", "Hi", "--workspace", str(ws / "missing"), env=ENV)
    assert missing.code == 2 and "not a directory" in missing.stderr
    no_key = run_cli("-p", "Hi", "--provider", "groq", "--workspace", str(ws), env=ENV)
    assert no_key.code == 2 and "GROQ_API_KEY" in no_key.stderr
    bad_turns = headless(server, ws, "Hi", "--max-turns", "0")
    assert bad_turns.code == 2 and "max_turns" in bad_turns.stderr
    assert server.chat_requests == []


def test_sigint_stops_a_running_command_and_exits_130(server: ScriptedServer, ws: Path) -> None:
    server.add_steps([call("run_command", command="sleep 60"), finish("Resumed.")])
    argv = [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "Wait", "--base-url", server.base_url, "--model",
            "scripted-model", "--workspace", str(ws), "--yes", "--verbose", "--output-format", "json"]
    proc = subprocess.Popen(argv, env={**os.environ, **ENV}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    for line in proc.stderr:
        if "-> run_command" in line:
            break
    time.sleep(0.3)
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert time.monotonic() - started < 10, "the command was not killed"
    summary = json.loads(stdout)
    assert summary["status"] == "cancelled" and summary["success"] is False
    assert "--resume" in stderr
    resumed = json.loads(headless(server, ws, "What happened?", "--continue", "--output-format", "json").stdout)
    assert resumed["result"] == "Resumed."
    answered = tool_results(server.chat_requests[-1])
    assert len(answered) == 1 and "cancel" in answered[0].lower()


def test_files_changed_lists_what_commands_created_and_deleted(server: ScriptedServer, project: Path) -> None:
    """Regression: files_changed came from the undo journal only, so files a command wrote were missing."""
    (project / "old.log").write_text("stale\n")
    server.add_steps([
        call("run_command", command="mkdir -p build && echo made > build/out.txt && rm old.log"),
        call("read_file", file_path="calc.py"),
        call("str_replace", file_path="calc.py", old_str="a - b", new_str="a + b"),
        call("run_command", command="echo tmp > scratch.txt && rm scratch.txt"),
        finish("Done."),
    ])
    result = headless(server, project, "Build", "--yes", "--output-format", "json")
    assert result.code == 0, result.stderr
    assert sorted(json.loads(result.stdout)["files_changed"]) == ["build/out.txt", "calc.py", "old.log"]


def test_without_checkpoints_files_changed_falls_back_to_the_file_tools(server: ScriptedServer, project: Path) -> None:
    user_config_path().parent.mkdir(parents=True)
    user_config_path().write_text("[checkpoints]\nenabled = false\n")
    server.add_steps([
        call("run_command", command="echo made > made.txt"),
        call("write_file", file_path="notes.md", content="hi\n"),
        finish("Done."),
    ])
    result = headless(server, project, "Write", "--yes", "--output-format", "json")
    assert result.code == 0, result.stderr
    assert (project / "made.txt").exists()
    assert json.loads(result.stdout)["files_changed"] == ["notes.md"]
