"""Which files the repository map reads: in a git repository, those git lists (tracked, plus untracked ones
no ignore file hides, outside vendored trees); elsewhere, the walk a search makes, minus vendored trees
(virtualenvs, site-packages, node_modules, vendor). Either way at most MAX_SOURCE_FILES source files.

Without this a workspace whose `.venv` or `node_modules` no `.gitignore` hides was mapped whole: a folder of
19,297 files took 87 s cold. git runs neutral (process/neutral_git.py): no program of the repository's runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sneakycode.process.environment import find_program
from sneakycode.process.neutral_git import DIFF_FLAGS, neutral_git, neutral_git_argv, neutral_git_environment
from sneakycode.process.supervise import run_process
from sneakycode.tools.search.walk import WalkOptions, walk_folders

MAX_SOURCE_FILES = 10_000
"""Source files the map reads at most; more are left out, and the map says so."""
VENDORED = frozenset({
    "node_modules", "bower_components", "site-packages", "dist-packages", "__pypackages__", "vendor", ".venv",
    "venv", ".tox", ".nox", ".eggs",
})  # fmt: skip
"""Folders of other people's code that the map never enters (outside git; and untracked ones inside)."""
VIRTUALENV_MARK = frozenset({"pyvenv.cfg"})
_GIT_TIMEOUT = 20.0
_LISTING_LIMIT = 256 << 20


@dataclass(frozen=True)
class Candidate:
    """A file the map may read: its path relative to the root (with `/`), its real path, and git's id of its
    content when the work tree holds what git's index says (a tracked file nobody changed since; else None)."""

    path: str
    real: str
    blob: str | None = None


def repository_files(root: Path) -> dict[str, str | None] | None:
    """The files git lists under `root` (tracked, then untracked and not ignored), relative to it, each with
    its blob id when it is tracked and unchanged; None when `root` is not in a git repository or git cannot say
    (not installed, an owner git does not trust)."""
    git = find_program("git", not_under=root)
    if git is None:
        return None
    tracked = _ls_files(git, root, ["--cached", "--stage"])
    if tracked is None:
        return None
    listed: dict[str, str | None] = {}
    for line in tracked:  # "MODE BLOB STAGE\tPATH"; a conflicted path is listed once per stage
        head, _, path = line.partition("\t")
        fields = head.split(" ")
        listed[path] = fields[1] if len(fields) == 3 and fields[2] == "0" and path not in listed else None
    changed = _changed(git, root)
    for path in listed if changed is None else changed:
        listed[path] = None
    others = _ls_files(git, root, ["--others", "--exclude-standard"]) or []
    venvs = tuple(path.removesuffix(mark) for path in others for mark in VIRTUALENV_MARK if path.endswith("/" + mark))
    for path in others:
        if not _vendored(path) and not path.startswith(venvs or ("\0",)):
            listed.setdefault(path, None)
    return listed


def source_candidates(root: Path, wanted: Callable[[str], bool]) -> Iterator[Candidate]:
    """The files whose name `wanted` accepts (a language the map knows), from git or the walk; the caller
    stops at MAX_SOURCE_FILES."""
    listed = repository_files(root)
    if listed is not None:
        for path, blob in listed.items():
            if wanted(path.rsplit("/", 1)[-1]):
                yield Candidate(path, os.path.join(root, path), blob)
        return
    options = WalkOptions(skip_folders=VENDORED, skip_marked=VIRTUALENV_MARK)
    for folder in walk_folders(str(root), ".", options):
        for entry in folder.files:
            if wanted(entry.name) and not (folder.chain.levels and folder.chain.ignored(entry.path, False)):
                yield Candidate(folder.prefix + entry.name, entry.path)


def _changed(git: str, root: Path) -> list[str] | None:
    """The tracked files whose work-tree content may differ from the index (git compares by stat, and by
    content where the stat cannot tell): their blob ids say nothing of what is on disk. None when git cannot
    say (then no blob id is trusted). git runs neutral with its configuration listed (neutral_git): where it
    compares content, the repository's filters are switched off."""
    try:
        argv, env = neutral_git(git, ["diff-files", "--name-only", "-z", *DIFF_FLAGS], cwd=root)
        result = run_process(argv, cwd=root, env=env, timeout=_GIT_TIMEOUT, capture_limit=_LISTING_LIMIT)
    except OSError:
        return None
    if result.ending.exit_code != 0 or result.ending.timed_out:
        return None
    text = result.stdout.decode("utf-8", errors="surrogateescape")
    return [path for path in text.split("\0") if path]


def _ls_files(git: str, root: Path, which: list[str]) -> list[str] | None:
    try:
        result = run_process(neutral_git_argv(git, ["ls-files", "-z", *which]), cwd=root,
                             env=neutral_git_environment(), timeout=_GIT_TIMEOUT, capture_limit=_LISTING_LIMIT)
    except OSError:
        return None
    if result.ending.exit_code != 0 or result.ending.timed_out:
        return None
    text = result.stdout.decode("utf-8", errors="surrogateescape")
    return list(dict.fromkeys(path for path in text.split("\0") if path))  # a conflicted path is listed per stage


def _vendored(path: str) -> bool:
    return any(part in VENDORED for part in path.split("/")[:-1])
