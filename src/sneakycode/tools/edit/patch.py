"""Unified diffs for patch_apply: parse leniently, place every hunk, apply all of them or none.

Parsing trusts the hunk body over the `@@` line counts (models miscount) and accepts a missing ---/+++
header, `a/` `b/` prefixes, a ```diff fence and blank context lines that lost their leading space. A hunk is
placed by its context and removed lines: at its stated line (moved by as much as the previous hunk moved),
else at its only match nearby, else at its only match in the whole file; exact first, whitespace-tolerant
second. Pure functions: text in, text out, ToolError for anything the model must fix.
"""

from __future__ import annotations

import re
from bisect import bisect_left, insort
from dataclasses import dataclass, field

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.context import checkpoint
from sneakycode.tools.edit.indentation import Reindent, find_block, reindent_map, uses_tabs
from sneakycode.tools.edit.view import near_miss
from sneakycode.tools.read import number_lines

DEV_NULL = "/dev/null"
NEARBY_LINES = 50
MAX_HUNKS = 1000  # each hunk may search the whole file, so a patch of many is bounded
AMBIGUITY_SHOWN = 5  # places listed for an ambiguous hunk; more are not searched for
_HUNK_HEADER = re.compile(r"^@@\s*(?:-(\d+)(?:,(\d+))?(?:\s+\+(\d+)(?:,(\d+))?)?)?\s*(?:@@+\s?(.*))?$")
_GIT_NOISE = ("diff ", "index ", "new file mode", "deleted file mode", "old mode", "new mode", "similarity index")


@dataclass
class Hunk:
    number: int
    header: str
    old_start: int | None
    old_count: int | None
    new_count: int | None
    lines: list[tuple[str, str]] = field(default_factory=list)
    from_blank: list[bool] = field(default_factory=list)
    old_no_newline: bool = False
    new_no_newline: bool = False

    @property
    def old(self) -> list[str]:
        return [text for kind, text in self.lines if kind != "+"]

    @property
    def changes(self) -> bool:
        return any(kind != " " for kind, _ in self.lines)


@dataclass(frozen=True)
class Patch:
    old_path: str | None
    new_path: str | None
    hunks: list[Hunk]

    @property
    def creates(self) -> bool:
        return self.old_path == DEV_NULL


@dataclass(frozen=True)
class Placement:
    hunk: Hunk
    index: int
    size: int
    tolerant: bool
    reindent: Reindent | None
    stated: int
    searched: bool = False

    @property
    def how(self) -> str:
        """How the hunk was found: at its stated line, by searching, or ignoring whitespace."""
        return "whitespace" if self.tolerant else "search" if self.searched else "stated_line"


@dataclass(frozen=True)
class Patched:
    text: str
    placements: list[Placement]
    ranges: list[tuple[int, int]]


def _invalid(error: str, detail: str = "") -> ToolError:
    return ToolError(ErrorCode.INVALID_PATCH, error, detail=detail)


# ---- parsing --------------------------------------------------------------------------------------------


def parse_patch(patch: str) -> Patch:
    lines = patch.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = _without_fence(lines)
    old_path: str | None = None
    new_path: str | None = None
    hunks: list[Hunk] = []
    for number, line in enumerate(lines, 1):
        if line.startswith("@@"):
            hunks.append(_start_hunk(line, len(hunks) + 1, number))
            continue
        if hunks and _is_file_header(lines, number - 1):
            raise _invalid(
                "the patch changes more than one file; patch_apply changes file_path only",
                detail=f"Line {number} starts another file: {line!r}. Send one patch_apply call per file.",
            )
        if not hunks:
            if line.startswith("--- "):
                old_path = header_path(line[4:])
            elif line.startswith("+++ "):
                new_path = header_path(line[4:])
            elif line.startswith("Binary files"):
                raise _invalid("binary patches cannot be applied")
            elif line.strip() and not line.startswith(_GIT_NOISE):
                raise _invalid(
                    f"line {number} of the patch comes before any @@ hunk header: {line!r:.120}",
                    detail="A unified diff is an optional ---/+++ header followed by hunks that start with "
                    "'@@ -a,b +c,d @@'.",
                )
            continue
        _add_line(hunks[-1], line, number)
    if not hunks:
        raise _invalid("the patch has no @@ hunk", detail="Each hunk starts with a line like '@@ -12,4 +12,5 @@'.")
    for hunk in hunks:
        _trim_trailing_blanks(hunk)
        if not hunk.lines:
            raise _invalid(f"hunk {hunk.number} ({hunk.header}) has no lines")
    result = Patch(old_path, new_path, hunks)
    if new_path == DEV_NULL:
        raise _invalid("the patch deletes the file; use delete_file to delete files")
    if result.creates and any(kind != "+" for hunk in hunks for kind, _ in hunk.lines):
        raise _invalid("a patch from /dev/null creates a file, so every hunk line must start with '+'")
    return result


def header_path(raw: str) -> str:
    """The path of a ---/+++ line without its timestamp or quotes (a/ b/ prefixes are judged by the caller)."""
    return raw.split("\t", 1)[0].strip().strip('"')


