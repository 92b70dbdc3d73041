"""Hooks end to end (issue 15): Claude Code-style hook scripts configured in TOML or `.claude/settings.json`, run
by `sneakycode -p` (its main, in process) against the scripted server; each test asserts what the user or the model
sees."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import time
from pathlib import Path
from typing import Any

from sneakycode.config import user_config_path
from sneakycode.testing.server import ScriptedServer
from tests.conftest import CliResult, project_config, run_main
from tests.faces.cli.test_headless import ENV, call, finish, tool_results


def hook_script(folder: Path, name: str, body: str) -> str:
    """A Python hook script (it gets the event as `event`), as the command line that runs it."""
    path = folder / f"{name}.py"
    path.write_text("import json, os, sys\nevent = json.load(sys.stdin)\n" + body, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def hooks_toml(event: str, command: str, matcher: str = "", timeout: int = 30) -> str:
    return (f"[[hooks.{event}]]\nmatcher = {json.dumps(matcher)}\ncommand = {json.dumps(command)}\n"
            f"timeout = {timeout}\n")


def user_config(text: str) -> None:
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def run(ws: Path, steps: list[dict[str, Any]], *flags: str, task: str = "Do it") -> tuple[CliResult, ScriptedServer]:
    with ScriptedServer({"models": ["m"], "steps": steps}) as server:
        result = run_main("-p", task, "--base-url", server.base_url, "--model", "m", "--workspace", str(ws), *flags,
                          env=ENV)
    return result, server


BLOCK_SHELL = """
with open(os.environ["CLAUDE_PROJECT_DIR"] + "/../seen.json", "w") as fh:
    json.dump(event, fh)
