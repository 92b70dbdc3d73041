"""What a tool is lives on the tool: facets declared on @tool, and no module outside tools/ names a tool."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.registry import all_tools, get_tool

SRC = Path(__file__).resolve().parents[2] / "src" / "sneakycode"


def test_no_module_outside_tools_names_a_tool() -> None:
    """Regression: 16 places outside tools/ named tools ("finish", "update_tasks", EDIT_TOOLS, ...)."""
    names = "|".join(sorted(found.name for found in all_tools()))
    quoted = re.compile(rf"""["'](?:{names})["']""")
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC)
        if relative.parts[0] in ("tools", "testing"):  # testing/ ships scripted replies that call tools
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if quoted.search(line):
                offenders.append(f"{relative}:{number}: {line.strip()}")
    assert offenders == []


def test_facets_describe_the_tools() -> None:
    by_name = {found.name: found for found in all_tools()}
    assert {n for n, t in by_name.items() if t.edits_files} == {"write_file", "make_dir", "str_replace", "patch_apply"}
    assert {n for n, t in by_name.items() if t.ends_run} == {"finish"}
    assert {n for n, t in by_name.items() if not t.mcp} == {"finish", "update_tasks"}
    assert {n for n, t in by_name.items() if t.command} == {"run_command"}
    assert {n for n, t in by_name.items() if t.records_read} == {"read_file"}
    for found in by_name.values():
        assert not (found.read_only and found.edits_files), found.name
        assert found.example, f"{found.name} has no example call"
        found.args_model.model_validate(found.example)


def test_path_arguments_include_defaults_and_know_folders() -> None:
    grep = get_tool("grep_files")
    listing = get_tool("list_dir")
    assert grep is not None and listing is not None
    assert grep.path_arguments({"pattern": "x"}) == [(".", False)]
    assert listing.path_arguments({"directory_path": "src"}) == [("src", True)]
    assert grep.headline_of({"pattern": "def main"}) == "def main"


class OnePathArgs(ToolArgs):
    file_path: str


def test_a_facet_naming_a_missing_argument_is_refused_at_declaration() -> None:
    with pytest.raises(TypeError, match="facets name arguments it does not have"):

        @tool(name="broken", tier=Tier.AUTO, paths=("path",))
        def broken(args: OnePathArgs, ctx: ToolContext) -> ToolResult:
            """Broken."""
            return ToolResult.ok()
