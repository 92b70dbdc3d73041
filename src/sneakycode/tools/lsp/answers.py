"""A server's answers as the model sees them: `path:line: the line` for every place (paths relative to the
workspace; a place outside it, in a library, marked and never read), outlines indented by nesting, hover text;
each with the structured form beside it, and bounded.

LSP counts columns in UTF-16 code units; the model and read_file count characters. Both ways are converted
here, on the line's own text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from sneakycode.tools.lsp.host import path_of

MAX_PLACES = 60
MAX_SYMBOLS = 200
MAX_CONTEXT_CHARS = 160
OUTSIDE = "(outside the workspace)"


def utf16_column(line: str, column: int) -> int:
    """The UTF-16 offset of 0-based character `column` of `line`."""
    return len(line[:column].encode("utf-16-le")) // 2


def character_column(line: str, utf16: int) -> int:
    """The 0-based character column at UTF-16 offset `utf16` of `line` (clamped to the line)."""
    units = 0
    for index, char in enumerate(line):
        if units >= utf16:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line)


@dataclass(frozen=True)
class Place:
    """One place an answer points to: a workspace path (or an absolute one outside it), 1-based line and
    character column, and the line's text when it was read."""

    path: str
    line: int
    column: int
    outside: bool
    text: str | None

    def render(self) -> str:
        if self.outside:
            return f"{OUTSIDE} {self.path}:{self.line}"
        shown = (self.text or "").strip()
        if len(shown) > MAX_CONTEXT_CHARS:
            shown = shown[:MAX_CONTEXT_CHARS] + "..."
        return f"{self.path}:{self.line}:{self.column}: {shown}"

    def as_data(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "outside_workspace": self.outside,
                "text": self.text}


class Places:
    """Turns LSP locations into Places: `display` gives a workspace path's relative form (None outside it),
    `lines_of` a workspace file's lines (None when it cannot be read), `hidden` the deny rule hiding a path."""

    def __init__(self, display: Callable[[Path], str | None], lines_of: Callable[[str], list[str] | None],
                 hidden: Callable[[str], str | None]) -> None:
        self.display, self.lines_of, self.hidden = display, lines_of, hidden
        self.withheld = 0
        self._lines: dict[str, list[str] | None] = {}

    def place(self, uri: str, position: lsp.Position) -> Place | None:
        """None for a place a deny rule hides (counted in `withheld`)."""
        path = path_of(uri)
        shown = self.display(path)
        if shown is None:
            return Place(str(path), position.line + 1, position.character + 1, True, None)
        if self.hidden(shown) is not None:
            self.withheld += 1
            return None
        if shown not in self._lines:
            self._lines[shown] = self.lines_of(shown)
        lines = self._lines[shown]
        text = lines[position.line] if lines is not None and 0 <= position.line < len(lines) else None
        column = character_column(text, position.character) if text is not None else position.character
        return Place(shown, position.line + 1, column + 1, False, text)


def locations(answer: Any) -> list[tuple[str, lsp.Position]]:
    """(uri, start) of a definition's or references' answer: a Location, a list of them, or LocationLinks."""
    if answer is None:
        return []
    items = answer if isinstance(answer, list | tuple) else [answer]
    found = []
    for item in items:
        if isinstance(item, lsp.LocationLink):
            found.append((item.target_uri, item.target_selection_range.start))
        elif isinstance(item, lsp.Location):
            found.append((item.uri, item.range.start))
    return found


def render_places(title: str, found: Sequence[Place], withheld: int) -> tuple[str, dict[str, Any]]:
    """`N places:` then one line each, at most MAX_PLACES, inside the workspace first."""
    ordered = sorted(found, key=lambda p: (p.outside, p.path, p.line, p.column))
    unique = list(dict.fromkeys(ordered))
    lines = [place.render() for place in unique[:MAX_PLACES]]
    if len(unique) > MAX_PLACES:
        lines.append(f"... and {len(unique) - MAX_PLACES} more")
    if withheld:
        lines.append(f"({withheld} more in files a deny rule hides)")
    head = f"{title}: {len(unique)} place{'' if len(unique) == 1 else 's'}" if unique else f"{title}: none found"
    data = {"places": [p.as_data() for p in unique[:MAX_PLACES]], "count": len(unique), "withheld": withheld}
    return "\n".join([head, *lines]), data


def symbol_entries(answer: Any, places: Places, document: str | None = None) -> list[tuple[int, str, str, Place]]:
    """(depth, kind, name, place) of a document's outline (nested DocumentSymbols of `document`, a URI) or a
    flat symbol list (SymbolInformation, WorkspaceSymbol)."""
    entries: list[tuple[int, str, str, Place]] = []
    stack: list[tuple[int, Any]] = [(0, item) for item in reversed(answer or [])]
    while stack and len(entries) <= MAX_SYMBOLS:
        depth, item = stack.pop()
        if isinstance(item, lsp.DocumentSymbol):
            place = places.place(document, item.selection_range.start) if document else None
            if place is not None:
                entries.append((depth, _kind(item.kind), item.name, place))
            stack.extend((depth + 1, child) for child in reversed(item.children or []))
            continue
        location = getattr(item, "location", None)
        if isinstance(location, lsp.Location):
            place = places.place(location.uri, location.range.start)
        elif location is not None:  # a WorkspaceSymbol whose range the server did not resolve
            place = places.place(location.uri, lsp.Position(0, 0))
        else:
            place = None
        if place is not None:
            entries.append((0, _kind(item.kind), item.name, place))
    return entries


def render_symbols(title: str, entries: list[tuple[int, str, str, Place]], withheld: int,
                   *, with_path: bool) -> tuple[str, dict[str, Any]]:
    lines = []
    for depth, kind, name, place in entries[:MAX_SYMBOLS]:
        if with_path:
            lines.append(f"{kind} {name}  {place.render()}")
        else:
            lines.append(f"{place.line:>6}  {'  ' * depth}{kind} {name}")
    if len(entries) > MAX_SYMBOLS:
        lines.append(f"... and more (outlines show the first {MAX_SYMBOLS})")
    if withheld:
        lines.append(f"({withheld} more in files a deny rule hides)")
    head = f"{title}: {len(entries)} symbol{'' if len(entries) == 1 else 's'}" if entries else f"{title}: none found"
    data = {"symbols": [{"name": name, "kind": kind, "depth": depth, **place.as_data()}
                        for depth, kind, name, place in entries[:MAX_SYMBOLS]], "count": len(entries)}
    return "\n".join([head, *lines]), data


def hover_text(answer: lsp.Hover | None) -> str:
    if answer is None:
        return ""
    contents = answer.contents
    parts = contents if isinstance(contents, list | tuple) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, lsp.MarkupContent | lsp.MarkedStringWithLanguage):
            texts.append(part.value)
        elif isinstance(part, str):
            texts.append(part)
    return "\n\n".join(text.strip() for text in texts if text.strip())


def _kind(kind: lsp.SymbolKind | int) -> str:
    try:
        return lsp.SymbolKind(kind).name.lower()
    except ValueError:
        return "symbol"
