"""An edit of a file that changed on disk since the model read it: merged when the two do not overlap.

The edit is computed against what the model saw (the ledger's text), so its old_str or hunks mean what the
model meant. A three-way merge (merge3, the algorithm of bzr and breezy) of that text (base), the file as
it is now (theirs) and the edit applied to the base (mine) keeps both changes when they touch different
lines. Changes to the same lines, or to lines right next to each other (merge3, like diff3 and git, sees
no unchanged line between them to anchor the two on), are a conflict: nothing is written and the model is
shown both sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from merge3 import Merge3

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.read import number_lines
from sneakycode.workspace.textfiles import short_diff

MAX_CONFLICTS_SHOWN = 3
MAX_CONFLICT_LINES = 12
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True)
class Merged:
    """The merged text, the 1-based (first, last) lines of it the edit wrote, and the outside change."""

    text: str
    edited: list[tuple[int, int]]
    outside: str


@dataclass(frozen=True)
class _Conflict:
    """The lines of one conflict on each side, with the 1-based line each side's part starts at."""

    line: int
    seen: list[str]
    disk_line: int
    disk: list[str]
    edit_line: int
    edit: list[str]


def lines_with_ends(text: str) -> list[str]:
    """Lines split at "\\n" only, each keeping its break, so a missing final newline is a difference too
    (str.splitlines would also split at form feeds and other separators a file may hold inside a line)."""
    return _LINE.findall(text)


def merge_outside_change(seen: str, disk: str, edited: str, label: str) -> Merged:
    """`edited` (the edit applied to `seen`) merged with the change from `seen` to `disk`, or STALE_READ
    showing the outside change and the conflicting lines when the two touch the same or adjacent lines."""
    base, theirs, mine = lines_with_ends(seen), lines_with_ends(disk), lines_with_ends(edited)
    out: list[str] = []
    ranges: list[tuple[int, int]] = []
    conflicts: list[_Conflict] = []
    for region in Merge3(base, theirs, mine).merge_regions():
        kind = region[0]
        if kind == "conflict":
            _, z_start, z_end, a_start, a_end, b_start, b_end = region  # type: ignore[misc]
            conflicts.append(
                _Conflict(
                    z_start + 1, base[z_start:z_end], a_start + 1, theirs[a_start:a_end], b_start + 1,
                    mine[b_start:b_end],
                )
            )
            continue
        start, end = region[1], region[2]
        source = {"unchanged": base, "a": theirs, "same": theirs, "b": mine}[kind]
        if kind in ("b", "same"):
            ranges.append((len(out) + 1, max(len(out) + 1, len(out) + end - start)))
        out.extend(source[start:end])
    outside = short_diff(seen, disk, label)
    if conflicts:
        raise ToolError(
            ErrorCode.STALE_READ,
            f"{label} changed on disk since it was last read, and the outside change touches the lines this "
            f"edit changes ({_count(conflicts)}); nothing was written",
            detail=_conflict_report(outside, conflicts),
            hint="Read the file again and redo the edit against its current content.",
        )
    return Merged("".join(out), ranges, outside)


def _count(conflicts: list[_Conflict]) -> str:
    lines = ", ".join(str(c.line) for c in conflicts[:MAX_CONFLICTS_SHOWN])
    more = f" and {len(conflicts) - MAX_CONFLICTS_SHOWN} more" if len(conflicts) > MAX_CONFLICTS_SHOWN else ""
    return f"near line{'s' if len(conflicts) > 1 else ''} {lines}{more}"


def _conflict_report(outside: str, conflicts: list[_Conflict]) -> str:
    parts = ["The outside change:", outside]
    for conflict in conflicts[:MAX_CONFLICTS_SHOWN]:
        parts.append(f"Conflict at line {conflict.line}:")
        for title, first, lines in (
            ("as you last read it", conflict.line, conflict.seen),
            ("on disk now", conflict.disk_line, conflict.disk),
            ("after your edit", conflict.edit_line, conflict.edit),
        ):
            parts.append(f"  {title}:")
            parts.extend(_shown(lines, first))
    return "\n".join(parts)


def _shown(lines: list[str], first: int) -> list[str]:
    if not lines:
        return ["    (no lines)"]
    body = [line.removesuffix("\n") for line in lines[:MAX_CONFLICT_LINES]]
    shown = number_lines(body, first)
    if len(lines) > MAX_CONFLICT_LINES:
        shown.append(f"    ... ({len(lines) - MAX_CONFLICT_LINES} more lines)")
    return shown
