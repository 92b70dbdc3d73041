"""The prompt prefix a server can cache: through the real `sneakycode -p` CLI against the scripted server, every
request's messages and tools extend the previous request's byte for byte, within a session and across
`--continue`, and what must be said after a resume goes after the history, never into the prefix."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.loop import RESUMED_NOTE
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, project_config, run_cli
from tests.faces.cli.test_headless import ENV, call, finish

# A SessionStart hook whose context changes on every run (the clock): it must never shift the prefix.
CLOCK_HOOK = "import time; print('Started at', time.time_ns())"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer({"steps": [], "models": ["scripted-model"]}) as running:
        yield running


@pytest.fixture
def project(ws: Path) -> Path:
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    hook = {"type": "command", "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(CLOCK_HOOK)}"}
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    project_config(ws, "", trusted=True)
    return ws


def headless(server: ScriptedServer, ws: Path, task: str, *flags: str) -> CliResult:
    return run_cli("-p", task, "--base-url", server.base_url, "--model", "scripted-model", "--workspace", str(ws),
                   "--output-format", "json", *flags, env=ENV)


def wire(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def broken_prefixes(requests: list[dict[str, Any]]) -> list[str]:
    """Where a request does not extend the one before it byte for byte (messages as sent, and the tools)."""
    problems = []
    for number, (before, after) in enumerate(pairwise(requests), 2):
        old, new = wire(before["messages"])[:-1], wire(after["messages"])
        if not new.startswith(old):
            same = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), len(old))
            problems.append(f"request {number}: messages differ at byte {same} of {len(old)}: {new[same:same + 80]!r}")
        if wire(before.get("tools")) != wire(after.get("tools")):
            problems.append(f"request {number}: the tools array changed")
    return problems


def test_a_session_and_its_continuation_send_one_growing_prefix(server: ScriptedServer, project: Path) -> None:
    """A multi-turn session (reads, an edit, a command, an answer) then `--continue` with more tool calls: each
    request extends the previous one byte for byte, the resumed note and the resumed SessionStart hook's new
    context ride on the first new user message, and the system prompt is the one the session started with."""
    server.add_steps([
        call("read_file", file_path="calc.py"),
        call("str_replace", file_path="calc.py", old_str="a - b", new_str="a + b"),
        call("run_command", command=f"{sys.executable} -c 'import calc; print(calc.add(2, 3))'"),
        {"content": "Fixed: add now adds."},
    ])
    first = headless(server, project, "Fix add in calc.py", "--yes")
    assert first.code == 0, first.stderr
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    server.add_steps([call("read_file", file_path="calc.py"), finish("It adds.")])
    second = headless(server, project, "Check it again", "--continue", "--yes")
    assert second.code == 0, second.stderr
    assert json.loads(second.stdout)["session_id"] == json.loads(first.stdout)["session_id"]

    requests = server.chat_requests
    assert len(requests) == 6
    assert broken_prefixes(requests) == []
    system = requests[0]["messages"][0]["content"]
    assert "Started at" in system and RESUMED_NOTE not in system
    resumed_request = requests[4]["messages"][len(requests[3]["messages"]) + 1]
    assert resumed_request["role"] == "user"
    assert resumed_request["content"].startswith(f"[{RESUMED_NOTE}]")
    assert "Started at" in resumed_request["content"] and resumed_request["content"].endswith("Check it again")


def test_the_prefix_holds_through_a_resume_by_id_too(server: ScriptedServer, ws: Path) -> None:
    """`--resume ID` of a session whose last turn answered: the next request is the old one plus the reply and the
    new request (the old system prompt unchanged), so a caching server reads only the new tail."""
    server.add_steps([{"content": "One."}])
    first = json.loads(headless(server, ws, "Say one").stdout)
    server.add_steps([{"content": "Two."}])
    headless(server, ws, "Say two", "--resume", first["session_id"])
    before, after = server.chat_requests
    assert broken_prefixes([before, after]) == []
    assert [m["role"] for m in after["messages"][len(before["messages"]):]] == ["assistant", "user"]
