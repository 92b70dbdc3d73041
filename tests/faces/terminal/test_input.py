"""Input and control in a real pseudo-terminal against the scripted server: @file and !cmd reaching the
model, Esc killing a running command, Shift+Tab into plan mode, /model, /compact, multi-line input, /resume and the
first-run setup."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pexpect

from sneakycode.testing.server import ScriptedServer
from tests.faces.terminal.test_app import EDIT_SCRIPT, call, spawn, wait_for_prompt

SHIFT_TAB = "\x1b[Z"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def started(child: pexpect.spawn) -> None:
    child.expect("Type a task")
    wait_for_prompt(child)


def answer_cursor_request(child: pexpect.spawn) -> None:
    """Answer prompt_toolkit's cursor position request as a terminal would: it draws the status line only
    once it knows where the cursor is."""
    child.send("\x1b[1;1R")


def leave(child: pexpect.spawn) -> None:
    child.sendcontrol("d")
    child.expect(pexpect.EOF)


def user_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [str(m["content"]) for m in messages if m["role"] == "user"]


def test_an_at_file_is_attached_numbered_and_counts_as_read(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\ny = 2\n")
    script = {"steps": [call("str_replace", file_path="app.py", old_str="x = 1", new_str="x = 3"),
                        call("finish", message="Edited.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server, "--mode", "auto-edit")
        started(child)
        child.sendline("what does @app.py do?")
        child.expect("attached app.py")
        child.expect("Edited.")
        wait_for_prompt(child)
        leave(child)
        first = server.chat_requests[0]
    request = user_texts(first)[-1]
    assert request.startswith("what does @app.py do?") and "1\tx = 1\n     2\ty = 2" in request
    assert (ws / "app.py").read_text() == "x = 3\ny = 2\n"  # no "read it first" refusal: the mention was a read


def test_bang_command_output_reaches_the_next_request(ws: Path) -> None:
    with ScriptedServer({"steps": [call("finish", message="Saw it.")]}) as server:
        child = spawn(ws, server)
        started(child)
        child.sendline("!echo hi-from-$((40 + 2))")
        child.expect("hi-from-42")
        child.expect("shared with the model")
        wait_for_prompt(child)
        assert server.chat_requests == []  # a command alone sends nothing
        child.sendline("what did it print?")
        child.expect("Saw it.")
        wait_for_prompt(child)
        leave(child)
        request = user_texts(server.chat_requests[0])[-1]
    assert "echo hi-from-$((40 + 2))" in request and "hi-from-42" in request
    assert request.endswith("what did it print?")


def _sleepers(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_esc_during_a_long_command_kills_it_and_keeps_the_history_valid(ws: Path) -> None:
    script = {"steps": [call("run_command", command="sleep 317.5 && echo never"),
                        call("finish", message="Stopped as asked.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server, "--mode", "yolo")
        started(child)
        child.sendline("wait a while")
        child.expect("sleep 317.5")
        deadline = time.monotonic() + 10
        while not _sleepers("sleep 317.5") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _sleepers("sleep 317.5"), "the command never started"
        child.send("\x1b")
        child.expect("[Cc]ancelled")
        wait_for_prompt(child)
        assert _sleepers("sleep 317.5") == []
        child.sendline("go on")
        child.expect("Stopped as asked.")
        wait_for_prompt(child)
        leave(child)
        tool_messages = [m for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert "cancelled" in tool_messages[-1]["content"]


def test_shift_tab_cycles_into_plan_mode_which_refuses_an_edit(ws: Path) -> None:
    (ws / "app.py").write_text("x = 1\n")
    with ScriptedServer(EDIT_SCRIPT) as server:
        child = spawn(ws, server)
        started(child)
        answer_cursor_request(child)
        gap = r"(?: |\x1b\[\d*C)"  # prompt_toolkit moves the cursor over blanks instead of writing them
        child.expect(rf"m{gap}·{gap}default{gap}·{gap}context{gap}\d+%{gap}of{gap}8k{gap}·{gap}0{gap}tokens")
        child.send(SHIFT_TAB)
        child.expect("auto-edit")
        child.send(SHIFT_TAB)
        child.expect("plan")
        child.sendline("set x to 2")
        child.expect("Changed x to 2.")
        wait_for_prompt(child)
        child.sendline("/permissions")
        child.expect("mode: plan")
        wait_for_prompt(child)
        leave(child)
        output = child.before or ""
    assert "Allow str_replace" not in output
    assert (ws / "app.py").read_text() == "x = 1\n"


def test_model_lists_the_servers_models_and_switches(ws: Path) -> None:
    script = {"models": ["m", "m-large"], "steps": [call("finish", message="Large here.")]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        started(child)
        child.sendline("/model")
        child.expect(r"\* m\r?\n")
        child.expect("m-large")
        wait_for_prompt(child)
        child.sendline("/model nope")
        child.expect("not among the server's models")
        wait_for_prompt(child)
        child.sendline("/model m-large")
        child.expect("model set to m-large")
        wait_for_prompt(child)
        child.sendline("hello")
        child.expect("Large here.")
        wait_for_prompt(child)
        leave(child)
        [request] = server.chat_requests
    assert request["model"] == "m-large"


def test_compact_replaces_the_conversation_with_the_models_summary(ws: Path) -> None:
    script = {"steps": [{"content": "First answer."}, {"content": "SUMMARY: the user said hello."},
                        {"content": "Carrying on."}]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        started(child)
        child.sendline("hello there")
        child.expect("First answer.")
        wait_for_prompt(child)
        child.sendline("/compact the greeting")
        child.expect("Compacted 2 message")
        wait_for_prompt(child)
        child.sendline("and now?")
        child.expect("Carrying on.")
        wait_for_prompt(child)
        leave(child)
        summary_request, last = server.chat_requests[1], server.chat_requests[2]
    assert "Focus the summary on: the greeting" in summary_request["messages"][0]["content"]
    assert "hello there" in summary_request["messages"][1]["content"]
    texts = user_texts(last)
    assert len(texts) == 2 and "SUMMARY: the user said hello." in texts[0] and texts[1] == "and now?"


def test_model_small_switches_the_model_that_writes_summaries(ws: Path) -> None:
    """Issue 26, model roles: `/model small NAME` sends the chores (here /compact's summary) to NAME; the
    conversation stays on the main model."""
    script = {"steps": [{"content": "First answer."}, {"content": "SUMMARY: hello."}, {"content": "Carrying on."}]}
    with ScriptedServer(script) as server:
        child = spawn(ws, server)
        started(child)
        child.sendline("/model small")
        child.expect("small model: none")
        wait_for_prompt(child)
        child.sendline("hello there")
        child.expect("First answer.")
        wait_for_prompt(child)
        child.sendline("/model small s-tiny")
        child.expect("small model set to s-tiny")
        wait_for_prompt(child)
        child.sendline("/compact")
        child.expect("Compacted 2 message")
        wait_for_prompt(child)
        child.sendline("and now?")
        child.expect("Carrying on.")
        wait_for_prompt(child)
        leave(child)
    assert [r["model"] for r in server.chat_requests] == ["m", "s-tiny", "m"]


def test_resume_continues_an_earlier_sessions_conversation_here(ws: Path) -> None:
    """/resume reads the other session's messages through the typed history (issue 24): they reach the model
    as they were sent."""
    from tests.conftest import run_cli

    script = {"steps": [{"content": "The answer is 42."}, {"content": "Still 42."}]}
    with ScriptedServer(script) as server:
        first = run_cli("-p", "What is the answer?", "--base-url", server.base_url, "--model", "m",
                        "--workspace", str(ws), env={"NO_PROXY": "127.0.0.1"})
        assert first.code == 0, first.stderr
        child = spawn(ws, server)
        started(child)
        child.sendline("/resume 1")
        child.expect("Resumed the conversation of")
        wait_for_prompt(child)
        child.sendline("and now?")
        child.expect("Still 42.")
        wait_for_prompt(child)
        leave(child)
        last = server.chat_requests[1]
    sent = [(m["role"], m["content"]) for m in last["messages"][1:]]
    assert sent == [("user", "What is the answer?"), ("assistant", "The answer is 42."), ("user", "and now?")]


def test_multiline_input_and_a_paste_stay_one_message(ws: Path) -> None:
    steps = [{"content": "One."}, {"content": "Two."}]
    with ScriptedServer({"steps": steps}) as server:
        child = spawn(ws, server)
        started(child)
        child.send("first line\\")
        child.send("\r")
        child.send("second line")
        child.sendcontrol("j")
        child.sendline("third line")
        child.expect("One.")
        wait_for_prompt(child)
        child.send(f"{PASTE_START}pasted a\npasted b{PASTE_END}")
        child.sendline("")
        child.expect("Two.")
        wait_for_prompt(child)
        leave(child)
        first, second = (user_texts(r)[-1] for r in server.chat_requests)
    assert first == "first line\nsecond line\nthird line"
    assert second == "pasted a\npasted b"


def test_first_run_setup_saves_the_chosen_server_and_model(ws: Path, isolated_home: Path) -> None:
    script = {"models": ["alpha", "beta"], "steps": [{"content": "Hello from beta."}]}
    with ScriptedServer(script) as server:
        child = spawn(ws, None)
        child.expect("No model is set up yet")
        child.expect(r"(\d)\) another OpenAI-compatible server")
        custom = child.match.group(1)
        child.expect_exact("Which one?")
        child.sendline(custom)
        child.expect_exact("The server's URL")
        child.sendline(server.base_url)
        child.expect_exact("Its API key")
        child.sendline("")
        child.expect(r"2\) beta")
        child.expect_exact("Which model?")
        child.sendline("2")
        child.expect("Saved provider custom and model beta")
        started(child)
        child.sendline("hi")
        child.expect("Hello from beta.")
        wait_for_prompt(child)
        leave(child)
        [request] = server.chat_requests
    assert request["model"] == "beta"
    saved = (Path(os.environ["XDG_CONFIG_HOME"]) / "sneakycode" / "config.toml").read_text()
    assert 'provider = "custom"' in saved and 'model = "beta"' in saved and server.base_url in saved
