"""Which definitions matter most: a PageRank over the graph of files that use each other's names.

A file that uses a name another file defines gets an edge to it, weighted by the square root of how often it
uses the name (a hundred calls count more than one, not a hundred times more), shared among the files that
define the name, a tenth as much for a private name (`_x`), ten times as much for a name the conversation
mentions, and ten times as much for a long name made of words (`parse_config`, not `get`: the weighting of
aider's repository map). Names defined in more than MAX_DEFINERS files (`get`, `run`, `__init__`) say
nothing about which file is meant and make no edges. The rank walks those edges and, with probability
1 - DAMPING, jumps to a file chosen by the personalisation: every file alike, plus the focus files
(mentioned in the conversation, read or edited), which together get FOCUS_SHARE of the jumps. A
definition's score is the rank that flows into its file through its name; the focus files' own definitions
lead, used or not: each scores its file's rank plus what flows in, times FOCUS_BOOST.

Written by hand rather than with networkx (not a dependency, and far larger than this): the graph is a few
dicts, and the previous rank is reused as the starting point, so after an edit it settles in a few sweeps.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from sneakycode.tools.codemap.tags import Definition, FileTags

DAMPING = 0.85
MAX_DEFINERS = 5
FOCUS_SHARE = 0.5
FOCUS_BOOST = 20.0
MENTIONED_NAME = 10.0
PRIVATE_NAME = 0.1
SPECIFIC_NAME = 10.0
SPECIFIC_LENGTH = 8
UNREFERENCED = 1e-6  # a definition nothing uses still ranks, by its file, after those that are used
MAX_SWEEPS = 16
TOLERANCE = 1e-5


@dataclass(frozen=True)
class Ranked:
    path: str
    definition: Definition
    score: float


def rank_definitions(
    tags: Mapping[str, FileTags],
    focus_files: Collection[str] = (),
    focus_names: Collection[str] = (),
    start: Mapping[str, float] | None = None,
    limit: int | None = None,
) -> tuple[list[Ranked], dict[str, float]]:
    """The `limit` best definitions (None: all), best first, and the file ranks (to pass back as `start`)."""
    paths = sorted(tags)
    index = {path: i for i, path in enumerate(paths)}
    definers: dict[str, list[int]] = defaultdict(list)
    for i, path in enumerate(paths):
        for name in {d.name for d in tags[path].definitions}:
            definers[name].append(i)
    telling = {name: files for name, files in definers.items() if len(files) <= MAX_DEFINERS}
    mentioned = set(focus_names)
    out: list[dict[int, float]] = [{} for _ in paths]
    # (from, to, name, weight) for each edge of each name: how rank reaches a definition, once ranks are known.
    flows: list[tuple[int, int, str, float]] = []
    for src, path in enumerate(paths):
        edges = out[src]
        references = tags[path].references
        for name in references.keys() & telling.keys():  # the intersection runs in C: most names are not defined
            targets = telling[name]
            weight = math.sqrt(references[name])
            if name[0] == "_":
                weight *= PRIVATE_NAME
            elif _specific(name):
                weight *= SPECIFIC_NAME
            if name in mentioned:
                weight *= MENTIONED_NAME
            if len(targets) == 1:
                dst = targets[0]
                if dst != src:
                    edges[dst] = edges.get(dst, 0.0) + weight
                    flows.append((src, dst, name, weight))
                continue
            others = [t for t in targets if t != src]
            weight /= len(others)
            for dst in others:
                edges[dst] = edges.get(dst, 0.0) + weight
                flows.append((src, dst, name, weight))
    focus = [index[path] for path in focus_files if path in index]
    rank = _pagerank(out, _personalisation(len(paths), focus), [start.get(p, 0.0) for p in paths] if start else None)
    share = [rank[i] / total if (total := sum(edges.values())) else 0.0 for i, edges in enumerate(out)]
    incoming: dict[int, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for src, dst, name, weight in flows:
        incoming[dst][name] += share[src] * weight
    focused = set(focus)
    candidates: list[tuple[float, int, Definition]] = []
    for i in {*incoming, *focused}:
        names = incoming.get(i, {})
        if i in focused:  # the focus files' own definitions lead, used or not
            candidates.extend(((names.get(d.name, 0.0) + rank[i]) * FOCUS_BOOST, i, d)
                              for d in tags[paths[i]].definitions)
        else:
            candidates.extend((names[d.name] + UNREFERENCED * rank[i], i, d) for d in tags[paths[i]].definitions
                              if d.name in names)
    # Definitions nothing uses follow, by their file's rank: only as many as can show.
    wanted = len(paths) if limit is None else limit
    if len(candidates) < wanted:
        for i in sorted(set(range(len(paths))) - focused, key=lambda i: -rank[i]):
            names = incoming.get(i, {})
            candidates.extend((UNREFERENCED * rank[i], i, d) for d in tags[paths[i]].definitions
                              if d.name not in names)
            if limit is not None and len(candidates) >= limit + len(incoming):
                break
    key = _order(paths)
    best = heapq.nsmallest(limit, candidates, key=key) if limit is not None else sorted(candidates, key=key)
    ranked = [Ranked(paths[i], definition, score) for score, i, definition in best]
    return ranked, dict(zip(paths, rank, strict=True))


def _specific(name: str) -> bool:
    """A long name made of words (`parse_config`, `HttpClient`) means one thing; `get` or `run` could be any."""
    return len(name) >= SPECIFIC_LENGTH and ("_" in name or (not name.isupper() and not name.islower()))


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
