"""Syntax errors after an edit: each parser, and only the errors the edit introduced are reported."""

from __future__ import annotations

from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context
from tests.conftest import call, project_config


def put(ws: Path, ctx: ToolContext, name: str, text: str) -> Path:
    """Create a file and read it, as the model must before editing."""
    path = ws / name
    path.write_text(text)
    assert call(ctx, "read_file", file_path=name).success
    return path


def replace(ctx: ToolContext, name: str, old: str, new: str) -> ToolResult:
    result = call(ctx, "str_replace", file_path=name, old_str=old, new_str=new)
    assert result.success, result.render()
    return result


PY_LINES = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(10))


# ---- one test per source ------------------------------------------------------------------------------


def test_tree_sitter_reports_a_javascript_error_with_its_numbered_line(ctx: ToolContext, ws: Path) -> None:
    path = put(ws, ctx, "app.js", "function f() {\n  return g();\n}\n\nconst y = 2;\n")
    result = replace(ctx, "app.js", "return g();", "return g());")
    shown = result.render()
    assert "Edited app.js" in shown
    assert "1 new syntax error: line 2: unexpected ')'\n     2\t  return g());" in shown
    assert result.data["diagnostics"][0]["line"] == 2
    assert path.read_text().count("g())") == 1  # the edit was applied all the same


