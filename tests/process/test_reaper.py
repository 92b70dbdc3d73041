"""Hardening class 8, last bullet (issue 11): with the sandbox off, `setsid -f`, double forks and `setsid cmd &`
outlived the session (4 of 4). SneakyCode is now a child subreaper and ends what a command detached when
the command ends; only what its commands left behind, never another process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.process.environment import shell_argv
from sneakycode.process.supervise import run_process
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli
from tests.faces.cli.test_headless import ENV, call, finish, tool_results
from tests.process.test_supervise import marker, running_with

OFF = {"SNEAKYCODE_TOOLS__SHELL__SANDBOX": '"off"'}


@pytest.fixture
def tags() -> Iterator[list[str]]:
    """Unique sleep lengths for the test's processes; whatever still runs with one at the end is killed, so
    a failing test leaves nothing behind."""
    made = [marker() for _ in range(6)]
    yield made
    for tag in made:
        for pid in running_with(tag):
            os.kill(pid, signal.SIGKILL)


def detach_every_way(tags: list[str]) -> str:
    """setsid -f, `setsid cmd &`, a double fork into a new session, a detached shell with a child of its own,
    and a detached process that ignores SIGTERM."""
    one, two, three, four, five, six = tags
    return (
        f"setsid -f sleep {one}; setsid sleep {two} & (setsid sleep {three} &); "
        f"setsid bash -c 'sleep {four} & sleep {five}' & "
        f"setsid -f bash -c \"trap '' TERM; sleep {six}\"; echo detached"
    )


def test_hardening_class_8_cli_detached_processes_end_with_the_command(ws: Path, tags: list[str]) -> None:
    """Hardening class 8: each way of detaching outlived `sneakycode tool run_command`; now every one is gone
    when the command returns, not only when the session ends (the second call looks for them)."""
    look = "ps -C sleep -o args | grep -c " + " ".join(f"-e 'sleep {tag}'" for tag in tags) + "; true"
    argv = ["tool", "run_command", json.dumps({"command": detach_every_way(tags)}),
            "run_command", json.dumps({"command": look}), "--workspace", str(ws)]
    result = run_cli(*argv, env=OFF)
    assert "detached" in result.stdout, result.stderr
    assert "left running in the background were stopped" in result.stdout
    assert result.stdout.split("=== run_command")[2].split()[0] == "0", result.stdout
    assert [running_with(tag) for tag in tags] == [[]] * len(tags)


def test_hardening_class_8_a_timeout_ends_detached_processes_too(ws: Path, tags: list[str]) -> None:
    """Hardening class 8: a command that times out after detaching leaves nothing running."""
    command = f"setsid -f sleep {tags[0]}; sleep {tags[1]}"
    result = run_cli("tool", "run_command", json.dumps({"command": command, "timeout": 1}), "--workspace", str(ws),
                     env=OFF)
    assert "timed out" in result.stdout
    assert running_with(tags[0]) == [] and running_with(tags[1]) == []


def test_hardening_class_8_agent_detached_processes_do_not_outlive_the_run(ws: Path, tags: list[str]) -> None:
    """Hardening class 8, through the agent and the scripted model, approved with --yes."""
    steps = [call("run_command", command=detach_every_way(tags)), finish("Started them.")]
    with ScriptedServer({"steps": steps}) as server:
        result = run_cli("-p", "Start servers", "--base-url", server.base_url, "--model", "m", "--workspace", str(ws),
                         "--yes", env={**ENV, **OFF})
        seen = tool_results(server.chat_requests[1])[0]
    assert result.code == 0, result.stderr
    assert "detached" in seen and "stopped when it ended" in seen
    assert [running_with(tag) for tag in tags] == [[]] * len(tags)


def test_hardening_class_8_the_callers_own_processes_are_never_swept(tmp_path: Path, tags: list[str]) -> None:
    """Hardening class 8: only what a supervised command left behind is ended. A process that made itself a
    subreaper keeps its own child (started outside `supervise`), and a caller that did not (this test runner)
    has nothing swept at all, not even a child in a session of its own."""
    own, escaped, neighbour = tags[:3]
    script = (
        "import subprocess, sys; from pathlib import Path\n"
        "from sneakycode.process.hardening import harden_process\n"
        "from sneakycode.process.environment import shell_argv\n"
        "from sneakycode.process.supervise import run_process\n"
        "assert harden_process().subreaper\n"
        f"mine = subprocess.Popen(['sleep', '{own}'])\n"
        f"result = run_process(shell_argv('setsid -f sleep {escaped}'), cwd=Path('.'), timeout=30)\n"
        "print('background_killed', result.ending.background_killed, 'mine', mine.poll() is None, flush=True)\n"
        "mine.kill(); mine.wait()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.stdout == "background_killed True mine True\n", done.stderr
    assert running_with(escaped) == []
    test_child = subprocess.Popen(["sleep", neighbour], start_new_session=True)
    try:
        result = run_process(shell_argv("true"), cwd=tmp_path, timeout=30)
        assert result.ending.exit_code == 0 and test_child.poll() is None
    finally:
        test_child.kill()
        test_child.wait()
