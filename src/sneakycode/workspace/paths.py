"""Where a path given by the model, a rule or a command line really points, relative to the workspace root.

The one home of containment: `Workspace.resolve` (tools), the permission rules' path forms and the shell
policy's redirection targets all ask `locate`, so they cannot drift. Containment is decided on whole path
components (`/work/proj-other` is not inside `/work/proj`), on the path as written and on its real path
(symlinks resolved); a path through an alias of the root (a symlinked checkout) is as inside as the root.

A session may have extra roots besides the workspace (`--add-dir`, ACP `additionalDirectories`; roots.py
checks them once): `locate` given them counts a path inside any root as inside, by the same rules, and
names the root that holds it (`Located.root`), which the anchored walk then starts from. Relative paths are
always relative to the workspace root.

`locate` never raises, whatever it is given: a path that cannot be used at all (a NUL byte, a name over
NAME_MAX, a path over PATH_MAX, a loop of links, a folder on the way that cannot be searched) comes back
with its `problem` set, so the permission gate can still decide on the written form and the tool refuses
it with a coded error instead of a traceback.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from sneakycode.config.protected_paths import PROTECTED_WRITE_PATHS
from sneakycode.errors import ErrorCode

# Linux's limits (<linux/limits.h>); file systems with longer names are not what tools are used on.
NAME_MAX = 255
PATH_MAX = 4096


def contains(root: Path, path: Path) -> bool:
    """True when `path` (absolute and normalised) is `root` or below it."""
    return os.path.commonpath([root, path]) == str(root)


def root_of(roots: Sequence[Path], path: Path) -> Path | None:
    """The first of `roots` (the workspace root first) that holds `path` (absolute and normalised)."""
    return next((root for root in roots if contains(root, path)), None)


class PathProblem(NamedTuple):
    """Why a path cannot be used: the error code and the rest of a sentence that starts with the path."""

    code: ErrorCode
    text: str


@dataclass(frozen=True)
class Located:
    """`lexical` is normalised without following links; `real` follows them; `written` is the path below the
    root as written (through an alias of the root too), or None when it is written outside the root.
    `problem` is set when the path cannot be used at all; `real` is then `lexical` or as far as it resolved.
    `written_root` is the root `written` is below (the workspace root or an extra one); `root` the one that
    holds `real` when `real_inside` (its folders are walked from it), else `written_root`."""

    lexical: Path
    real: Path
    written: str | None
    real_inside: bool
    problem: PathProblem | None = None
    root: Path | None = None
    written_root: Path | None = None


def locate(root: Path, value: str, extra: Sequence[Path] = ()) -> Located:
    """Where `value` (relative to `root`, or absolute) points. `root` and the `extra` roots must be real paths;
    inside any of them is inside."""
    roots = (root, *extra)
    given = Path(value)
    lexical = Path(os.path.normpath(given if given.is_absolute() else root / given))
    problem = written_problem(value, lexical)
    if problem is not None:
        where = root_of(roots, lexical)
        below = _lexically_below(where, lexical) if where is not None else None
        return Located(lexical, lexical, below, False, problem, where, where)
    try:
        real = Path(os.path.realpath(lexical))
        written_root, written = _written_below_any(roots, lexical)
    except OSError:
        # realpath() read a link that another process replaced between its lstat and its readlink.
        changed = PathProblem(ErrorCode.PATH_CHANGED, "changed while it was being resolved")
        where = root_of(roots, lexical)
        below = _lexically_below(where, lexical) if where is not None else None
        return Located(lexical, lexical, below, False, changed, where, where)
    holder = root_of(roots, real)
    return Located(lexical, real, written, holder is not None, _reach_problem(real), holder or written_root,
                   written_root)


def written_problem(value: str, lexical: Path) -> PathProblem | None:
    """What makes a path unusable as written (`lexical` is its normalised absolute form), before any look
    at the disk: a NUL byte, text that is no file name, a name or a whole path over the system's limits."""
    if "\x00" in value:
        return PathProblem(ErrorCode.INVALID_PATH, "contains a NUL byte")
    try:
        encoded = os.fsencode(lexical)
    except UnicodeEncodeError:
        return PathProblem(ErrorCode.INVALID_PATH, "is not valid text (it holds an unpaired surrogate)")
    if len(encoded) >= PATH_MAX:
        return PathProblem(ErrorCode.INVALID_PATH, f"is {len(encoded)} bytes long, over the limit of {PATH_MAX - 1}")
    longest = max((len(os.fsencode(part)) for part in lexical.parts), default=0)
    if longest > NAME_MAX:
        return PathProblem(ErrorCode.INVALID_PATH, f"has a name of {longest} bytes, over the limit of {NAME_MAX}")
    return None


