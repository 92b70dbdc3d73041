"""Folding a tool result to a few lines for the terminal, cut where a reader expects a cut: at the end of a
line, else after a word, never inside one (`/expand` shows the whole result)."""

from __future__ import annotations

from dataclasses import dataclass

FOLD_LINES = 6
FOLD_WIDTH = 160


@dataclass(frozen=True)
class Folded:
    """The lines to show and how much was left out (lines not shown at all, and whether a line was cut)."""

    lines: list[str]
    hidden_lines: int
    cut: bool

    @property
    def complete(self) -> bool:
        return not self.hidden_lines and not self.cut

    def note(self) -> str:
        """`... 12 more lines (/expand)`, or "" when nothing was left out."""
        if self.complete:
            return ""
        more = f"{self.hidden_lines} more line{'' if self.hidden_lines == 1 else 's'}" if self.hidden_lines else "cut"
        return f"... {more} (/expand shows all)"


def cut_at_word(line: str, width: int) -> str:
    """`line` shortened to at most `width` characters at the last space before the limit, with "..." when cut;
    a single word longer than the limit is cut at the limit (there is no boundary to cut at)."""
    if len(line) <= width:
        return line
    room = max(1, width - 3)
    if line[room].isspace():
        return line[:room].rstrip() + "..."
    space = max(line.rfind(" ", 0, room), line.rfind("\t", 0, room))
    kept = line[:space].rstrip() if space > 0 else ""
    return (kept or line[:room]) + "..."


def fold(text: str, max_lines: int = FOLD_LINES, width: int = FOLD_WIDTH) -> Folded:
    """The first `max_lines` lines of `text`, each cut at a word boundary to `width` characters."""
    lines = text.rstrip("\n").splitlines() or [""]
    shown = lines[:max_lines]
    cut_lines = [cut_at_word(line, width) for line in shown]
    cut = any(a != b for a, b in zip(cut_lines, shown, strict=True))
    return Folded(cut_lines, len(lines) - len(shown), cut)
