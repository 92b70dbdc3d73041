"""str_replace called as the model calls it: every rule of the tool, on real files in a real workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.registry import get_tool
from tests.conftest import call


def put(ws: Path, ctx: ToolContext, name: str, data: bytes | str) -> Path:
    """Create a file and read it through read_file, as the model must before editing."""
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    assert call(ctx, "read_file", file_path=name).success
    return path


def edit(ctx: ToolContext, old: str, new: str, name: str = "f.py", **extra: object) -> ToolResult:
    return call(ctx, "str_replace", file_path=name, old_str=old, new_str=new, **extra)


# ---- the read gate ------------------------------------------------------------------------------------


def test_a_file_not_read_in_this_session_is_refused(ctx: ToolContext, ws: Path) -> None:
    (ws / "f.py").write_text("a = 1\n")
    result = edit(ctx, "a = 1", "a = 2")
    assert result.code == ErrorCode.NOT_READ
    assert (ws / "f.py").read_text() == "a = 1\n"


def test_an_outside_change_to_the_edited_lines_is_stale_with_a_diff(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "a = 1\nb = 2\n")
    path.write_text("a = 1\nb = 3\n")
    result = edit(ctx, "b = 2", "b = 9")
    assert result.code == ErrorCode.STALE_READ
    assert "-b = 2" in result.content and "+b = 3" in result.content
    assert path.read_text() == "a = 1\nb = 3\n"


def test_our_own_edits_are_not_outside_changes(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "a = 1\nb = 2\n")
    assert edit(ctx, "a = 1", "a = 10").success
    assert edit(ctx, "b = 2", "b = 20").success
    assert path.read_text() == "a = 10\nb = 20\n"


def test_missing_file_directory_and_outside_paths_are_refused(ctx: ToolContext, ws: Path) -> None:
    (ws / "pkg").mkdir()
    assert edit(ctx, "x", "y", name="nope.py").code == ErrorCode.NOT_FOUND
    assert edit(ctx, "x", "y", name="pkg").code == ErrorCode.IS_DIRECTORY
    assert edit(ctx, "x", "y", name="../outside.py").code == ErrorCode.OUTSIDE_WORKSPACE


# ---- success output -----------------------------------------------------------------------------------


def test_success_shows_the_edited_lines_numbered_and_the_count(ctx: ToolContext, ws: Path) -> None:
    lines = "".join(f"line {i}\n" for i in range(1, 21))
    put(ws, ctx, "f.py", lines)
    result = edit(ctx, "line 10\n", "line ten\nline ten and a half\n")
    assert result.success
    assert "    10\tline ten\n    11\tline ten and a half" in result.content
    assert "     7\tline 7" in result.content and "    14\tline 13" in result.content
    assert "     1\tline 1" not in result.content
    assert "1 replacement" in result.message and "exactly" in result.message
    assert result.data == {"replacements": 1, "strategy": "exact"}


def test_replace_all_replaces_every_occurrence_and_counts_them(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "log('a')\nlog('b')\nlog('c')\n")
    result = edit(ctx, "log(", "logger.info(", replace_all=True)
    assert result.success and result.data["replacements"] == 3
    assert path.read_text() == "logger.info('a')\nlogger.info('b')\nlogger.info('c')\n"
    assert "3 replacements" in result.message


def test_descriptions_stay_short_because_they_are_sent_on_every_request() -> None:
    for name in ("str_replace", "patch_apply"):
        found = get_tool(name)
        assert found is not None and len(found.description) < 600


# ---- failures -----------------------------------------------------------------------------------------


def test_several_matches_list_every_line_and_change_nothing(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer replaced the first of several matches silently."""
    text = "def a():\n    return None\n\n\ndef b():\n    return None\n"
    path = put(ws, ctx, "f.py", text)
    result = edit(ctx, "    return None", "    return 0")
    assert result.code == ErrorCode.MULTIPLE_MATCHES
    assert "2 times" in result.error and "lines 2, 6" in result.error
    assert "replace_all" in result.message
    assert path.read_text() == text


def test_a_strict_strategy_with_several_matches_is_never_overruled_by_a_looser_one(ctx: ToolContext, ws: Path) -> None:
    """Whole-line matching would find `x = 1` once, but exactly it occurs twice (inside `max = 1`)."""
    path = put(ws, ctx, "f.py", "    x = 1\nmax = 1\n")
    assert edit(ctx, "x = 1", "x = 2").code == ErrorCode.MULTIPLE_MATCHES
    assert path.read_text() == "    x = 1\nmax = 1\n"


