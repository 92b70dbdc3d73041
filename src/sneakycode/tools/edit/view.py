"""What the model is shown about an edit: the edited lines after a success, the closest lines after a miss.

Both are numbered like read_file output, so the model can check its work or copy the real text without
another read. Everything is bounded: a few regions, a few dozen lines, long lines cut.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left
from collections.abc import Sequence

from sneakycode.tools.read import number_lines, split_lines

CONTEXT_LINES = 3
MAX_REGIONS = 5
MAX_REGION_LINES = 40
MAX_DIFF_LINES = 30
MAX_COMPARED_CHARS = 400
MIN_SIMILARITY = 0.3
CANDIDATE_WINDOWS = 20
_WORD = re.compile(r"\w+")


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def span_lines(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """1-based (first, last) line numbers of character spans of `text`. The newlines are found once and
    each offset is looked up by bisection, so 200,000 spans cost no more than one pass over the text
    (counting from the start for each span was quadratic)."""
    newlines = [found.start() for found in re.finditer("\n", text)]
    return [
        (bisect_left(newlines, start) + 1, bisect_left(newlines, max(start, end - 1)) + 1) for start, end in spans
    ]


def edited_regions(text: str, edited: Sequence[tuple[int, int]]) -> str:
    """The edited lines (1-based first, last) of `text`, numbered, with a little context, merged and capped."""
    lines = split_lines(text)
    if not lines:
        return "(the file is now empty)"
    ranges: list[list[int]] = []
    for first, last in sorted(edited):
        low = max(1, min(first, len(lines)) - CONTEXT_LINES)
        high = min(len(lines), max(first, last) + CONTEXT_LINES)
        if ranges and low <= ranges[-1][1] + 1:
            ranges[-1][1] = max(ranges[-1][1], high)
        else:
            ranges.append([low, high])
    shown: list[str] = []
    for low, high in ranges[:MAX_REGIONS]:
        if shown:
            shown.append("   ...")
        shown.extend(_numbered_range(lines, low, high))
    if len(ranges) > MAX_REGIONS:
        shown.append(f"   ... ({len(ranges) - MAX_REGIONS} more edited regions not shown)")
    return "\n".join(shown)


def _numbered_range(lines: list[str], low: int, high: int) -> list[str]:
    if high - low + 1 <= MAX_REGION_LINES:
        return number_lines(lines[low - 1 : high], low)
    head = MAX_REGION_LINES - 10
    skipped = high - low + 1 - head - 10
    return [
        *number_lines(lines[low - 1 : low - 1 + head], low),
        f"   ... ({skipped} lines not shown)",
        *number_lines(lines[high - 10 : high], high - 9),
    ]


def _squash(line: str) -> str:
    return " ".join(line.split())[:MAX_COMPARED_CHARS]


def closest_block(lines: Sequence[str], wanted: Sequence[str]) -> tuple[int, int, float] | None:
    """The window of `lines` most like `wanted`: (0-based start, length, similarity 0..1), or None.

    Windows are ranked cheaply by the words they share with `wanted` (a line equal to one of wanted's, when
    whitespace is ignored, counts most); only the best few are compared in full, so big files stay cheap.
    """
    size = min(len(wanted), len(lines))
    if not size or not any(w.strip() for w in wanted):
        return None
    squashed = [_squash(line) for line in lines]
    wanted_lines = {_squash(w) for w in wanted if w.strip()}
    wanted_words = {word for w in wanted for word in _WORD.findall(w)}
    scores = [
        (100 if line in wanted_lines else 0) + len(wanted_words.intersection(_WORD.findall(line)))
        for line in squashed
    ]
    ranked: list[tuple[int, int]] = []
    window = sum(scores[:size])
    for start in range(len(lines) - size + 1):
        if start:
            window += scores[start + size - 1] - scores[start - 1]
        if window:
            ranked.append((-window, start))
    target = "\n".join(_squash(w) for w in wanted)
    best: tuple[int, int, float] | None = None
    for _, start in sorted(ranked)[:CANDIDATE_WINDOWS]:
        ratio = difflib.SequenceMatcher(None, target, "\n".join(squashed[start : start + size])).ratio()
        if best is None or ratio > best[2]:
            best = (start, size, ratio)
    return best if best and best[2] >= MIN_SIMILARITY else None


def near_miss(lines: Sequence[str], wanted: Sequence[str], file_label: str, wanted_label: str) -> str:
    """The closest lines of the file, numbered, and a small diff from what was expected to them."""
    found = closest_block(lines, wanted)
    if found is None:
        return f"Nothing in {file_label} resembles {wanted_label}."
    start, size, ratio = found
    region = [line.removesuffix("\r") for line in lines[start : start + size]]
    first, last = start + 1, start + size
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    out = [f"The most similar part of {file_label} is {where} ({ratio:.0%} alike, ignoring whitespace):"]
    out.extend(number_lines(region, first))
    diff = list(difflib.unified_diff(list(wanted), region, lineterm="", n=1))[2:]
    if diff:
        if len(diff) > MAX_DIFF_LINES:
            diff = [*diff[:MAX_DIFF_LINES], f"... ({len(diff) - MAX_DIFF_LINES} more diff lines)"]
        out.append(f"Differences (- {wanted_label}, + file):")
        out.extend(line[:200] for line in diff)
    invisible = [
        (w, f) for w, f in zip(wanted, region, strict=False) if w != f and " ".join(w.split()) == " ".join(f.split())
    ]
    if invisible:
        w, f = invisible[0]
        out.append(
            f"{len(invisible)} line(s) differ only in whitespace (spaces, tabs or line ends), e.g. "
            f"{wanted_label} has {w!r:.120} where the file has {f!r:.120}."
        )
    return "\n".join(out)
