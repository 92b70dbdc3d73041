"""Which definitions matter most: a PageRank over the reference graph (graph.py), toward the focus.

The rank walks the graph's edges and, with probability 1 - DAMPING, jumps to a file chosen by the
personalisation: every file alike, plus the focus files (mentioned in the conversation, read or edited), which
together get FOCUS_SHARE of the jumps. Uses of a name the conversation mentions count MENTIONED_NAME times as
much. A file's rank is then shared among its definitions by how much each is used (its part of the file's
incoming weight): a definition's score. The focus files' own definitions lead, used or not: each scores its
file's rank plus its part, times FOCUS_BOOST. Definitions nothing uses follow, by their file's rank.

Written by hand rather than with networkx (not a dependency, and far larger than this): the graph is a few
lists of dicts, and the previous rank is the starting point, so after an edit it settles in a few sweeps.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from sneakycode.tools.codemap.graph import ReferenceGraph
from sneakycode.tools.codemap.tags import Definition, FileTags

DAMPING = 0.85
FOCUS_SHARE = 0.5
FOCUS_BOOST = 20.0
MENTIONED_NAME = 10.0
UNREFERENCED = 1e-6  # a definition nothing uses still ranks, by its file, after those that are used
MAX_SWEEPS = 16
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Ranked:
    path: str
    definition: Definition
    score: float


def rank_definitions(
    graph: ReferenceGraph,
    tags: Mapping[str, FileTags],
    focus_files: Collection[str] = (),
    focus_names: Collection[str] = (),
    start: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> tuple[list[Ranked], dict[str, float]]:
    """The `limit` best definitions (None: all), best first, and the file ranks (to pass back as `start`).
    `graph` is up to date with `tags`."""
    paths = graph.paths
    rows_changed, incoming_changed = graph.mentioned(focus_names, MENTIONED_NAME)
    rows = [rows_changed.get(i, row) for i, row in enumerate(graph.rows)]
    focus = [graph.index[path] for path in focus_files if path in graph.index]
    rank = _pagerank(rows, _personalisation(len(paths), focus), [start.get(p, 0.0) for p in paths] if start else None)
    focused = set(focus)
    candidates: list[tuple[float, int, Definition]] = []
    used = 0
    for i, known in enumerate(graph.incoming):
        names = incoming_changed.get(i, known)
        if i in focused:  # the focus files' own definitions lead, used or not
            total = sum(names.values()) or 1.0
            candidates.extend((rank[i] * (1.0 + names.get(d.name, 0.0) / total) * FOCUS_BOOST, i, d)
                              for d in tags[paths[i]].definitions)
        elif names:
            used += 1
            part = rank[i] / sum(names.values())
            candidates.extend((names[d.name] * part, i, d) for d in tags[paths[i]].definitions if d.name in names)
    # Definitions nothing uses follow, by their file's rank: only as many as can show.
    if limit is None or len(candidates) < limit:
        for i in sorted(set(range(len(paths))) - focused, key=lambda i: -rank[i]):
            names = graph.incoming[i]
            candidates.extend((UNREFERENCED * rank[i], i, d) for d in tags[paths[i]].definitions
                              if d.name not in names)
            if limit is not None and len(candidates) >= limit + used:
                break
    key = _order(paths)
    best = heapq.nsmallest(limit, candidates, key=key) if limit is not None else sorted(candidates, key=key)
    ranked = [Ranked(paths[i], definition, score) for score, i, definition in best]
    return ranked, dict(zip(paths, rank, strict=True))


def _order(paths: list[str]) -> Callable[[tuple[float, int, Definition]], tuple[float, str, int]]:
    """Best first: the higher score, then (for equal scores) the earlier path and line."""
    return lambda candidate: (-candidate[0], paths[candidate[1]], candidate[2].line)


def _personalisation(size: int, focus: list[int]) -> list[float]:
    if not size:
        return []
    if not focus:
        return [1.0 / size] * size
    jump = [(1.0 - FOCUS_SHARE) / size] * size
    for i in focus:
        jump[i] += FOCUS_SHARE / len(focus)
    return jump


def _pagerank(out: list[dict[int, float]], jump: list[float], start: list[float] | None) -> list[float]:
    if not out:
        return []
    rank = start if start is not None and sum(start) > 0 else list(jump)
    total = sum(rank)
    rank = [r / total for r in rank]
    # Each file's edges as parallel lists of (target, share of its outflow): the inner loop is then one zip.
    normalised: list[tuple[int, list[int], list[float]]] = []
    for i, edges in enumerate(out):
        weight = sum(edges.values())
        if weight:
            normalised.append((i, list(edges), [w / weight for w in edges.values()]))
    sinks = [i for i, edges in enumerate(out) if not edges]  # their rank jumps, as the personalisation says
    for _ in range(MAX_SWEEPS):
        dangling = sum(rank[i] for i in sinks)
        new = [(1.0 - DAMPING + DAMPING * dangling) * j for j in jump]
        for i, targets, shares in normalised:
            flow = DAMPING * rank[i]
            for target, share in zip(targets, shares, strict=True):
                new[target] += flow * share
        change = sum(abs(a - b) for a, b in zip(new, rank, strict=True))
        rank = new
        if change < TOLERANCE:
            break
    return rank
