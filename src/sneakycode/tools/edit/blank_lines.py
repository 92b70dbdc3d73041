"""old_str with one blank line more or less than the file between two of its lines, or extra line breaks
at its start or end (one at the end of a file that has no final newline, say).

The lines that are not blank must be the file's lines, in order, with nothing else between them (trailing
whitespace aside), and every gap between two of them may differ from the file's by one blank line at most:
more would let old_str stand for text the model never saw. Blank lines and breaks at old_str's edges are
not matched at all (the file keeps whatever it has there). Each line of old_str is paired with the file
line it stands for, so replace.py keeps the file's own blank lines wherever the edit keeps the lines
around them.
"""

from __future__ import annotations

from sneakycode.tools.edit.indentation import find_block
from sneakycode.tools.edit.matching import MATCH_LIST_LIMIT, Candidate

MAX_GAP_DIFFERENCE = 1


def find_with_blank_lines(text: str, old: str, replace_all: bool) -> list[Candidate]:
    segs = old.replace("\r\n", "\n").split("\n")
    filled_old = [index for index, seg in enumerate(segs) if seg.strip()]
    if not filled_old:
        return []
    pieces = text.split("\n")
    lines = [piece.removesuffix("\r") for piece in pieces]
    starts = [0]
    for piece in pieces:
        starts.append(starts[-1] + len(piece) + 1)
    filled = [index for index, line in enumerate(lines) if line.strip()]
    keys = [lines[index].rstrip() for index in filled]
    block = [segs[index].rstrip() for index in filled_old]
    found: list[Candidate] = []
    taken_until = -1
    for at in find_block(keys, block):
        matched = filled[at : at + len(block)]
        gaps = zip(filled_old, filled_old[1:], matched, matched[1:], strict=False)
        if any(abs((o2 - o1) - (f2 - f1)) > MAX_GAP_DIFFERENCE for o1, o2, f1, f2 in gaps):
            continue
        first, last = matched[0], matched[-1]
        if replace_all and first <= taken_until:
            continue
        partners = _partners(len(segs), filled_old, matched, first)
        found.append(Candidate(starts[first], starts[last] + len(lines[last]), partners=partners))
        taken_until = last
        if not replace_all and len(found) > MATCH_LIST_LIMIT:
            break
    return found


def _partners(count: int, filled_old: list[int], matched: list[int], first: int) -> tuple[int | None, ...]:
    """For each line of old_str, the line of the matched region it stands for: its own for a line with
    text; blank lines of a gap pair with the file's blank lines of that gap in order (one may be left over
    on either side); blank lines before the first or after the last line with text stand for nothing."""
    partners: list[int | None] = [None] * count
    for index, (old_line, file_line) in enumerate(zip(filled_old, matched, strict=True)):
        partners[old_line] = file_line - first
        if index + 1 < len(filled_old):
            shared = min(filled_old[index + 1] - old_line, matched[index + 1] - file_line) - 1
            for step in range(1, shared + 1):
                partners[old_line + step] = file_line - first + step
    return tuple(partners)

