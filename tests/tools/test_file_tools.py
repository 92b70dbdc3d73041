"""read_file, list_dir, write_file, make_dir, delete_file and finish, called as the model calls them."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sneakycode.config import load_settings
from sneakycode.errors import ErrorCode
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.registry import all_tools
from tests.conftest import call


def lines_of(rendered: str) -> list[str]:
    return [line.split("\t", 1)[1] for line in rendered.split("\n") if "\t" in line]


# ---- read_file ----------------------------------------------------------------------------------------


def test_read_numbers_lines_and_counts_exactly(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer reported 'Read 4 lines' for a three-line file with a trailing newline."""
    (ws / "three.txt").write_text("a\nb\nc\n")
    result = call(ctx, "read_file", file_path="three.txt")
    assert result.success
    assert result.content == "     1\ta\n     2\tb\n     3\tc"
    assert result.data["lines"] == 3
    assert result.message == ""


def test_read_without_trailing_newline_counts_the_same(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.txt").write_text("a\nb\nc")
    assert call(ctx, "read_file", file_path="f.txt").data["lines"] == 3


def test_range_past_end_is_an_error_stating_the_length(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer returned empty content for start_line = line count + 1 instead of an error."""
    (ws / "three.txt").write_text("a\nb\nc\n")
    result = call(ctx, "read_file", file_path="three.txt", start_line=4)
    assert not result.success and result.code == ErrorCode.INVALID_RANGE
    assert "has 3 lines" in result.render()


def test_reversed_range_and_zero_line_are_invalid_arguments(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.txt").write_text("a\nb\n")
    assert call(ctx, "read_file", file_path="f.txt", start_line=2, end_line=1).code == ErrorCode.INVALID_ARGUMENTS
    assert call(ctx, "read_file", file_path="f.txt", start_line=0).code == ErrorCode.INVALID_ARGUMENTS


def test_partial_read_says_how_to_read_on(ctx: ToolContext, ws: Path) -> None:
    (ws / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    result = call(ctx, "read_file", file_path="long.txt")
    assert lines_of(result.content)[0] == "line 1"
    assert lines_of(result.content)[-1] == "line 2000"
    assert "lines 1-2000 of 5000" in result.render() and "start_line=2001" in result.render()
    tail = call(ctx, "read_file", file_path="long.txt", start_line=4990, end_line=6000)
    assert lines_of(tail.content) == [f"line {i}" for i in range(4990, 5001)]
    assert "lines 4990-5000 of 5000" in tail.render()


def test_long_lines_are_cut_with_a_marker(ctx: ToolContext, ws: Path) -> None:
    (ws / "min.js").write_text("x" * 5000 + "\n")
    result = call(ctx, "read_file", file_path="min.js")
    assert "[line cut: 3000 more characters]" in result.content


def test_read_never_exceeds_max_output_bytes(ws: Path) -> None:
    (ws / ".sneakycode").mkdir()
    (ws / ".sneakycode" / "config.toml").write_text("max_output_bytes = 4096\n")
    ctx = open_tool_context(load_settings(ws))
    (ws / "wide.txt").write_text(("y" * 1500 + "\n") * 100)
    result = call(ctx, "read_file", file_path="wide.txt")
    assert len(result.render().encode()) <= 4096
    assert "read on with start_line=" in result.render()


def test_empty_file_says_so(ctx: ToolContext, ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    result = call(ctx, "read_file", file_path="empty.txt")
    assert result.success and "empty (0 lines)" in result.render()


def test_directory_and_binary_reads_fail_clearly(ctx: ToolContext, ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "b.bin").write_bytes(b"\x00\x01")
    assert call(ctx, "read_file", file_path="d").code == ErrorCode.IS_DIRECTORY
    assert call(ctx, "read_file", file_path="b.bin").code == ErrorCode.BINARY_FILE


def test_crlf_file_reads_without_carriage_returns(ctx: ToolContext, ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert lines_of(call(ctx, "read_file", file_path="w.txt").content) == ["one", "two"]


# ---- list_dir -----------------------------------------------------------------------------------------


def make_tree(ws: Path) -> None:
    for rel in ("src/app/main.py", "src/util.py", "build_tools/make.py", "distance.py", "README.md",
                ".gitignore", "node_modules/pkg/index.js", "logs/x.log", "src/gen/out.py", ".git/HEAD"):
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text("")
    (ws / ".gitignore").write_text("node_modules/\n*.log\n")
    (ws / "src" / ".gitignore").write_text("gen/\n")


def test_list_dir_dirs_first_then_files_sorted(ctx: ToolContext, ws: Path) -> None:
    make_tree(ws)
    result = call(ctx, "list_dir")
    assert result.content.splitlines() == [
        ".git/", "build_tools/", "logs/", "node_modules/", "src/", ".gitignore", "distance.py", "README.md",
    ]


def test_recursive_list_honours_nested_gitignore_and_skips_git(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer's substring ignore rule hid build_tools/, distance.py and .gitignore itself."""
    make_tree(ws)
    listed = call(ctx, "list_dir", recursive=True).content.splitlines()
    assert listed == [
        "build_tools/", "build_tools/make.py", "logs/", "src/", "src/app/", "src/app/main.py",
        "src/.gitignore", "src/util.py", ".gitignore", "distance.py", "README.md",
    ]


def test_list_subdirectory_paths_are_workspace_relative(ctx: ToolContext, ws: Path) -> None:
    make_tree(ws)
    assert call(ctx, "list_dir", directory_path="src/app").content == "src/app/main.py"


def test_project_under_a_build_folder_still_lists(tmp_path: Path) -> None:
    """Regression: the peer listed nothing when the project's own path contained 'build' or 'dist'."""
    root = tmp_path / "build" / "dist" / "proj"
    root.mkdir(parents=True)
    (root / "main.py").write_text("")
    ctx = open_tool_context(load_settings(root))
    assert call(ctx, "list_dir", recursive=True).content == "main.py"


def test_list_dir_caps_entries_with_a_count(ctx: ToolContext, ws: Path) -> None:
    for i in range(1100):
        (ws / f"f{i:04d}.txt").write_text("")
    result = call(ctx, "list_dir")
    assert len(result.content.splitlines()) == 1000
    assert "100 more not shown" in result.render()


def test_list_dir_on_a_file_or_missing_path(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.txt").write_text("")
    assert call(ctx, "list_dir", directory_path="f.txt").code == ErrorCode.NOT_A_DIRECTORY
    assert call(ctx, "list_dir", directory_path="nope").code == ErrorCode.NOT_FOUND


# ---- write_file ---------------------------------------------------------------------------------------


def test_write_creates_file_and_parents(ctx: ToolContext, ws: Path) -> None:
    result = call(ctx, "write_file", file_path="a/b/new.py", content="x = 1\ny = 2\n")
    assert result.success and "Created a/b/new.py (2 lines)" in result.render()
    assert (ws / "a/b/new.py").read_text() == "x = 1\ny = 2\n"


def test_overwrite_requires_a_read_then_reports_counts(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("old\n")
    refused = call(ctx, "write_file", file_path="f.py", content="new\n")
    assert refused.code == ErrorCode.NOT_READ and (ws / "f.py").read_text() == "old\n"
    call(ctx, "read_file", file_path="f.py")
    done = call(ctx, "write_file", file_path="f.py", content="new\nlines\n")
    assert done.success and "Overwrote f.py (1 -> 2 lines)" in done.render()


def test_overwrite_after_outside_change_is_stale_with_a_diff(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("alpha\nbeta\n")
    call(ctx, "read_file", file_path="f.py")
    (ws / "f.py").write_text("alpha\nBETA (edited by the user)\n")
    result = call(ctx, "write_file", file_path="f.py", content="mine\n")
    assert result.code == ErrorCode.STALE_READ
    assert "+BETA (edited by the user)" in result.render() and "-beta" in result.render()
    assert (ws / "f.py").read_text() == "alpha\nBETA (edited by the user)\n"


def test_own_writes_do_not_make_the_read_stale(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("1\n")
    call(ctx, "read_file", file_path="f.py")
    assert call(ctx, "write_file", file_path="f.py", content="2\n").success
    assert call(ctx, "write_file", file_path="f.py", content="3\n").success


def test_write_keeps_crlf_and_bom_of_the_existing_file(ctx: ToolContext, ws: Path) -> None:
    (ws / "w.txt").write_bytes(b"\xef\xbb\xbfa\r\nb\r\n")
    call(ctx, "read_file", file_path="w.txt")
    call(ctx, "write_file", file_path="w.txt", content="a\nb\nc\n")
    assert (ws / "w.txt").read_bytes() == b"\xef\xbb\xbfa\r\nb\r\nc\r\n"


def test_identical_write_is_reported_not_performed(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.txt").write_text("same\n")
    call(ctx, "read_file", file_path="f.txt")
    result = call(ctx, "write_file", file_path="f.txt", content="same\n")
    assert result.success and "nothing was written" in result.render()


def test_write_outside_or_into_git_is_refused(ctx: ToolContext, ws: Path) -> None:
    (ws / ".git").mkdir()
    assert call(ctx, "write_file", file_path="../evil.py", content="x").code == ErrorCode.OUTSIDE_WORKSPACE
    assert call(ctx, "write_file", file_path=".git/config", content="x").code == ErrorCode.PROTECTED_PATH
    assert not (ws.parent / "evil.py").exists()


def test_write_through_a_file_used_as_folder_is_not_a_directory(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.txt").write_text("")
    assert call(ctx, "write_file", file_path="f.txt/x.py", content="").code == ErrorCode.NOT_A_DIRECTORY


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=200),
    crlf=st.booleans(),
    bom=st.booleans(),
)
def test_write_then_read_returns_the_same_text(ws: Path, body: str, crlf: bool, bom: bool) -> None:
    """Whatever text is written (Unicode, CRLF or LF file, with or without BOM), read_file shows it back."""
    ctx = open_tool_context(load_settings(ws))
    target = ws / "prop.txt"
    prefix = b"\xef\xbb\xbf" if bom else b""
    target.write_bytes(prefix + (b"seed\r\n" if crlf else b"seed\n"))
    call(ctx, "read_file", file_path="prop.txt")
    assert call(ctx, "write_file", file_path="prop.txt", content=body).success
    raw = target.read_bytes()
    assert raw.startswith(prefix)
    if crlf:
        assert b"\n" not in raw.replace(b"\r\n", b"")
    ctx2 = open_tool_context(load_settings(ws))
    shown = call(ctx2, "read_file", file_path="prop.txt")
    expected = body.split("\n")
    if expected[-1] == "":
        expected.pop()
    assert lines_of(shown.content) == expected


# ---- make_dir / delete_file / finish ------------------------------------------------------------------


def test_make_dir_is_mkdir_p_and_refuses_a_file(ctx: ToolContext, ws: Path) -> None:
    assert call(ctx, "make_dir", directory_path="x/y/z").success and (ws / "x/y/z").is_dir()
    assert "already exists" in call(ctx, "make_dir", directory_path="x/y").render()
    (ws / "f").write_text("")
    assert call(ctx, "make_dir", directory_path="f").code == ErrorCode.NOT_A_DIRECTORY


def test_delete_removes_one_file_only(ctx: ToolContext, ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "d" / "f.txt").write_text("12345")
    assert call(ctx, "delete_file", file_path="d").code == ErrorCode.IS_DIRECTORY
    result = call(ctx, "delete_file", file_path="d/f.txt")
    assert result.success and "Deleted d/f.txt (5 bytes)" in result.render()
    assert not (ws / "d" / "f.txt").exists()
    assert call(ctx, "delete_file", file_path="d/f.txt").code == ErrorCode.NOT_FOUND


def test_delete_refuses_root_and_git(ctx: ToolContext, ws: Path) -> None:
    (ws / ".git").mkdir()
    (ws / ".git" / "HEAD").write_text("ref")
    assert call(ctx, "delete_file", file_path=".").code == ErrorCode.PROTECTED_PATH
    assert call(ctx, "delete_file", file_path=".git/HEAD").code == ErrorCode.PROTECTED_PATH
    assert (ws / ".git" / "HEAD").exists()


def test_delete_of_a_symlink_removes_the_link_not_its_target(ctx: ToolContext, ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (ws / "link").symlink_to(outside)
    assert call(ctx, "delete_file", file_path="link").success
    assert not (ws / "link").is_symlink() and outside.read_text() == "keep me"


def test_finish_returns_its_message(ctx: ToolContext) -> None:
    assert call(ctx, "finish").content == "Task complete."
    result = call(ctx, "finish", message="Added the flag.")
    assert result.success and result.data["finished"] and result.render() == "Added the flag."


# ---- contract ------------------------------------------------------------------------------------------


def test_invalid_json_and_unknown_tool_are_results(ctx: ToolContext) -> None:
    bad = Gate(ctx).run_direct("read_file", '{"file_path": ')
    assert bad.code == ErrorCode.INVALID_ARGUMENTS and "not valid JSON" in bad.render()
    unknown = Gate(ctx).run_direct("read_flie", "{}")
    assert unknown.code == ErrorCode.UNKNOWN_TOOL and "read_file" in unknown.render()


def test_missing_wrong_and_unknown_fields_are_each_named(ctx: ToolContext) -> None:
    result = Gate(ctx).run_direct("write_file", json.dumps({"file_path": 3, "contents": "x"}))
    text = result.render()
    assert result.code == ErrorCode.INVALID_ARGUMENTS
    assert "file_path" in text and "content: required field is missing" in text and "contents: unknown field" in text


def test_every_tool_declares_tier_and_a_compact_schema() -> None:
    tiers = {t.name: t.tier.value for t in all_tools()}
    for name in ("read_file", "list_dir", "finish"):
        assert tiers[name] == "auto"
    for name in ("write_file", "make_dir", "delete_file"):
        assert tiers[name] == "confirm"
    for t in all_tools():
        schema = json.dumps(t.openai_schema())
        assert '"title"' not in schema and t.description


def test_recursive_list_and_find_files_apply_the_same_ignore_rules(ctx: ToolContext, ws: Path) -> None:
    """One set of ignore rules: a file the model can list is a file it can find, and the other way round."""
    make_tree(ws)
    (ws / "src" / ".ignore").write_text("util.py\n")
    listed = {p for p in call(ctx, "list_dir", recursive=True).content.splitlines() if not p.endswith("/")}
    found = call(ctx, "find_files", pattern="*", max_results=1000).content.splitlines()
    assert listed == {line for line in found if line and not line.endswith(" files.")}
    assert "src/util.py" not in listed
