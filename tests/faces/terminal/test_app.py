"""The interactive session in a real pseudo-terminal (pexpect) against the scripted model server."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pexpect

from sneakycode.testing.server import ScriptedServer


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


PROMPT_READY = "\x1b[?2004h"  # prompt_toolkit turns bracketed paste on once it is reading input


def wait_for_prompt(child: pexpect.spawn) -> None:
    child.expect_exact(PROMPT_READY)


def spawn(ws: Path, server: ScriptedServer | None, *flags: str, model: str = "m") -> pexpect.spawn:
    """The real `sneakycode` in a pty; `server` None starts it with no model configured."""
    # The pty's own size decides the width: pytest-xdist's workers export COLUMNS=80 and LINES=24, which would
    # make the terminal wrap at 80 under `make test` and not in a run of one file.
    inherited = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env = {**inherited, "SNEAKYCODE_RETRY_BACKOFF": "0.01", "TERM": "xterm", "NO_COLOR": "1"}
    where = ["--base-url", server.base_url, "--model", model] if server is not None else []
    child = pexpect.spawn(
        sys.executable,
        ["-m", "sneakycode.faces.cli.main", "--workspace", str(ws), *where, *flags],
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 160),
    )
    child.linesep = "\r"  # what Enter sends; "\n" is Ctrl-J, which adds a line
    return child


EDIT_SCRIPT = {
    "steps": [
        call("read_file", file_path="app.py"),
        call("str_replace", file_path="app.py", old_str="x = 1", new_str="x = 2"),
        call("finish", message="Changed x to 2."),
    ]
}


def test_approved_edit_changes_the_file_and_undo_reverts_it(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    with ScriptedServer(EDIT_SCRIPT) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("set x to 2")
        child.expect("Allow str_replace")
        child.expect("what to do instead >")
        child.send("y")
        child.expect("Changed x to 2.")
        child.expect("tool call")
        wait_for_prompt(child)
        assert (ws / "app.py").read_text() == "x = 2\n"
        child.sendline("/undo")
        child.expect("Undid 1 change")
        wait_for_prompt(child)
        assert (ws / "app.py").read_text() == "x = 1\n"
        child.sendcontrol("d")
        child.expect("saved")
        child.expect(pexpect.EOF)


def test_declined_edit_leaves_the_file_and_tells_the_model(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    with ScriptedServer(EDIT_SCRIPT) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("set x to 2")
        child.expect("what to do instead >")
        child.send("n")
        child.expect("Changed x to 2.")
        wait_for_prompt(child)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
        tool_messages = [m for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert (ws / "app.py").read_text() == "x = 1\n"
    assert "rejected_by_user" in tool_messages[-1]["content"]


def test_an_edit_bound_to_fail_is_never_put_to_the_user(ws: Path) -> None:
    """Regression: a str_replace whose old text is not in the file was still put to the user for approval."""
    (ws / "app.py").write_text("x = 1\n")
    script = {"steps": [
        call("read_file", file_path="app.py"),
        call("str_replace", file_path="app.py", old_str="y = 9", new_str="y = 10"),
        call("finish", message="Could not change y."),
    ]}  # fmt: skip
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("set y to 10")
        child.expect("Could not change y.")
        output = child.before or ""
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        tool_messages = [m for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert "Allow str_replace" not in output and "what to do instead" not in output
    assert "str_replace app.py" in output
    assert "[no_match]" in tool_messages[-1]["content"]
    assert (ws / "app.py").read_text() == "x = 1\n"


def test_plan_mode_set_by_slash_command_refuses_edits_without_asking(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    with ScriptedServer(EDIT_SCRIPT) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/mode plan")
        child.expect("mode set to plan")
        wait_for_prompt(child)
        child.sendline("set x to 2")
        child.expect("Changed x to 2.")
        wait_for_prompt(child)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
        output = child.before or ""
    assert "Allow str_replace" not in output
    assert (ws / "app.py").read_text() == "x = 1\n"


def test_missing_model_configuration_without_a_terminal_explains_how_to_set_one_up(ws: Path) -> None:
    """Regression: prompt_toolkit's "Input is not a terminal" warning came before our own message. Without a
    terminal the session says to use -p (hardening round two, class 7), and -p then says how to set a model up."""
    from tests.conftest import run_cli

    result = run_cli("--workspace", str(ws), stdin="", env={"NO_COLOR": "1"})
    assert result.code == 2
    assert "interactive session needs a terminal" in result.stderr and '-p "TASK"' in result.stderr
    assert "not a terminal" not in result.stdout + result.stderr
    headless = run_cli("-p", "hello", "--workspace", str(ws), stdin="", env={"NO_COLOR": "1"})
    assert headless.code == 2 and "GROQ_API_KEY" in headless.stderr


def test_an_untrusted_project_file_is_shown_and_applies_only_after_the_user_says_yes(ws: Path) -> None:
    """Hardening class 1: the interactive trust prompt lists exactly what the repository's file asks for."""
    from sneakycode.config import load_settings
    from tests.conftest import project_config

    project_config(ws, '[permissions]\nmode = "yolo"\nallow = ["run_command(curl:*)"]\n', trusted=False)
    with ScriptedServer({"steps": []}) as server:
        child = spawn(ws, server)
        child.expect("came with this repository and asks for:")
        child.expect_exact('permissions.mode = "yolo"')
        child.expect_exact("Trust this workspace and apply them? [y/N]")
        child.sendline("n")
        child.expect("Not trusted")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/permissions")
        child.expect("mode: default")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        assert load_settings(ws, environ={}).settings.permissions.mode == "default"
        child = spawn(ws, server)
        child.expect_exact("[y/N]")
        child.sendline("y")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/permissions")
        child.expect("mode: yolo")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    assert load_settings(ws, environ={}).settings.permissions.mode == "yolo"