def test_overlapping_occurrences_are_ambiguous_too(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "f.py", "aaa\n")
    assert edit(ctx, "aa", "b").code == ErrorCode.MULTIPLE_MATCHES


def test_no_match_shows_the_closest_region_numbered_with_a_diff(ctx: ToolContext, ws: Path) -> None:
    """Regression: the peer reported success when nothing was replaced."""
    text = "def area(r):\n    pi = 3.14159\n    return pi * r * r\n\n\ndef main():\n    print(area(2))\n"
    path = put(ws, ctx, "f.py", text)
    result = edit(ctx, "    pi = 3.1416\n    return pi * r * r", "    return math.pi * r * r")
    assert not result.success and result.code == ErrorCode.NO_MATCH
    assert "lines 2-3" in result.content
    assert "     2\t    pi = 3.14159" in result.content
    assert "-    pi = 3.1416\n+    pi = 3.14159" in result.content
    assert path.read_text() == text


def test_no_match_says_when_nothing_is_similar(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "f.py", "alpha\nbeta\n")
    result = edit(ctx, "completely unrelated text", "x")
    assert result.code == ErrorCode.NO_MATCH
    assert "Nothing in f.py resembles old_str" in result.content


def test_line_numbers_that_do_not_match_their_lines_get_a_specific_hint(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "f.py", "a = 1\nb = 2\n")
    result = edit(ctx, "     3\ta = 1\n     4\tb = 2", "a = 2")
    assert result.code == ErrorCode.NO_MATCH
    assert "line numbers" in result.message


def test_whitespace_only_differences_are_pointed_out(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "f.py", "if  (x) {\n  y();\n}\n")
    result = edit(ctx, "if (x) {\n  z();\n}", "if (z) {\n  y();\n}")
    assert result.code == ErrorCode.NO_MATCH
    assert "differ only in whitespace" in result.content


def test_identical_old_and_new_is_no_change(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "f.py", "a = 1\n")
    assert edit(ctx, "a = 1", "a = 1").code == ErrorCode.NO_CHANGE


def test_a_tolerant_match_that_changes_nothing_is_no_change(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "a = 1\n")
    result = edit(ctx, "a = 1   ", "a = 1")
    assert result.code == ErrorCode.NO_CHANGE
    assert path.read_text() == "a = 1\n"


def test_an_empty_old_str_is_an_error_not_insert_everywhere(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "a\nb\n")
    result = edit(ctx, "", "x")
    assert result.code == ErrorCode.INVALID_ARGUMENTS
    assert "old_str is empty" in result.error
    assert path.read_text() == "a\nb\n"


# ---- literal replacement -------------------------------------------------------------------------------


@pytest.mark.parametrize("new", ["$&", "$1$2", "$'", "$`", "$$", "\\1", "\\g<0>", "\\n", "\\\\", "%s", "{0}"])
def test_new_str_is_inserted_literally(ctx: ToolContext, ws: Path, new: str) -> None:
    """Regression: the peer's String.replace expanded `$&` and `$1` in new_text."""
    path = put(ws, ctx, "f.py", "price = PRICE\n")
    assert edit(ctx, "PRICE", new).success
    assert path.read_text() == f"price = {new}\n"


# ---- file format is kept ------------------------------------------------------------------------------


