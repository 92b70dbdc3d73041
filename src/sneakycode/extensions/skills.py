"""Skills in the Agent Skills format: a folder with a `SKILL.md` (YAML front matter `name`, `description`,
optional `allowed-tools`; a Markdown body) and whatever scripts and references the body points to.

Progressive disclosure: only each skill's name and description go into the system prompt (within
`skills.max_prompt_chars`); the model loads a body with the session's skill tool, which also lists the
folder so the model can read the rest with the normal tools. A skill is only a prompt, so a repository's
skills load without trust; nothing in one runs except through tools and the permission gate.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from sneakycode.errors import ErrorCode
from sneakycode.extensions.frontmatter import FrontMatterError, Problem, parse_markdown, rule_list, text_field
from sneakycode.extensions.places import discover
from sneakycode.tools.base import Tier, Tool, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.workspace.files import Workspace

PROJECT_FOLDERS = (".sneakycode", ".claude", ".agents")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_LISTED_FILES = 60
SKILL_TOOL_NAME = "skill"


@dataclass(frozen=True)
class Skill:
    """One skill. `folder` is as the model should name it: workspace-relative for a project skill."""

    name: str
    description: str
    body: str
    folder: str
    path: Path
    project: bool
    allowed_tools: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkillCatalog:
    """The skills found, first of a name wins; `problems` are the SKILL.md files (or folders) that were skipped."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[Problem, ...] = field(default=())

    def get(self, name: str) -> Skill | None:
        return next((found for found in self.skills if found.name == name), None)

    def notices(self) -> list[str]:
        return [problem.describe("skill") for problem in self.problems]


def discover_skills(workspace: Workspace, *, user: bool = True) -> SkillCatalog:
    """Every skill in the project folders (.sneakycode, .claude, .agents) and, unless `user` is off, the user's
    config folder; the first of a name wins (see places.py)."""
    found: dict[str, Skill] = {}
    discovery = discover(workspace, "skills", PROJECT_FOLDERS, skill_folders=True, user=user)
    problems = list(discovery.problems)
    for file in discovery.files:
        try:
            loaded = _load(file.read(workspace), file.path, file.shown, file.place.project)
        except FrontMatterError as err:
            problems.append(Problem(file.shown, err.line, err.problem))
            continue
        found.setdefault(loaded.name, loaded)
    return SkillCatalog(tuple(found.values()), tuple(problems))


def _load(text: str, path: Path, shown: str, project: bool) -> Skill:
    parsed = parse_markdown(text, required=True)
    name = text_field(parsed, "name", required=True) or ""
    if not NAME.fullmatch(name):
        line = parsed.meta["name"][1]
        raise FrontMatterError(line, f"`name` {name!r} must be letters, digits, `-`, `_` or `.` (at most 64)")
    description = text_field(parsed, "description", required=True) or ""
    folder = shown.rsplit("/", 1)[0] if project else str(path.parent)
    return Skill(name, description, parsed.body.strip(), folder, path, project, rule_list(parsed, "allowed-tools"))


def skills_prompt(catalog: SkillCatalog, max_chars: int, tool_name: str = SKILL_TOOL_NAME) -> str:
    """The system prompt's skill list: one line per skill while `max_chars` lasts, then a line (counted in the
    budget) that says how many were left out and how the model can still see them."""
    if not catalog.skills:
        return ""
    header = (
        f"# Skills\nSkills are instructions for particular tasks. When a task matches a skill's description, "
        f"call {tool_name} with its name first and follow what it says."
    )
    lines = [f"- {found.name}: {found.description}" for found in catalog.skills]
    if len(header) + sum(len(line) + 1 for line in lines) <= max_chars:
        return "\n".join([header, *lines])
    kept: list[str] = []
    used = len(header) + 1 + len(_left_out_line(len(lines), max_chars, tool_name, []))
    for line in lines:
        if used + len(line) + 1 > max_chars:
            break
        kept.append(line)
        used += len(line) + 1
    rest = catalog.skills[len(kept) :]
    names = [found.name for found in rest]
    note = _left_out_line(len(rest), max_chars, tool_name, names)
    if used - len(_left_out_line(len(rest), max_chars, tool_name, [])) + len(note) > max_chars:
        note = _left_out_line(len(rest), max_chars, tool_name, [])
    return "\n".join([header, *kept, note])


def _left_out_line(count: int, max_chars: int, tool_name: str, names: list[str]) -> str:
    listed = f": {', '.join(names)}" if names else ""
    return (
        f"- ({count} more skill(s) left out of this list to keep it within skills.max_prompt_chars = {max_chars}"
        f"{listed}; {tool_name} with an unknown name lists them all)"
    )


class SkillArgs(ToolArgs):
    name: str


def skill_tool(catalog: SkillCatalog) -> Tool:
    """The session tool that loads a skill: its body, its folder and the files in it."""

    @tool(
        name=SKILL_TOOL_NAME,
        claude_names=("Skill",),
        tier=Tier.AUTO,
        read_only=True,
        mcp=False,
        headline="name",
        example={"name": "release-notes"},
    )
    def load_skill(args: SkillArgs, ctx: ToolContext) -> ToolResult:
        """Load a skill (listed in the system prompt) by name: its instructions, folder and files."""
        found = catalog.get(args.name)
        if found is None:
            listed = "\n".join(f"- {s.name}: {s.description}" for s in catalog.skills)
            return ToolResult.fail(
                ErrorCode.NOT_FOUND,
                f"there is no skill named {args.name!r}",
                detail=f"The skills:\n{listed}",
                hint="Call it again with one of these names, or go on without a skill.",
            )
        return ToolResult.ok(render_skill(found), skill=found.name)

    return load_skill


def render_skill(found: Skill) -> str:
    """What the model gets when it loads a skill."""
    files = list(islice(_folder_files(found.path.parent), MAX_LISTED_FILES + 1))
    listing = "\n".join(f"- {name}" for name in files[:MAX_LISTED_FILES])
    if len(files) > MAX_LISTED_FILES:
        listing += "\n- ... (more files; list the folder to see them all)"
    where = (
        "paths in the skill are relative to this folder; read them with the file tools"
        if found.project
        else "outside the workspace (the user's own skills), so the file tools cannot read it"
    )
    return f"# Skill {found.name}\nFolder: {found.folder} ({where})\nFiles:\n{listing}\n\n{found.body}"


def _folder_files(folder: Path) -> Iterator[str]:
    """Files of a skill folder, relative to it, hidden ones and links to folders skipped."""
    for current, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        base = Path(current).relative_to(folder)
        for name in sorted(names):
            if not name.startswith("."):
                yield (base / name).as_posix()
