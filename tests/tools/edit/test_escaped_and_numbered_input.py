"""Hardening round two, class 9: model input the edit tools should still recover.

Real near misses: a JavaScript string or regex whose backslashes the model doubled, template-literal backticks
the model escaped, and read_file's line numbers pasted into an edit of a YAML file whose own lines start with
`->`, `1->` or a number and a tab. Each is recovered where exactly one place fits, refused (a coded error, the
file byte-identical) otherwise, and a line the edit keeps keeps the file's own bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolContext
from sneakycode.tools.read import number_line
from tests.conftest import run_cli
from tests.tools.edit.test_near_misses import edit, put, recovered, refused

# ---- doubled backslashes -------------------------------------------------------------------------------

# The first line ends in two spaces the model's old_str leaves out: a line the edit keeps keeps them.
JS = "// where things live  \nconst dir = 'C:\\\\Users\\\\x';\nconst version = /\\d+\\.\\d+/;\n"


def doubled(text: str) -> str:
    return text.replace("\\", "\\\\")


def test_a_js_path_whose_backslashes_the_model_doubled_is_found(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, JS, "paths.js")
    old = doubled("// where things live\nconst dir = 'C:\\\\Users\\\\x';")
    new = doubled("// where things live\nconst dir = 'C:\\\\Users\\\\admin';")
    result = edit(ctx, old, new, "paths.js")
    recovered(result, "doubled_backslashes")
    assert "doubled backslash" in result.message
    assert path.read_text() == JS.replace("\\\\x'", "\\\\admin'")
    assert path.read_text().startswith("// where things live  \n")


def test_a_js_regex_whose_backslashes_the_model_doubled_is_found(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, JS, "paths.js")
    result = edit(ctx, doubled("const version = /\\d+\\.\\d+/;"), doubled("const version = /\\d+(\\.\\d+)+/;"),
                  "paths.js")
    recovered(result, "doubled_backslashes")
    assert path.read_text() == JS.replace("/\\d+\\.\\d+/", "/\\d+(\\.\\d+)+/")


def test_new_str_written_with_single_backslashes_goes_in_as_written(ctx: ToolContext, ws: Path) -> None:
    """Only old_str was doubled (an odd run in new_str says new_str was not): new_str is not halved."""
    path = put(ws, ctx, "const p = 'C:\\Users\\test';\n", "p.js")
    recovered(edit(ctx, "const p = 'C:\\\\Users\\\\test';", "const p = 'C:\\Users\\admin';", "p.js"),
              "doubled_backslashes")
    assert path.read_text() == "const p = 'C:\\Users\\admin';\n"


def test_doubled_backslashes_are_not_halved_when_the_file_has_them_doubled(ctx: ToolContext, ws: Path) -> None:
    """The file spells the same regex both ways (a literal, and a RegExp string): either could be meant."""
    before = "const a = /\\d+\\.\\d+/;\nconst b = new RegExp('\\\\d+\\\\.\\\\d+', 'u');\n"
    path = put(ws, ctx, before, "re.js")
    refused(edit(ctx, doubled("const a = /\\d+\\.\\d+/;"), doubled("const a = /\\d+/;"), "re.js"), path, before,
            ErrorCode.NO_MATCH)


def test_doubled_backslashes_that_halve_to_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = "load('C:\\\\tmp');\nrun();\nload('C:\\\\tmp');\n"
    path = put(ws, ctx, before, "twice.js")
    refused(edit(ctx, doubled("load('C:\\\\tmp');"), doubled("load('D:\\\\tmp');"), "twice.js"), path, before,
            ErrorCode.MULTIPLE_MATCHES)


# ---- template literals ---------------------------------------------------------------------------------

GREET = "function greet(name) {\n  const text = `hello ${name}`;  \n  return text;\n}\n"


def test_escaped_template_literal_backticks_are_read_as_backticks(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, GREET, "greet.js")
    old = "  const text = \\`hello ${name}\\`;\n  return text;"
    new = "  const text = \\`hello ${name}\\`;\n  return text.trim();"
    result = edit(ctx, old, new, "greet.js")
    recovered(result, "template_escapes")
    # The kept line keeps its trailing spaces; only the changed line is written.
    assert path.read_text() == GREET.replace("return text;", "return text.trim();")


def test_escaped_dollar_brace_and_backticks_new_str_half_escaped(ctx: ToolContext, ws: Path) -> None:
    """old_str escaped `${` too; new_str escaped only the backticks: each escape is read where it was used."""
    path = put(ws, ctx, GREET, "greet.js")
    recovered(edit(ctx, "const text = \\`hello \\${name}\\`;", "const text = \\`hi ${name}\\`;", "greet.js"),
              "template_escapes")
    assert path.read_text() == GREET.replace("`hello ${name}`", "`hi ${name}`")


def test_escaped_backticks_are_not_read_when_the_file_has_them(ctx: ToolContext, ws: Path) -> None:
    before = "const a = `say \\`hi\\``;\nconst b = `bye`;\n"
    path = put(ws, ctx, before, "t.js")
    refused(edit(ctx, "const b = \\`bye\\`;", "const b = \\`ciao\\`;", "t.js"), path, before, ErrorCode.NO_MATCH)


def test_escaped_backticks_that_fit_two_places_are_refused(ctx: ToolContext, ws: Path) -> None:
    before = "log(`done`);\nstep();\nlog(`done`);\n"
    path = put(ws, ctx, before, "t.js")
    refused(edit(ctx, "log(\\`done\\`);", "log(\\`finished\\`);", "t.js"), path, before,
            ErrorCode.MULTIPLE_MATCHES)


# ---- read_file's line numbers in a YAML file whose lines look like them --------------------------------

FLOW = "states:\n  -> idle\n  -> running   \n  -> done\n1->2: start\n"


def numbered(text: str, first: int) -> str:
    return "\n".join(number_line(first + i, line) for i, line in enumerate(text.split("\n")))


def test_numbered_yaml_lines_starting_with_arrows_lose_exactly_the_prefix(ctx: ToolContext, ws: Path) -> None:
    """The model numbered new_str too, but not the line it added: no number is written into the file, and
    the kept `-> running` line keeps its trailing spaces."""
    path = put(ws, ctx, FLOW, "flow.yaml")
    old = numbered("  -> running\n  -> done\n1->2: start", 3)
    new = numbered("  -> running", 3) + "\n  -> paused\n" + numbered("  -> done\n1->2: start", 4)
    recovered(edit(ctx, old, new, "flow.yaml"), "line_numbers")
    assert path.read_text() == "states:\n  -> idle\n  -> running   \n  -> paused\n  -> done\n1->2: start\n"


# A test fixture holding read_file output: its own lines start with a number and a tab.
FIXTURE = "name: read two lines\nexpected: |\n  1\tfirst\n  2\tsecond\n"


def test_new_str_without_numbers_keeps_the_numbers_that_belong_to_its_lines(ctx: ToolContext, ws: Path) -> None:
    """Regression: new_str's own `1<TAB>` was taken for a line number and cut from the line."""
    path = put(ws, ctx, FIXTURE, "case.yaml")
    old = numbered("  1\tfirst\n  2\tsecond", 3)
    recovered(edit(ctx, old, "  1\tfirst\n  2\tsecond line", "case.yaml"), "line_numbers")
    assert path.read_text() == FIXTURE.replace("second", "second line")


