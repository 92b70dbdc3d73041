"""A window of lines from a text file too large to read whole, streamed so memory holds only the window.

A file over max_file_size_bytes cannot be read, edited or hashed whole, but a range of its lines can be
shown: the file is decoded as it streams (UTF-8, with or without BOM, or UTF-16 with BOM, as textfiles.py
reads), lines before the window are skipped, and a line longer than the display cut keeps only its head in
memory while the rest is counted. Text that is not valid in its encoding, or holds NUL bytes, is binary.
"""

from __future__ import annotations

import codecs
import io
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from sneakycode.workspace.textfiles import binary_file_error

_SNIFF_BYTES = 8192
_CHUNK_CHARS = 65_536
_CHECK_EVERY = 4096  # lines between two calls of the checkpoint


@dataclass(frozen=True)
class WindowLine:
    """One line without its line break: `text` is at most the cut length plus one character (so a cut is
    visible), `length` the whole line's length in characters."""

    text: str
    length: int


@dataclass(frozen=True)
class Window:
    """Lines `first`.. of the file; `more` when lines follow them; `total` when the file ended within the
    window or before it (then it is the file's line count), else None."""

    lines: list[WindowLine]
    first: int
    more: bool
    total: int | None


def read_window(
    fh: BinaryIO,
    start: int,
    end: int,
    *,
    max_chars: int,
    max_line_chars: int,
    label: str,
    size: int,
    checkpoint: Callable[[], None] = lambda: None,
) -> Window:
    """Lines `start`..`end` (1-based, inclusive) of the open file, stopping early once `max_chars`
    characters are held; a binary_file ToolError when the text is not valid. `checkpoint` is called now and
    then while the file streams by (the tool's time budget and cancel signal)."""
    head = fh.read(_SNIFF_BYTES)
    fh.seek(0)
    encoding = _encoding_of(head)
    if encoding == "utf-8-sig" and b"\x00" in head:
        raise binary_file_error(label, size)
    stream = io.TextIOWrapper(fh, encoding=encoding, errors="strict", newline="\n")
    try:
        return _collect(_lines(stream, max_line_chars, checkpoint), stream, start, end, max_chars)
    except (UnicodeDecodeError, _NulInText):
        raise binary_file_error(label, size) from None
    finally:
        stream.detach()


def _encoding_of(head: bytes) -> str:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"  # the codec reads the BOM and drops it
    return "utf-8-sig"  # also reads files without a BOM


class _NulInText(Exception):
    pass


def _collect(lines: Iterator[WindowLine], stream: io.TextIOWrapper, start: int, end: int, max_chars: int) -> Window:
    skipped = 0
    if start > 1:
        for skipped, _ in enumerate(lines, start=1):
            if skipped == start - 1:
                break
        if skipped < start - 1:
            return Window([], start, False, skipped)
    kept: list[WindowLine] = []
    held = 0
    for line in lines:
        if "\x00" in line.text:
            raise _NulInText
        kept.append(line)
        held += len(line.text)
        if start + len(kept) - 1 >= end or held >= max_chars:
            break
    last = start + len(kept) - 1
    more = stream.read(1) != ""
    return Window(kept, start, more, None if more else last)


def _lines(stream: io.TextIOWrapper, max_line_chars: int, checkpoint: Callable[[], None]) -> Iterator[WindowLine]:
    """Each line's head and length, reading at most max_line_chars + 1 characters of it at a time."""
    for count in itertools.count():
        if count % _CHECK_EVERY == 0:
            checkpoint()
        piece = stream.readline(max_line_chars + 1)
        if not piece:
            return
        length = len(piece)
        tail = piece[-2:]
        while not tail.endswith("\n"):
            checkpoint()
            more = stream.readline(_CHUNK_CHARS)
            if not more:
                break
            length += len(more)
            tail = (tail + more)[-2:]
        text = piece
        if tail.endswith("\n"):
            cut = 2 if tail == "\r\n" else 1
            length -= cut
            text = piece[: max(0, len(piece) - cut)] if len(piece) == length + cut else piece
        yield WindowLine(text, length)
