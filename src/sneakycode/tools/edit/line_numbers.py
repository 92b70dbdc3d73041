"""read_file's line numbers pasted along with old_str (and often new_str): `    12<TAB>` before each line.

A prefix is only ever what read_file prints: the number right-aligned to LINE_NUMBER_WIDTH (its padding may
be trimmed, never widened) and a tab; on a blank line the model may have trimmed the tab as well (`    12`).
old_str is read without them only when every line carries one, the numbers run on, and each line without its
prefix is the file's line of that number; so only the text at those lines can be meant, and exactly one
prefix goes from each line, never text of the line itself (a YAML line may well start with `1->` or a tab).

new_str is read the way it was written. Where the lines old_str stands for do not themselves start like a
prefix, new_str is numbered when its first line carries a prefix or it repeats a numbered line of old_str,
and then each of its lines that carries a prefix loses it (a line the model added without one stays as it
is). Where they do (a fixture holding read_file output, tab-separated data), new_str must say how it was
written: it repeats a line of old_str with its number or without, not both, and read numbered every line
carries a number, counted on as read_file would. Otherwise it could be read two ways and is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.edit.matching import Candidate
from sneakycode.tools.read import LINE_NUMBER_WIDTH

_PREFIX = re.compile(r"( *)([1-9]\d*)(\t|$)")


@dataclass(frozen=True)
class Prefixed:
    """One line that starts like read_file's output: its number, the text after the prefix, and whether
    the tab was trimmed (`bare`, only ever a blank line)."""

    number: int
    rest: str
    bare: bool


def read_file_prefix(line: str) -> Prefixed | None:
    """The line's read_file prefix, if it starts with one exactly as read_file prints it."""
    found = _PREFIX.match(line)
    if found is None:
        return None
    pad, digits, tab = found.groups()
    if len(pad) + len(digits) > max(LINE_NUMBER_WIDTH, len(digits)):
        return None
    return Prefixed(int(digits), line[found.end() :], bare=not tab)


@dataclass(frozen=True)
class Numbered:
    """old_str with a read_file prefix on every line: the lines as written and without their prefixes."""

    prefixes: list[Prefixed]
    written: list[str]
    ends: bool  # old_str ends with a line break

    @property
    def numbers(self) -> list[int]:
        return [prefixed.number for prefixed in self.prefixes]

    @property
    def lines(self) -> list[str]:
        return [prefixed.rest for prefixed in self.prefixes]


def _segments(text: str) -> tuple[list[str], bool]:
    segs = text.replace("\r\n", "\n").split("\n")
    ends = len(segs) > 1 and segs[-1] == ""
    return (segs[:-1] if ends else segs), ends


def numbered_lines(text: str) -> Numbered | None:
    """`text` read as read_file output: every line carries a prefix and at least one has text after it."""
    segs, ends = _segments(text)
    prefixes = [read_file_prefix(seg) for seg in segs]
    if any(prefixed is None for prefixed in prefixes):
        return None
    found = [prefixed for prefixed in prefixes if prefixed is not None]
    if not any(not prefixed.bare and prefixed.rest.strip() for prefixed in found):
        return None
    return Numbered(found, segs, ends)


def find_numbered(text: str, old: str, replace_all: bool) -> list[Candidate]:
    parsed = numbered_lines(old)
    if parsed is None:
        return []
    numbers, claimed = parsed.numbers, parsed.lines
    first = numbers[0]
    if numbers != list(range(first, first + len(numbers))):
        return []
    pieces = text.split("\n")
    last = first + len(numbers) - 1
    if last > len(pieces) or (last == len(pieces) and pieces[-1] == "" and text):
        return []
    at_claimed = [pieces[n - 1].removesuffix("\r").rstrip() for n in numbers]
    if at_claimed != [line.rstrip() for line in claimed]:
        return []
    start = sum(len(piece) + 1 for piece in pieces[: first - 1])
    end = start + sum(len(piece) + 1 for piece in pieces[first - 1 : last]) - 1
    stripped = "\n".join(claimed) + ("\n" if parsed.ends else "")
    partners: tuple[int | None, ...] | None = None
    if parsed.ends and end < len(text):
        end += 1
    elif parsed.ends:
        # The file's last line has no newline: old_str's final one stands for nothing, and new_str's
        # matching one is not written, so the file does not gain a final newline.
        partners = (*range(len(claimed)), None)
    return [Candidate(start, end, old=stripped, partners=partners)]


def unnumbered_new(old: str, new: str) -> str:
    """new_str without read_file's prefixes where it was written with them (see the module docstring)."""
    parsed = numbered_lines(old)
    if parsed is None or not new:
        return new
    segs, ends = _segments(new)
    prefixes = [read_file_prefix(seg) for seg in segs]
    written = {line.rstrip() for line in parsed.written}
    repeats_numbered = any(seg.rstrip() in written for seg in segs)
    if not any(read_file_prefix(line) for line in parsed.lines):
        numbered = repeats_numbered or (prefixes[0] is not None and not prefixes[0].bare)
    else:
        numbered = _numbered_in_numbered_looking_file(parsed, segs, prefixes, repeats_numbered)
    if not numbered:
        return new
    bare_blanks = {seg for seg, prefixed in zip(parsed.written, parsed.prefixes, strict=True) if prefixed.bare}
    out = [
        seg if prefixed is None or (prefixed.bare and seg not in bare_blanks) else prefixed.rest
        for seg, prefixed in zip(segs, prefixes, strict=True)
    ]
    return "\n".join(out) + ("\n" if ends else "")


def _numbered_in_numbered_looking_file(
    parsed: Numbered, segs: list[str], prefixes: list[Prefixed | None], repeats_numbered: bool
) -> bool:
    """Whether new_str carries read_file's prefixes, where the file's own lines start like them too: only
    when new_str shows it, else refused, since guessing would cut text from lines or write numbers in."""
    repeats_plain = any(seg.rstrip() in {line.rstrip() for line in parsed.lines} for seg in segs)
    if repeats_plain and not repeats_numbered:
        return False
    numbers = [prefixed.number if prefixed is not None else 0 for prefixed in prefixes]
    counted = numbers == list(range(parsed.numbers[0], parsed.numbers[0] + len(numbers)))
    if repeats_numbered and not repeats_plain and (counted or numbers == parsed.numbers):
        return True
    raise ToolError(
        ErrorCode.INVALID_ARGUMENTS,
        "old_str carries read_file's line numbers, but the lines it stands for start with a number and a tab "
        "themselves, so new_str could be read with or without line numbers",
        hint="Send old_str and new_str as the file's text, without read_file's line numbers (the part up to "
        "and including the first tab of each line read_file showed).",
    )
