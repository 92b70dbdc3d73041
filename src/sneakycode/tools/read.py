"""read_file and list_dir: what the model sees of the workspace, exact and bounded."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool

if TYPE_CHECKING:
    from sneakycode.tools.search.walk import Chain

DEFAULT_WINDOW = 2000
MAX_LINE_CHARS = 2000
MAX_LIST_ENTRIES = 1000


def split_lines(text: str) -> list[str]:
    """Lines as an editor counts them: a trailing newline ends the last line, it does not start another."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def number_lines(lines: list[str], first: int) -> list[str]:
    """`cat -n` style lines, each cut at MAX_LINE_CHARS with a marker saying how much was cut."""
    out = []
    for offset, line in enumerate(lines):
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}... [line cut: {len(line) - MAX_LINE_CHARS} more characters]"
        out.append(f"{first + offset:>6}\t{line}")
    return out


class ReadFileArgs(ToolArgs):
    file_path: str
    start_line: int | None = Field(None, ge=1, description="1-based")
    end_line: int | None = Field(None, ge=1, description="inclusive")

    @model_validator(mode="after")
    def _ordered(self) -> ReadFileArgs:
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise ValueError(f"end_line ({self.end_line}) is before start_line ({self.start_line})")
        return self


@tool(
    name="read_file",
    tier=Tier.AUTO,
    read_only=True,
    paths=("file_path",),
    records_read=True,
    example={"file_path": "app/main.py", "start_line": 10, "end_line": 40},
)
def read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
    """Read a text file as numbered lines (`cat -n`: number, tab, text), up to 2000 lines from start_line.
    Read a file before you edit or overwrite it."""
    ws = ctx.workspace
    tf = ws.read_text(args.file_path)
    ws.ledger.record(tf)
    lines = split_lines(tf.text)
    total = len(lines)
    shown = ws.display(tf.path)
    if total == 0:
        return ToolResult.ok(message=f"{shown} is empty (0 lines).", lines=0)
    start = args.start_line or 1
    if start > total:
        raise ToolError(
            ErrorCode.INVALID_RANGE,
            f"start_line {start} is past the end of {shown}, which has {total} lines",
            hint=f"Ask for lines 1 to {total}.",
        )
    end = min(args.end_line or start + DEFAULT_WINDOW - 1, total, start + DEFAULT_WINDOW - 1)
    budget = ctx.settings.max_output_bytes - 300
    out: list[str] = []
    used = 0
    for numbered in number_lines(lines[start - 1 : end], start):
        cost = len(numbered.encode("utf-8")) + 1
        if out and used + cost > budget:
            break
        out.append(numbered)
        used += cost
    last = start + len(out) - 1
    if start == 1 and last == total:
        message = ""
    else:
        message = f"(lines {start}-{last} of {total} in {shown}"
        message += f"; read on with start_line={last + 1})" if last < total else ")"
    return ToolResult.ok("\n".join(out), message, lines=total, start_line=start, end_line=last)


class ListDirArgs(ToolArgs):
    directory_path: str = "."
    recursive: bool = False


@tool(
    name="list_dir",
    tier=Tier.AUTO,
    read_only=True,
    paths=("directory_path",),
    directories=("directory_path",),
    example={"directory_path": "app/tools", "recursive": True},
)
def list_dir(args: ListDirArgs, ctx: ToolContext) -> ToolResult:
    """List a directory, folders first (ending in /). recursive=true lists the whole tree, skipping .git and
    what .gitignore/.ignore hide (the same rules as grep_files and find_files)."""
    # Only listing needs the ignore-file machinery; read_file, the most frequent call, does not load it.
    from sneakycode.tools.search.walk import Chain

    ws = ctx.workspace
    folder = ws.resolve(args.directory_path, must_exist=True)
    if not folder.is_dir():
        raise ToolError(ErrorCode.NOT_A_DIRECTORY, f"{args.directory_path!r} is a file, not a directory")
    entries: list[str] = []
    remaining = _walk(folder, ws.root, args.recursive, Chain.above(str(folder)), entries)
    label = ws.display(folder)
    if not entries:
        return ToolResult.ok(message=f"{label}/ is empty.", entries=0)
    message = (
        f"... listing cut at {MAX_LIST_ENTRIES} entries: {remaining} more not shown (folders among them not "
        "expanded); list a subdirectory to see them"
        if remaining
        else ""
    )
    return ToolResult.ok("\n".join(entries), message, entries=len(entries) + remaining)


def _walk(folder: Path, root: Path, recursive: bool, rules: Chain, out: list[str]) -> int:
    """Append entries of `folder` to `out` (depth first); return how many were left out by the cap."""
    try:
        scanned = list(os.scandir(folder))
    except OSError:
        return 0
    dirs = sorted((e for e in scanned if _is_dir(e)), key=lambda e: (e.name.casefold(), e.name))
    files = sorted((e for e in scanned if not _is_dir(e)), key=lambda e: (e.name.casefold(), e.name))
    skipped = 0
    if recursive:
        dirs = [e for e in dirs if e.name != ".git" and not rules.ignored(e.path, is_dir=True)]
        files = [e for e in files if not rules.ignored(e.path, is_dir=False)]
    for entry in dirs:
        if len(out) >= MAX_LIST_ENTRIES:
            skipped += 1
            continue
        out.append(Path(entry.path).relative_to(root).as_posix() + "/")
        if recursive and not entry.is_symlink():
            skipped += _walk(Path(entry.path), root, recursive, rules.descend(entry.path), out)
    for entry in files:
        if len(out) >= MAX_LIST_ENTRIES:
            skipped += 1
            continue
        out.append(Path(entry.path).relative_to(root).as_posix())
    return skipped


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
