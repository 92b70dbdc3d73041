"""Where old_str is in a file: exact first, then ever more tolerant strategies, each reported by name.

Strategies run in order and the first one that finds old_str at all decides; so a tolerant strategy can
never choose among several exact matches, or override one. Tolerances add up: (2) CRLF/LF; (3) trailing
whitespace per line; (4) indentation, a uniform shift or tabs for spaces, with new_str re-indented the same
way; (5) Unicode punctuation (curly quotes, dashes, non-breaking spaces, ellipsis); (6) runs of spaces and
tabs inside a line. The recoveries that read old_str differently (blank lines, line numbers, escapes) are in
blank_lines.py, line_numbers.py and recovery.py, and the whole order in strategies.py. new_str is only ever
inserted as text: no `$&`, `\\1` or escape sequence means anything (unless a recovery found old_str escaped
the same way).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sneakycode.tools.context import checkpoint
from sneakycode.tools.edit.indentation import Reindent, find_block, reindent_map, uses_tabs

# Without replace_all we only need to know that there are several matches, and where the first few are.
MATCH_LIST_LIMIT = 50

PUNCTUATION = {
    **dict.fromkeys("‘’‚‛′‹›", "'"),
    **dict.fromkeys("“”„‟″«»", '"'),
    **dict.fromkeys("‐‑‒–—―−", "-"),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
    "…": "...",
    "\u200b": "",
    "\u2060": "",
}
_PUNCTUATION_TABLE = str.maketrans(PUNCTUATION)
_PUNCTUATION_CHAR = re.compile("[" + re.escape("".join(PUNCTUATION)) + "]")


@dataclass(frozen=True)
class Candidate:
    """One place old_str may mean: text[start:end], and how new_str must be re-indented to go there.

    `old` is old_str as the strategy read it (None: as given; a recovery may have unescaped it), and
    `partners` maps each of its lines to the line of text[start:end] it stands for (None: line by line;
    a None entry: a line the file does not have), so lines the edit keeps keep the file's own bytes."""

    start: int
    end: int
    reindent: Reindent | None = None
    keep_first_line: bool = False
    old: str | None = None
    partners: tuple[int | None, ...] | None = None


def _as_given(old: str, new: str) -> str:
    return new


@dataclass(frozen=True)
class Strategy:
    """A way of finding old_str. `verbatim` ones match the file's own text (line endings aside), so new_str
    goes in as it is; the others keep the file's bytes on lines the edit does not change. `new_text` reads
    new_str the way the strategy read old_str (old_str, new_str -> new_str), or raises ToolError when new_str
    could be read two ways."""

    name: str
    phrase: str
    find: Callable[[str, str, bool], list[Candidate]]
    verbatim: bool = False
    new_text: Callable[[str, str], str] = _as_given


# ---- folding: normalise text while remembering where every character came from ------------------------


@dataclass(frozen=True)
class _Segment:
    folded: int
    folded_len: int
    origin: int
    origin_len: int


class _Folded:
    """Folded text plus a map back to the original: runs copied as they were, and replaced pieces."""

    def __init__(self, original: str, *, trailing: bool, punct: bool) -> None:
        out: list[str] = []
        self.segments: list[_Segment] = []
        self.original_len = len(original)
        size = 0
        pos = 0
        pieces = original.split("\n")
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            line_end = len(piece) - (1 if not last and piece.endswith("\r") else 0)
            content = piece[:line_end].rstrip() if trailing else piece[:line_end]
            size = self._emit_line(content, pos, size, out, punct)
            if not last:
                # The break (CRLF or LF) folds to one LF; ignored trailing whitespace lies before it.
                self.segments.append(_Segment(size, 1, pos + line_end, len(piece) + 1 - line_end))
                out.append("\n")
                size += 1
            pos += len(piece) + 1
        self.text = "".join(out)
        self._starts = [s.folded for s in self.segments]

    def _emit_line(self, content: str, pos: int, size: int, out: list[str], punct: bool) -> int:
        run = 0
        for found in _PUNCTUATION_CHAR.finditer(content) if punct else ():
            offset, char = found.start(), found.group()
            if offset > run:
                self.segments.append(_Segment(size, offset - run, pos + run, offset - run))
                out.append(content[run:offset])
                size += offset - run
            replacement = PUNCTUATION[char]
            self.segments.append(_Segment(size, len(replacement), pos + offset, 1))
            out.append(replacement)
            size += len(replacement)
            run = offset + 1
        if len(content) > run:
            self.segments.append(_Segment(size, len(content) - run, pos + run, len(content) - run))
            out.append(content[run:])
            size += len(content) - run
        return size

    def _segment(self, index: int) -> _Segment:
        return self.segments[bisect.bisect_right(self._starts, index) - 1]

    def origin_start(self, index: int) -> int:
        if index >= len(self.text):
            return self.original_len
        seg = self._segment(index)
        return seg.origin + (index - seg.folded if seg.folded_len == seg.origin_len else 0)

    def origin_end(self, index: int) -> int:
        """Original end of a match ending just before folded `index`; the ignored trailing whitespace of a
        line whose end the match reached is part of the match."""
        at_line_end = index >= len(self.text) or self.text[index] == "\n"
        if at_line_end and index > 0 and self.text[index - 1] != "\n":
            return self.origin_start(index)
        seg = self._segment(index - 1)
        if seg.folded_len == seg.origin_len:
            return seg.origin + (index - seg.folded)
        return seg.origin + seg.origin_len


