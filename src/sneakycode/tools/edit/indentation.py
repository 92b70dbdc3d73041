"""Indentation-blind block search, and re-indenting the model's text to the file's indentation.

Models often copy a block without its base indentation, or with spaces where the file has tabs. A block
still means the same thing when every line's indentation differs from the file's by one uniform shift,
possibly in other units (a tab for four spaces, two spaces for four): the relative indentation of every
line is the same up to one scale factor. Anything looser would change what Python code means.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

TAB_WIDTH = 4


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_width(indent: str) -> int:
    return len(indent.expandtabs(TAB_WIDTH))


def uses_tabs(lines: Sequence[str]) -> bool:
    """Whether the indented lines of a file mostly start with a tab."""
    tabbed = spaced = 0
    for line in lines:
        if line.startswith("\t"):
            tabbed += 1
        elif line.startswith(" ") and line.strip():
            spaced += 1
    return tabbed > spaced


@dataclass(frozen=True)
class Reindent:
    """Moves a line from the model's indentation to the file's: the model's base width becomes the file's
    base indentation (kept verbatim) and every other width is scaled from there."""

    file_base: str
    file_base_width: int
    model_base_width: int
    scale: Fraction
    tabs: bool

    def shift_line(self, line: str) -> str:
        if not line.strip():
            return ""
        indent = indent_of(line)
        body = line[len(indent) :]
        relative = indent_width(indent) - self.model_base_width
        if relative == 0:
            return self.file_base + body
        width = max(0, self.file_base_width + round(relative * self.scale))
        if self.tabs:
            return "\t" * (width // TAB_WIDTH) + " " * (width % TAB_WIDTH) + body
        return " " * width + body

    def describe(self) -> str:
        shift = self.file_base_width - self.model_base_width
        parts = [f"shifted {shift:+d} columns"] if shift else []
        if self.scale != 1:
            parts.append(f"indent steps scaled by {self.scale}")
        if self.tabs:
            parts.append("tab-indented like the file")
        return ", ".join(parts) or "indentation kept"


def reindent_map(file_lines: Sequence[str], model_lines: Sequence[str], *, tabs_default: bool) -> Reindent | None:
    """The map taking model_lines onto file_lines (pairs whose text already matches), or None when their
    relative indentation differs, that is when the block would mean something else at the file's place."""
    pairs = [(indent_of(f), indent_of(m)) for f, m in zip(file_lines, model_lines, strict=True) if f.strip()]
    if not pairs:
        return None
    file_widths = [indent_width(f) for f, _ in pairs]
    model_widths = [indent_width(m) for _, m in pairs]
    file_min, model_min = min(file_widths), min(model_widths)
    file_rel = [w - file_min for w in file_widths]
    model_rel = [w - model_min for w in model_widths]
    if file_rel == model_rel:
        scale = Fraction(1)
    else:
        file_unit, model_unit = math.gcd(*file_rel), math.gcd(*model_rel)
        if not file_unit or not model_unit:
            return None
        if any(f * model_unit != m * file_unit for f, m in zip(file_rel, model_rel, strict=True)):
            return None
        scale = Fraction(file_unit, model_unit)
    base = next(f for (f, _), w in zip(pairs, file_widths, strict=True) if w == file_min)
    indented = [f for f, _ in pairs if f]
    tabs = "\t" in indented[0] if indented else tabs_default
    return Reindent(base, file_min, model_min, scale, tabs)


def find_block(
    keys: Sequence[str], block: Sequence[str], limit: int | None = None, low: int = 0, high: int | None = None
) -> list[int]:
    """Every start index in [low, high) where `block` equals keys[i:i+len(block)] (keys are already
    normalised lines), at most `limit` of them."""
    size = len(block)
    anchor = next((j for j, key in enumerate(block) if key), 0)
    end = len(keys) if high is None else min(high, len(keys))
    found: list[int] = []
    for pos in range(max(low, 0) + anchor, min(end + anchor, len(keys))):
        start = pos - anchor
        if keys[pos] != block[anchor] or start + size > len(keys):
            continue
        if all(keys[start + j] == block[j] for j in range(size)):
            found.append(start)
            if limit is not None and len(found) >= limit:
                break
    return found
