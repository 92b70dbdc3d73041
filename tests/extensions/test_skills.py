"""Skill discovery and the skill tool on real folders: front matter forms, malformed files, links out."""

from __future__ import annotations

import json
from pathlib import Path

from sneakycode.config import load_settings, user_config_path
from sneakycode.extensions.skills import discover_skills, skill_tool, skills_prompt
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_allowed_tools_may_be_a_list_or_one_string_and_parentheses_keep_their_spaces(ctx: ToolContext) -> None:
    root = ctx.workspace.root / ".sneakycode" / "skills"
    write(root / "a" / "SKILL.md", "---\nname: a\ndescription: A\nallowed-tools: Bash(git add:*), Read Grep\n---\nA")
    write(root / "b" / "SKILL.md", "---\nname: b\ndescription: B\nallowed-tools:\n  - run_command(ls -la)\n---\nB")
    catalog = discover_skills(ctx.workspace)
    assert catalog.problems == ()
    assert [s.allowed_tools for s in catalog.skills] == [("Bash(git add:*)", "Read", "Grep"), ("run_command(ls -la)",)]


def test_each_malformed_file_names_its_line_and_the_rest_load(ctx: ToolContext) -> None:
    root = ctx.workspace.root / ".sneakycode" / "skills"
    write(root / "good" / "SKILL.md", "---\nname: good\ndescription: Fine.\n---\nbody")
    write(root / "plain" / "SKILL.md", "Just text, no front matter.\n")
    write(root / "open" / "SKILL.md", "---\nname: open\n")
    write(root / "typed" / "SKILL.md", "---\nname: typed\ndescription:\n  - a list\n---\nbody")
    write(root / "spaced" / "SKILL.md", "---\nname: has spaces\ndescription: x\n---\nbody")
    catalog = discover_skills(ctx.workspace)
    assert [s.name for s in catalog.skills] == ["good"]
    assert catalog.notices() == [
        ".sneakycode/skills/open/SKILL.md:1: skill skipped: the front matter opened with `---` is never closed by "
        "another `---` line",
        ".sneakycode/skills/plain/SKILL.md:1: skill skipped: no YAML front matter: the file must start with a "
        "`---` line",
        ".sneakycode/skills/spaced/SKILL.md:2: skill skipped: `name` 'has spaces' must be letters, digits, `-`, `_` "
        "or `.` (at most 64)",
        ".sneakycode/skills/typed/SKILL.md:3: skill skipped: `description` must be text",
    ]


def test_a_project_skill_linked_out_of_the_workspace_is_not_read(ctx: ToolContext, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "SKILL.md"
    write(secret, "---\nname: leak\ndescription: secret\n---\nsecret body")
    (ctx.workspace.root / ".sneakycode" / "skills").mkdir(parents=True)
    (ctx.workspace.root / ".sneakycode" / "skills" / "leak").symlink_to(secret.parent)
    catalog = discover_skills(ctx.workspace)
    assert catalog.skills == ()
    assert catalog.notices()[0].startswith(".sneakycode/skills/leak/SKILL.md:1: skill skipped: cannot be read")


def test_a_project_skill_shadows_a_user_skill_of_the_same_name(ctx: ToolContext) -> None:
    write(user_config_path().parent / "skills" / "same" / "SKILL.md", "---\nname: same\ndescription: user\n---\nu")
    write(ctx.workspace.root / ".claude/skills/same/SKILL.md", "---\nname: same\ndescription: project\n---\np")
    [found] = discover_skills(ctx.workspace).skills
    assert found.description == "project" and found.project


def test_the_tool_lists_every_skill_when_the_name_is_unknown(ws: Path) -> None:
    write(user_config_path().parent / "skills" / "mine" / "SKILL.md", "---\nname: mine\ndescription: Mine.\n---\nM")
    ctx = open_tool_context(load_settings(ws))
    catalog = discover_skills(ctx.workspace)
    tool = skill_tool(catalog)
    gate = Gate(ctx, offered=(tool,))
    missing = gate.run_direct(tool.name, json.dumps({"name": "nope"})).render()
    assert missing.startswith("Error [not_found]: there is no skill named 'nope'") and "- mine: Mine." in missing
    loaded = gate.run_direct(tool.name, json.dumps({"name": "mine"})).render()
    assert "outside the workspace" in loaded and loaded.endswith("\n\nM")


def test_a_budget_too_small_for_any_line_still_says_how_many_were_left_out(ctx: ToolContext) -> None:
    for name in ("one", "two"):
        write(ctx.workspace.root / f".sneakycode/skills/{name}/SKILL.md", f"---\nname: {name}\ndescription: d\n---\nb")
    section = skills_prompt(discover_skills(ctx.workspace), 100)
    assert "- one: d" not in section and "(2 more skill(s) left out" in section
