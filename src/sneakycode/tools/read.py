"""read_file and list_dir: what the model sees of the workspace, exact and bounded."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, model_validator

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.base import Tier, ToolArgs, ToolContext, ToolResult, tool
from sneakycode.tools.context import checkpoint
from sneakycode.tools.images import (
    IMAGE_SUFFIXES,
    MAX_SOURCE_BYTES,
    TEXT_ONLY_HINT,
    describe,
    prepare_image,
    sniff_image,
)
from sneakycode.workspace.window import read_window

if TYPE_CHECKING:
    from sneakycode.tools.search.walk import Chain
    from sneakycode.workspace.files import Workspace

DEFAULT_WINDOW = 2000
MAX_LINE_CHARS = 2000
MAX_LIST_ENTRIES = 1000
# Line numbers are right-aligned to this width and followed by a tab; str_replace strips exactly that prefix.
LINE_NUMBER_WIDTH = 6


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
    return [number_line(first + offset, line) for offset, line in enumerate(lines)]


def number_line(number: int, line: str, length: int | None = None) -> str:
    """One `cat -n` line; `length` is the whole line's length when `line` holds only its head."""
    length = len(line) if length is None else length
    if length > MAX_LINE_CHARS:
        line = f"{line[:MAX_LINE_CHARS]}... [line cut: {length - MAX_LINE_CHARS} more characters]"
    return f"{number:>{LINE_NUMBER_WIDTH}}\t{line}"


def fit(numbered: Iterable[str], budget: int) -> list[str]:
    """The leading lines that fit in `budget` bytes (at least one)."""
    out: list[str] = []
    used = 0
    for line in numbered:
        cost = len(line.encode("utf-8")) + 1
        if out and used + cost > budget:
            break
        out.append(line)
        used += cost
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
    """Read a file as numbered lines (number, tab, text), 2000 from start_line; images as images. Read a
    file before you edit or overwrite it."""
    ws = ctx.workspace
    if Path(args.file_path).suffix.lower() in IMAGE_SUFFIXES:
        shown_image = _read_image(args.file_path, ctx)
        if shown_image is not None:
            return shown_image
    try:
        tf = ws.read_text(args.file_path)
    except ToolError as err:
        if err.code in (ErrorCode.BINARY_FILE, ErrorCode.FILE_TOO_LARGE):
            shown_image = _read_image(args.file_path, ctx)
            if shown_image is not None:
                return shown_image
        if err.code is ErrorCode.FILE_TOO_LARGE and (args.start_line or args.end_line):
            return _read_large(args, ctx)
        raise
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
    out = fit(number_lines(lines[start - 1 : end], start), ctx.output_limit - 300)
    last = start + len(out) - 1
    if start == 1 and last == total:
        message = ""
    else:
        message = f"(lines {start}-{last} of {total} in {shown}"
        message += f"; read on with start_line={last + 1})" if last < total else ")"
    return ToolResult.ok("\n".join(out), message, lines=total, start_line=start, end_line=last)


def _read_image(user_path: str, ctx: ToolContext) -> ToolResult | None:
    """The file as an image for the model, or None when its first bytes are not an image's. A model that
    takes no images gets unsupported_content: the bytes are never shown as text."""
    opened = ctx.workspace.open_file(user_path)
    shown = ctx.workspace.display(opened.path)
    size = opened.info.st_size
    with opened.fh:
        head = opened.fh.read(12)
        media_type = sniff_image(head)
        if media_type is None:
            return None
        kind = media_type.removeprefix("image/").upper()
        if not ctx.supports_images:
            raise ToolError(
                ErrorCode.UNSUPPORTED_CONTENT,
                f"{shown} is a {kind} image ({size:,} bytes) and the current model does not accept images",
                hint=TEXT_ONLY_HINT,
            )
        if size > MAX_SOURCE_BYTES:
            raise ToolError(ErrorCode.FILE_TOO_LARGE, f"{shown} is a {size:,}-byte image, over {MAX_SOURCE_BYTES:,}")
        raw = head + opened.fh.read(MAX_SOURCE_BYTES)
    image, original = prepare_image(raw, shown)
    text = f"{describe(shown, image, original)}; it is attached below as an image."
    return ToolResult(True, text, data={"image": image.media_type, "width": image.width, "height": image.height},
                      image=image)


