"""Near misses recovered, and nothing else touched (issue 13): each kind of slip a model makes in old_str is
recovered where exactly one place of the file can be meant, refused (file byte-identical, a coded error)
where two could, and lines the edit keeps keep the file's own bytes."""

from __future__ import annotations

from pathlib import Path

from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext, ToolResult
from tests.conftest import call


def put(ws: Path, ctx: ToolContext, text: str, name: str = "f.txt") -> Path:
    path = ws / name
    path.write_text(text, encoding="utf-8")
    assert call(ctx, "read_file", file_path=name).success
    return path


def edit(ctx: ToolContext, old: str, new: str, name: str = "f.txt") -> ToolResult:
    return call(ctx, "str_replace", file_path=name, old_str=old, new_str=new)


def recovered(result: ToolResult, strategy: str) -> None:
    assert result.success, result.render()
    assert result.data["strategy"] == strategy


def refused(result: ToolResult, path: Path, before: str, code: ErrorCode) -> None:
    assert result.code == code, result.render()
    assert path.read_bytes() == before.encode("utf-8")


# ---- lines the edit keeps ------------------------------------------------------------------------------


def test_a_markdown_hard_line_break_on_an_untouched_line_survives_a_tolerant_match(
    ctx: ToolContext, ws: Path
) -> None:
    """Regression: the trailing-whitespace strategy replaced the whole matched region with new_str, so the
    two trailing spaces (a hard line break) of a line old_str and new_str both have were dropped."""
    path = put(ws, ctx, "Roses are red,  \nViolets are blue,  \nSugar is sweet.\n", "poem.md")
    result = edit(ctx, "Roses are red,\nViolets are blue,", "Roses are red,\nViolets are purple,", "poem.md")
    recovered(result, "trailing_whitespace")
    assert path.read_text() == "Roses are red,  \nViolets are purple,\nSugar is sweet.\n"


def test_curly_quotes_on_untouched_lines_are_kept(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "say(“hello”)\ncount = 1\n")
    recovered(edit(ctx, 'say("hello")\ncount = 1', 'say("hello")\ncount = 2'), "unicode_punctuation")
    assert path.read_text() == "say(“hello”)\ncount = 2\n"


# ---- read_file's line numbers --------------------------------------------------------------------------

CODE = "a = 1\nb = 2\nc = 3\nd = 4\nb = 2\nc = 3\n"


def test_line_numbers_matching_their_lines_are_removed_from_old_and_new(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, CODE)
    result = edit(ctx, "     5\tb = 2\n     6\tc = 3", "     5\tb = 20\n     6\tc = 3")
    recovered(result, "line_numbers")
    assert "line numbers" in result.message
    assert path.read_text() == "a = 1\nb = 2\nc = 3\nd = 4\nb = 20\nc = 3\n"


def test_line_numbers_pasted_into_old_str_only(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, CODE)
    recovered(edit(ctx, "     2\tb = 2\n     3\tc = 3\n", "b = 2\nc = 30\n"), "line_numbers")
    assert path.read_text() == "a = 1\nb = 2\nc = 30\nd = 4\nb = 2\nc = 3\n"


def test_numbered_last_line_of_a_file_without_a_final_newline_gains_none(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "first\nlast")
    recovered(edit(ctx, "     2\tlast\n", "     2\tfinal\n"), "line_numbers")
    assert path.read_bytes() == b"first\nfinal"


def test_line_numbers_that_claim_other_lines_are_refused(ctx: ToolContext, ws: Path) -> None:
    """`b = 2 / c = 3` is at lines 2-3 and 5-6; numbers 3-4 point at neither, so either could be meant."""
    path = put(ws, ctx, CODE)
    refused(edit(ctx, "     3\tb = 2\n     4\tc = 3", "b = 9\nc = 9"), path, CODE, ErrorCode.NO_MATCH)


# ---- escapes -------------------------------------------------------------------------------------------


def test_escaped_newlines_tabs_and_quotes_are_read_as_the_characters(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, 'def greet():\n\treturn "hi"\n', "g.py")
    result = edit(ctx, 'def greet():\\n\\treturn \\"hi\\"', 'def greet():\\n\\treturn \\"hello\\"', "g.py")
    recovered(result, "escapes")
    assert "\\n" in result.message
    assert path.read_text() == 'def greet():\n\treturn "hello"\n'


def test_new_str_with_real_newlines_is_not_unescaped(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, 'x = 1\ny = 2\n')
    recovered(edit(ctx, "x = 1\\ny = 2", 'x = 1\ny = "a\\n"'), "escapes")
    assert path.read_text() == 'x = 1\ny = "a\\n"\n'


