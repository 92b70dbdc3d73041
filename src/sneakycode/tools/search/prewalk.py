"""The ignore-file check before ripgrep runs (engine.py), remembered while nothing it looked at changed.

The check walks every folder a search would enter and reads every ignore file on the way (walk.py), which
costs more than ripgrep's own search of a small tree. Its answer depends only on those folders (which entries
they hold) and those files (what they are, their size, their rules), so it is kept with a signature of each:
mode, device, inode, size and ctime, taken before the folder is listed or the file read. A later search of
the same roots stats them again (one system call each, not a listing) and reuses the answer while every
signature is unchanged. Creating, removing or renaming an entry changes its folder's ctime, rewriting a file
its own, and ctime cannot be set back by a program, so a change since is always seen; the one race left is
the one engine.py already names (a file replaced between the check and ripgrep's read).

An answer is not kept when a file it read looks different now from what the read found (a regular file of
at most the limit that is not one any more): the next search walks again.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass

from sneakycode.tools.search.walk import (
    IGNORE_FILE_LIMIT,
    Signature,
    folder_log,
    probe_log,
    signature,
    skipped_ignore_files,
)

_KEPT = 8  # answers remembered (searches of other roots or depths each have their own)


@dataclass(frozen=True)
class _Answer:
    skipped: dict[str, str]
    folders: tuple[tuple[str, Signature | None], ...]
    probes: tuple[tuple[str, Signature | None], ...]
    kinds: tuple[tuple[str, int | None], ...]

    def holds(self) -> bool:
        for path, sig in self.folders:  # thousands: the loop is kept to one stat and one comparison
            try:
                info = os.lstat(path)
            except (OSError, ValueError):
                return False
            if sig is None or info.st_ctime_ns != sig[4] or info.st_ino != sig[2] or info.st_dev != sig[1]:
                return False
        return all(signature(path, follow=True) == sig for path, sig in self.probes) and all(
            _kind(path) == kind for path, kind in self.kinds
        )


_answers: OrderedDict[tuple[str, tuple[str, ...], int | None], _Answer] = OrderedDict()
_lock = threading.Lock()


def checked_ignore_files(cwd: str, roots: list[str], max_depth: int | None) -> dict[str, str]:
    """walk.skipped_ignore_files, answered from memory while nothing it depends on changed."""
    key = (cwd, tuple(roots), max_depth)
    with _lock:
        answer = _answers.get(key)
    if answer is not None and answer.holds():
        return dict(answer.skipped)
    folders: list[tuple[str, Signature | None]] = []
    probes: list[tuple[str, Signature | None]] = []
    # The parents' ignore files count too (walk.Chain.above reads them, so they are in `probes`), and whether
    # each parent holds a `.git` (which makes it a repository root). Their folders are not signed: a parent
    # like /tmp changes all the time, and nothing else in it matters.
    kinds: list[tuple[str, int | None]] = []
    for root in roots:
        current = os.path.normpath(os.path.join(cwd, root))
        while (parent := os.path.dirname(current)) != current:
            dot_git = os.path.join(parent, ".git")
            kinds.append((dot_git, _kind(dot_git)))
            current = parent
    folders_token, probes_token = folder_log.set(folders), probe_log.set(probes)
    try:
        skipped = skipped_ignore_files(cwd, roots, max_depth)
    finally:
        folder_log.reset(folders_token)
        probe_log.reset(probes_token)
    if all(path in skipped or _readable(sig) for path, sig in probes):
        with _lock:
            _answers[key] = _Answer(dict(skipped), tuple(folders), tuple(probes), tuple(kinds))
            _answers.move_to_end(key)
            while len(_answers) > _KEPT:
                _answers.popitem(last=False)
    return skipped


def _kind(path: str) -> int | None:
    try:
        return stat.S_IFMT(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _readable(sig: Signature | None) -> bool:
    """Whether the signature is of nothing or of a file the walk reads (a regular file within the limit)."""
    return sig is None or (stat.S_ISREG(sig[0]) and sig[3] <= IGNORE_FILE_LIMIT)