def test_crlf_bom_and_missing_final_newline_are_kept(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.cs", b"\xef\xbb\xbfusing System;\r\nclass A {}")
    assert edit(ctx, "class A {}", "class B\n{\n}", name="f.cs").success
    assert path.read_bytes() == b"\xef\xbb\xbfusing System;\r\nclass B\r\n{\r\n}"


def test_utf16_files_stay_utf16(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", "héllo\nwörld\n".encode("utf-16"))
    assert edit(ctx, "wörld", "welt", name="f.txt").success
    assert path.read_bytes() == "héllo\nwelt\n".encode("utf-16")


def test_trailing_newline_present_stays_present(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "a\nb\n")
    assert edit(ctx, "b", "c").success
    assert path.read_bytes() == b"a\nc\n"


def test_permission_bits_are_kept(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "run.sh", "#!/bin/sh\necho hi\n")
    os.chmod(path, 0o751)
    assert edit(ctx, "echo hi", "echo bye", name="run.sh").success
    assert path.stat().st_mode & 0o777 == 0o751


def test_new_str_line_endings_follow_the_file(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", "alpha\nbeta\ngamma\n")
    assert edit(ctx, "alpha\nbeta", "alpha\r\nbeta-updated", name="f.txt").success
    assert path.read_bytes() == b"alpha\nbeta-updated\ngamma\n"


# ---- tolerant strategies ------------------------------------------------------------------------------


def test_crlf_in_old_str_matches_an_lf_file_and_is_reported(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", "one\ntwo\nthree\n")
    result = edit(ctx, "one\r\ntwo", "ONE\r\nTWO", name="f.txt")
    assert result.success and result.data["strategy"] == "line_endings"
    assert "ignoring line endings" in result.message
    assert path.read_bytes() == b"ONE\nTWO\nthree\n"


def test_mixed_line_endings_keep_each_line_its_own_ending(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.txt", b"one\r\ntwo\nthree\r\nfour\n")
    assert edit(ctx, "one\ntwo\nthree", "one\ntwo\nTHREE", name="f.txt").success
    assert path.read_bytes() == b"one\r\ntwo\nTHREE\r\nfour\n"


def test_trailing_whitespace_in_the_file_is_tolerated(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "x = 1   \ny = 2\t\nz = 3\n")
    result = edit(ctx, "x = 1\ny = 2", "x = 10\ny = 20")
    assert result.data["strategy"] == "trailing_whitespace"
    assert path.read_text() == "x = 10\ny = 20\nz = 3\n"


def test_missing_base_indentation_is_tolerated_and_new_str_reindented(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n")
    result = edit(ctx, "if x:\n    return 1", "if x:\n    log()\n    return 1")
    assert result.success and result.data["strategy"] == "indentation"
    assert "re-indented" in result.message
    assert path.read_text() == (
        "class A:\n    def f(self):\n        if x:\n            log()\n            return 1\n        return 2\n"
    )
    assert "     4\t            log()" in result.content


def test_spaces_for_tabs_are_tolerated_and_the_file_keeps_its_tabs(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "Makefile", "test:\n\tgo test ./...\n\tgo vet ./...\n")
    assert edit(ctx, "test:\n    go test ./...", "test:\n    go test -race ./...", name="Makefile").success
    assert path.read_text() == "test:\n\tgo test -race ./...\n\tgo vet ./...\n"


def test_a_different_relative_indentation_is_not_a_match(ctx: ToolContext, ws: Path) -> None:
    """Flattening a nested block changes its meaning, so it must not match."""
    text = "def f(x):\n    if x:\n        return 1\n    return 2\n"
    path = put(ws, ctx, "f.py", text)
    assert edit(ctx, "if x:\nreturn 1\nreturn 2", "if x:\nreturn 3\nreturn 2").code == ErrorCode.NO_MATCH
    assert path.read_text() == text


def test_unicode_punctuation_is_tolerated(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.md", "Don\u2019t use \u201csmart\u201d quotes \u2014 or 10\u00a0MB.\n")
    result = edit(ctx, "Don't use \"smart\" quotes - or 10 MB.", "Plain text.", name="f.md")
    assert result.data["strategy"] == "unicode_punctuation"
    assert path.read_text() == "Plain text.\n"


def test_replace_all_works_with_tolerant_matching(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "f.py", "def a():\n    x = 1\n    y = 2\n\ndef b():\n\tx = 1\n\ty = 2\n")
    result = edit(ctx, "x = 1\ny = 2", "x = 3\ny = 4", replace_all=True)
    assert result.success and result.data["replacements"] == 2
    assert path.read_text() == "def a():\n    x = 3\n    y = 4\n\ndef b():\n\tx = 3\n\ty = 4\n"


# ---- a rejected edit leaves the file byte-identical ---------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "extra", "code"),
    [
        ("missing", "x", {}, ErrorCode.NO_MATCH),
        ("value", "x", {}, ErrorCode.MULTIPLE_MATCHES),
        ("value", "value", {}, ErrorCode.NO_CHANGE),
        ("", "x", {}, ErrorCode.INVALID_ARGUMENTS),
        ("value", "x", {"unknown": 1}, ErrorCode.INVALID_ARGUMENTS),
    ],
)
def test_rejected_edits_leave_the_bytes_and_the_mtime_alone(
    ctx: ToolContext, ws: Path, old: str, new: str, extra: dict[str, object], code: ErrorCode
) -> None:
    raw = b"\xef\xbb\xbfvalue = 1\r\nvalue = 2\r\n"
    path = put(ws, ctx, "f.py", raw)
    before = path.stat().st_mtime_ns
    assert edit(ctx, old, new, **extra).code == code
    assert path.read_bytes() == raw and path.stat().st_mtime_ns == before
