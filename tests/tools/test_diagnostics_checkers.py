"""Configured checkers after an edit: each output reader on real-shaped output, real runs (a scripted checker
and ruff itself), and the ways a checker can fail without failing the edit."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.diagnostics.outputs import read_eslint, read_gcc_style, read_pyright, read_ruff, read_tsc
from tests.conftest import call, project_config

# ---- output readers, on output shaped like the real programs' ------------------------------------------

RUFF_OUTPUT = json.dumps([
    {
        "cell": None, "code": "F401", "end_location": {"column": 10, "row": 1}, "filename": "/w/app/m.py",
        "fix": {"applicability": "safe", "edits": [], "message": "Remove unused import: `os`"},
        "location": {"column": 8, "row": 1}, "message": "`os` imported but unused", "noqa_row": 1,
        "url": "https://docs.astral.sh/ruff/rules/unused-import",
    },
    {
        "cell": None, "code": None, "end_location": {"column": 1, "row": 4}, "filename": "/w/app/m.py", "fix": None,
        "location": {"column": 12, "row": 3}, "message": "SyntaxError: Expected ')', found newline",
        "noqa_row": None, "url": None,
    },
])  # fmt: skip
PYRIGHT_OUTPUT = json.dumps({
    "version": "1.1.380", "time": "1718000000000",
    "generalDiagnostics": [
        {
            "file": "/w/app/m.py", "severity": "error", "message": '"foo" is not defined',
            "range": {"start": {"line": 2, "character": 11}, "end": {"line": 2, "character": 14}},
            "rule": "reportUndefinedVariable",
        },
        {
            "file": "/w/app/m.py", "severity": "information", "message": "Import cycles are not checked",
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        },
    ],
    "summary": {"filesAnalyzed": 1, "errorCount": 1, "warningCount": 0, "informationCount": 1, "timeInSec": 0.4},
})  # fmt: skip
ESLINT_OUTPUT = json.dumps([
    {
        "filePath": "/w/app/a.js",
        "messages": [
            {
                "ruleId": "no-unused-vars", "severity": 2, "message": "'x' is assigned a value but never used.",
                "line": 1, "column": 7, "nodeType": "Identifier", "messageId": "unusedVar", "endLine": 1,
                "endColumn": 8,
            },
            {"ruleId": None, "fatal": True, "severity": 2, "message": "Parsing error: Unexpected token )",
             "line": 3, "column": 12},
        ],
        "suppressedMessages": [], "errorCount": 2, "fatalErrorCount": 1, "warningCount": 0,
        "fixableErrorCount": 0, "fixableWarningCount": 0, "usedDeprecatedRules": [],
    }
])  # fmt: skip
TSC_OUTPUT = (
    "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
    "src/a.ts(5,3): error TS2345: Argument of type '{ a: string; }' is not assignable to parameter of type 'B'.\n"
    "  Object literal may only specify known properties, and 'a' does not exist in type 'B'.\n"
    "src/b.ts(10,1): error TS2304: Cannot find name 'foo'.\n"
)


def test_ruff_json_is_read_with_codes_and_syntax_errors() -> None:
    found = read_ruff(RUFF_OUTPUT, "ruff")
    assert [(path, f.line, f.column, f.message) for path, f in found] == [
        ("/w/app/m.py", 1, 8, "F401 `os` imported but unused"),
        ("/w/app/m.py", 3, 12, "SyntaxError: Expected ')', found newline"),
    ]


def test_pyright_json_is_read_zero_based_lines_made_one_based_information_skipped() -> None:
    found = read_pyright(PYRIGHT_OUTPUT, "pyright")
    assert [(f.line, f.column, f.message) for _, f in found] == [
        (3, 12, '"foo" is not defined (reportUndefinedVariable)')
    ]


def test_eslint_json_is_read_with_rule_ids() -> None:
    found = read_eslint(ESLINT_OUTPUT, "eslint")
    assert [(f.line, f.message) for _, f in found] == [
        (1, "'x' is assigned a value but never used. (no-unused-vars)"),
        (3, "Parsing error: Unexpected token )"),
    ]


def test_tsc_lines_are_read_and_continuation_lines_skipped() -> None:
    found = read_tsc(TSC_OUTPUT, "tsc")
    assert [(path, f.line, f.column, f.message.split(":")[0]) for path, f in found] == [
        ("src/a.ts", 3, 7, "TS2322 Type 'string' is not assignable to type 'number'."),
        ("src/a.ts", 5, 3, "TS2345 Argument of type '{ a"),
        ("src/b.ts", 10, 1, "TS2304 Cannot find name 'foo'."),
    ]


def test_file_line_col_lines_of_other_linters_are_read() -> None:
    found = read_gcc_style("m.py:4:5: error: Name \"foo\" is not defined  [name-defined]\nFound 1 error\n", "mypy")
    assert [(path, f.line, f.column, f.message) for path, f in found] == [
        ("m.py", 4, 5, 'error: Name "foo" is not defined  [name-defined]')
    ]


# ---- checkers that run -------------------------------------------------------------------------------

# Prints ruff-shaped JSON: a finding for every line of the checked file that says TODO, and one about
# another file (which must not be reported).
FAKE_RUFF = """
import json, sys
path = sys.argv[1]
found = [
    {"code": "FIX002", "message": "Line contains TODO", "filename": path, "location": {"row": n, "column": 1}}
    for n, line in enumerate(open(path, encoding="utf-8").read().splitlines(), 1) if "TODO" in line
]
found.append({"code": "E501", "message": "Line too long", "filename": "/elsewhere/x.py", "location": {"row": 1}})
print(json.dumps(found))
"""


def checker_context(ws: Path, tmp_path: Path, script: str, name: str, *, timeout: int = 10,
                    language: str = "python") -> ToolContext:
    program = tmp_path / name
    program.write_text(script)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(program))} {{file}}"
    checkers = f"[diagnostics.checkers]\n{language} = {json.dumps(command)}\n"
    project_config(ws, f"[diagnostics]\ntimeout = {timeout}\n{checkers}")
    return open_tool_context(load_settings(ws))


def put_and_replace(ctx: ToolContext, ws: Path, name: str, text: str, old: str, new: str) -> ToolResult:
    (ws / name).write_text(text)
    assert call(ctx, "read_file", file_path=name).success
    result = call(ctx, "str_replace", file_path=name, old_str=old, new_str=new)
    assert result.success, result.render()
    return result


def test_a_configured_checker_reports_only_its_new_findings(ws: Path, tmp_path: Path) -> None:
    ctx = checker_context(ws, tmp_path, FAKE_RUFF, "ruff.py")
    text = "x = 1  # TODO old\ny = 2\nz = 3\n"
    result = put_and_replace(ctx, ws, "m.py", text, "y = 2", "w = 0\nv = 0\ny = 2  # TODO new")
    rendered = result.render()
    assert "1 new finding from ruff: line 4: FIX002 Line contains TODO\n     4\ty = 2  # TODO new" in rendered
    assert "line 1" not in rendered and "Line too long" not in rendered
    assert [d["line"] for d in result.data["diagnostics"]] == [4]
    assert sorted(p.name for p in ws.iterdir()) == [".sneakycode", "m.py"]  # the copy of the old text is gone


def test_real_ruff_reports_the_new_unused_import_only(ws: Path, tmp_path: Path) -> None:
    ruff = Path(sys.executable).parent / "ruff"
    command = f"{shlex.quote(str(ruff))} check --no-cache --isolated --output-format=json {{file}}"
    project_config(ws, f"[diagnostics.checkers]\npython = {json.dumps(command)}\n")
    ctx = open_tool_context(load_settings(ws))
    result = put_and_replace(ctx, ws, "m.py", "import os\n\nprint(1)\n", "import os\n", "import os\nimport sys\n")
    rendered = result.render()
    assert "1 new finding from ruff: line 2: F401 `sys` imported but unused" in rendered
    assert "`os`" not in rendered


def test_a_checker_that_times_out_gives_a_note_and_the_edit_stands(ws: Path, tmp_path: Path) -> None:
    ctx = checker_context(ws, tmp_path, "import time\ntime.sleep(30)\n", "ruff.py", timeout=1)
    result = put_and_replace(ctx, ws, "m.py", "a = 1\n", "a = 1", "a = 2")
    assert result.success and result.code is None
    assert "Edited m.py" in result.render()
    assert "Note: checker ruff took longer than 1 s and was stopped; its findings are not shown." in result.render()
    assert (ws / "m.py").read_text() == "a = 2\n"


def test_a_missing_checker_gives_a_note(ws: Path) -> None:
    project_config(ws, '[diagnostics.checkers]\npython = "no-such-checker-here --json {file}"\n')
    ctx = open_tool_context(load_settings(ws))
    result = put_and_replace(ctx, ws, "m.py", "a = 1\n", "a = 1", "a = 2")
    assert "Note: checker no-such-checker-here could not start" in result.render()


def test_a_checker_printing_garbage_gives_a_note(ws: Path, tmp_path: Path) -> None:
    ctx = checker_context(ws, tmp_path, "print('Segmentation fault (core dumped)')\n", "eslint.py",
                          language="javascript")
    result = put_and_replace(ctx, ws, "a.js", "let a = 1;\n", "let a = 1;", "let a = 2;")
    assert result.success
    assert "Note: the output of checker eslint could not be read as eslint's" in result.render()


# Prints tsc-style lines with the path relative to the working folder, as tsc does.
FAKE_TSC = """
import os, sys
path = sys.argv[1]
if "'x'" in open(path, encoding="utf-8").read():
    print(f"{os.path.relpath(path)}(1,5): error TS2322: Type 'string' is not assignable to type 'number'.")
    sys.exit(2)
"""


def test_tsc_paths_relative_to_the_workspace_are_matched(ws: Path, tmp_path: Path) -> None:
    ctx = checker_context(ws, tmp_path, FAKE_TSC, "tsc.py", language="typescript")
    (ws / "src").mkdir()
    result = put_and_replace(ctx, ws, "src/a.ts", "let a: number = 1;\n", "= 1", "= 'x'")
    assert "1 new finding from tsc: line 1: TS2322 Type 'string' is not assignable to type 'number'." in (
        result.render()
    )


def test_checkers_wait_until_the_syntax_errors_are_fixed(ws: Path, tmp_path: Path) -> None:
    ctx = checker_context(ws, tmp_path, FAKE_RUFF, "ruff.py")
    result = put_and_replace(ctx, ws, "m.py", "a = 1\n", "a = 1", "a = (1  # TODO")
    rendered = result.render()
    assert "1 new syntax error" in rendered and "FIX002" not in rendered
    assert "Configured checkers run once the syntax errors are fixed." in rendered
