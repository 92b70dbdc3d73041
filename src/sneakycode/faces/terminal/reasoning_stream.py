"""Reasoning shown as it arrives: dimmed, a line at a time, folded to the first few lines (all with --verbose)
and a note of how many more there were once the thought ends. Pieces come cut anywhere, so a line is printed
when it is complete (or when the thought ends); the folding is the one `fold` applies to a whole thought."""

from __future__ import annotations

from collections.abc import Callable

from sneakycode.faces.shared.text import markup_safe, plural
from sneakycode.faces.terminal.folding import FOLD_WIDTH, cut_at_word


class ReasoningStream:
    def __init__(self, print_line: Callable[[str], None], max_lines: int) -> None:
        self.print_line = print_line
        self.max_lines = max_lines
        self._open = ""  # the line under way, not yet ended by a newline
        self._shown = 0
        self._hidden = 0
        self._started = False

    def feed(self, text: str) -> None:
        self._started = True
        *complete, self._open = (self._open + text).split("\n")
        for line in complete:
            self._line(line)

    def finish(self) -> None:
        """The thought ended (the answer or anything else comes next): its last line, and what was folded."""
        if not self._started:
            return
        if self._open.strip():
            self._line(self._open)
        if self._hidden:
            self.print_line(f"[dim]  ... {plural(self._hidden, 'more line')} (reasoning folded)[/]")
        self._open, self._shown, self._hidden, self._started = "", 0, 0, False

    def _line(self, line: str) -> None:
        if not line.strip() and not self._shown:
            return  # the blank lines a thought often opens with
        if self._shown >= self.max_lines:
            self._hidden += 1
            return
        self._shown += 1
        self.print_line(f"[dim italic]  {markup_safe(cut_at_word(line, FOLD_WIDTH))}[/]")
