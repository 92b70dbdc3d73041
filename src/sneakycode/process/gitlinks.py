"""The repositories git enters from a work tree: the gitlinks (mode 160000 entries: submodules, and nested
repositories someone ran `git add` on) in its index.

`git status`, `diff` and `commit` start git again in every gitlink's folder that holds a `.git`, and that
git runs what the nested repository's own configuration names (`core.fsmonitor`, hooks). The repository
guard (protected.py) protects those `.git` entries like the workspace's own and undoes a gitlink a
sandboxed command adds, so it lists them before and after a command. A listing is one `git ls-files`
(about 40 ms for 50,000 files), so it is remembered per index file while that file is unchanged: same
inode, size and ctime (a command can set a file's mtime back, not its ctime).
"""

from __future__ import annotations

import os
from pathlib import Path

from sneakycode.process.neutral_git import neutral_git
from sneakycode.process.supervise import run_process

GITLINK_MODE = "160000"
_TIMEOUT = 10.0
# An index of a million files lists in about 80 MB; past this the listing is cut (and the gitlinks after it
# are not seen), rather than hold SneakyCode's memory.
_LISTING_LIMIT = 64 << 20
_CACHE_SIZE = 64

IndexStamp = tuple[int, int, int]
_listed: dict[Path, tuple[IndexStamp, frozenset[str]]] = {}


def index_stamp(index: Path) -> IndexStamp | None:
    """What changes whenever `index` is written or replaced; None when there is no such file."""
    try:
        info = os.lstat(index)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_ctime_ns


def list_gitlinks(git: str, work_tree: Path, index: Path | None) -> frozenset[str]:
    """The gitlinks under `work_tree`, relative to it, in the index git finds from there (`index` is that
    file when the caller knows it, for the cache); empty when git cannot say (no repository, an owner git
    does not trust). git runs neutral: the repository's own programs are not started."""
    stamp = index_stamp(index) if index is not None else None
    if index is not None and stamp is not None and (known := _listed.get(index)) is not None and known[0] == stamp:
        return known[1]
    try:
        argv, env = neutral_git(git, ["ls-files", "--stage", "-z"], cwd=work_tree)
        result = run_process(argv, cwd=work_tree, env=env, timeout=_TIMEOUT, capture_limit=_LISTING_LIMIT)
    except OSError:
        return frozenset()
    if result.ending.exit_code != 0:
        return frozenset()
    links = frozenset(
        path
        for entry in result.stdout.decode("utf-8", errors="surrogateescape").split("\0")
        for info, _, path in [entry.partition("\t")]
        if path and info.startswith(GITLINK_MODE + " ")
    )
    if index is not None and stamp is not None:
        if len(_listed) >= _CACHE_SIZE:
            _listed.clear()
        _listed[index] = (stamp, links)
    return links
