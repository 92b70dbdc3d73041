"""Approvals in a real pseudo-terminal: one key, the file's diff, "no, do this instead", "always" saved."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt

QUESTION = "what to do instead >"
STYLE = re.compile(r"\x1b\[[0-9;]*m")  # NO_COLOR drops colours; bold and dim stay


def rows_of(shown: str) -> list[str]:
    return [" ".join(STYLE.sub("", line).split()) for line in shown.splitlines()]


def leave(child: pexpect.spawn) -> str:
    wait_for_prompt(child)
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    return child.before or ""


def test_one_key_approves_after_showing_the_files_numbered_diff(ws: Path) -> None:
    (ws / "app.py").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    script = {"steps": [call("read_file", file_path="app.py"),
                        call("str_replace", file_path="app.py", old_str="line 6", new_str="LINE SIX"),
                        call("finish", message="Done.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        wait_for_prompt(child)
        child.sendline("shout line 6")
        child.expect("Allow str_replace app.py")
        child.expect(QUESTION)
        shown = child.before or ""
        child.send("y")  # no Enter
        child.expect("Done.")
        leave(child)
    rows = rows_of(shown)
    assert "app.py +1 -1" in rows
    assert "6 - line 6" in rows and "6 + LINE SIX" in rows  # its old and its new line number
    assert "3 3 line 3" in rows and "9 9 line 9" in rows  # three lines of context each side
    assert not any(row.endswith("line 2") for row in rows)
    assert (ws / "app.py").read_text().splitlines()[5] == "LINE SIX"


def test_no_and_what_to_do_instead_reaches_the_next_request(ws: Path) -> None:
    script = {"steps": [call("run_command", command="python -m unittest"), call("finish", message="Understood.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        wait_for_prompt(child)
        child.sendline("run the tests")
        child.expect_exact("$ python -m unittest")
        child.expect(QUESTION)
        child.send("t")
        child.expect("Tell the model what to do instead:")
        child.sendline("no, use pytest -q instead")
        child.expect("Understood.")
        leave(child)
        tool_messages = [m for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert "rejected_by_user" in tool_messages[-1]["content"]
    assert "no, use pytest -q instead" in tool_messages[-1]["content"]


def test_always_saved_to_the_project_config_is_honoured_by_a_new_session(ws: Path) -> None:
    config = ws / ".sneakycode" / "config.toml"
    config.parent.mkdir()
    config.write_text("# the team's settings\n[permissions]\ndeny = [\"run_command(rm:*)\"]\n")
    script = {"steps": [call("run_command", command="touch first.txt"), call("finish", message="One."),
                        call("run_command", command="touch second.txt"), call("finish", message="Two.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        wait_for_prompt(child)
        child.sendline("make the first file")
        child.expect(QUESTION)
        child.send("a")
        child.expect_exact("run_command(touch:*)")
        child.expect_exact("[p] saved to the project")
        child.send("p")
        child.expect("saved run_command")
        child.expect("One.")
        leave(child)
        assert (ws / "first.txt").exists()
        child = spawn(ws, server)
        wait_for_prompt(child)
        child.sendline("make the second file")
        child.expect("Two.")
        output = leave(child)
    assert (ws / "second.txt").exists()
    assert "Allow run_command" not in output and "[y/N]" not in output  # neither asked nor a trust question
    text = config.read_text()
    assert text.startswith("# the team's settings\n[permissions]\ndeny = [\"run_command(rm:*)\"]\n")
    assert 'allow = ["run_command(touch:*)"]' in text
