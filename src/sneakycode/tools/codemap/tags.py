"""One file's tags: the names it defines (with the line and its signature line) and the names it uses.

A file is parsed once per change (the index caches what comes out, by mtime and size). tree-sitter holds
the GIL while it parses, so there is nothing to gain from threads; the cost is kept down instead by running
one query per file and touching only the captured nodes.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, cast

from sneakycode.tools.codemap.queries import TAG_QUERIES

if TYPE_CHECKING:
    from tree_sitter import Query

SIGNATURE_CHARS = 120  # a definition's line is shown up to this many characters
_lock = threading.Lock()  # a Parser is not safe to share between threads


@dataclass(frozen=True)
class Definition:
    name: str
    line: int  # 1-based
    signature: str  # the definition's line, stripped and cut to SIGNATURE_CHARS


@dataclass(frozen=True)
class FileTags:
    definitions: tuple[Definition, ...]
    references: dict[str, int]  # name -> how often this file uses it

    def to_json(self) -> list[object]:
        return [[[d.name, d.line, d.signature] for d in self.definitions], self.references]

    @classmethod
    def from_json(cls, raw: list[object]) -> FileTags:
        defs, refs = cast(tuple[list[list[object]], dict[str, int]], raw)
        return cls(tuple(Definition(str(n), int(cast(int, ln)), str(s)) for n, ln, s in defs), dict(refs))


EMPTY = FileTags((), {})


def has_tags(language: str | None) -> bool:
    return language in TAG_QUERIES


@cache
def _query(language: str) -> Query:
    from tree_sitter import Query  # imported late: CLI start-up
    from tree_sitter_language_pack import SupportedLanguage, get_language

    return Query(get_language(cast(SupportedLanguage, language)), TAG_QUERIES[language])


def extract_tags(language: str, data: bytes) -> FileTags:
    """The definitions (in file order) and references of `data`, a file in `language` (one of TAG_QUERIES)."""
    from tree_sitter import QueryCursor

    from sneakycode.tools.diagnostics.syntax import parser_for

    query = _query(language)
    with _lock:
        tree = parser_for(language).parse(data)
    captures = QueryCursor(query).captures(tree.root_node)
    definitions: dict[tuple[str, int], Definition] = {}
    defined_at: set[int] = set()
    def_nodes = captures.get("def", ())
    if def_nodes:
        lines = data.split(b"\n")  # once per file, not a search for each definition's line
        for node in def_nodes:
            start = node.start_byte
            defined_at.add(start)
            row = node.start_point.row
            name = data[start : node.end_byte].decode("utf-8", errors="replace")
            if (name, row) not in definitions:
                definitions[(name, row)] = Definition(name, row + 1, _signature(lines[row]))
    ref_nodes = captures.get("ref", ())
    if defined_at:
        refs = Counter(data[n.start_byte : n.end_byte] for n in ref_nodes if n.start_byte not in defined_at)
    else:
        refs = Counter(data[n.start_byte : n.end_byte] for n in ref_nodes)
    references = {name.decode("utf-8", errors="replace"): count for name, count in refs.items()}
    ordered = sorted(definitions.values(), key=lambda d: d.line)
    return FileTags(tuple(ordered), references)


def _signature(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").strip()
    return text if len(text) <= SIGNATURE_CHARS else text[: SIGNATURE_CHARS - 3] + "..."
