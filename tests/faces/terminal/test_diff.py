"""`/diff` in a real pseudo-terminal: what the session changed, text as text and binary as binary."""

from __future__ import annotations

from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def test_slash_diff_shows_text_changes_as_text_and_binary_files_as_binary(ws: Path) -> None:
    """Regression: the checkpoint repository marked every path `-diff`, so /diff said "Binary files ... differ"
    for every file, text included."""
    (ws / "app.py").write_text("x = 1\n")
    (ws / "blob.bin").write_bytes(b"\x00\x01old")
    script = {"steps": [
        call("run_command", command="printf 'x = 2\\n' > app.py && printf '\\000\\002new' > blob.bin"),
        call("finish", message="Changed both."),
    ]}  # fmt: skip
    with ScriptedServer(script) as server:
        child = spawn(ws, server, "--mode", "yolo")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("change both")
        child.expect("Changed both.")
        wait_for_prompt(child)
        child.sendline("/diff")
        child.expect_exact("+x = 2")
        shown = (child.before or "") + (child.after or "")
        wait_for_prompt(child)
        shown += child.before or ""
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    assert "-x = 1" in shown
    assert "Binary files a/blob.bin and b/blob.bin differ" in shown
    assert "a/app.py and b/app.py differ" not in shown
