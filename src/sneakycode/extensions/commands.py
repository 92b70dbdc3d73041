"""Custom slash commands: Markdown files in `.sneakycode/commands/`, `.claude/commands/` and the user's
`commands/` folder; `review.md` is `/review`, `git/commit.md` is `/git:commit`.

Front matter (all optional): `description`, `argument-hint`, `allowed-tools` (allow rules granted while the
command's request runs), `model`. The body is the prompt; `invocation.py` expands its `$ARGUMENTS`, `$1`..`$9`,
`` !`cmd` `` and `@path`. Like a skill, a command is a prompt, so a repository's commands load without trust;
only its `allowed-tools`, which loosen permissions, wait for the user's trust in the workspace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sneakycode.extensions.frontmatter import FrontMatterError, Problem, parse_markdown, rule_list, text_field
from sneakycode.extensions.places import discover
from sneakycode.workspace.files import Workspace

PROJECT_FOLDERS = (".sneakycode", ".claude")
NAME_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


@dataclass(frozen=True)
class CustomCommand:
    """One command; `file` is as shown to the user (workspace-relative for a project command)."""

    name: str
    body: str
    file: str
    project: bool
    description: str = ""
    argument_hint: str = ""
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None


@dataclass(frozen=True)
class CommandCatalog:
    """The commands found, first of a name wins; `problems` are the files (or folders) that were skipped."""

    commands: tuple[CustomCommand, ...] = ()
    problems: tuple[Problem, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        return next((found for found in self.commands if found.name == name), None)

    def notices(self) -> list[str]:
        return [problem.describe("command") for problem in self.problems]


def discover_commands(workspace: Workspace, *, user: bool = True) -> CommandCatalog:
    """Every command in the project folders (.sneakycode, .claude) and, unless `user` is off, the user's config
    folder; the first of a name wins (see places.py)."""
    found: dict[str, CustomCommand] = {}
    discovery = discover(workspace, "commands", PROJECT_FOLDERS, user=user)
    problems = list(discovery.problems)
    for file in discovery.files:
        try:
            name = command_name(file.relative)
            loaded = _load(file.read(workspace), name, file.shown, file.place.project)
        except FrontMatterError as err:
            problems.append(Problem(file.shown, err.line, err.problem))
            continue
        found.setdefault(loaded.name, loaded)
    return CommandCatalog(tuple(found.values()), tuple(problems))


def command_name(relative: Path) -> str:
    """`git/commit.md` -> `git:commit`; a name part that could not be typed after `/` is a FrontMatterError."""
    parts = [*relative.parent.parts, relative.name.removesuffix(".md")]
    for part in parts:
        if not NAME_PART.fullmatch(part):
            raise FrontMatterError(1, f"{part!r} cannot be a command name (use letters, digits, `-`, `_`, `.`)")
    return ":".join(parts)


def _load(text: str, name: str, shown: str, project: bool) -> CustomCommand:
    parsed = parse_markdown(text, required=False)
    body = parsed.body.strip()
    if not body:
        raise FrontMatterError(1, "the command has no prompt (its body is empty)")
    return CustomCommand(
        name=name,
        body=body,
        file=shown,
        project=project,
        description=text_field(parsed, "description") or "",
        argument_hint=text_field(parsed, "argument-hint") or "",
        allowed_tools=rule_list(parsed, "allowed-tools"),
        model=text_field(parsed, "model") or None,
    )
