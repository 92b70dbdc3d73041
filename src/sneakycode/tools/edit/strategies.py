"""Every way str_replace looks for old_str, in the order they are tried (the first that finds it decides).

First the file's text as it is, ever more tolerant (matching.py); then old_str with blank lines that differ
from the file's (blank_lines.py); last the recoveries that read old_str differently, each finding its
reading with all the others (recovery.py). The benchmark switches them on one at a time in this order.
"""

from __future__ import annotations

from sneakycode.tools.edit.blank_lines import find_with_blank_lines
from sneakycode.tools.edit.matching import BASE_STRATEGIES, Strategy
from sneakycode.tools.edit.recovery import recoveries

_LINE_TOLERANT: tuple[Strategy, ...] = (
    *BASE_STRATEGIES,
    Strategy(
        "blank_lines",
        "with one blank line more or less between lines, or extra line breaks at its start or end",
        find_with_blank_lines,
    ),
)

STRATEGIES: tuple[Strategy, ...] = (*_LINE_TOLERANT, *recoveries(_LINE_TOLERANT))