def test_new_str_with_numbers_loses_one_prefix_per_line(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, FIXTURE, "case.yaml")
    old = numbered("  1\tfirst\n  2\tsecond", 3)
    new = numbered("  1\tfirst\n  2\tsecond line", 3)
    recovered(edit(ctx, old, new, "case.yaml"), "line_numbers")
    assert path.read_text() == FIXTURE.replace("second", "second line")


def test_new_str_that_reads_both_ways_in_a_numbered_looking_file_is_refused(ctx: ToolContext, ws: Path) -> None:
    """Every line of new_str is changed, so nothing says whether `1<TAB>` is read_file's or the line's."""
    path = put(ws, ctx, FIXTURE, "case.yaml")
    old = numbered("  1\tfirst\n  2\tsecond", 3)
    result = edit(ctx, old, numbered("  1\tFIRST\n  2\tSECOND", 3), "case.yaml")
    refused(result, path, FIXTURE, ErrorCode.INVALID_ARGUMENTS)
    assert "without read_file's line numbers" in result.render()


def test_a_blank_line_whose_tab_was_trimmed_still_counts_as_numbered(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "a: 1\n\nb: 2\n", "ab.yaml")
    old = numbered("a: 1\n\nb: 2", 1).replace("     2\t\n", "     2\n")
    recovered(edit(ctx, old, old.replace("b: 2", "b: 3"), "ab.yaml"), "line_numbers")
    assert path.read_text() == "a: 1\n\nb: 3\n"


