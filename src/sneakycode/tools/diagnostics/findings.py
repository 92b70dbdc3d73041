"""One problem found in a file: where, what, and who said so."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """A problem at a 1-based line (and column, when known) of the checked text.

    `source` names who found it: "syntax" for the built-in parsers, else the checker's program name.
    """

    line: int
    message: str
    source: str = "syntax"
    column: int | None = None
    last_line: int | None = None  # where a syntax error that spans lines ends (not shown; used to merge)

    def as_data(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "message": self.message, "source": self.source}


@dataclass
class Checked:
    """What one diagnostic pass over a text found, and why part of it could not be checked (one line each)."""

    findings: list[Finding]
    notes: list[str]
