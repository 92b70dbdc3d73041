"""The reference graph of an index: which file uses which other file's names, and how much; kept between
builds, so an edit costs the edited file's row, not the whole graph.

A file that uses a name another file defines gets an edge to it, weighted by the square root of how often it
uses the name (a hundred calls count more than one, not a hundred times more), shared among the files that
define the name, a tenth as much for a private name (`_x`) and ten times as much for a long name made of
words (`parse_config`, not `get`: the weighting of aider's repository map). Names defined in more than
MAX_DEFINERS files (`get`, `run`, `__init__`) say nothing about which file is meant and make no edges.

An edit that changes no file's set of defined names (the usual one: a body, a signature) changes only the
edited files' own rows; one that adds, removes or renames a definition, or adds or removes a file, rebuilds
the graph (every row depends on who defines what).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

from sneakycode.tools.codemap.tags import FileTags

MAX_DEFINERS = 5
PRIVATE_NAME = 0.1
SPECIFIC_NAME = 10.0
SPECIFIC_LENGTH = 8
_GONE = 1e-12  # an incoming weight this small after an edit took its references away is none


class ReferenceGraph:
    """Files by index (sorted paths); `rows[src]`: target -> weight; `incoming[dst]`: name -> weight of the
    uses of that name of dst's; `referrers[name]`: the files whose rows use it."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.index: dict[str, int] = {}
        self.names: list[frozenset[str]] = []
        self.telling: dict[str, list[int]] = {}
        self.rows: list[dict[int, float]] = []
        self.flows: list[list[tuple[int, str, float]]] = []  # per file: (target, name, weight) of its row
        self.incoming: list[dict[str, float]] = []
        self.referrers: dict[str, set[int]] = {}

    def update(self, tags: Mapping[str, FileTags], changed: Collection[str]) -> None:
        """Bring the graph to `tags`, of which the files in `changed` are new, edited or gone since the last."""
        if len(tags) != len(self.paths) or any(path not in self.index for path in tags):
            self._rebuild(tags)
            return
        edited = [path for path in changed if path in self.index]
        if any(_defined(tags[path]) != self.names[self.index[path]] for path in edited):
            self._rebuild(tags)
            return
        for path in edited:
            self._set_row(self.index[path], tags[path].references)

    def _rebuild(self, tags: Mapping[str, FileTags]) -> None:
        self.paths = sorted(tags)
        self.index = {path: i for i, path in enumerate(self.paths)}
        self.names = [_defined(tags[path]) for path in self.paths]
        definers: dict[str, list[int]] = {}
        for i, names in enumerate(self.names):
            for name in names:
                definers.setdefault(name, []).append(i)
        self.telling = {name: files for name, files in definers.items() if len(files) <= MAX_DEFINERS}
        size = len(self.paths)
        self.rows, self.flows = [{} for _ in range(size)], [[] for _ in range(size)]
        self.incoming, self.referrers = [{} for _ in range(size)], {}
        for i, path in enumerate(self.paths):
            self._set_row(i, tags[path].references)

    def _set_row(self, src: int, references: Mapping[str, int]) -> None:
        for dst, name, weight in self.flows[src]:
            names = self.incoming[dst]
            left = names[name] - weight
            if left > _GONE:
                names[name] = left
            else:
                del names[name]
            self.referrers[name].discard(src)
        edges: dict[int, float] = {}
        flows: list[tuple[int, str, float]] = []
        telling = self.telling
        for name in references.keys() & telling.keys():  # the intersection runs in C: most names are not defined
            targets = telling[name]
            others = [t for t in targets if t != src] if src in targets else targets
            if not others:
                continue
            weight = name_weight(name, references[name]) / len(others)
            for dst in others:
                edges[dst] = edges.get(dst, 0.0) + weight
                flows.append((dst, name, weight))
                names = self.incoming[dst]
                names[name] = names.get(name, 0.0) + weight
            self.referrers.setdefault(name, set()).add(src)
        self.rows[src], self.flows[src] = edges, flows

    def mentioned(self, names: Collection[str], factor: float) -> tuple[dict[int, dict[int, float]],
                                                                        dict[int, dict[str, float]]]:
        """The rows and incoming weights that change when the uses of `names` count `factor` times as much:
        copies of just those (by file index), the graph itself untouched."""
        rows: dict[int, dict[int, float]] = {}
        incoming: dict[int, dict[str, float]] = {}
        for name in set(names) & self.telling.keys():
            for src in self.referrers.get(name, ()):
                row = rows.setdefault(src, dict(self.rows[src]))
                for dst, used, weight in self.flows[src]:
                    if used == name:
                        row[dst] += weight * (factor - 1)
                        into = incoming.setdefault(dst, dict(self.incoming[dst]))
                        into[name] += weight * (factor - 1)
        return rows, incoming


def name_weight(name: str, uses: int) -> float:
    weight = math.sqrt(uses)
    if name[0] == "_":
        return weight * PRIVATE_NAME
    if len(name) >= SPECIFIC_LENGTH and ("_" in name or (not name.isupper() and not name.islower())):
        return weight * SPECIFIC_NAME  # a long name made of words means one thing; `get` or `run` could be any
    return weight


def _defined(tags: FileTags) -> frozenset[str]:
    return frozenset(d.name for d in tags.definitions)