def _without_fence(lines: list[str]) -> list[str]:
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if filled and lines[filled[0]].startswith("```"):
        end = filled[-1] if lines[filled[-1]].strip() == "```" and filled[-1] != filled[0] else len(lines)
        return lines[filled[0] + 1 : end]
    return lines


def _is_file_header(lines: list[str], index: int) -> bool:
    line = lines[index]
    if line.startswith("diff --git "):
        return True
    following = lines[index + 1] if index + 1 < len(lines) else ""
    return line.startswith("--- ") and following.startswith("+++ ")


def _start_hunk(line: str, number: int, line_number: int) -> Hunk:
    match = _HUNK_HEADER.match(line)
    if match is None:
        raise _invalid(
            f"line {line_number} of the patch is not a valid hunk header: {line!r:.120}",
            detail="Hunk headers look like '@@ -12,4 +12,5 @@' (counts may be left out: '@@ -12 +12 @@').",
        )
    old_start = int(match.group(1)) if match.group(1) else None
    old_count = int(match.group(2)) if match.group(2) else (1 if match.group(1) else None)
    new_count = int(match.group(4)) if match.group(4) else (1 if match.group(3) else None)
    return Hunk(number, line.strip(), old_start, old_count, new_count)


def _add_line(hunk: Hunk, line: str, number: int) -> None:
    if line.startswith("\\"):
        if not hunk.lines:
            raise _invalid(f"line {number}: '\\ No newline at end of file' must follow a hunk line")
        kind = hunk.lines[-1][0]
        hunk.old_no_newline |= kind != "+"
        hunk.new_no_newline |= kind != "-"
        return
    if line == "":
        hunk.lines.append((" ", ""))
        hunk.from_blank.append(True)
        return
    if line[0] not in " -+":
        raise _invalid(
            f"line {number} of the patch (in hunk {hunk.number}) does not start with ' ', '-' or '+': {line!r:.120}",
            detail="Inside a hunk every line needs its prefix: ' ' for context (a blank context line is a single "
            "space), '-' for a removed line, '+' for an added line.",
        )
    hunk.lines.append((line[0], line[1:]))
    hunk.from_blank.append(False)


def _trim_trailing_blanks(hunk: Hunk) -> None:
    """Empty lines at the end of a hunk are the patch's own trailing newlines unless the count says otherwise."""
    while hunk.from_blank and hunk.from_blank[-1]:
        if hunk.old_count is not None and len(hunk.old) <= hunk.old_count:
            break
        hunk.lines.pop()
        hunk.from_blank.pop()


def created_text(patch: Patch) -> str:
    added = [text for hunk in patch.hunks for _, text in hunk.lines]
    if not added:
        return ""
    return "\n".join(added) + ("" if patch.hunks[-1].new_no_newline else "\n")


# ---- placing and applying -------------------------------------------------------------------------------


class _Unplaced(Exception):
    def __init__(self, hunk: Hunk, stated: int, places: list[int]) -> None:
        super().__init__(hunk.header)
        self.hunk = hunk
        self.stated = stated
        self.places = places


@dataclass
class _File:
    lines: list[str]
    exact: list[str]
    loose: list[str]
    tabs: bool
    taken: list[Placement] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # (start, end) of taken lines, sorted

    def take(self, placed: Placement) -> None:
        self.taken.append(placed)
        insort(self.spans, (placed.index, placed.index + placed.size))

    def free(self, start: int, size: int) -> bool:
        """No taken hunk overlaps [start, start+size) (an insertion: none strictly contains start). Taken
        spans never overlap each other, so only the neighbours of `start` can collide."""
        at = bisect_left(self.spans, (start, start))
        for index in (at - 1, at):
            if not 0 <= index < len(self.spans):
                continue
            low, high = self.spans[index]
            if size == 0 and low < start < high:
                return False
            if size and start < high and low < start + size:
                return False
        return True


def _squash(line: str) -> str:
    return " ".join(line.split())


def apply_hunks(
    text: str, hunks: list[Hunk], *, label: str, search: bool = True, tolerant: bool = True
) -> Patched:
    """All hunks applied to text, or PATCH_FAILED naming the first hunk that found no single place."""
    if len(hunks) > MAX_HUNKS:
        raise ToolError(
            ErrorCode.INVALID_ARGUMENTS,
            f"the patch has {len(hunks)} hunks; at most {MAX_HUNKS} are applied in one call",
            hint="Split the patch into several patch_apply calls, or rewrite the file with write_file.",
        )
    lines = text.split("\n") if text else []
    ends_with_newline = text.endswith("\n")
    if ends_with_newline:
        lines.pop()
    exact = [line.removesuffix("\r") for line in lines]
    target = _File(lines, exact, [_squash(line) for line in lines], uses_tabs(lines))
    failures: list[_Unplaced] = []
    drift = 0
    for hunk in hunks:
        checkpoint()
        try:
            placed = _place(hunk, target, drift, search=search, tolerant=tolerant)
        except _Unplaced as miss:
            failures.append(miss)
            continue
        target.take(placed)
        drift = placed.index - placed.stated
    if failures:
        raise _failure(failures, target, hunks, label)
    return _build(target, ends_with_newline)


