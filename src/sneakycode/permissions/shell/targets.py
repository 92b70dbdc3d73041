"""Where a command line reads and writes, judged against the workspace.

A redirection or a written file is fine for an allow rule when it is a plain path inside the workspace
(`/dev/null`, `/dev/stdout`, `/dev/stderr` too); outside, in a home folder, only known at run time, or
relative after a `cd` earlier in the line, it keeps the line from being auto-approved. A write into a
protected place (config/protected_paths.py: `.sneakycode/`, `.git/`, `.vscode/`, `.envrc`, ...) makes the line
ask in every mode: what is written there decides what runs later, outside any sandbox.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from sneakycode.config.protected_paths import shown_place
from sneakycode.permissions.shell.syntax import quoted
from sneakycode.permissions.shell.words import Word
from sneakycode.workspace.paths import locate, protected_write

HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def path_problem(workspace: Path, target: Word, what: str, moved: bool, cwd: str = "") -> str | None:
    """Why `target` keeps an allow rule from approving the line; None when it is a plain workspace path.
    `cwd` is the folder the line starts in, relative to the workspace."""
    if not target.literal:
        return f"{what} a path only known at run time"
    value = target.value
    if value in HARMLESS_TARGETS:
        return None
    if value.startswith("~"):
        return f"{what} {quoted(value)} in a home folder, outside the workspace"
    if not os.path.isabs(value) and moved:
        return f"{what} {quoted(value)} relative to a directory changed earlier in the line (cd, pushd, popd)"
    if locate(workspace, value if os.path.isabs(value) else posixpath.join(cwd, value)).real_inside:
        return None
    return f"{what} {quoted(value)}, outside the workspace"


def protected_problem(workspace: Path, target: Word, what: str, folders: tuple[str, ...],
                      extra_roots: tuple[Path, ...] = ()) -> str | None:
    """Why writing `target` needs a person whatever the mode; `folders` are the directories a relative path
    may be relative to after a `cd` in the line; `extra_roots` (`--add-dir`) are guarded like the workspace."""
    if not target.literal or target.value in HARMLESS_TARGETS or target.value.startswith("~"):
        return None
    bases = ("",) if os.path.isabs(target.value) else ("", *folders)
    for base in bases:
        place = protected_write(workspace, posixpath.join(base, target.value), extra_roots)
        if place is not None:
            return (f"{what} {quoted(target.value)} in `{shown_place(place)}`, where what is written decides what "
                    "runs later (SneakyCode's settings, git hooks and config, editor tasks, shell start-up files); "
                    "SneakyCode never approves that by itself")
    return None


def directory_changes(targets: list[Word | None]) -> tuple[str, ...]:
    """The folders relative paths may be relative to after the `cd`s of a line (each, and all in order)."""
    chain: list[str] = []
    found: list[str] = []
    for target in targets:
        if target is None or not target.literal or target.value.startswith(("-", "~")):
            continue
        chain.append(target.value)
        found.extend((target.value, posixpath.join(*chain)))
    return tuple(dict.fromkeys(found))
