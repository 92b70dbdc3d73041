"""Folding, diff previews and Markdown streaming: what the terminal prints, checked without a terminal."""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest
from rich.console import Console, RenderableType

from sneakycode.api.always import add_allow_rules, always_rules, prefix_rule
from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from sneakycode.faces.terminal.folding import cut_at_word, fold
from sneakycode.faces.terminal.markdown_stream import MarkdownStream, split_blocks
from sneakycode.faces.terminal.previews import edit_preview, numbered_diff, render_rows
from sneakycode.faces.terminal.render import TerminalSink
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context


def plain(renderable: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(renderable, end="")
    return out.getvalue()


def test_a_long_line_is_cut_after_a_word_never_inside_one() -> None:
    """Regression: previews were cut mid-word ("...or set tools.shell.s")."""
    line = "the command failed; to run it anyway set tools.shell.sandbox to off"
    assert cut_at_word(line, 50) == "the command failed; to run it anyway set..."
    assert cut_at_word("x" * 30, 10) == "xxxxxxx..."  # one word longer than the room: no boundary to cut at
    assert cut_at_word("short", 10) == "short"


def test_a_long_result_is_folded_at_line_boundaries_and_says_how_much_is_hidden() -> None:
    folded = fold("\n".join(f"row {n}" for n in range(1, 21)), max_lines=4)
    assert folded.lines == ["row 1", "row 2", "row 3", "row 4"]
    assert folded.note() == "... 16 more lines (/expand shows all)"
    assert fold("one line").complete and fold("one line").note() == ""


def test_the_diff_numbers_old_and_new_lines_with_three_lines_of_context() -> None:
    before = "".join(f"line {n}\n" for n in range(1, 21))
    after = before.replace("line 5\n", "").replace("line 15", "LINE 15")
    rows = plain(render_rows(numbered_diff(before, after))).splitlines()
    assert rows[0].strip() == "..."
    assert rows[1:5] == [" 2  2   line 2", " 3  3   line 3", " 4  4   line 4", " 5    - line 5"]
    assert " 6  5   line 6" in rows and "15    - line 15" in rows and "   14 + LINE 15" in rows
    assert rows[-1].strip() == "..."  # lines 19 and 20 are left out


def test_an_edit_preview_is_computed_by_the_tools_own_matching_without_writing(ctx: ToolContext, ws: Path) -> None:
    (ws / "a.py").write_text("def f():\n    return 1   \n")  # trailing spaces the model's old_str lacks
    preview = edit_preview("str_replace", {"file_path": "a.py", "old_str": "    return 1", "new_str": "    return 2"},
                           ctx)
    assert preview is not None and preview.problem is None and preview.title == "a.py  +1 -1"
    assert "+     return 2" in plain(render_rows(preview.rows))
    assert (ws / "a.py").read_text() == "def f():\n    return 1   \n"
    failing = edit_preview("str_replace", {"file_path": "a.py", "old_str": "nowhere", "new_str": "x"}, ctx)
    assert failing is not None and failing.problem is not None and "old_str" in failing.problem
    new = edit_preview("write_file", {"file_path": "n.txt", "content": "a\nb\n"}, ctx)
    assert new is not None and new.title == "new file n.txt (2 lines)" and not (ws / "n.txt").exists()


def test_markdown_blocks_are_printed_once_finished_and_code_stays_open_until_its_fence_closes() -> None:
    assert split_blocks("# Title\n\nsome text") == (["# Title\n\n"], "some text")
    assert split_blocks("```py\nx = 1\n\ny = 2\n") == ([], "```py\nx = 1\n\ny = 2\n")
    assert split_blocks("```py\nx = 1\n```\nafter") == (["```py\nx = 1\n```\n"], "after")
    printed: list[str] = []
    live: list[RenderableType | None] = []
    stream = MarkdownStream(lambda block: printed.append(plain(block)), live.append)
    for piece in ["# Pla", "n\n\n1. read", " the file\n\n```python\nprint(", "'hi')\n```\n", "Done"]:
        stream.feed(piece)
    assert [text.strip() for text in printed[:1]] == ["Plan"]
    assert any("print('hi')" in text for text in printed) and live[-1] is not None
    stream.finish()
    assert printed[-1].strip() == "Done" and live[-1] is None


def test_a_tool_call_is_one_line_with_its_outcome_and_a_folded_result() -> None:
    out = io.StringIO()
    sink = TerminalSink(Console(file=out, width=120, color_system=None), animated=False)
    sink.emit({"type": "tool_call", "id": "1", "name": "run_command", "arguments": "{}", "headline": "pytest -q"})
    content = "\n".join(f"FAILED test_{n}" for n in range(10)) + "\n\nError: the command exited with code 1"
    sink.emit({"type": "tool_result", "id": "1", "name": "run_command", "success": False, "code": "nonzero_exit",
               "content": content, "quiet": False})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("* run_command pytest -q  exit 1, ") and lines[0].endswith(" s")
    assert lines[1:3] == ["    FAILED test_0", "    FAILED test_1"]
    assert lines[-1] == "    ... 6 more lines (/expand shows all)"
    assert sink.last_result == content


def test_a_stall_is_a_line_and_progress_is_the_spinner_label() -> None:
    """Never silently stuck (issue 26): the terminal says a stall in a line of its own, and a long command's
    heartbeat (elapsed seconds, last line) becomes the spinner's label instead of filling the screen."""
    out = io.StringIO()
    sink = TerminalSink(Console(file=out, width=160, color_system=None), animated=False)
    sink.emit({"type": "stall", "source": "model", "seconds": 60,
               "message": "the model's reply has sent nothing for 60 s; after stall_timeout (120 s) ..."})
    sink.emit({"type": "tool_call", "id": "1", "name": "run_command", "arguments": "{}", "headline": "make test"})
    sink.emit({"type": "progress", "id": "1", "name": "run_command", "elapsed": 9, "last_line": "test_b PASSED"})
    assert out.getvalue().splitlines() == [
        "waiting: the model's reply has sent nothing for 60 s; after stall_timeout (120 s) ..."]
    status = sink.live._status
    assert status is not None
    # One timer (issue 37): the label holds no seconds of its own; the spinner's clock runs from the call's start
    # and goes on across heartbeats rather than restarting with each new last line.
    assert status.label == "running run_command make test | test_b PASSED"
    assert status.started == sink._pending["1"].started
    sink.emit({"type": "progress", "id": "1", "name": "run_command", "elapsed": 12, "last_line": "test_c PASSED"})
    later = sink.live._status
    assert later is not None and later.label.endswith("test_c PASSED") and later.started == status.started
    sink.finish()


def test_the_task_list_is_shown_as_a_checklist_only_when_it_changes() -> None:
    """Regression: `[x]` was read as rich markup, so a finished task lost its mark."""
    out = io.StringIO()
    sink = TerminalSink(Console(file=out, width=120, color_system=None), animated=False)
    tasks = [{"content": "read", "status": "completed"}, {"content": "fix", "status": "in_progress"}]
    sink.emit({"type": "tasks", "tasks": tasks})
    sink.emit({"type": "tasks", "tasks": tasks})
    assert out.getvalue().splitlines() == ["  [x] read", "  [~] fix"]


def test_always_for_a_command_suggests_its_program_prefix(ws: Path) -> None:
    ctx = open_tool_context(load_settings(ws, environ={}))
    assert prefix_rule("run_command", "git commit -m 'x'") == "run_command(git commit:*)"
    assert always_rules(ctx, "run_command", {"command": "pytest -q tests/"}) == ["run_command(pytest:*)"]
    assert always_rules(ctx, "write_file", {"file_path": "a.py", "content": ""}) == ["write_file(a.py)"]


def test_saving_a_rule_keeps_the_files_comments(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# mine\nmodel = "m"  # the fast one\n\n[permissions]\nallow = ["read_file"]\n')
    add_allow_rules(path, ["run_command(pytest:*)"])
    add_allow_rules(path, ["run_command(pytest:*)"])
    assert path.read_text() == ('# mine\nmodel = "m"  # the fast one\n\n[permissions]\n'
                                'allow = ["read_file", "run_command(pytest:*)"]\n')


def test_saving_a_rule_into_a_config_swapped_for_a_fifo_is_a_config_error_at_once(tmp_path: Path) -> None:
    """Hardening round two, class 4: the project's config.toml was read with read_text() when a rule was saved,
    so one swapped for a FIFO after startup froze the approval prompt; it is read as settings are now."""
    path = tmp_path / "config.toml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match="not a regular file"):
        add_allow_rules(path, ["run_command(pytest:*)"])
    assert stat.S_ISFIFO(path.lstat().st_mode)


def test_always_never_suggests_a_bare_interpreter_prefix() -> None:
    """Seen in the tmux trial: `python -m pytest -q` offered `run_command(python:*)`, which runs any code."""
    assert prefix_rule("run_command", "python -m pytest -q test_calc.py") == "run_command(python -m pytest:*)"
    assert prefix_rule("run_command", "python3 setup.py build") is None
    assert prefix_rule("run_command", "bash -c 'make test'") is None
    assert prefix_rule("run_command", "npm test") == "run_command(npm test:*)"
