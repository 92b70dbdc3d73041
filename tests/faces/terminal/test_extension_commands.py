"""Custom commands and skills in the interactive terminal: listed in /help and /skills, completed with Tab,
and run with /NAME (the expanded prompt is the request the model gets)."""

from __future__ import annotations

from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def test_commands_and_skills_are_listed_completed_and_run(ws: Path) -> None:
    commands = ws / ".sneakycode" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 now.\n")
    folder = ws / ".sneakycode" / "skills" / "tidy-imports"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: tidy-imports\ndescription: Sort the imports.\n---\nSort them.\n")
    with ScriptedServer({"steps": [call("finish", message="Reviewed it.")]}) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/help")
        styled = r"(?:\x1b\[[0-9;]*m)*"  # bold names: NO_COLOR drops colours, not bold
        child.expect(rf"/review{styled}\s+{styled}FILE Review a file")
        child.expect(rf"/tidy-imports{styled}\s+{styled}\(skill\) Sort the imports\.")
        wait_for_prompt(child)
        child.sendline("/skills")
        child.expect_exact(".sneakycode/skills/tidy-imports")
        wait_for_prompt(child)
        child.send("/rev\t")
        child.expect_exact("/review")
        child.sendline(" app.py")
        child.expect("Reviewed it.")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        [request] = server.chat_requests
    assert request["messages"][1] == {"role": "user", "content": "Review app.py now."}
