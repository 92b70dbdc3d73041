"""Claude Code's names for our tools and arguments (hook matchers, `allowed-tools`, hook scripts' input)."""

from __future__ import annotations

from sneakycode.tools.base import Tool
from sneakycode.tools.claude_names import claude_input, claude_names, native_input, tools_named, tools_ruled_by
from sneakycode.tools.registry import all_tools, get_tool


def named(name: str) -> Tool:
    found = get_tool(name)
    assert found is not None
    return found


def test_each_claude_tool_name_stands_for_the_tools_of_that_kind() -> None:
    tools = all_tools()
    assert {t.name for t in tools_named("Bash", tools)} == {"run_command"}
    assert {t.name for t in tools_named("Edit", tools)} == {"str_replace", "patch_apply"}
    assert {t.name for t in tools_named("MultiEdit", tools)} == {"str_replace", "patch_apply"}
    assert {t.name for t in tools_named("Write", tools)} == {"write_file"}
    assert {t.name for t in tools_named("Read", tools)} == {"read_file"}
    assert {t.name for t in tools_named("Grep", tools)} == {"grep_files"}
    assert {t.name for t in tools_named("Glob", tools)} == {"find_files"}
    assert {t.name for t in tools_named("LS", tools)} == {"list_dir"}
    assert {t.name for t in tools_named("WebFetch", tools)} == {"web_fetch"}
    assert claude_names(named("make_dir")) == () and claude_names(named("finish")) == ()


def test_hook_input_gains_claude_field_names_and_keeps_ours() -> None:
    edit = named("str_replace")
    sent = claude_input(edit, {"file_path": "a.py", "old_str": "x", "new_str": "y"})
    assert sent == {"file_path": "a.py", "old_str": "x", "new_str": "y", "old_string": "x", "new_string": "y"}
    read = claude_input(named("read_file"), {"file_path": "a.py", "start_line": 10, "end_line": 19})
    assert read["offset"] == 10 and read["limit"] == 10 and read["start_line"] == 10


def test_a_rewritten_input_is_read_back_in_either_naming() -> None:
    edit = named("str_replace")
    ours = {"file_path": "a.py", "old_str": "x", "new_str": "y"}
    sent = claude_input(edit, ours)
    assert native_input(edit, sent, dict(sent)) == ours  # returned unchanged: the aliases go
    assert native_input(edit, sent, {**sent, "new_string": "Y"}) == {**ours, "new_str": "Y"}
    assert native_input(edit, sent, {**sent, "new_str": "z", "new_string": "Y"})["new_str"] == "z"  # ours wins
    read = named("read_file")
    sent = claude_input(read, {"file_path": "a.py", "start_line": 1, "end_line": 5})
    assert native_input(read, sent, {**sent, "offset": 20}) == {"file_path": "a.py", "start_line": 20, "end_line": 24}


def test_claude_permission_rules_for_edit_and_read_cover_every_tool_of_that_kind() -> None:
    tools = all_tools()
    assert {t.name for t in tools_ruled_by("Edit", tools)} == {"str_replace", "patch_apply", "write_file", "make_dir"}
    assert {"read_file", "grep_files", "find_files", "list_dir"} <= {t.name for t in tools_ruled_by("Read", tools)}
    assert [t.name for t in tools_ruled_by("Glob", tools)] == ["find_files"]
