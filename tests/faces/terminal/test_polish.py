"""The first hour in the terminal without a wart (issue 37), each through the real pseudo-terminal: the finish
message rendered as Markdown, a cut reply above "Cancelled", the "always" menu on its own line, a rejection
without the policy's reason or the person's thinking time, /help in columns, /config after /model, and the
exit line naming undo only when there is something to undo."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import call, spawn, wait_for_prompt


def _started(child: pexpect.spawn) -> io.StringIO:
    child.logfile_read = seen = io.StringIO()
    child.expect("Type a task")
    wait_for_prompt(child)
    return seen


def _leave(child: pexpect.spawn) -> None:
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def _plain(seen: io.StringIO) -> str:
    """What the terminal showed, without escape sequences and carriage returns."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\x08", "", seen.getvalue())


def test_the_finish_message_is_rendered_as_markdown_and_an_unchanged_session_names_no_undo(ws: Path) -> None:
    with ScriptedServer({"steps": [call("finish", message="Found **two** bugs in `app.py`.")]}) as server:
        child = spawn(ws, server)
        seen = _started(child)
        child.sendline("look")
        child.expect("bugs in")
        wait_for_prompt(child)
        _leave(child)
    shown = _plain(seen)
    assert "Found two bugs in app.py." in shown and "**two**" not in shown and "`app.py`" not in shown
    exit_line = next(line for line in shown.splitlines() if "saved;" in line)
    assert exit_line.endswith("continues it.") and "undo" not in exit_line  # nothing was changed


def test_a_reply_cut_by_ctrl_c_is_printed_above_cancelled(ws: Path) -> None:
    # Every chunk is followed by the delay: the role chunk, then all the text at once (its first paragraph a
    # finished block, printed at once), then the end, which Ctrl-C comes before.
    slow = {"content": "First paragraph.\n\nSecond paragraph, cut", "chunk_delay": 10}
    with ScriptedServer({"steps": [slow], "chunk_size": 1000}) as server:
        child = spawn(ws, server)
        seen = _started(child)
        child.sendline("talk")
        child.expect("First paragraph.")  # a finished block is printed as it streams; the rest is open
        child.sendintr()
        child.expect("Cancelled")
        wait_for_prompt(child)
        _leave(child)
    shown = _plain(seen)
    assert shown.index("Second paragraph, cut") < shown.index("Cancelled")


def test_always_opens_its_menu_on_a_line_of_its_own(ws: Path) -> None:
    script = {"steps": [call("run_command", command="echo hi"), call("finish", message="Said hi.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        seen = _started(child)
        child.sendline("say hi")
        child.expect_exact("what to do instead > ")
        child.send("a")
        child.expect("Always allow")
        child.expect_exact("> ")
        child.send("s")
        child.expect("Said hi.")
        wait_for_prompt(child)
        _leave(child)
    shown = _plain(seen)
    assert "what to do instead > always\nAlways allow run_command(echo hi:*):" in shown
    assert "\n> this session\nallowed for this session: run_command(echo hi:*)" in shown


def test_a_rejection_repeats_no_reason_and_shows_no_time(ws: Path) -> None:
    script = {"steps": [call("run_command", command="touch made"), call("finish", message="Left it.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        seen = _started(child)
        child.sendline("touch it")
        child.expect_exact("what to do instead > ")
        child.send("n")
        child.expect("Left it.")
        wait_for_prompt(child)
        _leave(child)
    shown = _plain(seen)
    assert shown.count("matches no allowed command") == 1  # in the question only
    result = next(line for line in shown.splitlines() if line.startswith("* run_command touch made"))
    assert result.rstrip().endswith("rejected_by_user")  # no ", 2.3 s": that was the person thinking
    assert not (ws / "made").exists()


def test_help_lists_commands_in_two_aligned_columns(ws: Path) -> None:
    with ScriptedServer({"steps": []}) as server:
        child = spawn(ws, server)
        seen = _started(child)
        child.sendline("/help")
        child.expect("/exit")
        wait_for_prompt(child)
        _leave(child)
    rows = [line for line in _plain(seen).splitlines() if re.match(r"  /(help|diff|undo|config|exit)\s", line)]
    starts = {re.match(r"  /\S+\s+", row).end() for row in rows}  # type: ignore[union-attr]
    assert len(rows) >= 5 and len(starts) == 1, rows


def test_config_shows_the_model_slash_model_switched_to(ws: Path) -> None:
    with ScriptedServer({"steps": [], "models": ["m", "m2"]}) as server:
        child = spawn(ws, server)
        _started(child)
        child.sendline("/model m2")
        child.expect("model set to m2")
        wait_for_prompt(child)
        child.sendline("/config")
        child.expect(r"model = 'm2'\s+\S*\(switched with /model in this session\)")
        wait_for_prompt(child)
        _leave(child)
