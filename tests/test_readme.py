"""The README's claims a reader checks first, against the code (issue 37: "Sixteen tools" left out `task`)."""

from __future__ import annotations

import re
from pathlib import Path

from sneakycode.agent.subagents import TASK_TOOL
from sneakycode.cli.main import SUBCOMMANDS
from sneakycode.tools.registry import known_tools

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
NUMBERS = {"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}


def section(title: str) -> str:
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README, re.MULTILINE | re.DOTALL)
    assert found is not None, title
    return found.group(1)


def test_the_tools_section_names_every_tool_and_counts_them() -> None:
    text = section("The tools")
    named = set(re.findall(r"`([a-z_]+)`", text))
    tools = {t.name for t in known_tools()} | {TASK_TOOL}
    assert named == tools
    count = re.match(r"\s*(\w+) tools:", text)
    assert count is not None and NUMBERS[count.group(1).lower()] == len(tools)


def test_every_subcommand_the_readme_shows_exists() -> None:
    shown = set(re.findall(r"^\s*(?:\$ )?sneakycode ([a-z]+)\b", README, re.MULTILINE))
    assert shown, "no command examples found"
    assert shown <= set(SUBCOMMANDS), shown - set(SUBCOMMANDS)
