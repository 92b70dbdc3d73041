"""The pure-Python search used when no `rg` binary exists: same files, same matches, same counts.

Files come from walk.py (ripgrep's traversal and ignore rules); patterns are translated from ripgrep's
syntax by rust_regex.py and run by RE2, whose time is linear in the text: a pattern such as `(a+)+$` cannot
hang the search the way Python's backtracking `re` would (and a running `re` match cannot be interrupted).
Like ripgrep, a file with a NUL byte is binary and skipped, UTF-16 with a BOM is decoded, a UTF-8 BOM is
dropped, and matching is per line with `\\r\\n` treated as a line end. A whole-file search first rules out the
(many) files without a match, so only matching files are split into lines.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Protocol

import re2

from sneakycode.config.files import open_regular
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.context import checkpoint
from sneakycode.tools.search.common import (
    FileHits,
    FindRequest,
    GrepReport,
    GrepRequest,
    Line,
    decode,
    invalid_pattern,
    split_lines,
)
from sneakycode.tools.search.globs import Narrowing, names_regex
from sneakycode.tools.search.rust_regex import RegexSyntaxError, translate
from sneakycode.tools.search.walk import WalkOptions, walk_files

_CANCEL_EVERY = 256


class Match(Protocol):
    def start(self) -> int: ...


class Matcher(Protocol):
    def search(self, text: str) -> Match | None: ...


def compile_pattern(request: GrepRequest) -> tuple[Matcher, Matcher | None]:
    """The per-line regex, and the whole-file pre-check (None when the pattern is anchored to lines).

    Both search text prepared by `searchable`; in multi-line mode with never_nl no match crosses a line
    break, so the same regex serves a line and a whole file."""
    if request.fixed_strings:
        pattern, anchored = ("(?i)" if request.case_insensitive else "") + re2.escape(request.pattern), False
    else:
        try:
            translation = translate(request.pattern, ignore_case=request.case_insensitive)
        except RegexSyntaxError as exc:
            raise invalid_pattern(request.pattern, exc.message, exc.position) from None
        pattern, anchored = translation.re2, translation.line_anchored
    options = re2.Options()
    options.never_nl = True
    options.log_errors = False  # the error is reported as invalid_pattern, not on stderr
    try:
        compiled: Matcher = re2.compile("(?m)" + pattern, options)
    except re2.error as exc:
        raise invalid_pattern(request.pattern, str(exc), None) from None
    return compiled, None if anchored else compiled


def searchable(text: str) -> str:
    """A line (or a whole text) as the compiled pattern expects it: ripgrep never matches a `\\r`, and its
    `^` and `$` match next to one, which RE2 does for `\\n`; a line's final `\\r` is part of its end."""
    if "\r" not in text:
        return text
    return text.removesuffix("\r").replace("\r", "\n")


def _options(narrowing: Narrowing, include_ignored: bool, max_filesize: int | None) -> WalkOptions:
    return WalkOptions(
        include_ignored=include_ignored,
        max_depth=narrowing.max_depth,
        include_names=names_regex(narrowing.include_names) if narrowing.include_names is not None else None,
        exclude_names=names_regex(narrowing.exclude_names),
        max_filesize=max_filesize,
    )


def search_text(text: str, per_line: Matcher, limit: int, context: int) -> tuple[list[Line], int]:
    """Matching lines (with `context` lines around them) of one text, up to `limit` matches, and how many
    lines matched."""
    lines = split_lines(text)
    found: list[tuple[int, int]] = []
    for index, line in enumerate(lines):
        match = per_line.search(searchable(line))
        if match:
            found.append((index, match.start()))
            if len(found) >= limit:
                break
    starts = dict(found)
    shown: set[int] = set()
    for index, _ in found:
        shown.update(range(max(0, index - context), min(len(lines), index + context + 1)))
    return [
        Line(index + 1, lines[index].removesuffix("\r"), index in starts, starts.get(index, 0))
        for index in sorted(shown)
    ], len(found)


def _read_text(path: str) -> str | None:
    data = _read_bytes(path)
    return None if data is None else decode(data)


def _read_bytes(path: str) -> bytes | None:
    """A regular file's bytes; None for what cannot be read or is not a regular file (a FIFO would block, a
    device never end), as ripgrep skips them. Each file is a checkpoint of the call's time budget."""
    checkpoint()
    try:
        fh, _ = open_regular(path)
        with fh:
            return fh.read()
    except OSError:
        return None


def count(request: GrepRequest, *, cwd: Path, cancel: threading.Event) -> GrepReport:
    """Every file with a match and its number of matching lines, and the number of files searched, as
    ripgrep's --count and --stats give them (a binary file was searched, an unreadable one was not)."""
    per_line, whole = compile_pattern(request)
    options = _options(request.narrowing, request.include_ignored, request.max_filesize)
    files: list[FileHits] = []
    searched = 0
    for index, (relative, absolute) in enumerate(walk_files(str(cwd), list(request.roots), options)):
        if index % _CANCEL_EVERY == 0 and cancel.is_set():
            raise ToolError(ErrorCode.CANCELLED, "the search was cancelled")
        data = _read_bytes(absolute)
        if data is None:
            continue
        searched += 1
        text = decode(data)
        if text is None or (whole is not None and not whole.search(searchable(text))):
            continue
        lines = split_lines(text)
        matched = (
            any(per_line.search(searchable(line)) for line in lines)
            if request.first_match_only
            else sum(1 for line in lines if per_line.search(searchable(line)))
        )
        if matched:
            files.append(FileHits(relative, int(matched)))
    return GrepReport(files, complete=True, searched=searched)


def lines(request: GrepRequest, paths: list[str], *, cwd: Path, cancel: threading.Event) -> dict[str, list[Line]]:
    """The matching lines (and context) of the given files, by path."""
    per_line, _ = compile_pattern(request)
    found: dict[str, list[Line]] = {}
    for path in paths:
        if cancel.is_set():
            raise ToolError(ErrorCode.CANCELLED, "the search was cancelled")
        text = _read_text(str(cwd / path))
        if text is not None:
            shown, matched = search_text(text, per_line, request.line_limit, request.context_lines)
            if matched:
                found[path] = shown
    return found


def find(request: FindRequest, *, cwd: Path, cancel: threading.Event) -> list[str]:
    options = _options(request.narrowing, request.include_ignored, request.max_filesize)
    found: list[str] = []
    for count, (relative, _) in enumerate(walk_files(str(cwd), list(request.roots), options)):
        if count % _CANCEL_EVERY == 0 and cancel.is_set():
            raise ToolError(ErrorCode.CANCELLED, "the search was cancelled")
        found.append(relative)
    return found