def escaped(name: str) -> str:
    """A file name as a person or model can read it: bytes that are not UTF-8 (which Python keeps as lone
    surrogates) shown as `\\xff` escapes instead of crashing whatever encodes the text later."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return name


def _reach_problem(real: Path) -> PathProblem | None:
    """What stops the resolved path from being reached. realpath() resolves every link it can, so a link
    still standing at its end is a loop; a missing path is no problem (it is created, or not found)."""
    try:
        info = os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return PathProblem(ErrorCode.INVALID_PATH, "goes through a loop of symbolic links")
        if exc.errno == errno.ENAMETOOLONG:
            return PathProblem(ErrorCode.INVALID_PATH, "is longer than the system allows once its links are resolved")
        if exc.errno == errno.EACCES:
            return PathProblem(ErrorCode.IO_ERROR, "cannot be reached: a folder on the way may not be searched")
        return PathProblem(ErrorCode.IO_ERROR, f"cannot be reached: {exc.strerror}")
    if stat.S_ISLNK(info.st_mode):
        try:
            os.stat(real)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return PathProblem(ErrorCode.INVALID_PATH, "goes through a loop of symbolic links")
        return PathProblem(ErrorCode.PATH_CHANGED, "changed while it was being resolved")
    return None


def _lexically_below(root: Path, lexical: Path) -> str | None:
    return os.path.relpath(lexical, root) if contains(root, lexical) else None


def _written_below_any(roots: Sequence[Path], lexical: Path) -> tuple[Path | None, str | None]:
    """The first root the path is written below (directly or through an alias), and the path below it."""
    for root in roots:
        written = _written_below(root, lexical)
        if written is not None:
            return root, written
    return None, None


def _written_below(root: Path, lexical: Path) -> str | None:
    if contains(root, lexical):
        return os.path.relpath(lexical, root)
    # An alias of the root: the nearest ancestor that is the root once links are resolved.
    for ancestor in lexical.parents:
        if os.path.realpath(ancestor) == str(root):
            return os.path.relpath(lexical, ancestor)
    return None


def path_forms(root: Path, value: str, directory: bool, extra: Sequence[Path] = ()) -> set[str]:
    """The root-relative forms a path argument takes: as written and with links resolved, so a link cannot
    carry a call past a rule. Folders end in `/` so that `build/` patterns match them; a form outside the root
    starts with `../`, which no workspace pattern matches. A path inside an extra root also takes its forms
    relative to that root, so the workspace's rules hold there as they do in the workspace (a deny or ask rule
    needs one form to match, an allow rule all of them: more forms never loosen). A path that cannot be used
    is decided on its written form alone (the tool refuses it anyway)."""
    located = locate(root, value, extra)
    written = located.written if located.written_root == root else None
    shapes = [(written if written is not None else os.path.relpath(located.lexical, root), located.lexical)]
    if located.problem is None:
        shapes.append((os.path.relpath(located.real, root), located.real))
    for other in extra:
        if located.written is not None and located.written_root == other:
            shapes.append((located.written, located.lexical))
        if located.problem is None and contains(other, located.real):
            shapes.append((os.path.relpath(located.real, other), located.real))
    forms = set()
    for relative, path in shapes:
        is_dir = directory or (located.problem is None and _is_dir(path))
        forms.add(relative + "/" if is_dir and relative != "." else relative)
    return forms


def _is_dir(path: Path) -> bool:
    # The path may change or become unreachable after locate() looked at it; that is no folder.
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


# Places whose contents decide what runs later, outside any sandbox (config/protected_paths.py, the one list):
# the shell policy never auto-approves a command that visibly writes here.


def protected_write(root: Path, value: str, extra: Sequence[Path] = ()) -> str | None:
    """The protected place (`PROTECTED_WRITE_PATHS`) that writing `value` would change, as written or with
    links resolved, at the top of the workspace or of an `extra` root; None when it changes none. Compared
    case-insensitively, for case-insensitive disks."""
    located = locate(root, value, extra)
    holder = located.root if located.real_inside else None
    forms = [located.written, os.path.relpath(located.real, holder) if holder is not None else None]
    for form in forms:
        if form is None:
            continue
        first = Path(form).parts[:1]
        for place in PROTECTED_WRITE_PATHS:
            if first and first[0].casefold() == place.casefold():
                return place
    return None
