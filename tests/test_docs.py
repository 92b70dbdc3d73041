"""The generated reference pages in docs/ match the code that documents itself (regenerate: make docs)."""

from __future__ import annotations

import json
from pathlib import Path

from sneakycode.config import Settings
from sneakycode.docs import PAGES, main, render_config_markdown, render_tools_markdown, stale_pages
from sneakycode.errors import ERROR_DOCS, ErrorCode
from sneakycode.tools.registry import all_tools

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_every_generated_page_is_up_to_date() -> None:
    assert stale_pages(DOCS) == [], "docs/ drifted from the code: run `make docs`"


def test_check_names_a_stale_page_and_writing_fixes_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    assert main(["--check", "--dir", str(docs)]) == 1
    assert main(["--dir", str(docs)]) == 0
    assert sorted(p.name for p in docs.iterdir()) == sorted(PAGES)
    assert main(["--check", "--dir", str(docs)]) == 0
    (docs / "config.md").write_text("old\n", encoding="utf-8")
    assert stale_pages(docs) == ["config.md"]


def test_every_config_key_is_documented() -> None:
    text = render_config_markdown()
    for key in ("workspace_root", "max_output_bytes", "permissions.deny", "tools.shell.denied_commands",
                "tools.shell.sandbox_network", "retry_backoff"):
        assert f"| `{key}` |" in text
    for name, info in Settings.model_fields.items():
        assert info.description, name


def test_every_error_code_has_a_meaning_and_a_hint() -> None:
    text = (DOCS / "errors.md").read_text(encoding="utf-8")
    for code in ErrorCode:
        doc = ERROR_DOCS[code]
        assert doc.meaning.strip() and doc.hint.strip(), code
        assert f"`{code.value}`" in text


def test_tools_page_has_every_tool_in_registry_order_with_its_description_parameters_and_example() -> None:
    text = render_tools_markdown()
    tools = all_tools()
    assert f"offers the model {len(tools)} tools" in text
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert headings == [t.name for t in tools] + ["Results"]
    for found in tools:
        section = text.split(f"\n## {found.name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"> {found.description}" in section
        assert found.example, f"{found.name} has no example call for docs/tools.md"
        assert json.dumps(found.example, indent=2, ensure_ascii=False) in section
        for name in found.args_model.model_fields:
            assert f"| `{name}` |" in section, (found.name, name)
        found.args_model.model_validate(found.example)


def test_tools_page_notes_follow_the_facets() -> None:
    text = render_tools_markdown()
    for found in all_tools():
        section = text.split(f"\n## {found.name}\n", 1)[1].split("\n## ", 1)[0]
        assert ("ends the agent's run" in section) == found.ends_run, found.name
        assert ("Not offered over MCP" in section) == (not found.mcp), found.name
        assert ("auto-edit` mode approves it" in section) == found.edits_files, found.name
        for name in found.paths:
            assert f"`{name}` is a workspace path" in section
        if found.command:
            assert f"`{found.command}` is a shell command line" in section

