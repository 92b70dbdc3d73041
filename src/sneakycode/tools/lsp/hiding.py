"""What a language server may read of the workspace: never what a deny rule hides from the read tools.

Why the server itself must not read hidden files, rather than its answers being filtered: its free text
(hover's types and docstrings, diagnostic messages) is computed from every file it read, transitively. In a
visible `LEAK = API_TOKEN`, hover says `Literal['sk-...']` and a type error after an edit quotes the same
literal, though no place in the answer points into the hidden file. Which file a sentence came from cannot be
told from the sentence, and a filter of the hidden files' literals misses what a checker derives from them
(`TOKEN + "x"`, folded integer arithmetic). So the server runs where every hidden file is covered
(process/sandbox.masking_argv: /dev/null over a file, an empty tmpfs over a folder all of whose entries are
hidden): what it never read it cannot repeat. Where that cannot be done (no working bubblewrap, a workspace
too big to walk) while something is hidden, the server runs as before but is not `sealed`, and none of its
free text reaches the model (ops.py, edits.py). Places (definition, references, symbols) are filtered by
path in any case (answers.Places).

The view is the hidden entries with their inodes: a file replaced by rename loses its /dev/null mount in the
server's namespace (Linux detaches a mount whose mountpoint is unlinked), and a file hidden since the server
started was never covered; a server whose view is not the current one is restarted before it is asked again.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.process.sandbox import masking_argv, probe_masking
from sneakycode.tools.context import nothing_hidden
from sneakycode.workspace.paths import escaped

MAX_ENTRIES = 200_000  # beyond this the walk stops and the view is incomplete (the server is not sealed)
_RECENT_NS = 2_000_000_000  # a folder changed this recently may change again within its mtime's tick
_SKIPPED = frozenset({".git"})  # no language server reads a repository's object store


@dataclass(frozen=True)
class Covered:
    path: Path
    inode: int
    folder: bool


@dataclass(frozen=True)
class View:
    """The workspace entries a server must not read (`covered`), and whether the walk saw everything."""

    covered: tuple[Covered, ...] = ()
    complete: bool = True

    @property
    def hides(self) -> bool:
        return bool(self.covered) or not self.complete


@dataclass
class _Listing:
    stamp: tuple[int, int]  # the folder's (inode, mtime_ns) when listed; (0, 0): list it again next time
    folders: list[str]
    files: list[tuple[str, int, bool]]  # name, inode, whether it is a symbolic link
    judged_by: object = None  # the `hidden` the two below were asked of
    hidden_files: list[tuple[str, int, bool]] = field(default_factory=list)
    all_files_hidden: bool = True


class HiddenScan:
    """The current View of one workspace. A folder whose mtime has not changed (and did not change too
    recently for its clock's tick) is not listed again, and what `hidden` said of its files is kept while the
    same `hidden` asks (one permission gate's), so a repeat walk costs one stat per folder: 0.05-0.09 s for
    45,000 entries in 4,000 folders (a .venv inside the workspace), 0.2-0.6 s the first time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._listings: dict[Path, _Listing] = {}
        self._lock = threading.Lock()

    def view(self, hidden: Callable[[str], str | None]) -> View:
        if hidden is nothing_hidden:  # no deny rule on reading: no walk, and a tree of any size is complete
            return View()
        with self._lock:
            walk = _Walk(self, hidden)
            whole, covered = walk.visit(self.root, "")
            if whole:
                covered = [Covered(self.root, walk.root_inode, True)]
            return View(tuple(covered), walk.entries <= MAX_ENTRIES)

    def listing(self, folder: Path) -> tuple[_Listing, int] | None:
        try:
            info = os.stat(folder, follow_symlinks=False)
        except OSError:
            return None
        stamp = (info.st_ino, info.st_mtime_ns)
        known = self._listings.get(folder)
        if known is not None and known.stamp == stamp:
            return known, info.st_ino
        folders: list[str] = []
        files: list[tuple[str, int, bool]] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            folders.append(entry.name)
                        else:
                            files.append((entry.name, entry.inode(), entry.is_symlink()))
                    except OSError:
                        continue
        except OSError:
            return None
        recent = time.time_ns() - info.st_mtime_ns < _RECENT_NS
        listing = _Listing((0, 0) if recent else stamp, folders, files)
        self._listings[folder] = listing
        return listing, info.st_ino


class _Walk:
    def __init__(self, scan: HiddenScan, hidden: Callable[[str], str | None]) -> None:
        self.scan, self.hidden = scan, hidden
        self.entries = 0
        self.root_inode = 0

    def visit(self, folder: Path, relative: str) -> tuple[bool, list[Covered]]:
        """(whether everything in `folder` is hidden, what to cover in it)."""
        found = self.scan.listing(folder)
        if found is None:
            return False, []
        listing, folder_inode = found
        if not relative:
            self.root_inode = folder_inode
        self.entries += len(listing.folders) + len(listing.files)
        if self.entries > MAX_ENTRIES:
            return False, []
        if listing.judged_by is not self.hidden:
            # Asked in the read tools' form of a path (workspace.display: relative, `/`, undecodable bytes escaped).
            listing.hidden_files = [file for file in listing.files
                                    if self.hidden(escaped(relative + file[0])) is not None]
            listing.all_files_hidden = len(listing.hidden_files) == len(listing.files)
            listing.judged_by = self.hidden
        whole = bool(listing.folders or listing.files) and listing.all_files_hidden
        # A mount on a symbolic link would land on its target; a target in the workspace is judged by its own path.
        covered = [Covered(folder / name, inode, False) for name, inode, link in listing.hidden_files if not link]
        for name in listing.folders:
            if not relative and name in _SKIPPED:
                whole = False
                continue
            sub_whole, sub_covered = self.visit(folder / name, f"{relative}{name}/")
            if self.entries > MAX_ENTRIES:
                return False, []
            whole = whole and sub_whole
            covered.extend(sub_covered)
        if whole and relative:
            return True, [Covered(folder, folder_inode, True)]
        return whole, covered


def server_argv(argv: Sequence[str], view: View, workspace: Path) -> tuple[list[str], bool]:
    """How to start a server so that it cannot read what `view` covers, and whether that holds (`sealed`):
    as is when nothing is hidden, under bubblewrap when something is, as is but unsealed when bubblewrap
    does not work here or the walk was incomplete."""
    if not view.hides:
        return list(argv), True
    if not view.complete:
        return list(argv), False
    probe = probe_masking(workspace)
    if not probe.available:
        return list(argv), False
    return masking_argv(argv, bwrap=probe.bwrap, covered=[c.path for c in view.covered]), True
