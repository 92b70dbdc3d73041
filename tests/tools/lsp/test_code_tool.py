"""The `code` tool against the real jedi-language-server (issue 29): definition across files, references,
outlines and workspace symbols, hover, positions given by name or by column (UTF-16 on the wire), places in
libraries marked as outside the workspace, and coded errors for what it cannot answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.lsp.answers import character_column, utf16_column
from tests.conftest import call, isolate_home, project_config
from tests.tools.lsp.servers import JEDI, project, use_jedi


def _jedi_session(ws: Path) -> ToolContext:
    assert JEDI.exists(), "jedi-language-server is in the dev extras"
    use_jedi()
    project(ws)
    return open_tool_context(load_settings(ws))


@pytest.fixture(scope="module")
def lsp_ctx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    """One session and one jedi for the tests that only ask about the project (or add a file of their own):
    starting and stopping jedi is most of such a test's time. Its own home, since `isolated_home` is per test."""
    root = tmp_path_factory.mktemp("code-tool")
    with pytest.MonkeyPatch.context() as patch:
        (root / "home").mkdir()
        isolate_home(patch, root / "home")
        (root / "ws").mkdir()
        ctx = _jedi_session(root / "ws")
    yield ctx
    ctx.close()


@pytest.fixture
def fresh_lsp_ctx(ws: Path) -> Iterator[ToolContext]:
    """A session of its own, for a test that changes the project's files."""
    ctx = _jedi_session(ws)
    yield ctx
    ctx.close()


def test_definition_across_files_gives_the_workspace_path_line_and_the_line_itself(lsp_ctx: ToolContext) -> None:
    result = call(lsp_ctx, "code", op="definition", path="main.py", line=3, symbol="area")
    assert result.success, result.render()
    assert result.render() == ("definition of area at main.py:3: 1 place\n"
                               "shapes/geometry.py:1:5: def area(width, height):")
    assert result.data["places"] == [{"path": "shapes/geometry.py", "line": 1, "column": 5,
                                      "outside_workspace": False, "text": "def area(width, height):"}]


def test_references_list_every_use_in_every_file(lsp_ctx: ToolContext) -> None:
    result = call(lsp_ctx, "code", op="references", path="shapes/geometry.py", line=1, symbol="area")
    assert result.success, result.render()
    where = {(p["path"], p["line"]) for p in result.data["places"]}
    assert {("main.py", 1), ("main.py", 3), ("shapes/geometry.py", 1), ("shapes/geometry.py", 8),
            ("report.py", 3)} <= where
    assert "shapes/geometry.py:8:16:         return area(2, 3) * depth" not in result.render()  # stripped context
    assert "shapes/geometry.py:8:16: return area(2, 3) * depth" in result.render()


def test_a_column_after_wide_characters_is_sent_in_utf16(lsp_ctx: ToolContext) -> None:
    """report.py line 3 has an emoji (two UTF-16 units) and an accent before `area`: character column 26 is
    UTF-16 offset 26, not 25. Pointing by column and by name both land on the definition. (jedi-language-server
    itself answers in code points, so its columns after an emoji read one short: a server bug, not converted
    away here, since a server that follows the protocol would then be wrong.)"""
    by_column = call(lsp_ctx, "code", op="definition", path="report.py", line=3, column=26)
    by_name = call(lsp_ctx, "code", op="definition", path="report.py", line=3, symbol="area")
    assert by_column.data["places"][0]["path"] == by_name.data["places"][0]["path"] == "shapes/geometry.py"
    assert by_column.data["places"][0]["line"] == 1


def test_a_dotted_name_points_at_its_last_part(lsp_ctx: ToolContext) -> None:
    """`g.area` on report.py's line 3 means `area` (pointing at `g` would give the module)."""
    result = call(lsp_ctx, "code", op="definition", path="report.py", line=3, symbol="g.area")
    assert result.data["places"][0]["path"] == "shapes/geometry.py" and result.data["places"][0]["line"] == 1


def test_utf16_offsets_and_character_columns_convert_both_ways() -> None:
    line = 'label = "\U0001f600 é"; total = g.area(4, 5)'
    assert utf16_column(line, 25) == 26 and character_column(line, 26) == 25
    assert utf16_column("abc", 2) == 2 and character_column("abc", 99) == 3