def _place(hunk: Hunk, target: _File, drift: int, *, search: bool, tolerant: bool) -> Placement:
    old = hunk.old
    count = len(target.lines)
    if not old:
        stated = hunk.old_start or 0
        index = min(max(stated + drift, 0), count)
        if not target.free(index, 0):
            raise _Unplaced(hunk, stated, [])
        return Placement(hunk, index, 0, False, None, stated)
    stated = max((hunk.old_start or 1) - 1, 0)
    expected = min(max(stated + drift, 0), count)
    for loose in (False, True) if tolerant else (False,):
        keys = target.loose if loose else target.exact
        block = [_squash(line) for line in old] if loose else old
        found: int | None = None
        searched = False
        if keys[expected : expected + len(block)] == block and target.free(expected, len(block)):
            found = expected
        elif search:
            choices = _free_matches(target, keys, block, expected - NEARBY_LINES, expected + NEARBY_LINES + 1)
            if not choices:
                choices = _free_matches(target, keys, block, 0, count, stop_after=AMBIGUITY_SHOWN)
            if len(choices) > 1:
                raise _Unplaced(hunk, stated, choices)
            found = choices[0] if choices else None
            searched = True
        if found is not None:
            window = target.lines[found : found + len(block)]
            reindent = reindent_map(window, old, tabs_default=target.tabs) if loose else None
            return Placement(hunk, found, len(block), loose, reindent, stated, searched)
    raise _Unplaced(hunk, stated, [])


def _free_matches(
    target: _File, keys: list[str], block: list[str], low: int, high: int, stop_after: int | None = None
) -> list[int]:
    """Free places of `block` starting in [low, high); with `stop_after`, the search ends once that many
    are found (more than one is already an answer: ambiguous), so a patch of many ambiguous hunks stays
    linear in the file's size per hunk instead of collecting every match."""
    found: list[int] = []
    position = max(low, 0)
    while position < high:
        starts = find_block(keys, block, limit=1, low=position, high=high)
        if not starts:
            break
        if target.free(starts[0], len(block)):
            found.append(starts[0])
            if stop_after is not None and len(found) >= stop_after:
                break
        position = starts[0] + 1
    return found


def _build(target: _File, ends_with_newline: bool) -> Patched:
    lines = target.lines
    mixed = any(line.endswith("\r") for line in lines)
    out: list[str] = []
    ranges: list[tuple[int, int]] = []
    cursor = 0
    final_newline = ends_with_newline or not lines
    placements = sorted(target.taken, key=lambda p: (p.index, p.size))
    for p in placements:
        out.extend(lines[cursor : p.index])
        first = len(out) + 1
        at = p.index
        for kind, body in p.hunk.lines:
            if kind == " ":
                out.append(lines[at])
                at += 1
            elif kind == "-":
                at += 1
            else:
                added = p.reindent.shift_line(body) if p.reindent else body
                neighbour = lines[min(at, len(lines) - 1)] if lines else ""
                out.append(added + "\r" if mixed and neighbour.endswith("\r") else added)
        ranges.append((first, max(first, len(out))))
        cursor = p.index + p.size
        if cursor >= len(lines):
            if p.hunk.new_no_newline:
                final_newline = False
            elif p.hunk.old_no_newline:
                final_newline = True
    out.extend(lines[cursor:])
    text = "\n".join(out) + ("\n" if final_newline and out else "")
    return Patched(text, placements, ranges)


def _failure(failures: list[_Unplaced], target: _File, hunks: list[Hunk], label: str) -> ToolError:
    miss = failures[0]
    hunk = miss.hunk
    where = f"hunk {hunk.number} of {len(hunks)} ({hunk.header})"
    if miss.places:
        shown = ", ".join(str(p + 1) for p in miss.places[:10])
        times = f"at least {len(miss.places)}" if len(miss.places) >= AMBIGUITY_SHOWN else str(len(miss.places))
        reason = f"its context and removed lines occur {times} times (at lines {shown})"
        hint = f"Add context lines to hunk {hunk.number} so that it matches one place only."
    else:
        reason = "its context and removed lines were not found"
        hint = None
    parts = [f"Hunk {hunk.number} expected these lines at line {miss.stated + 1}:"]
    parts.extend(number_lines(hunk.old, miss.stated + 1))
    if not miss.places:
        parts.append(near_miss(target.exact, hunk.old, label, f"hunk {hunk.number}"))
    placed = sorted(target.taken, key=lambda p: p.hunk.number)
    if placed:
        done = ", ".join(f"{p.hunk.number} (at line {p.index + 1})" for p in placed)
        parts.append(f"Hunks that would have applied: {done}. Nothing was written.")
    else:
        parts.append("No hunk was applied; nothing was written.")
    also = [str(f.hunk.number) for f in failures[1:]]
    if also:
        parts.append(f"Hunk(s) {', '.join(also)} did not apply either.")
    error = f"{where} did not apply to {label}: {reason}"
    return ToolError(ErrorCode.PATCH_FAILED, error, detail="\n".join(parts), hint=hint)
