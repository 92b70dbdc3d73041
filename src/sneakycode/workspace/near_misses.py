""""Did you mean": existing paths that look like one the model asked for and that does not exist."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterator
from pathlib import Path

from sneakycode.workspace.paths import contains

_WALK_LIMIT = 5000
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__", ".mypy_cache", ".pytest_cache"})


def near_misses(root: Path, missing: Path, limit: int = 3) -> list[Path]:
    """Up to `limit` existing paths that look like the missing one: similar names in the nearest existing
    parent folder first, then files of the same name elsewhere in the tree (a bounded walk)."""
    found: list[Path] = []
    parent = missing.parent
    while not os.path.isdir(parent) and contains(root, parent) and parent != root:
        parent = parent.parent
    if os.path.isdir(parent) and contains(root, parent):
        try:
            names = [entry.name for entry in os.scandir(parent)]
        except OSError:
            names = []
        found.extend(parent / name for name in difflib.get_close_matches(missing.name, names, n=limit, cutoff=0.6))
    for path in _walk_files(root, _WALK_LIMIT):
        if len(found) >= limit:
            break
        if path.name == missing.name and path not in found:
            found.append(path)
    return found[:limit]


def _walk_files(root: Path, limit: int) -> Iterator[Path]:
    seen = 0
    stack = [root]
    while stack and seen < limit:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in _SKIP_DIRS:
                    stack.append(Path(entry.path))
            else:
                yield Path(entry.path)
