"""The README's and guides' claims a reader checks first, against the code (issue 37: interactive.md and
terminal.md each had a slash-command table, and they disagreed; docs/README.md listed a page twice). The
README's tool list and count are checked in tests/test_docs.py."""

from __future__ import annotations

import re
from pathlib import Path

from sneakycode.faces.cli.main import SUBCOMMANDS
from sneakycode.version import __version__

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_subcommand_the_readme_shows_exists() -> None:
    shown = set(re.findall(r"^\s*(?:\$ )?sneakycode ([a-z]+)\b", README, re.MULTILINE))
    assert shown, "no command examples found"
    assert shown <= set(SUBCOMMANDS), shown - set(SUBCOMMANDS)


def test_terminal_md_lists_exactly_the_slash_commands_and_interactive_md_has_no_second_table() -> None:
    from sneakycode.faces.terminal.commands import COMMANDS

    terminal = (ROOT / "docs" / "terminal.md").read_text(encoding="utf-8")
    table = terminal[terminal.index("## Slash commands"):]
    table = table[:table.index("\n## ")]
    rows = [line for line in table.splitlines() if line.startswith("| `/")]
    listed = {name for row in rows for name in re.findall(r"`/([a-z]+)", row.split(" | ")[0])}
    assert listed == set(COMMANDS)
    interactive = (ROOT / "docs" / "interactive.md").read_text(encoding="utf-8")
    assert not [line for line in interactive.splitlines() if line.startswith("| `/")]
    assert "terminal.md#slash-commands" in interactive


def test_the_docs_index_lists_each_guide_once() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    pages = re.findall(r"^\| \[([a-z-]+\.md)\]", index, re.MULTILINE)
    assert len(pages) == len(set(pages)), sorted(p for p in pages if pages.count(p) > 1)


def test_no_leftover_merge_markers_in_the_guides() -> None:
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"^(<<<<<<<|>>>>>>>|=======$)|keep\s+this marker", text, re.MULTILINE), page.name


def test_the_changelog_has_a_section_for_this_version() -> None:
    """A release says what a user notices (issue 37): CHANGELOG.md has this version's section, or Unreleased
    on top while it is being written."""
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\S+)", changelog, re.MULTILINE)
    assert __version__ in versions
    assert versions[0] in ("Unreleased", __version__)


def test_the_layout_table_lists_every_package() -> None:
    """Issue 36: the README's layout matches the code: every package (and top module) under src/sneakycode is
    in the table, and every row names something that exists."""
    layout = README[README.index("## Layout"):]
    layout = layout.split("\n## ")[0]
    rows = set(re.findall(r"^\| \[`([a-z_.]+)/?`\]", layout, re.MULTILINE))
    source = ROOT / "src" / "sneakycode"
    packages = {p.name for p in source.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.name for p in source.glob("*.py")} - {"__init__.py", "__main__.py", "version.py",
                                                       "workflow_commands.py"}
    assert rows == packages | modules