def test_escapes_are_not_read_when_the_file_has_them(ctx: ToolContext, ws: Path) -> None:
    before = 'printf("done\\n");\nx = 1;\ny = 2;\n'
    path = put(ws, ctx, before, "m.c")
    refused(edit(ctx, "x = 1;\\ny = 2;", "x = 1;\\ny = 3;", "m.c"), path, before, ErrorCode.NO_MATCH)


def test_escapes_that_decode_to_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = "x = 1\ny = 2\n\nx = 1\ny = 2\n"
    path = put(ws, ctx, before)
    refused(edit(ctx, "x = 1\\ny = 2", "x = 1\\ny = 3"), path, before, ErrorCode.MULTIPLE_MATCHES)


# ---- HTML entities -------------------------------------------------------------------------------------


def test_html_entities_are_read_as_the_characters(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "if a < b && c > d:\n    go()\n", "h.py")
    result = edit(ctx, "if a &lt; b &amp;&amp; c &gt; d:", "if a &lt;= b &amp;&amp; c &gt; d:", "h.py")
    recovered(result, "html_entities")
    assert path.read_text() == "if a <= b && c > d:\n    go()\n"


def test_entities_are_not_read_when_the_file_has_them(ctx: ToolContext, ws: Path) -> None:
    before = "<p>a &lt; b</p>\n<script>if (a < b) go();</script>\n"
    path = put(ws, ctx, before, "p.html")
    refused(edit(ctx, "if (a &lt; b) go();", "if (a &lt;= b) go();", "p.html"), path, before, ErrorCode.NO_MATCH)


def test_entities_that_decode_to_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = "if a < b:\n    go()\nif a < b:\n    stop()\n"
    path = put(ws, ctx, before)
    refused(edit(ctx, "if a &lt; b:", "if a &lt;= b:"), path, before, ErrorCode.MULTIPLE_MATCHES)


# ---- blank lines and line breaks -----------------------------------------------------------------------

FUNCS = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"


def test_one_blank_line_less_than_the_file_and_the_file_keeps_its_blanks(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, FUNCS, "m.py")
    result = edit(ctx, "    return 1\n\ndef b():\n    return 2", "    return 1\n\ndef b():\n    return 20", "m.py")
    recovered(result, "blank_lines")
    assert path.read_text() == FUNCS.replace("return 2", "return 20")


def test_one_blank_line_more_than_the_file(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "x = 1\ny = 2\n")
    recovered(edit(ctx, "x = 1\n\ny = 2", "x = 1\n\ny = 3"), "blank_lines")
    assert path.read_text() == "x = 1\ny = 3\n"


def test_an_extra_leading_newline_at_the_start_of_the_file(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "import os\nimport sys\n")
    recovered(edit(ctx, "\nimport os", "\nimport pathlib"), "blank_lines")
    assert path.read_text() == "import pathlib\nimport sys\n"


def test_a_final_newline_in_old_str_at_the_end_of_a_file_without_one(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "first\nlast")
    recovered(edit(ctx, "last\n", "final\n"), "blank_lines")
    assert path.read_bytes() == b"first\nfinal"


def test_blank_lines_that_fit_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = "x = 1\n\ny = 2\nz = 0\nx = 1\n\ny = 2\n"
    path = put(ws, ctx, before)
    refused(edit(ctx, "x = 1\ny = 2", "x = 1\ny = 3"), path, before, ErrorCode.MULTIPLE_MATCHES)


def test_two_blank_lines_off_is_not_a_near_miss(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, FUNCS, "m.py")
    refused(edit(ctx, "    return 1\ndef b():", "    return 1\ndef c():", "m.py"), path, FUNCS, ErrorCode.NO_MATCH)


# ---- whitespace a formatter aligned --------------------------------------------------------------------

GO = "type User struct {\n\tName    string // shown\n\tAge     int    // years\n}\n"


def test_aligned_fields_match_with_single_spaces_and_keep_their_alignment(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, GO, "u.go")
    result = edit(ctx, "\tName string // shown\n\tAge int // years", "\tName string // shown\n\tAge int64 // years",
                  "u.go")
    recovered(result, "inner_whitespace")
    assert "inside lines" in result.message
    assert path.read_text() == "type User struct {\n\tName    string // shown\n\tAge int64 // years\n}\n"


def test_aligned_lines_that_fit_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = GO + "\ntype Pet struct {\n\tName    string // shown\n}\n"
    path = put(ws, ctx, before, "u.go")
    refused(edit(ctx, "\tName string // shown", "\tName string // hidden", "u.go"), path, before,
            ErrorCode.MULTIPLE_MATCHES)
