"""Markdown files with YAML front matter (`---` lines around a YAML mapping, then the body), as skills, custom
commands and subagent definitions are written for every peer agent; a malformed one is a `FrontMatterError`
naming the line.

Where the files come from: a project's files are read through the workspace guard (a link that leaves the
workspace is not followed, only regular files open), a user's own files as bounded regular files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sneakycode.config import read_regular_file
from sneakycode.errors import ConfigError, ToolError
from sneakycode.workspace.files import Workspace

MAX_EXTENSION_FILE_BYTES = 256 * 1024  # far above any prompt worth sending; a bigger file is a mistake
FENCE = "---"


class FrontMatterError(Exception):
    """A file that cannot be used: `line` (1-based) is where the problem is."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(problem)
        self.line = line
        self.problem = problem


@dataclass(frozen=True)
class MarkdownFile:
    """The parsed file: `meta` maps each front matter key to (value, 1-based line); `body` is the rest."""

    meta: dict[str, tuple[Any, int]]
    body: str


@dataclass(frozen=True)
class Problem:
    """One file that was skipped, said once to the user as `file:line: problem`; `line` 0: a whole folder
    (not read, or read only in part)."""

    file: str
    line: int
    problem: str

    def describe(self, kind: str) -> str:
        if self.line == 0:
            return f"{self.file}: {kind}s skipped: {self.problem}"
        return f"{self.file}:{self.line}: {kind} skipped: {self.problem}"


def parse_markdown(text: str, *, required: bool) -> MarkdownFile:
    """Split and parse; without front matter the whole text is the body (unless `required`)."""
    import yaml  # only runs that have extension files pay for loading the YAML parser

    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        if required:
            raise FrontMatterError(1, "no YAML front matter: the file must start with a `---` line")
        return MarkdownFile({}, text)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == FENCE), None)
    if end is None:
        raise FrontMatterError(1, "the front matter opened with `---` is never closed by another `---` line")
    source = "".join(lines[1:end])
    try:
        node = yaml.compose(source, Loader=yaml.SafeLoader)
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        # Where an unclosed bracket or quote began says more than the end of the text, where it was noticed.
        mark = getattr(exc, "context_mark", None) or getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1  # +1 for the opening fence, +1 for 1-based lines
        problem = getattr(exc, "problem", None) or str(exc)
        raise FrontMatterError(line, f"the front matter is not valid YAML: {problem}") from None
    if data is None:
        data, node = {}, None
    if not isinstance(data, dict) or (node is not None and not isinstance(node, yaml.MappingNode)):
        raise FrontMatterError(2, "the front matter must be a mapping of `key: value` lines")
    key_lines = {str(key.value): key.start_mark.line + 2 for key, _ in node.value} if node is not None else {}
    meta = {str(key): (value, key_lines.get(str(key), 2)) for key, value in data.items()}
    return MarkdownFile(meta, "".join(lines[end + 1 :]).lstrip("\n"))


def text_field(parsed: MarkdownFile, key: str, *, required: bool = False) -> str | None:
    """A front matter value that must be text (a number or date is taken as written)."""
    if key not in parsed.meta:
        if required:
            raise FrontMatterError(1, f"`{key}` is required in the front matter")
        return None
    value, line = parsed.meta[key]
    if isinstance(value, list | dict) or value is None:
        if required or value is not None:
            raise FrontMatterError(line, f"`{key}` must be text")
        return None
    text = str(value).strip()
    if required and not text:
        raise FrontMatterError(line, f"`{key}` is empty")
    return text


def rule_list(parsed: MarkdownFile, key: str) -> tuple[str, ...]:
    """`allowed-tools`, written as a YAML list or as one string of entries separated by commas or spaces
    (both forms are in use); spaces and commas inside `TOOL(...)` belong to the entry."""
    if key not in parsed.meta:
        return ()
    value, line = parsed.meta[key]
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    if not isinstance(value, str):
        raise FrontMatterError(line, f"`{key}` must be a list of rules or one string of them")
    entries: list[str] = []
    current, depth = "", 0
    for char in value:
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth <= 0 and char in ", \t\n":
            depth = 0
            if current.strip():
                entries.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        entries.append(current.strip())
    return tuple(entries)


def read_project_file(workspace: Workspace, relative: str) -> str:
    """A project file, through the workspace guard; a FrontMatterError(line 1) says why it cannot be read."""
    try:
        return workspace.read_text(relative).text
    except ToolError as err:
        raise FrontMatterError(1, f"cannot be read: {err.error}") from None


def read_user_file(path: Path) -> str:
    """One of the user's own files (outside the workspace), as a bounded regular file."""
    try:
        raw = read_regular_file(path, MAX_EXTENSION_FILE_BYTES)
    except ConfigError as exc:
        raise FrontMatterError(1, f"cannot be read: {exc}") from None
    if raw is None:
        raise FrontMatterError(1, "cannot be read: it is gone")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrontMatterError(1, f"not UTF-8 text (byte {exc.start})") from None
