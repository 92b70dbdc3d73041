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


def test_slash_attempts_asks_before_the_chosen_change_is_applied(ws: Path) -> None:
    import subprocess

    (ws / "app.py").write_text("x = 1\n")
    (ws / "check_app.py").write_text("from app import x\nassert x == 2\n")
    for argv in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "s"]):
        subprocess.run(["git", "-C", str(ws), *argv], check=True)
    steps = [call("read_file", file_path="app.py"),
             call("str_replace", file_path="app.py", old_str="x = 1", new_str="x = 2"),
             call("finish", message="Changed x to 2.")]
    with ScriptedServer({"steps": steps}) as server:
        child = spawn(ws, server, model="scripted-model")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/goal python3 check_app.py")
        child.expect("Goal set")
        wait_for_prompt(child)
        assert (ws / "app.py").read_text() == "x = 1\n"
        child.sendline("/attempts 1 set x to 2")
        child.expect("Apply attempt 1's change", timeout=120)
        assert (ws / "app.py").read_text() == "x = 1\n"  # nothing touches the workspace before the answer
        child.sendline("y")
        child.expect("applied to the workspace")
        wait_for_prompt(child)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
    assert (ws / "app.py").read_text() == "x = 2\n"