def test_rewind_puts_back_what_a_command_changed_and_the_conversation(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    script = {
        "steps": [
            call("run_command", command="rm app.py && echo made > new.txt"),
            call("finish", message="Removed app.py."),
            call("finish", message="Rewound and ready."),
        ],
    }
    with ScriptedServer(script) as server:
        child = spawn(ws, server, "--mode", "yolo")
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("remove app.py")
        child.expect("Removed app.py.")
        wait_for_prompt(child)
        assert not (ws / "app.py").exists()
        child.sendline("/rewind 1")
        child.expect("Rewound session")
        wait_for_prompt(child)
        assert (ws / "app.py").read_text() == "x = 1\n" and not (ws / "new.txt").exists()
        child.sendline("and now?")
        child.expect("Rewound and ready.")
        wait_for_prompt(child)
        sent = server.chat_requests[-1]["messages"]
        assert [m["role"] for m in sent[1:]] == ["user", "user"]  # turn 1 is gone from the conversation
        child.sendcontrol("d")
        child.expect(pexpect.EOF)


def test_slash_mcp_lists_the_sessions_servers_and_leaving_stops_them(ws: Path, tmp_path: Path) -> None:
    from tests.extensions.mcp.servers import fixture_server, gone, pid_in, user_servers

    pid_file = tmp_path / "fx.pid"
    user_servers({"fx": fixture_server("--pid-file", str(pid_file))})
    with ScriptedServer({"steps": []}) as server:
        child = spawn(ws, server)
        child.expect("Type a task")
        wait_for_prompt(child)
        child.sendline("/mcp")
        child.expect(r"fx\s+connected\s+10 tools")
        wait_for_prompt(child)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    assert gone(pid_in(pid_file)), "the server outlived the interactive session"


def test_a_task_on_the_command_line_is_the_sessions_first_message(ws: Path) -> None:
    """Issue 37: `sneakycode "TASK"` was an error; peers start the interactive session with it as its first message,
    and the session goes on at the prompt afterwards."""
    script = {"steps": [{"content": "Hello from the first turn."}, {"content": "Second answer."}]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server, "say hello")
        child.expect("Hello from the first turn.")
        wait_for_prompt(child)
        child.sendline("and again")
        child.expect("Second answer.")
        wait_for_prompt(child)
        child.sendline("/exit")
        child.expect(pexpect.EOF)
        first_user = [m for m in server.chat_requests[0]["messages"] if m["role"] == "user"]
    assert "say hello" in str(first_user[-1]["content"])
