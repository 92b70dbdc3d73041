"""`sneakycode -p ... | head`: a reader that goes away ends the run quietly (issue 37: two BrokenPipeError
tracebacks, the second from the loop reporting the first as an internal error of its own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sneakycode.testing.server import ScriptedServer

ENV = {"SNEAKYCODE_RETRY_BACKOFF": "0.01", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


@pytest.mark.parametrize("output_format", ["stream-json", "json", "text"])
def test_a_closed_pipe_on_stdout_ends_the_run_without_a_traceback(output_format: str, ws: Path) -> None:
    steps = [call("list_dir"), call("list_dir"), call("finish", message="Listed twice.")]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line: every write meets a closed pipe
    try:
        with ScriptedServer(steps) as server:
            done = subprocess.run(
                [sys.executable, "-m", "sneakycode.faces.cli.main", "-p", "look around", "--base-url", server.base_url,
                 "--model", "m", "--output-format", output_format, "--workspace", str(ws)],
                stdout=write_end, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=60,
                env={**os.environ, **ENV},
            )
    finally:
        os.close(write_end)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert "internal error" not in done.stderr.lower(), done.stderr
    assert done.returncode == 130  # as when interrupted: the output did not reach anyone
    if output_format == "stream-json":  # the first line (`start`) failed: no request is sent after it
        assert server.chat_requests == []
