"""Reasoning in the real terminal (a pty): shown as it arrives, before the answer it precedes (it used to come
whole after the answer's text), and only once (issue 38)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import spawn, wait_for_prompt

THOUGHT = "The user greets me; a short greeting back will do, nothing to look up."
ANSWER = "Hello there, how can I help?"


def test_reasoning_is_shown_before_the_answer_and_once(ws: Path) -> None:
    script = {"chunk_size": 8, "steps": [{"reasoning": THOUGHT, "content": ANSWER, "chunk_delay": 0.01}]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        child.logfile_read = seen = io.StringIO()
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("hi")
        child.expect("how can I help")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\x08", "", seen.getvalue())
    assert shown.count(THOUGHT) == 1, shown
    assert shown.index(THOUGHT) < shown.index(ANSWER)
