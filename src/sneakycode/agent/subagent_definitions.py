"""Subagent definitions: the built-in `explore`, and Markdown files with YAML front matter in
`.sneakycode/agents/NAME.md`, `.claude/agents/NAME.md` (Claude Code's format, so those files work here) and
`~/.config/sneakycode/agents/NAME.md`::

    ---
    name: reviewer
    description: Reviews a diff for bugs and missing tests
    tools: read_file, grep_files, find_files     # or a YAML list, or Claude names (Read, Grep); unset: all
    model: qwen2.5-coder:32b                     # optional: another model of the same provider, or
                                                 # `small`: the session's small model ([models] small)
    ---
    You review code. ...                         # the subagent's instructions

Found by the same discovery as skills and custom commands (extensions/places.py): the first file of a name
wins, so `.sneakycode` beats `.claude`, a project file beats the user's, and of two files in one folder that
declare the same `name` the one first by path wins; a file of yours named `explore` replaces the built-in one.
Subfolders are searched (as Claude Code does), at most 500 files per folder. A file that does not parse is
reported once, with the file and line, and skipped; the others load. Files in the workspace are read through
the workspace guard, so a link that leaves it is never followed; `user=False` reads no file of the user's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from sneakycode.agent.roles import SMALL
from sneakycode.extensions.frontmatter import FrontMatterError, parse_markdown, text_field
from sneakycode.extensions.places import discover
from sneakycode.tools.base import Tool
from sneakycode.tools.claude_names import tools_named
from sneakycode.tools.registry import all_tools, known_tools
from sneakycode.workspace.files import Workspace

PROJECT_FOLDERS = (".sneakycode", ".claude")  # in order: the earlier wins
MAX_DEFINITION_CHARS = 32_000
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
EXPLORE_PROMPT = """\
You are a read-only explorer working for another agent. Find what it asks for with the read and search \
tools: search broadly, then read only what matters. You cannot change anything. End with a concise answer: \
the facts found, with file paths and line numbers, and what you could not find. Your answer is all the \
other agent sees of your work."""


@dataclass(frozen=True)
class AgentDefinition:
    """One kind of subagent. `tools` None: every tool the main agent has (but the task tool itself)."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    source: str = "built in"

    def offered(self, available: Iterable[Tool]) -> tuple[Tool, ...]:
        """Its tools among `available` (a tool that ends the run always: the subagent may end with it)."""
        return tuple(t for t in available if self.tools is None or t.name in self.tools or t.ends_run)

    def read_only(self, available: Iterable[Tool]) -> bool:
        """True when every tool it gets changes nothing, so it may run without asking and beside others."""
        return self.tools is not None and all(t.read_only for t in self.offered(available))


def explore() -> AgentDefinition:
    return AgentDefinition(
        "explore",
        "Reads and searches the code (read-only) and answers with what it found.",
        EXPLORE_PROMPT,
        # `code` too (known_tools: the conditional ones), where the session offers it.
        tools=tuple(t.name for t in known_tools() if t.read_only),
        model=SMALL,  # a chore: the small model runs it when the session has one
    )


def load_definitions(workspace: Workspace, *, user: bool = True,
                     trusted: bool = False) -> tuple[dict[str, AgentDefinition], list[str]]:
    """Every definition by name (the built-in `explore` first in order, unless a file replaces it) and one problem
    line for each file or folder that was skipped or partly ignored. `user` off: the user's folder is not read.
    `trusted` off: a definition that comes with the repository runs on the session's own models (its `model`,
    which the user would pay for on their key, waits for the user's trust; `small` is the user's own)."""
    loaded: dict[str, AgentDefinition] = {}
    discovery = discover(workspace, "agents", PROJECT_FOLDERS, user=user)
    problems = [f"{problem.file}: {problem.problem}" for problem in discovery.problems]
    for file in discovery.files:
        try:
            text = file.read(workspace)[:MAX_DEFINITION_CHARS]
        except FrontMatterError as err:
            problems.append(f"{file.shown}:{err.line}: {err.problem}; skipped")
            continue
        _add(loaded, problems, text, file.shown, file.path.stem, chooses_model=trusted or not file.place.project)
    return {"explore": explore(), **loaded}, problems


def _add(found: dict[str, AgentDefinition], problems: list[str], text: str, source: str, stem: str, *,
         chooses_model: bool) -> None:
    try:
        definition = parse_definition(text, source, stem)
    except ValueError as exc:
        problems.append(f"{exc}; skipped")
        return
    if not chooses_model and definition.model not in (None, SMALL):
        problems.append(f"{source}: model {definition.model!r} is not used (it runs on the main model): the file comes "
                        "with the repository and this workspace is not trusted (run `sneakycode trust`, or pass "
                        "--trust-project for one run)")
        definition = replace(definition, model=None)
    if definition.name in found:
        return  # the first file of a name wins, as for skills and commands (a broken later one was still said)
    known = {t.name for t in all_tools()}
    kept: list[str] = []
    unknown: list[str] = []
    for name in definition.tools or ():
        # Claude Code's names (`tools: Read, Grep, Glob` in .claude/agents/) stand for our tools of that kind.
        mapped = [name] if name in known else [t.name for t in tools_named(name, all_tools())]
        kept += mapped
        if not mapped:
            unknown.append(name)
    if unknown:
        fallback = " it gets the read-only tools instead" if not kept else ""
        problems.append(f"{source}: no tool named {', '.join(unknown)} here; ignored.{fallback}")
    if definition.tools is not None and (unknown or kept != list(definition.tools)):
        tools = tuple(dict.fromkeys(kept)) or tuple(t.name for t in all_tools() if t.read_only)
        definition = AgentDefinition(definition.name, definition.description, definition.prompt, tools,
                                     definition.model, source)
    found[definition.name] = definition


def parse_definition(text: str, source: str, stem: str) -> AgentDefinition:
    """A definition from a file's text; a ValueError names the file, the line and what is wrong. The front
    matter is read as skills and commands read theirs (extensions.frontmatter)."""
    try:
        parsed = parse_markdown(text, required=True)
        name = text_field(parsed, "name") or stem
        description = text_field(parsed, "description", required=True) or ""
        model = text_field(parsed, "model")
    except FrontMatterError as exc:
        raise ValueError(f"{source}:{exc.line}: {exc.problem}") from None
    if not NAME.fullmatch(name):
        raise ValueError(f"{source}:2: name {name!r} must be lower-case letters, digits, - and _")
    if model == "inherit":
        model = None  # Claude Code's `inherit` means the main agent's model
    tools, _ = parsed.meta.get("tools", (None, 2))
    return AgentDefinition(name, " ".join(description.split()), parsed.body.strip(), _tool_names(tools, source),
                           model, source)


def _tool_names(value: Any, source: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value)
    raise ValueError(f"{source}:2: `tools` must be a comma-separated line or a list of tool names")
