"""`/goal CMD` in the interactive terminal (issue 40): the next task runs until the check passes."""

from __future__ import annotations

from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def test_slash_goal_makes_the_next_task_run_until_its_check_passes(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    (ws / "check_app.py").write_text("from app import x\nassert x == 2\n")
    steps = [call("finish", message="Nothing to do."), call("read_file", file_path="app.py"),
             call("str_replace", file_path="app.py", old_str="x = 1", new_str="x = 2"),
             call("finish", message="Changed x to 2.")]
    with ScriptedServer({"steps": steps}) as server:
        child = spawn(ws, server, "--mode", "auto-edit")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/goal python3 check_app.py")
        child.expect("Goal set")
        wait_for_prompt(child)
        child.sendline("set x to 2")
        child.expect("fails \\(exit 1\\) after round 1")
        child.expect("Changed x to 2.")
        wait_for_prompt(child)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
        assert len(server.chat_requests) == 4
    assert (ws / "app.py").read_text() == "x = 2\n"
