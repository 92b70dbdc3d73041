"""The generated reference pages in docs/ match the code that documents itself (regenerate: make docs), and the
README stays a front page whose links, like those of every page in docs/, lead somewhere."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sneakycode.agent.subagents import TASK_TOOL
from sneakycode.config import Settings
from sneakycode.docs import PAGES, main, render_config_markdown, render_tools_markdown, stale_pages
from sneakycode.errors import ERROR_DOCS, ErrorCode
from sneakycode.tools.registry import known_tools

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = REPO / "README.md"
PAGES_WITH_LINKS = [README, *sorted(DOCS.glob("*.md"))]
# The commands a newcomer needs: SneakyCode on PATH, then in their own project (issue 37: `make run` started
# it in the clone, and `sneakycode` was "command not found"); and the test suite.
QUICKSTART = (
    "make install                  # puts `sneakycode` on your PATH, in an environment of its own",
    "cd ~/your-project && sneakycode",
    "make test    # creates .venv with the dev extras if missing, runs the test suite",
)


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
    tools = known_tools()  # the conditional ones (code) too
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
    for found in known_tools():
        section = text.split(f"\n## {found.name}\n", 1)[1].split("\n## ", 1)[0]
        assert ("ends the agent's run" in section) == found.ends_run, found.name
        assert ("Not offered over MCP" in section) == (not found.mcp), found.name
        assert ("auto-edit` mode approves it" in section) == found.edits_files, found.name
        for name in found.paths:
            assert f"`{name}` is a workspace path" in section
        if found.command:
            assert f"`{found.command}` is a shell command line" in section


def test_readme_is_a_front_page_under_12_kb_with_the_quickstart_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) < 12_000
    quickstart = text.split("\n## Quickstart\n", 1)[1].split("\n## ", 1)[0]
    for line in QUICKSTART:
        assert f"\n{line}\n" in quickstart, line
    assert "make conformance" in quickstart and "../shared" in quickstart


def _links(text: str) -> list[str]:
    """Targets of the Markdown links outside code: fenced blocks and `spans` may hold `[x](y)` as text."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", PAGES_WITH_LINKS, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_points_to_a_file_that_exists(page: Path) -> None:
    broken = []
    for target in _links(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path_part, _, fragment = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(target)
        elif fragment and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), flags=re.M)
            if fragment not in {_anchor(h) for h in headings}:
                broken.append(target)
    assert broken == [], f"{page.name} links to what does not exist"


def test_link_check_sees_links_and_ignores_code() -> None:
    text = "[a](a.md) and [b](b.md#part)\n`[c](c.md)`\n```toml\n[d](d.md)\n```\n[e](https://example.com)\n"
    assert _links(text) == ["a.md", "b.md#part", "https://example.com"]
    assert _anchor("Trying rules: `sneakycode permissions`") == "trying-rules-sneakycode-permissions"
    assert _anchor("read_file") == "read_file"


NUMBER_WORDS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
]


def test_readme_names_every_built_in_tool_and_counts_them() -> None:
    """The README's tool list is the registry's: a tool added or removed shows up here, not in a user's
    surprise."""
    section = README.read_text(encoding="utf-8").split("\n## The tools\n", 1)[1].split("\n## ", 1)[0]
    paragraph = section.strip().split("\n\n", 1)[0]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    # `task` (subagents) is built by the agent, not the tool registry (issue 37: "Sixteen tools" left it out).
    tools = {found.name for found in known_tools()} | {TASK_TOOL}
    assert named == tools
    count = paragraph.split(" ", 1)[0].lower()
    assert count in NUMBER_WORDS and NUMBER_WORDS.index(count) == len(tools)