print("no shell commands in this repository; use the file tools", file=sys.stderr)
sys.exit(2)
"""


def test_a_pre_tool_use_hook_exiting_2_blocks_the_command_and_the_model_gets_its_stderr(
    ws: Path, tmp_path: Path
) -> None:
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "block", BLOCK_SHELL), matcher="run_command"))
    (ws / "a.txt").write_text("hello\n")
    steps = [call("read_file", file_path="a.txt"), call("run_command", command="touch made.txt"), finish("done")]
    result, server = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert not (ws / "made.txt").exists()  # nothing ran
    assert "hello" in tool_results(server.chat_requests[1])[0]  # the matcher left read_file alone
    blocked = tool_results(server.chat_requests[2])[-1]
    assert blocked.startswith("Error [blocked_by_hook]: run_command was not run")
    assert "no shell commands in this repository; use the file tools" in blocked
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["hook_event_name"] == "PreToolUse" and seen["tool_name"] == "run_command"
    assert seen["tool_input"] == {"command": "touch made.txt"} and seen["cwd"] == str(ws.resolve())
    assert seen["session_id"] and seen["transcript_path"].endswith("transcript.jsonl")
    assert "blocked run_command" in result.stderr  # the user is told too


REWRITE = """
command = event["tool_input"]["command"].replace("original", "rewritten")
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": command}}}))
"""


def test_a_pre_tool_use_hook_rewrites_the_input_before_it_is_decided(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "rewrite", REWRITE), matcher="run_command")
                + '[permissions]\ndeny = ["run_command(rm *)"]\n')
    steps = [call("run_command", command="echo original > out.txt"),
             call("run_command", command="echo original; rm -f keep.txt"), finish("done")]
    (ws / "keep.txt").write_text("keep\n")
    result, server = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert (ws / "out.txt").read_text() == "rewritten\n"
    # the rewritten call is decided again: the deny rule still holds
    assert tool_results(server.chat_requests[2])[-1].startswith("Error [permission_denied]")
    assert (ws / "keep.txt").exists()


ALLOW_ALL = """
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                         "permissionDecisionReason": "the team's hook approves it"}}))
"""


def test_a_hook_allow_skips_the_question_but_never_passes_a_deny_rule(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "allow", ALLOW_ALL))
                + '[permissions]\ndeny = ["write_file(secret.txt)"]\n')
    steps = [call("run_command", command="echo hi > ran.txt"),
             call("write_file", file_path="secret.txt", content="x\n"), finish("done")]
    result, server = run(ws, steps)  # no --yes: without the hook run_command would be refused
    assert result.code == 0, result.stderr
    assert (ws / "ran.txt").read_text() == "hi\n"
    assert tool_results(server.chat_requests[2])[-1].startswith("Error [permission_denied]")
    assert not (ws / "secret.txt").exists()


FORMATTER = """
path = os.path.join(event["cwd"], event["tool_input"]["file_path"])
text = open(path).read()
open(path, "w").write(text.replace("=", " = ").replace("  ", " "))
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatted"}}))
"""


def test_a_post_tool_use_formatter_rewrites_the_edited_file_and_the_model_is_told(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("PostToolUse", hook_script(tmp_path, "fmt", FORMATTER), matcher="write_file|str_replace"))
    steps = [call("write_file", file_path="app.py", content="x=1\n"), finish("done")]
    result, server = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert (ws / "app.py").read_text() == "x = 1\n"
    told = tool_results(server.chat_requests[1])[-1]
    assert "PostToolUse hook: formatted" in told
    assert "A PostToolUse hook changed app.py after this call" in told


def test_a_hook_that_hangs_is_killed_at_its_timeout_and_the_session_goes_on(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "hang", "import time\ntime.sleep(60)\n"), timeout=1))
    steps = [call("run_command", command="echo ok > ran.txt"), finish("done")]
    started = time.monotonic()
    result, _ = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert time.monotonic() - started < 30
    assert "timed out after 1 s and was killed" in result.stderr
    assert (ws / "ran.txt").read_text() == "ok\n"  # a failing hook does not block


def test_a_project_hook_does_not_run_before_the_user_trusts_the_workspace(ws: Path, tmp_path: Path) -> None:
    project_config(ws, hooks_toml("PreToolUse", hook_script(tmp_path, "block", BLOCK_SHELL)), trusted=False)
    result, _ = run(ws, [call("run_command", command="touch first.txt"), finish("done")], "--yes")
    assert result.code == 0, result.stderr
    assert (ws / "first.txt").exists() and not (tmp_path / "seen.json").exists()
    assert "hooks.PreToolUse" in result.stderr  # named among what the untrusted file asked for
    assert run_main("trust", "--workspace", str(ws)).code == 0
    result, server = run(ws, [call("run_command", command="touch second.txt"), finish("done")], "--yes")
    assert not (ws / "second.txt").exists()
    assert tool_results(server.chat_requests[1])[-1].startswith("Error [blocked_by_hook]")


def test_claude_code_settings_hooks_run_once_trusted(ws: Path, tmp_path: Path) -> None:
    settings = {"hooks": {"PreToolUse": [{"matcher": "run_.*", "hooks": [
        {"type": "command", "command": hook_script(tmp_path, "block", BLOCK_SHELL), "timeout": 30}]}]}}
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text(json.dumps(settings))
    result, _ = run(ws, [call("run_command", command="touch first.txt"), finish("done")], "--yes")
    assert (ws / "first.txt").exists()
    assert "settings.json comes with the repository and asks to run 1 hook command" in result.stderr
    trusted = run_main("trust", "--workspace", str(ws))
    assert trusted.code == 0 and "settings.json" in trusted.stdout
    result, server = run(ws, [call("run_command", command="touch second.txt"), finish("done")], "--yes")
    assert not (ws / "second.txt").exists()
    assert "no shell commands" in tool_results(server.chat_requests[1])[-1]


def test_a_user_prompt_submit_hook_adds_context_or_refuses_the_prompt(ws: Path, tmp_path: Path) -> None:
    gate = "if 'password' in event['prompt']:\n    print('prompts must not hold secrets', file=sys.stderr)\n" \
           "    sys.exit(2)\nprint('Today the build is red.')\n"
    user_config(hooks_toml("UserPromptSubmit", hook_script(tmp_path, "prompt", gate)))
    result, server = run(ws, [finish("done")], task="Fix the build")
    assert result.code == 0, result.stderr
    assert "Today the build is red." in server.chat_requests[0]["messages"][-1]["content"]
    result, server = run(ws, [finish("never")], task="my password is hunter2")
    assert result.code == 1 and server.chat_requests == []
    assert "prompts must not hold secrets" in result.stderr


STOP_ONCE = """
flag = os.path.join(event["cwd"], "..", "stopped-once")
if not os.path.exists(flag):
    open(flag, "w").close()
    print("the tests have not been run yet", file=sys.stderr)
    sys.exit(2)
"""


def test_a_stop_hook_makes_the_model_continue_with_its_reason(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("Stop", hook_script(tmp_path, "stop", STOP_ONCE)))
    result, server = run(ws, [{"content": "All done."}, {"content": "Now really done."}], "--output-format", "json")
    assert result.code == 0, result.stderr
    assert len(server.chat_requests) == 2
    assert "the tests have not been run yet" in server.chat_requests[1]["messages"][-1]["content"]
    assert json.loads(result.stdout)["result"] == "Now really done."


RECORD_EDIT = """
with open(os.environ["CLAUDE_PROJECT_DIR"] + "/../edits.jsonl", "a") as fh:
    fh.write(json.dumps({"tool_name": event["tool_name"], "file_path": event["tool_input"]["file_path"],
                         "old_string": event["tool_input"].get("old_string"),
                         "new_string": event["tool_input"].get("new_string")}) + "\\n")