def fold(text: str, *, trailing: bool = False, punct: bool = False) -> str:
    return _Folded(text, trailing=trailing, punct=punct).text


# ---- strategies -----------------------------------------------------------------------------------------


def _scan(haystack: str, needle: str, replace_all: bool) -> list[int]:
    """Starts of needle: all overlapping ones (capped) to judge uniqueness, or str.replace's ones for replace_all."""
    found: list[int] = []
    index = haystack.find(needle)
    while index != -1:
        found.append(index)
        if not replace_all and len(found) > MATCH_LIST_LIMIT:
            break
        index = haystack.find(needle, index + (len(needle) if replace_all else 1))
    return found


def _exact(text: str, old: str, replace_all: bool) -> list[Candidate]:
    return [Candidate(start, start + len(old)) for start in _scan(text, old, replace_all)]


def _folded_finder(*, trailing: bool, punct: bool) -> Callable[[str, str, bool], list[Candidate]]:
    def find(text: str, old: str, replace_all: bool) -> list[Candidate]:
        if (punct and not _has_punctuation(text + old)) or not (trailing or "\r" in text or "\r" in old):
            return []
        folded_old = fold(old, trailing=trailing, punct=punct)
        if not folded_old.strip():
            return []
        folded = _Folded(text, trailing=trailing, punct=punct)
        return [
            Candidate(folded.origin_start(start), folded.origin_end(start + len(folded_old)))
            for start in _scan(folded.text, folded_old, replace_all)
        ]

    return find


def _has_punctuation(text: str) -> bool:
    return _PUNCTUATION_CHAR.search(text) is not None


def _line_finder(*, punct: bool, inner: bool = False) -> Callable[[str, str, bool], list[Candidate]]:
    """Whole lines compared without their indentation (re-indented like the file); with `inner`, runs of
    spaces and tabs inside a line count as one space too (what gofmt and aligned comments change)."""

    def key(line: str) -> str:
        stripped = " ".join(line.split()) if inner else line.strip()
        return stripped.translate(_PUNCTUATION_TABLE) if punct else stripped

    def find(text: str, old: str, replace_all: bool) -> list[Candidate]:
        if punct and not _has_punctuation(text + old):
            return []
        segs = old.replace("\r\n", "\n").split("\n")
        lead = len(segs) > 1 and segs[0] == ""
        trail = len(segs) > 1 and segs[-1] == ""
        block = segs[1 if lead else 0 : len(segs) - 1 if trail else len(segs)]
        if not any(line.strip() for line in block):
            return []
        pieces = text.split("\n")
        starts = [0]
        for piece in pieces:
            starts.append(starts[-1] + len(piece) + 1)
        lines = pieces[:-1] if text.endswith("\n") else pieces
        keys = [key(line) for line in lines]
        block_keys = [key(line) for line in block]
        tabs_default = uses_tabs(lines)
        found: list[Candidate] = []
        taken_until = -1
        for first in find_block(keys, block_keys):
            last = first + len(block) - 1
            if (lead and first == 0) or (trail and last + 1 >= len(pieces)) or (replace_all and first <= taken_until):
                continue
            reindent = reindent_map(lines[first : last + 1], block, tabs_default=tabs_default)
            if reindent is None:
                continue
            # A leading "\n" in old_str is the line break before the block: the match starts at that break.
            start = starts[first] - 1 - pieces[first - 1].endswith("\r") if lead else starts[first]
            end = starts[last + 1] if trail else starts[last] + len(pieces[last].removesuffix("\r"))
            found.append(Candidate(start, end, reindent, keep_first_line=lead))
            taken_until = last
            if not replace_all and len(found) > MATCH_LIST_LIMIT:
                break
        return found

    return find


def _first_of(*finders: Callable[[str, str, bool], list[Candidate]]) -> Callable[[str, str, bool], list[Candidate]]:
    def find(text: str, old: str, replace_all: bool) -> list[Candidate]:
        for finder in finders:
            found = finder(text, old, replace_all)
            if found:
                return found
        return []

    return find


BASE_STRATEGIES: tuple[Strategy, ...] = (
    Strategy("exact", "exactly", _exact, verbatim=True),
    Strategy(
        "line_endings", "ignoring line endings (CRLF/LF)", _folded_finder(trailing=False, punct=False), verbatim=True
    ),
    Strategy("trailing_whitespace", "ignoring trailing whitespace", _folded_finder(trailing=True, punct=False)),
    Strategy("indentation", "ignoring indentation", _line_finder(punct=False)),
    Strategy(
        "unicode_punctuation",
        "ignoring Unicode punctuation (curly quotes, dashes, non-breaking spaces)",
        _first_of(_folded_finder(trailing=True, punct=True), _line_finder(punct=True)),
    ),
    Strategy(
        "inner_whitespace",
        "ignoring runs of spaces and tabs inside lines (formatter alignment)",
        _line_finder(punct=False, inner=True),
    ),
)


def locate(
    text: str, old: str, *, replace_all: bool, strategies: Sequence[Strategy]
) -> tuple[Strategy, list[Candidate]] | None:
    """The first strategy that finds old_str, with every place it found (capped when not replace_all)."""
    for strategy in strategies:
        checkpoint()
        found = strategy.find(text, old, replace_all)
        if found:
            return strategy, found
    return None