def _read_large(args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
    """A line range of a file over max_file_size_bytes, streamed: it cannot be edited, but it can be read."""
    ws = ctx.workspace
    start = args.start_line or 1
    end = min(args.end_line or start + DEFAULT_WINDOW - 1, start + DEFAULT_WINDOW - 1)
    budget = ctx.output_limit - 300
    opened = ws.open_file(args.file_path)
    size = opened.info.st_size
    with opened.fh:
        window = read_window(
            opened.fh, start, end, max_chars=budget, max_line_chars=MAX_LINE_CHARS, label=repr(args.file_path),
            size=size, checkpoint=checkpoint,
        )
    shown = ws.display(opened.path)
    if not window.lines:
        raise ToolError(
            ErrorCode.INVALID_RANGE,
            f"start_line {start} is past the end of {shown}, which has {window.total} lines",
            hint=f"Ask for lines 1 to {window.total}.",
        )
    out = fit((number_line(start + i, line.text, line.length) for i, line in enumerate(window.lines)), budget)
    last = start + len(out) - 1
    more = window.more or last < start + len(window.lines) - 1
    message = f"(lines {start}-{last} of {shown}, {size} bytes, too large to read or edit whole; "
    message += f"read on with start_line={last + 1})" if more else "it ends here)"
    return ToolResult.ok("\n".join(out), message, start_line=start, end_line=last, size=size)


class ListDirArgs(ToolArgs):
    directory_path: str = "."
    recursive: bool = False


@tool(
    name="list_dir",
    claude_names=("LS",),
    tier=Tier.AUTO,
    read_only=True,
    paths=("directory_path",),
    directories=("directory_path",),
    example={"directory_path": "app/tools", "recursive": True},
)
def list_dir(args: ListDirArgs, ctx: ToolContext) -> ToolResult:
    """List a directory, folders first (ending in /); recursive=true: the tree, minus .git and ignored
    files."""
    # Only listing needs the ignore-file machinery; read_file, the most frequent call, does not load it.
    from sneakycode.tools.search.walk import Chain

    ws = ctx.workspace
    folder = ws.resolve(args.directory_path, must_exist=True)
    if not os.path.isdir(folder):
        raise ToolError(ErrorCode.NOT_A_DIRECTORY, f"{args.directory_path!r} is a file, not a directory")
    try:
        scanned = list(os.scandir(folder))
    except OSError as exc:
        raise ToolError(
            ErrorCode.IO_ERROR,
            f"{args.directory_path!r} cannot be read: {exc.strerror or exc}",
            hint="Its permissions keep its entries from being listed; tell the user if you need them.",
        ) from None
    listing = _Listing(ws, args.recursive)
    listing.walk(scanned, Chain.above(str(folder)))
    label = ws.display(folder)
    if not listing.entries and not listing.notes():
        return ToolResult.ok(message=f"{label}/ is empty.", entries=0)
    notes = listing.notes()
    if listing.left_out:
        notes.insert(
            0,
            f"... listing cut at {MAX_LIST_ENTRIES} entries: {listing.left_out} more not shown (folders among them "
            "not expanded); list a subdirectory to see them",
        )
    return ToolResult.ok("\n".join(listing.entries), "\n".join(notes), entries=len(listing.entries) + listing.left_out)


@dataclass
class _Listing:
    """A depth-first listing kept iterative (a chain of thousands of folders is no recursion limit), capped
    at MAX_LIST_ENTRIES, remembering what it could not read."""

    ws: Workspace
    recursive: bool
    entries: list[str] = field(default_factory=list)
    left_out: int = 0
    unreadable: list[str] = field(default_factory=list)
    unread_rules: dict[str, str] = field(default_factory=dict)

    def walk(self, scanned: list[os.DirEntry[str]], rules: Chain) -> None:
        stack = [iter(self._ordered(scanned, rules))]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
                continue
            entry, is_dir, chain = item
            checkpoint()
            if len(self.entries) >= MAX_LIST_ENTRIES:
                self.left_out += 1
                continue
            self.entries.append(self._shown(entry.path) + ("/" if is_dir else ""))
            if not (is_dir and self.recursive and not entry.is_symlink()):
                continue
            inner = chain.descend(entry.path)
            try:
                below = list(os.scandir(entry.path))
            except OSError as exc:
                self.unreadable.append(f"{self._shown(entry.path)}/ ({exc.strerror or exc})")
                continue
            stack.append(iter(self._ordered(below, inner)))

    def _ordered(
        self, scanned: list[os.DirEntry[str]], rules: Chain
    ) -> list[tuple[os.DirEntry[str], bool, Chain]]:
        for path, reason in rules.unread:
            self.unread_rules.setdefault(self._shown(path), reason)
        typed = [(entry, _is_dir(entry)) for entry in scanned]
        if self.recursive:
            typed = [
                (entry, is_dir)
                for entry, is_dir in typed
                if not (is_dir and entry.name == ".git") and not rules.ignored(entry.path, is_dir=is_dir)
            ]
        typed.sort(key=lambda item: (not item[1], item[0].name.casefold(), item[0].name))
        return [(entry, is_dir, rules) for entry, is_dir in typed]

    def _shown(self, path: str) -> str:
        return self.ws.display(Path(path))

    def notes(self) -> list[str]:
        notes = []
        if self.unreadable:
            notes.append(f"{len(self.unreadable)} folder(s) could not be read: {', '.join(self.unreadable[:10])}")
        if self.unread_rules:
            listed = ", ".join(f"{path} ({reason})" for path, reason in list(self.unread_rules.items())[:10])
            notes.append(f"ignore files skipped, so their rules were not applied: {listed}")
        return notes


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
