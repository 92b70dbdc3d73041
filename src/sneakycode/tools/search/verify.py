"""What a search shows is checked inside the workspace first: paths and lines that no longer hold are dropped.

ripgrep walks and opens files by name, following whatever link stands on the way at the moment it opens
them. A racing process can swap a folder for a link to outside just before ripgrep opens a file in it and
swap it back just after: a path checked later is inside again, but the text ripgrep read came from outside.
ripgrep does not say which file (inode) it read, so "is this the file it read" cannot be asked. Instead
every file whose lines would be shown is opened again from the workspace root's descriptor, one component
at a time, never following a link (anchored.open_folder, then open_regular without following), and each
line ripgrep reported must read the same there, at the same line number; a file with a line that does not
is dropped whole. So the text shown is text that lies, at that line, in a file reached inside the workspace.

Why this and not something else: it costs one read of each shown file (at most max_results files, just
read by ripgrep, so in the page cache, and only up to the last line shown, keeping only the lines shown),
and it needs nothing from ripgrep. Feeding ripgrep descriptors we opened would make the compare
unnecessary, but needs a process per file (stdin) or descriptor passing into the subprocess.

Only paths are shown by files_with_matches, count and find_files: a path is kept when it is reached the
same way and is a regular file. Only the paths that can be listed (the first max_results) are checked; the
rest, like the files whose lines a content search did not fetch, are only counted. Counts come from
ripgrep's own read, so while a race is being won they can count an outside file under an inside name: a
number, never text.

A search of an extra root (`--add-dir`) reports absolute paths: they are reached the same way, from the
descriptor of the extra root that holds them (`extra`), never from anywhere else.
"""

from __future__ import annotations

import bisect
import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from sneakycode.config.files import open_regular
from sneakycode.tools.search.common import UTF8_BOM, UTF16_BOMS, Line, decode, split_lines
from sneakycode.workspace.anchored import PathChanged, open_folder

_CHUNK = 1 << 16
# ripgrep's output is captured up to 64 MiB, so no line it reports is longer; one that is cannot be compared.
_LONGEST_LINE = 64 << 20


def verified_lines(root: Path, found: dict[str, list[Line]], extra: Sequence[Path] = ()) -> dict[str, list[Line]]:
    """The files of `found` (paths relative to root, or absolute inside an `extra` root) whose every line reads
    the same when the file is reached without following a link."""
    held: set[str] = set()
    for folder, inside in _folders(root, (path for path, lines in found.items() if lines), extra):
        held.update(path for path in inside if _lines_hold(folder, path, found[path]))
    return {path: lines for path, lines in found.items() if path in held}


