"""Hardening round two, class 6: malformed programmatic input. Bytes on the real CLI's stdin with
`--input-format stream-json` (and `-p -`) against the scripted server: every bad line gets a coded `error`
event and the session goes on; a stdin that cannot be read ends it with exit 2 and one line; no traceback
and no library warning reach stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sneakycode.faces.shared.stream_input import MAX_STDIN_MESSAGE_BYTES
from sneakycode.testing.server import ScriptedServer
from tests.faces.cli.test_headless import ENV

# Every warning shown, once per place: a library warning on the way would be in stderr.
LOUD = {**ENV, "PYTHONWARNINGS": "default"}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


def user(content: Any) -> bytes:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}}).encode() + b"\n"


def run_bytes(argv: list[str | bytes], stdin: bytes | None, **popen: Any) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sneakycode.faces.cli.main", *argv], input=stdin, capture_output=True,
        env={**os.environ, **LOUD}, timeout=120, **popen,
    )  # fmt: skip


def streamed(server: ScriptedServer, ws: Path) -> list[str | bytes]:
    return ["--input-format", "stream-json", "--output-format", "stream-json", "--base-url", server.base_url,
            "--model", "scripted-model", "--workspace", str(ws)]  # fmt: skip


def assert_clean(stderr: str) -> None:
    for word in ("Traceback", "Exception ignored", "Warning"):
        assert word not in stderr, stderr


BAD_LINES = [
    (b"\xff\xfe not text\n", "it is not UTF-8 text (byte 0xff at offset 0)"),
    (b"hello there\n", "it is not JSON (Expecting value at column 1)"),
    (b'{"type": "user", "message": {"role": "user", "content": "caf\xe9"}}\n', "it is not UTF-8 text (byte 0xe9"),
    (b"[" * 100_000 + b"]" * 100_000 + b"\n", "its JSON is nested too deeply"),
    (b"1" * 5000 + b"\n", "it is not usable JSON"),
    (b'["a list"]\n', "it is a JSON array, not an object"),
    (b'{"type": "assistant", "message": {"content": "hi"}}\n', 'its "type" is "assistant", not "user"'),
    (user(42), 'its "message" has no "content"'),
    (user([{"type": "text", "text": 7}]), 'its "message" has no "content"'),
    (b'{"type": "user", "message": {"role": "user", "content": "\\ud800"}}\n', "lone surrogate"),
    (user("   "), "its content is empty"),
    (user("x" * MAX_STDIN_MESSAGE_BYTES), f"it is longer than {MAX_STDIN_MESSAGE_BYTES >> 20} MiB"),
]


def test_every_bad_line_gets_a_coded_error_event_and_the_next_message_is_answered(
    server: ScriptedServer, ws: Path
) -> None:
    """Hardening round two, class 6: a non-UTF-8 byte used to end the session with a traceback (the surrogate
    it became could not be written to the transcript)."""
    server.add_steps([{"content": "Answered after the bad lines."}])
    stdin = b"".join(line for line, _ in BAD_LINES) + b"\n" + user("the real question")
    result = run_bytes(streamed(server, ws), stdin)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert_clean(stderr)
    validator = jsonschema.Draft202012Validator(json.loads(files("sneakycode.faces.cli").joinpath("stream_schema.json")
                                                           .read_text()))
    events = [json.loads(line) for line in result.stdout.decode().splitlines()]
    for event in events:
        validator.validate(event)
    errors = [e for e in events if e["type"] == "error"]
    assert [(e["code"], e["line"]) for e in errors] == [("invalid_input", n) for n in range(1, len(BAD_LINES) + 1)]
    for event, (_, problem) in zip(errors, BAD_LINES, strict=True):
        assert problem in event["message"], event
    assert stderr.count("[invalid_input]") == len(BAD_LINES)
    assert [e["result"] for e in events if e["type"] == "final"] == ["Answered after the bad lines."]
    [request] = server.chat_requests
    assert [m["content"] for m in request["messages"] if m["role"] == "user"] == ["the real question"]


def test_with_text_output_a_bad_line_is_reported_on_stderr_only(server: ScriptedServer, ws: Path) -> None:
    """Hardening round two, class 6: stdout keeps only what the format promises."""
    server.add_steps([{"content": "Fine."}])
    argv = [*streamed(server, ws)]
    argv[argv.index("--output-format") + 1] = "text"
    result = run_bytes(argv, b"\x80\n" + user("go"))
    assert result.returncode == 0 and result.stdout.decode().strip() == "Fine."
    assert "stdin line 1 is not a user message: it is not UTF-8 text" in result.stderr.decode()
    assert_clean(result.stderr.decode())


@pytest.mark.parametrize("redirect", ["<&-", "0>/dev/null"], ids=["closed", "write-only"])
def test_a_stdin_that_cannot_be_read_ends_with_exit_2_and_one_line(
    server: ScriptedServer, ws: Path, redirect: str
) -> None:
    """Hardening round two, class 6: the stream itself is unusable (closed, or open for writing only)."""
    argv = [sys.executable, "-m", "sneakycode.faces.cli.main", *map(os.fsdecode, streamed(server, ws))]
    proc = subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", *argv], capture_output=True, text=True,
                          env={**os.environ, **LOUD}, timeout=120)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "stdin" in proc.stderr, proc.stderr
    assert_clean(proc.stderr)
    assert server.chat_requests == []


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        (["-p", "-"], b"fix caf\xe9\n", "the task on stdin is not UTF-8 text (byte 0xe9 at offset 7)"),
        (["-p", "-"], b"x" * (MAX_STDIN_MESSAGE_BYTES + 1), "the task on stdin is longer than 4 MiB"),
        (["-p", b"fix caf\xe9"], None, "the task is not UTF-8 text"),
    ],
    ids=["stdin-not-utf8", "stdin-too-long", "argv-not-utf8"],
)
def test_a_task_that_is_not_text_is_a_usage_error(
    server: ScriptedServer, ws: Path, argv: list[str | bytes], stdin: bytes | None, message: str
) -> None:
    """Hardening round two, class 6: the task of `-p -` (or `-p`) goes through the same checks, before
    anything is sent."""
    result = run_bytes([*argv, "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws)],
                       stdin)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == f"sneakycode: {message}"
    assert server.chat_requests == []
