"""The extra roots of a session (`--add-dir`, `Options.add_dirs`, ACP `additionalDirectories`): checked once.

An extra root is as writable as the workspace for the tools and the sandbox, so it must be an existing folder
(resolved here, once, so a link swapped later cannot move it) and may not be, hold or lie inside a place whose
contents decide what runs or who may do what: `/`, the home folder itself (or a folder holding it), a system
folder, SneakyCode's state folder (other sessions' transcripts) or its user configuration folder (permission
rules). Such a root is a ConfigError that names it, before any session starts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from sneakycode.errors import ConfigError
from sneakycode.workspace.paths import contains

# Folders of the system: nothing in them is a project, and what is written there runs for everyone.
SYSTEM_FOLDERS = tuple(map(Path, ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc",
                                  "/root", "/run", "/sbin", "/sys", "/usr", "/var")))


def check_written_roots(values: Sequence[str | Path]) -> None:
    """Refuse what is no folder name at all, before anything is read: a ConfigError."""
    if isinstance(values, (str, bytes, Path)):
        raise ConfigError("add_dirs takes a list of folders, not one string")
    for value in values:
        if not isinstance(value, (str, Path)) or not str(value).strip():
            raise ConfigError(f"add_dirs: {value!r} is not a folder path")
        if "\x00" in str(value):
            raise ConfigError(f"add_dirs: {str(value)!r} contains a NUL byte")


def extra_roots(values: Sequence[str | Path], workspace: Path, *, protected: Sequence[Path]) -> tuple[Path, ...]:
    """The real paths of the extra roots, in order, without repeats or roots the workspace already holds.
    `protected`: folders no root may be, hold or lie in (the state folder, the user configuration folder)."""
    check_written_roots(values)
    home = Path(os.path.realpath(Path.home()))
    guarded = [Path(os.path.realpath(place)) for place in protected]
    roots: list[Path] = []
    for value in values:
        given = Path(value).expanduser()
        if not given.is_absolute():
            given = workspace / given
        real = Path(os.path.realpath(given))
        if not real.exists():
            raise ConfigError(f"the added folder {str(value)!r} does not exist")
        if not real.is_dir():
            raise ConfigError(f"the added folder {str(value)!r} is not a directory")
        refusal = _refusal(real, home, guarded)
        if refusal is not None:
            raise ConfigError(f"the added folder {str(value)!r} ({real}) {refusal}; add a project folder instead")
        if contains(workspace, real) or real in roots:
            continue  # the workspace (or an earlier root) already holds it
        roots.append(real)
    return tuple(roots)


def _refusal(real: Path, home: Path, guarded: Sequence[Path]) -> str | None:
    if real == Path("/"):
        return "is the whole file system"
    if contains(real, home):
        return "is the home folder or holds it" if real == home else "holds the home folder"
    for system in SYSTEM_FOLDERS:
        if contains(system, real) or contains(real, system):
            return f"is or lies in the system folder {system}"
    for place in guarded:
        if contains(place, real) or contains(real, place):
            return f"is, holds or lies in SneakyCode's own folder {place}"
    return None
