"""Never silently stuck (issue 26), end to end: the real `sneakycode -p` against the scripted server.

A model server that goes silent is shown (a `stall` event, a line on stderr), asked once more, then the run
ends with exit code 5; a rejected key ends it at once with exit code 4 after exactly one request; a long
command sends `progress` heartbeats; every run that ends early says how to resume it.
"""

from __future__ import annotations

import json
import re
import time
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema

from sneakycode.faces.shared.exit_codes import ExitCode
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, run_cli

# Small settings so a stall takes a second, not a minute; fast retries; the loopback server reached directly.
FAST = {"SNEAKYCODE_STALL_SECONDS": "1", "SNEAKYCODE_STALL_TIMEOUT": "2", "SNEAKYCODE_RETRY_BACKOFF": "0.01",
        "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
SCHEMA = jsonschema.Draft202012Validator(
    json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json").read_text()))
# A reply whose stream sends its first chunks and then nothing for longer than stall_timeout.
GOES_SILENT = {"content": "I will look at it now, give me a moment", "chunk_delay": 4.0}


def headless(server: ScriptedServer, ws: Path, *flags: str, env: dict[str, str] | None = None) -> CliResult:
    return run_cli("-p", "Fix it", "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws),
                   *flags, env={**FAST, **(env or {})}, timeout=60)


def events_of(result: CliResult) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in result.stdout.splitlines()]
    for event in events:
        SCHEMA.validate(event)  # the new events and the final's new fields are published, and kept
    return events


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def test_a_stream_that_goes_silent_is_shown_retried_once_then_ends_with_exit_code_5(ws: Path) -> None:
    """Never silently stuck: a reply that stops mid-stream gives a `stall` event and a stderr line within
    stall_seconds, is sent once more after stall_timeout, and a second stall ends the run with exit code 5,
    a message naming stall_timeout, and how to resume."""
    with ScriptedServer({"steps": [GOES_SILENT, GOES_SILENT, {"content": "never sent"}], "chunk_size": 8}) as server:
        started = time.monotonic()
        result = headless(server, ws, "--output-format", "stream-json")
        took = time.monotonic() - started
        assert result.code == ExitCode.STALLED == 5, result.stderr
        assert len(server.chat_requests) == 2  # the first, and exactly one retry
    assert took < 20  # bounded by stall_timeout, never by the 4 s pauses times max_retries
    events = events_of(result)
    stalls = [e for e in events if e["type"] == "stall"]
    assert stalls and all(e["source"] == "model" and e["seconds"] >= 1 for e in stalls)
    assert "sent nothing for 1 s" in stalls[0]["message"] and "stall_timeout (2 s)" in stalls[0]["message"]
    final = events[-1]
    assert final["type"] == "final" and final["status"] == "error" and final["error_kind"] == "timeout"
    assert "stalled after 1 retry" in final["result"] and "stall_timeout" in final["result"]
    assert final["resume"] == f"--resume {final['session_id']}"
    assert "sneakycode: waiting: the model's reply has sent nothing for 1 s" in result.stderr
    assert f"--resume {final['session_id']}" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_stall_that_the_retry_cures_ends_normally(ws: Path) -> None:
    """Never silently stuck: the one retry after a stall gets the answer; the stall was still shown."""
    with ScriptedServer([GOES_SILENT, {"content": "All fixed."}]) as server:
        result = headless(server, ws)
        assert result.code == 0, result.stderr
        assert len(server.chat_requests) == 2
    assert result.stdout.strip() == "All fixed."
    assert "waiting: the model's reply has sent nothing" in result.stderr


def test_a_server_that_never_answers_is_shown_then_given_up_after_one_retry(ws: Path) -> None:
    """Never silently stuck: no byte at all (a hung server) is a stall too; request_timeout gives up on it,
    once more, then exit code 5 (not max_retries times the timeout)."""
    hang = {"fault": "hang", "seconds": 30}
    with ScriptedServer([hang, hang, hang, {"content": "never"}]) as server:
        started = time.monotonic()
        result = headless(server, ws, env={"SNEAKYCODE_REQUEST_TIMEOUT": "2"})
        took = time.monotonic() - started
        assert result.code == ExitCode.STALLED, result.stderr
        assert len(server.chat_requests) == 2
    assert took < 20
    assert "waiting: no reply from the model for 1 s yet" in result.stderr
    assert "request_timeout" in result.stderr and "--resume " in result.stderr


def test_a_rejected_key_fails_at_once_with_exit_code_4_after_one_request(ws: Path) -> None:
    """Authentication fails fast: a 401 is never retried, whatever max_retries says; its own exit code, the
    key's source named, and the resume line."""
    with ScriptedServer({"steps": [{"content": "never"}], "api_key": "the-right-key"}) as server:
        started = time.monotonic()
        result = headless(server, ws, "--output-format", "json",
                          env={"SNEAKYCODE_MAX_RETRIES": "8", "SNEAKYCODE_RETRY_BACKOFF": "5"})
        took = time.monotonic() - started
        assert result.code == ExitCode.AUTH == 4, result.stderr
        assert len(server.chat_requests) == 1
    assert took < 10  # one backoff of 5 s would already show
    final = json.loads(result.stdout)
    assert final["status"] == "error" and final["error_kind"] == "auth"
    assert "rejected the API key" in final["result"] and "HTTP 401" in final["result"]
    assert final["resume"] == f"--resume {final['session_id']}"
    assert f"--resume {final['session_id']}" in result.stderr


def test_an_unknown_model_is_a_configuration_failure_with_exit_code_4(ws: Path) -> None:
    """Configuration refused by the provider fails fast: a 404 for the model is not retried."""
    with ScriptedServer({"steps": [{"content": "never"}], "models": ["qwen2.5-coder:14b"]}) as server:
        result = headless(server, ws, env={"SNEAKYCODE_MAX_RETRIES": "8"})
        assert result.code == ExitCode.AUTH, result.stderr
        assert len(server.chat_requests) == 1
    assert "does not offer the model 'scripted-model'" in result.stderr and "qwen2.5-coder:14b" in result.stderr


def test_a_bad_setting_fails_before_anything_is_sent_with_exit_code_2(ws: Path) -> None:
    """Configuration failures fail fast: a stall setting that is not a positive number sends nothing."""
    with ScriptedServer([{"content": "never"}]) as server:
        result = headless(server, ws, env={"SNEAKYCODE_STALL_SECONDS": "-1"})
        assert result.code == ExitCode.USAGE, result.stderr
        assert server.chat_requests == []
    assert "stall_seconds" in result.stderr and "Traceback" not in result.stderr


def test_a_long_command_sends_progress_with_elapsed_seconds_and_its_last_line(ws: Path) -> None:
    """Never silently stuck: run_command printing a line a second sends `progress` heartbeats every few
    seconds, each with the elapsed time and the line printed last."""
    loop = "for i in 1 2 3 4 5 6 7; do echo line $i; sleep 1; done"
    with ScriptedServer([call("run_command", command=loop), call("finish", message="Ran it.")]) as server:
        result = headless(server, ws, "--yes", "--output-format", "stream-json", env={"SNEAKYCODE_STALL_SECONDS": "30"})
        assert result.code == 0, result.stderr
    events = events_of(result)
    call_id = next(e["id"] for e in events if e["type"] == "tool_call")
    progress = [e for e in events if e["type"] == "progress"]
    assert len(progress) >= 2 and all(e["id"] == call_id and e["name"] == "run_command" for e in progress)
    elapsed = [e["elapsed"] for e in progress]
    assert elapsed == sorted(elapsed) and elapsed[0] >= 3 and elapsed[-1] >= 5
    assert all(re.fullmatch(r"line [1-7]", e["last_line"]) for e in progress)
    assert int(progress[-1]["last_line"][-1]) > int(progress[0]["last_line"][-1])  # the line moves on
    order = [e["type"] for e in events]
    assert order.index("tool_call") < order.index("progress") < order.index("tool_result")
    assert not [e for e in events if e["type"] == "stall"]  # a command that prints is not stalled


def test_a_silent_command_is_a_stall_and_verbose_text_shows_its_progress(ws: Path) -> None:
    """Never silently stuck: a command that prints nothing for stall_seconds is a `stall` of the tool (said
    on stderr too), and its heartbeat carries the last line it printed."""
    with ScriptedServer([call("run_command", command="echo begin; sleep 4"), call("finish", message="ok")]) as server:
        result = headless(server, ws, "--yes", "--output-format", "stream-json", "--verbose")
        assert result.code == 0, result.stderr
    events = events_of(result)
    stalls = [e for e in events if e["type"] == "stall"]
    assert stalls and {e["source"] for e in stalls} == {"tool"} and stalls[0]["name"] == "run_command"
    assert "run_command has printed nothing for 1 s" in stalls[0]["message"]
    assert any(e["type"] == "progress" and e["last_line"] == "begin" for e in events)
    assert "waiting: run_command has printed nothing" in result.stderr
    assert "run_command running for 3 s: begin" in result.stderr


def test_every_early_end_says_how_to_resume(ws: Path) -> None:
    """Every run that ends early prints how to resume it: a turn limit (exit 3) names `--resume ID` on
    stderr and in the JSON result; a finished run has no resume field."""
    reads = [call("list_dir", path=".")] * 2
    with ScriptedServer([*reads, call("finish", message="done")]) as server:
        stopped = headless(server, ws, "--max-turns", "1", "--output-format", "json")
        assert stopped.code == ExitCode.BUDGET, stopped.stderr
        first = json.loads(stopped.stdout)
        assert first["status"] == "turn_limit" and first["resume"] == f"--resume {first['session_id']}"
        assert f"sneakycode -p TASK --resume {first['session_id']}" in stopped.stderr
        resumed = headless(server, ws, "--resume", first["session_id"], "--output-format", "json")
        assert resumed.code == 0, resumed.stderr
    done = json.loads(resumed.stdout)
    assert done["session_id"] == first["session_id"] and done["resume"] is None and done["error_kind"] is None

