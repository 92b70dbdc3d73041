"""Where a path given by the model, a rule or a command line really points, relative to the workspace root.

The one home of containment: `Workspace.resolve` (tools), the permission rules' path forms and the shell
policy's redirection targets all ask `locate`, so they cannot drift. Containment is decided on whole path
components (`/work/proj-other` is not inside `/work/proj`), on the path as written and on its real path
(symlinks resolved); a path through an alias of the root (a symlinked checkout) is as inside as the root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def contains(root: Path, path: Path) -> bool:
    """True when `path` (absolute and normalised) is `root` or below it."""
    return os.path.commonpath([root, path]) == str(root)


@dataclass(frozen=True)
class Located:
    """`lexical` is normalised without following links; `real` follows them; `written` is the path below the
    root as written (through an alias of the root too), or None when it is written outside the root."""

    lexical: Path
    real: Path
    written: str | None
    real_inside: bool


def locate(root: Path, value: str) -> Located:
    """Where `value` (relative to `root`, or absolute) points. `root` must be a real path."""
    given = Path(value)
    lexical = Path(os.path.normpath(given if given.is_absolute() else root / given))
    real = Path(os.path.realpath(lexical))
    return Located(lexical, real, _written_below(root, lexical), contains(root, real))


def _written_below(root: Path, lexical: Path) -> str | None:
    if contains(root, lexical):
        return os.path.relpath(lexical, root)
    # An alias of the root: the nearest ancestor that is the root once links are resolved.
    for ancestor in lexical.parents:
        if os.path.realpath(ancestor) == str(root):
            return os.path.relpath(lexical, ancestor)
    return None


def path_forms(root: Path, value: str, directory: bool) -> set[str]:
    """The root-relative forms a path argument takes: as written and with links resolved, so a link cannot
    carry a call past a rule. Folders end in `/` so that `build/` patterns match them; a form outside the root
    starts with `../`, which no workspace pattern matches."""
    located = locate(root, value)
    written = located.written if located.written is not None else os.path.relpath(located.lexical, root)
    forms = set()
    for relative, path in ((written, located.lexical), (os.path.relpath(located.real, root), located.real)):
        is_dir = directory or path.is_dir()
        forms.add(relative + "/" if is_dir and relative != "." else relative)
    return forms


# Places whose contents decide what runs later, outside any sandbox: SneakyCode's own settings and rules,
# and git's folder (hooks, config with core.hooksPath / core.fsmonitor / aliases, worktree and submodule
# configs). The shell policy never auto-approves a command that visibly writes here.
PROTECTED_WRITE_PATHS = (".sneakycode", ".git")


def protected_write(root: Path, value: str) -> str | None:
    """The protected place (`PROTECTED_WRITE_PATHS`) that writing `value` would change, as written or with
    links resolved; None when it changes none. Compared case-insensitively, for case-insensitive disks."""
    located = locate(root, value)
    forms = [located.written, os.path.relpath(located.real, root) if contains(root, located.real) else None]
    for form in forms:
        if form is None:
            continue
        first = Path(form).parts[:1]
        for place in PROTECTED_WRITE_PATHS:
            if first and first[0].casefold() == place.casefold():
                return place
    return None