def reachable(root: Path, paths: Iterable[str], extra: Sequence[Path] = ()) -> set[str]:
    """The paths (relative to root, or absolute inside an `extra` root) that are regular files reached from
    their root without following a link."""
    kept: set[str] = set()
    for folder, inside in _folders(root, paths, extra):
        for path in inside:
            try:
                info = os.stat(path.rsplit("/", 1)[-1], dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                kept.add(path)
    return kept


def _folders(root: Path, paths: Iterable[str], extra: Sequence[Path] = ()) -> Iterator[tuple[int, list[str]]]:
    """Each folder of `paths`, reached once from its root without following a link (a shown file's folder
    often holds the next one too), open while the caller looks at its files; a folder that cannot be reached
    so is skipped with its files."""
    by_folder: dict[tuple[Path, tuple[str, ...]], list[str]] = {}
    for path in paths:
        start, below = _root_of(root, path, extra)
        parts = _parts(below) if start is not None else None
        if start is not None and parts is not None:
            by_folder.setdefault((start, parts[:-1]), []).append(path)
    for (start, folder_parts), inside in by_folder.items():
        try:
            folder = open_folder(start, folder_parts)
        except (PathChanged, OSError):
            continue
        try:
            yield folder, inside
        finally:
            os.close(folder)


def _root_of(root: Path, path: str, extra: Sequence[Path]) -> tuple[Path | None, str]:
    """The root to walk `path` from and the path below it: `root` for a relative path, the extra root that
    holds an absolute one (None when none does: it is dropped)."""
    if not path.startswith("/"):
        return root, path
    for other in extra:
        prefix = str(other).rstrip("/") + "/"
        if path.startswith(prefix):
            return other, path[len(prefix):]
    return None, path


def reachable_first(root: Path, paths: list[str], count: int, extra: Sequence[Path] = ()) -> list[str]:
    """`paths` without the unreachable among the first `count` that are kept: a listing checks what it
    shows, not the thousands it only counts."""
    kept: list[str] = []
    start = 0
    while len(kept) < count and start < len(paths):
        window = paths[start : start + count - len(kept)]
        start += len(window)
        reached = reachable(root, window, extra)
        kept += [path for path in window if path in reached]
    return kept + paths[start:]


def _parts(path: str) -> tuple[str, ...] | None:
    """The components of a path relative to the root; None for one that could leave it or is not plain."""
    parts = tuple(path.split("/"))
    if any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def _lines_hold(folder: int, path: str, lines: list[Line]) -> bool:
    try:
        fh, _ = open_regular(path.rsplit("/", 1)[-1], dir_fd=folder, follow_symlinks=False)
    except OSError:
        return False
    with fh:
        actual = _lines_at(fh, {line.number for line in lines})
    return actual is not None and all(actual.get(line.number) == line.text for line in lines)


def _lines_at(fh: BinaryIO, wanted: set[int]) -> dict[int, str] | None:
    """The lines numbered in `wanted`, decoded as ripgrep decodes them (without their line break), read
    up to the last of them and no further; None for a binary file or a line too long to compare. Only the
    wanted lines are kept, so a match near the end of a large file named as `path` costs no memory."""
    head = fh.read(_CHUNK)
    if head.startswith(UTF16_BOMS):
        # A UTF-16 line break is two bytes: such a file is decoded whole, as ripgrep transcodes it.
        data = head + fh.read(_LONGEST_LINE + 1 - len(head))
        text = decode(data) if len(data) <= _LONGEST_LINE else None
        if text is None:
            return None
        numbered = split_lines(text)
        return {number: numbered[number - 1].removesuffix("\r") for number in wanted if number <= len(numbered)}
    order = sorted(wanted)
    last = order[-1]
    found: dict[int, str] = {}
    number = 1
    pending = head.removeprefix(UTF8_BOM)
    chunk = head
    while chunk:
        if b"\0" in pending:
            return None  # binary up to the lines shown (ripgrep says so too)
        breaks = pending.count(b"\n")
        if order[bisect.bisect_left(order, number)] >= number + breaks:
            number += breaks  # no shown line ends in this piece: skip it whole
            pending = pending[pending.rfind(b"\n") + 1 :]
        else:
            # Split only up to the last shown line of this piece and go straight to the shown ones: looping
            # over every line of the piece cost more than reading it. The lines after it are not shown.
            here = order[bisect.bisect_left(order, number) : bisect.bisect_left(order, number + breaks)]
            *complete, rest = pending.split(b"\n", here[-1] - number + 1)
            for shown in here:
                found[shown] = complete[shown - number].decode("utf-8", errors="replace").removesuffix("\r")
            if here[-1] == last:
                return found
            number += breaks
            pending = rest[rest.rfind(b"\n") + 1 :]
        if len(pending) > _LONGEST_LINE:
            if number in wanted or b"\0" in pending:
                return None
            pending = b""  # a long line nobody asked for: only where it ends matters
        chunk = fh.read(_CHUNK)
        pending += chunk
    if pending and number in wanted:
        if b"\0" in pending:
            return None
        found[number] = pending.decode("utf-8", errors="replace").removesuffix("\r")
    return found
