"""The map as the model reads it: each file once, then its chosen definitions in line order, each as its line
number and its signature line, as many of the best-ranked definitions as the token budget holds.

    src/shop/cart.py:
      12 class Cart:
      30 def add_item(self, item: Item, quantity: int = 1) -> None:

Tokens are counted as the agent counts them (3 characters to a token, a high estimate), so a map never takes
more of the window than its budget says.
"""

from __future__ import annotations

from collections.abc import Iterable

from sneakycode.tools.codemap.rank import Ranked

CHARS_PER_TOKEN = 3  # agent/estimate.py's figure (tools/ may not import agent/)


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN


def _line(ranked: Ranked) -> str:
    return f"  {ranked.definition.line} {ranked.definition.signature}\n"


def _header(path: str) -> str:
    return f"{path}:\n"


def render_outline(ranked: Iterable[Ranked], max_tokens: int) -> tuple[str, int]:
    """The outline of the best definitions that fit in `max_tokens`, and how many definitions it shows.
    Definitions are taken best first, each one that still fits; files are listed in the order their
    best definition came, so the most important file is at the top."""
    budget = max_tokens * CHARS_PER_TOKEN
    used = 0
    chosen: dict[str, list[Ranked]] = {}
    for item in ranked:
        cost = len(_line(item)) + (0 if item.path in chosen else len(_header(item.path)))
        if used + cost > budget:
            continue  # a later one may still fit (a line in a file already shown needs no header)
        used += cost
        chosen.setdefault(item.path, []).append(item)
    parts: list[str] = []
    for path, items in chosen.items():
        parts.append(_header(path))
        parts.extend(_line(item) for item in sorted(items, key=lambda r: r.definition.line))
    return "".join(parts).rstrip("\n"), sum(len(items) for items in chosen.values())