def test_python_gets_compile_messages(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", PY_LINES)
    result = replace(ctx, "m.py", "def f3(x):", "def f3(x)")
    assert "1 new syntax error: line 10: expected ':'" in result.render()
    assert "    10\tdef f3(x)" in result.render()


def test_python_compile_finds_errors_a_grammar_accepts(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", "x = 1\n")
    result = replace(ctx, "m.py", "x = 1", "x = 1\nreturn x")
    assert "line 2: 'return' outside function" in result.render()


def test_python_newer_than_ours_is_not_an_error(ctx: ToolContext, ws: Path) -> None:
    """Regression guard: Python 3.11's compile() refuses 3.12 f-strings and generics, which are valid code."""
    put(ws, ctx, "m.py", "x = 1\n")
    result = replace(ctx, "m.py", "x = 1", 'x = f"{d["a"]}"\n\ndef first[T](items: list[T]) -> T:\n    return items[0]')
    assert "diagnostics" not in result.data


def test_json_is_checked_by_its_loader(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "package.json", '{\n  "name": "app",\n  "version": "1.0.0"\n}\n')
    result = replace(ctx, "package.json", '"version": "1.0.0"', '"version": "1.0.0",')
    assert "1 new syntax error: line 4: Expecting property name enclosed in double quotes" in result.render()


def test_jsonc_files_may_have_comments_and_trailing_commas(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "tsconfig.json", '{\n  "compilerOptions": {}\n}\n')
    result = replace(ctx, "tsconfig.json", '"compilerOptions": {}', '// strict\n  "compilerOptions": {},')
    assert "diagnostics" not in result.data


def test_toml_is_checked_by_tomllib(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "pyproject.toml", '[project]\nname = "app"\nversion = "1"\n')
    result = replace(ctx, "pyproject.toml", 'version = "1"', "version = ")
    assert "1 new syntax error: line 3: Invalid value" in result.render()


def test_yaml_is_checked_by_its_loader(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "ci.yml", "jobs:\n  test:\n    runs-on: ubuntu\n")
    result = replace(ctx, "ci.yml", "    runs-on: ubuntu", "    runs-on: ubuntu\n   steps: [")
    rendered = result.render()
    assert "new syntax error" in rendered and "line 4" in rendered
    assert "     4\t   steps: [" in rendered


def test_yaml_custom_tags_are_not_errors(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "stack.yaml", "Value: 1\n")
    result = replace(ctx, "stack.yaml", "Value: 1", "Value: !Ref Bucket")
    assert "diagnostics" not in result.data


def test_an_extensionless_script_is_known_by_its_shebang(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "deploy", "#!/usr/bin/env python3\nprint('hi')\n")
    result = replace(ctx, "deploy", "print('hi')", "print('hi'")
    assert "1 new syntax error: line 2:" in result.render()


def test_files_of_no_checked_language_are_left_alone(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "notes.txt", "a (b\n")
    assert "diagnostics" not in replace(ctx, "notes.txt", "a (b", "a ((b").data


# ---- only what the edit introduced -------------------------------------------------------------------


def test_a_clean_edit_says_nothing_more(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", PY_LINES)
    result = replace(ctx, "m.py", "return x + 3", "return x * 3")
    assert result.message == "Edited m.py: 1 replacement, old_str matched exactly."
    assert "diagnostics" not in result.data


def test_an_error_the_file_already_had_is_not_reported(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", PY_LINES.replace("def f8(x):", "def f8(x)"))
    result = replace(ctx, "m.py", "return x + 1", "return x - 1")
    assert "syntax error" not in result.render()


def test_an_old_error_shifted_by_the_edit_is_not_reported(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "app.js", "const a = 1;\nfunction f() {\n  return g());\n}\n")
    result = replace(ctx, "app.js", "const a = 1;", "const a = 1;\nconst b = 2;\nconst c = 3;")
    assert "syntax error" not in result.render()


def test_a_new_error_behind_an_old_one_is_reported_at_its_line(ctx: ToolContext, ws: Path) -> None:
    """compile() stops at the first error, which the file already had; tree-sitter finds the one behind it."""
    put(ws, ctx, "m.py", PY_LINES.replace("return x + 1", "return x + 1)"))
    result = replace(ctx, "m.py", "return x + 7", "return (x + 7")
    rendered = result.render()
    assert "1 new syntax error: line 23:" in rendered and "    23\t    return (x + 7" in rendered
    assert "line 5" not in rendered


def test_a_created_file_reports_all_its_errors(ctx: ToolContext, ws: Path) -> None:
    content = "".join(f"const v{i} = ({i};\n" for i in range(8))
    result = call(ctx, "write_file", file_path="new.js", content=content)
    assert result.success and "Created new.js (8 lines)." in result.render()
    assert "8 new syntax errors:" in result.render() and "and 3 more." in result.render()
    assert len(result.data["diagnostics"]) == 8


def test_overwriting_reports_only_new_errors(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", "x = f(1))\n")
    result = call(ctx, "write_file", file_path="m.py", content="def g():\n    return 1 +\n\nx = f(1))\n")
    assert result.success
    rendered = result.render()
    assert "Overwrote m.py" in rendered and "1 new syntax error: line 2: unexpected '+'" in rendered


def test_patch_apply_reports_new_errors(ctx: ToolContext, ws: Path) -> None:
    put(ws, ctx, "m.py", "a = 1\nb = 2\nc = 3\n")
    result = call(ctx, "patch_apply", file_path="m.py", patch="@@ -1,3 +1,3 @@\n a = 1\n-b = 2\n+b = = 2\n c = 3\n")
    assert result.success and "Patched m.py: 1 hunk applied." in result.render()
    assert "1 new syntax error: line 2: invalid syntax" in result.render()


def test_a_patch_creating_a_file_reports_its_errors(ctx: ToolContext, ws: Path) -> None:
    patch = '--- /dev/null\n+++ b/n.json\n@@ -0,0 +1 @@\n+{"a": }\n'
    result = call(ctx, "patch_apply", file_path="n.json", patch=patch)
    assert result.success and "1 new syntax error: line 1:" in result.render()


# ---- off switch ----------------------------------------------------------------------------------------


def test_disabled_means_no_diagnostics(ws: Path) -> None:
    project_config(ws, "[diagnostics]\nenabled = false\n", trusted=False)
    ctx = open_tool_context(load_settings(ws))
    assert ctx.settings.diagnostics.enabled is False
    put(ws, ctx, "app.js", "const a = 1;\n")
    result = replace(ctx, "app.js", "const a = 1;", "const a = (1;")
    assert result.message == "Edited app.js: 1 replacement, old_str matched exactly."
    assert "diagnostics" not in result.data