def test_outline_and_workspace_symbols(lsp_ctx: ToolContext) -> None:
    outline = call(lsp_ctx, "code", op="symbols", path="shapes/geometry.py")
    assert outline.success, outline.render()
    assert outline.render().splitlines()[1:] == ["     1  function area", "     6  class Box",
                                                 "     7    method volume"]
    found = call(lsp_ctx, "code", op="symbols", query="area")
    assert "function area  shapes/geometry.py:1:5: def area(width, height):" in found.render()


def test_hover_shows_the_signature_and_docstring(lsp_ctx: ToolContext) -> None:
    result = call(lsp_ctx, "code", op="hover", path="main.py", line=3, symbol="area")
    assert result.success
    assert "def area(width, height)" in result.render() and "The area of a rectangle." in result.render()


def test_a_library_place_is_marked_outside_the_workspace_and_not_read(lsp_ctx: ToolContext) -> None:
    ws = lsp_ctx.workspace.root
    (ws / "tool.py").write_text("import json\n\njson.dumps({})\n")
    result = call(lsp_ctx, "code", op="definition", path="tool.py", line=3, symbol="dumps")
    assert result.success, result.render()
    place = result.data["places"][0]
    assert place["outside_workspace"] is True and place["text"] is None
    assert result.render().splitlines()[1].startswith("(outside the workspace) /")


def test_what_it_cannot_answer_is_a_coded_error(lsp_ctx: ToolContext) -> None:
    ws = lsp_ctx.workspace.root
    missing = call(lsp_ctx, "code", op="definition", path="main.py", line=3, symbol="volume")
    assert missing.code == "symbol_not_on_line" and "3\tprint(area(2, 3))" in missing.render()
    (ws / "notes.txt").write_text("area\n")
    assert call(lsp_ctx, "code", op="definition", path="notes.txt", line=1, symbol="area").code == "no_language_server"
    assert call(lsp_ctx, "code", op="hover", path="main.py").code == "invalid_arguments"
    assert call(lsp_ctx, "code", op="definition", path="main.py", line=0, column=1).code == "invalid_arguments"
    assert call(lsp_ctx, "code", op="definition", path="main.py", line=99, symbol="x").code == "invalid_range"
    assert call(lsp_ctx, "code", op="definition", path="../x.py", line=1, symbol="x").code == "outside_workspace"


def test_answers_follow_the_file_on_disk_after_a_command_changed_it(fresh_lsp_ctx: ToolContext, ws: Path) -> None:
    """The server was shown main.py; a command rewrites it (no edit tool involved): the next answer is about
    the new text, not the one the server held."""
    assert call(fresh_lsp_ctx, "code", op="definition", path="main.py", line=3, symbol="area").success
    (ws / "main.py").write_text("from shapes.geometry import Box\n\n\nBox().volume(1)\n")
    result = call(fresh_lsp_ctx, "code", op="definition", path="main.py", line=4, symbol="volume")
    assert result.data["places"][0]["line"] == 7


def test_deny_rules_on_reading_keep_files_out_of_code(ws: Path) -> None:
    """`read_file(secret/**)` denies reading: `code` does not read such a file, and the server it asks never
    read it either (test_hidden_files.py), so no place in it and no text from it comes back."""
    use_jedi()
    project(ws)
    (ws / "secret").mkdir()
    (ws / "secret" / "__init__.py").write_text("")
    (ws / "secret" / "keys.py").write_text('def token():\n    """The key is hunter2."""\n    return "hunter2"\n')
    (ws / "app.py").write_text("from secret.keys import token\n\ntoken()\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(secret/**)"]\n')
    ctx = open_tool_context(load_settings(ws))
    try:
        refused = call(ctx, "code", op="symbols", path="secret/keys.py")
        assert refused.code == "permission_denied" and "read_file(secret/**)" in refused.render()
        found = call(ctx, "code", op="definition", path="app.py", line=3, symbol="token")
        assert found.success and "secret/keys.py" not in found.render()
        hover = call(ctx, "code", op="hover", path="app.py", line=3, symbol="token")
        assert hover.success and "hunter2" not in hover.render()
    finally:
        ctx.close()
