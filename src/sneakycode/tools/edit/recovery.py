"""Recoveries that read old_str as the model must have meant it: read_file's line numbers pasted along,
JSON escapes (`\\n`, `\\t`, `\\"`) or HTML entities (`&lt;`) written for the characters.

Each applies only where the file cannot mean the text as written: escapes and entities are decoded only
when none of those used occurs in the file (in a C file full of `"\\n"` an escaped newline could be either),
and line numbers are stripped only when every line carries one and they are the numbers of the lines the
text is at. The decoded old_str is then found by the ordinary strategies, so it must still match exactly one
place. new_str is decoded the same way when it is written the same way (it has no raw character that old_str
escaped, or every line carries a number), so the lines the edit keeps compare equal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from sneakycode.tools.edit.matching import Candidate, Strategy, locate

_NUMBERED = re.compile(r" *(\d+)\t")
_ESCAPE = re.compile(r"\\([\\nt\"'])")
_ESCAPED = {"\\": "\\", "n": "\n", "t": "\t", '"': '"', "'": "'"}
_ENTITY = re.compile(r"&(lt|gt|amp|quot|apos|#39);")
_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"', "apos": "'", "#39": "'"}

Finder = Callable[[str, str, bool], list[Candidate]]


# ---- line numbers ---------------------------------------------------------------------------------------


def numbered_lines(text: str) -> tuple[list[int], list[str], bool] | None:
    """The numbers and the lines without them when every line of `text` starts like read_file's output
    (`    12<TAB>`), and whether `text` ends with a line break; else None."""
    segs = text.replace("\r\n", "\n").split("\n")
    ends = len(segs) > 1 and segs[-1] == ""
    if ends:
        segs.pop()
    numbers: list[int] = []
    lines: list[str] = []
    for seg in segs:
        found = _NUMBERED.match(seg)
        if found is None:
            return None
        numbers.append(int(found.group(1)))
        lines.append(seg[found.end() :])
    return numbers, lines, ends


def _find_numbered(text: str, old: str, replace_all: bool) -> list[Candidate]:
    parsed = numbered_lines(old)
    if parsed is None:
        return []
    numbers, claimed, ends = parsed
    first = numbers[0]
    if numbers != list(range(first, first + len(numbers))):
        return []
    pieces = text.split("\n")
    last = first + len(numbers) - 1
    if first < 1 or last > len(pieces) or (last == len(pieces) and pieces[-1] == "" and text):
        return []
    at_claimed = [pieces[n - 1].removesuffix("\r").rstrip() for n in numbers]
    if at_claimed != [line.rstrip() for line in claimed]:
        return []
    start = sum(len(piece) + 1 for piece in pieces[: first - 1])
    end = start + sum(len(piece) + 1 for piece in pieces[first - 1 : last]) - 1
    stripped = "\n".join(claimed) + ("\n" if ends else "")
    partners: tuple[int | None, ...] | None = None
    if ends and end < len(text):
        end += 1
    elif ends:
        # The file's last line has no newline: old_str's final one stands for nothing, and new_str's
        # matching one is not written, so the file does not gain a final newline.
        partners = (*range(len(claimed)), None)
    return [Candidate(start, end, old=stripped, partners=partners)]


def _unnumbered_new(old: str, new: str) -> str:
    parsed = numbered_lines(new) if new else None
    if parsed is None:
        return new
    _, lines, ends = parsed
    return "\n".join(lines) + ("\n" if ends else "")


# ---- escapes and entities -------------------------------------------------------------------------------


def _decoding(
    pattern: re.Pattern[str], table: dict[str, str], ignored: frozenset[str], base: Sequence[Strategy]
) -> Finder:
    """A finder decoding old_str by `pattern` when it uses a form (other than `ignored` ones) that the file
    never has, then finding the decoded text with the `base` strategies."""

    def find(text: str, old: str, replace_all: bool) -> list[Candidate]:
        used = {found.group(0) for found in pattern.finditer(old) if found.group(1) not in ignored}
        if not used or any(form in text for form in used):
            return []
        decoded = pattern.sub(lambda found: table[found.group(1)], old)
        located = locate(text, decoded, replace_all=replace_all, strategies=base)
        if located is None:
            return []
        _, candidates = located
        return [replace(cand, old=decoded if cand.old is None else cand.old) for cand in candidates]

    return find


def _decoded_new(pattern: re.Pattern[str], table: dict[str, str]) -> Callable[[str, str], str]:
    """new_str decoded like old_str when it is written the same way: none of the characters old_str wrote
    encoded appears raw in it (a raw newline next to escaped ones means new_str was not escaped)."""

    def new_text(old: str, new: str) -> str:
        encoded = {table[found.group(1)] for found in pattern.finditer(old)}
        raw = pattern.sub("", new)
        if any(char in raw for char in encoded if char != "\\"):
            return new
        return pattern.sub(lambda found: table[found.group(1)], new)

    return new_text


def recoveries(base: Sequence[Strategy]) -> tuple[Strategy, ...]:
    """The recoveries, each finding its decoded old_str with the `base` strategies."""
    return (
        Strategy(
            "line_numbers",
            "after removing read_file's line numbers (they match the lines they claim)",
            _find_numbered,
            new_text=_unnumbered_new,
        ),
        Strategy(
            "escapes",
            "after reading \\n, \\t and \\\" as the characters (the file has none of those escapes)",
            _decoding(_ESCAPE, _ESCAPED, frozenset("\\"), base),
            new_text=_decoded_new(_ESCAPE, _ESCAPED),
        ),
        Strategy(
            "html_entities",
            "after reading &lt; &gt; &amp; &quot; as the characters (the file has none of those entities)",
            _decoding(_ENTITY, _ENTITIES, frozenset(), base),
            new_text=_decoded_new(_ENTITY, _ENTITIES),
        ),
    )