"""


def test_hooks_written_for_claude_code_match_its_tool_names_and_read_its_input_fields(
    ws: Path, tmp_path: Path
) -> None:
    """Regression: matchers such as `Bash` and `Edit|MultiEdit|Write` (every Claude Code hook script's) never fired."""
    record = hook_script(tmp_path, "record", RECORD_EDIT)
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "block", BLOCK_SHELL), matcher="Bash")
                + hooks_toml("PostToolUse", record, matcher="Edit|MultiEdit|Write"))
    (ws / "a.txt").write_text("hello\n")
    steps = [call("read_file", file_path="a.txt"), call("run_command", command="touch made.txt"),
             call("str_replace", file_path="a.txt", old_str="hello", new_str="bye"),
             call("write_file", file_path="b.txt", content="new\n"), finish("done")]
    result, server = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert not (ws / "made.txt").exists()
    assert "hello" in tool_results(server.chat_requests[1])[0]  # `Bash` left read_file alone
    blocked = tool_results(server.chat_requests[2])[-1]
    assert blocked.startswith("Error [blocked_by_hook]") and "no shell commands" in blocked
    assert (ws / "a.txt").read_text() == "bye\n"
    seen = [json.loads(line) for line in (tmp_path / "edits.jsonl").read_text().splitlines()]
    assert seen == [
        {"tool_name": "str_replace", "file_path": "a.txt", "old_string": "hello", "new_string": "bye"},
        {"tool_name": "write_file", "file_path": "b.txt", "old_string": None, "new_string": None},
    ]


REWRITE_OLD_STRING = """
edit = dict(event["tool_input"])
edit["new_string"] = edit["new_string"].upper()
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": edit}}))
"""


def test_a_claude_code_hook_rewrites_the_input_by_its_own_field_names(ws: Path, tmp_path: Path) -> None:
    user_config(hooks_toml("PreToolUse", hook_script(tmp_path, "upper", REWRITE_OLD_STRING), matcher="Edit"))
    (ws / "a.txt").write_text("hello\n")
    steps = [call("read_file", file_path="a.txt"),
             call("str_replace", file_path="a.txt", old_str="hello", new_str="bye"), finish("done")]
    result, _ = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert (ws / "a.txt").read_text() == "BYE\n"


def test_a_post_tool_use_hook_on_a_call_aimed_at_a_fifo_does_not_wait_on_it(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 4: the file snapshot taken around PostToolUse hooks read the edited path with
    read_bytes(), so a write_file aimed at a FIFO the repository ships hung the run; it now reads through the
    regular-file reader, and the model gets the write's coded refusal at once."""
    os.mkfifo(ws / "notes.txt")
    user_config(hooks_toml("PostToolUse", hook_script(tmp_path, "noop", "pass\n"), matcher="write_file"))
    steps = [call("write_file", file_path="notes.txt", content="hello\n"), finish("done")]
    started = time.monotonic()
    result, server = run(ws, steps, "--yes")
    assert result.code == 0, result.stderr
    assert time.monotonic() - started < 30
    assert tool_results(server.chat_requests[1])[-1].startswith("Error [")  # refused: never read, and a FIFO
    assert stat.S_ISFIFO((ws / "notes.txt").lstat().st_mode)


def test_an_unknown_hook_event_in_toml_is_a_usage_error_that_names_it(ws: Path, tmp_path: Path) -> None:
    """Issue 24: hook event names are one list; a misspelt one in the config stops before anything runs."""
    user_config(hooks_toml("PreToolUs", hook_script(tmp_path, "block", BLOCK_SHELL)))
    result, server = run(ws, [finish("done")], "--yes")
    assert result.code == 2 and "unknown key 'hooks.PreToolUs'" in result.stderr
    assert server.chat_requests == []


def test_an_unknown_event_in_claude_settings_is_a_notice_and_the_others_still_run(ws: Path, tmp_path: Path) -> None:
    """A newer Claude Code's event (or a misspelt one) is named to the user; the file's other hooks still run."""
    command = {"type": "command", "command": hook_script(tmp_path, "block", BLOCK_SHELL)}
    settings = {"hooks": {"PermissionRequest": [{"matcher": "", "hooks": [command]}],
                          "PreToolUse": [{"matcher": "run_command", "hooks": [command]}]}}
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text(json.dumps(settings))
    result, server = run(ws, [call("run_command", command="touch made.txt"), finish("done")], "--yes",
                         "--trust-project")
    assert result.code == 0, result.stderr
    assert "hooks.PermissionRequest is not a hook event SneakyCode has" in result.stderr
    assert "PreToolUse, PostToolUse" in result.stderr  # the events it does have are listed
    assert not (ws / "made.txt").exists()
    assert tool_results(server.chat_requests[1])[-1].startswith("Error [blocked_by_hook]")