def test_a_prefix_wider_than_read_files_is_text_not_a_line_number(ctx: ToolContext, ws: Path) -> None:
    before = "x: 1\ny: 2\n"
    path = put(ws, ctx, before, "xy.yaml")
    refused(edit(ctx, "         2\ty: 2", "         2\ty: 3", "xy.yaml"), path, before, ErrorCode.NO_MATCH)


def test_text_indented_past_read_files_width_is_never_cut(ctx: ToolContext, ws: Path) -> None:
    """A block of read_file output nested in YAML: `       1<TAB>` is wider than read_file's prefix, so it is
    the line's own text, whichever way new_str is written."""
    before = "expected: |\n       1\tfirst\n       2\tsecond\n"
    path = put(ws, ctx, before, "nested.yaml")
    old = numbered("       1\tfirst\n       2\tsecond", 2)
    recovered(edit(ctx, old, "       1\tfirst\n       2\tlast", "nested.yaml"), "line_numbers")
    assert path.read_text() == before.replace("second", "last")


def test_the_cli_strips_read_files_own_prefixes_from_a_yaml_edit(ws: Path) -> None:
    """Through the real CLI: old_str and new_str are cut from what `sneakycode tool read_file` printed."""
    (ws / "flow.yaml").write_text(FLOW, encoding="utf-8")
    read = run_cli("tool", "read_file", json.dumps({"file_path": "flow.yaml"}), "--json", "--workspace", str(ws))
    assert read.code == 0, read.stderr
    shown = json.loads(read.stdout)["content"].split("\n")
    old = "\n".join(shown[2:4])
    new = old.replace("-> done", "-> finished")
    done = run_cli("tool", "read_file", json.dumps({"file_path": "flow.yaml"}),
                   "str_replace", json.dumps({"file_path": "flow.yaml", "old_str": old, "new_str": new}),
                   "--workspace", str(ws))
    assert done.code == 0, done.stdout + done.stderr
    assert "line numbers" in done.stdout
    assert (ws / "flow.yaml").read_text() == FLOW.replace("-> done", "-> finished")
    ambiguous = (ws / "case.yaml")
    ambiguous.write_text(FIXTURE, encoding="utf-8")
    call_args = {"file_path": "case.yaml", "old_str": numbered("  2\tsecond", 4), "new_str": "  2\tthird"}
    refused_run = run_cli("tool", "read_file", json.dumps({"file_path": "case.yaml"}),
                          "str_replace", json.dumps(call_args), "--workspace", str(ws))
    assert refused_run.code == 1 and "invalid_arguments" in refused_run.stdout
    assert "Traceback" not in refused_run.stdout + refused_run.stderr
    assert ambiguous.read_text() == FIXTURE
