"""The endpoint check at start, in a real pseudo-terminal: a server that is down or a key it refuses is said at
once, while the first prompt waits, with the fix; nothing waits for the first message's retries to find out."""

from __future__ import annotations

import io
from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import spawn, wait_for_prompt


def _leave(child: pexpect.spawn) -> None:
    wait_for_prompt(child)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def test_a_stopped_server_is_named_at_start_with_the_fix(ws: Path) -> None:
    server = ScriptedServer({"steps": []}).start()
    server.stop()  # its port now refuses connections: a local server that is not running
    child = spawn(ws, server)
    child.expect("Type a task")
    child.expect("The model server cannot be used")  # nothing typed: said while the first prompt waits
    child.expect_exact(f"GET {server.base_url}/models")
    child.expect("start the server")
    child.expect("correct base_url")
    _leave(child)


def test_a_refused_key_is_said_at_start_with_where_it_came_from(ws: Path) -> None:
    with ScriptedServer({"steps": [], "api_key": "right"}) as server:
        child = spawn(ws, server, "--api-key", "wrong")
        child.expect("Type a task")
        child.expect("The model server cannot be used")
        child.expect("HTTP 401")
        child.expect("--api-key KEY")
        child.expect("the key came from the --api-key flag")
        _leave(child)
        assert not server.chat_requests  # the user was told without a message being sent


def test_a_working_server_says_nothing_at_start(ws: Path) -> None:
    with ScriptedServer({"steps": [{"content": "hi"}]}) as server:
        child = spawn(ws, server)
        child.logfile_read = seen = io.StringIO()
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("hello")
        child.expect("hi")
        _leave(child)
        assert any(r.path.endswith("/models") and r.status == 200 for r in server.requests)
    assert "cannot be used" not in seen.getvalue()
