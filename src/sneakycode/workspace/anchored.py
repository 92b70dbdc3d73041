"""Acting inside the workspace through folder descriptors, so a racing process cannot redirect a tool.

A path is checked first (paths.py: its real path lies inside the root) and used afterwards; in between,
another process may swap a folder on the way for a symbolic link to outside, and a plain open(), rename()
or unlink() by path would follow it. So files are reached from the root's descriptor one component at a
time, each opened with O_NOFOLLOW, and the last name is acted on relative to the folder reached (openat,
renameat, unlinkat, mkdirat): what is touched always lies in a folder that was reached inside the root.
A component that is no longer a folder stops the walk: a link is PathChanged, a file NotADirectoryError.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

_FOLDER_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
_TEMP_SUFFIX = ".sneakycode-tmp"


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _current_umask()
NEW_FILE_MODE = 0o666 & ~UMASK


class PathChanged(Exception):
    """`component` (a path below the root) was a folder when checked and is not one now (a symbolic link)."""

    def __init__(self, component: str) -> None:
        super().__init__(f"{component} changed while in use")
        self.component = component


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    """The entry `name` in the folder, not following a link; None when there is none."""
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_folder(root: Path, parts: Sequence[str], create: Callable[[int, int], None] | None = None) -> int:
    """A descriptor (O_PATH) of `root/parts...`, every component reached without following a link; the
    caller closes it. A missing component is FileNotFoundError, unless `create(dir_fd, index)` is given:
    it must create `parts[index]` in `dir_fd` (the caller journals it), and the walk goes on into it."""
    fd = os.open(root, _FOLDER_FLAGS)
    try:
        for index, part in enumerate(parts):
            try:
                inner = _enter(fd, part)
            except FileNotFoundError:
                if create is None:
                    raise
                with suppress(FileExistsError):
                    create(fd, index)
                inner = _enter(fd, part)
            except NotADirectoryError:
                info = lstat_at(fd, part)
                if info is None or stat.S_ISLNK(info.st_mode) or stat.S_ISDIR(info.st_mode):
                    # A link now, or gone, or a folder again: it changed under the walk.
                    raise PathChanged("/".join(parts[: index + 1])) from None
                raise NotADirectoryError(errno.ENOTDIR, "not a folder", "/".join(parts[: index + 1])) from None
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _enter(dir_fd: int, name: str) -> int:
    try:
        return os.open(name, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        # O_NOFOLLOW on a link is ELOOP for some file systems and ENOTDIR (with O_DIRECTORY) for others.
        if exc.errno == errno.ELOOP:
            raise NotADirectoryError(errno.ENOTDIR, "not a folder", name) from None
        raise


def write_at(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    """Replace `name` in the folder atomically: readers see the old bytes or the new, never a mix.

    A temporary file in the same folder (same file system, so the rename is atomic) is written, fsynced,
    given `mode` and renamed over `name`; then the folder is fsynced so the rename itself is durable."""
    def make(tmp: str) -> None:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            os.fchmod(fh.fileno(), mode)

    _replace_with(dir_fd, name, make)


def _replace_with(dir_fd: int, name: str, make: Callable[[str], None]) -> None:
    """`make(tmp)` creates the new entry under a temporary name in the folder, which is then renamed over
    `name` (atomic: nothing in the way is followed) and the folder fsynced; a failure leaves no temporary."""
    tmp = _temp_name(name)
    try:
        make(tmp)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    sync_folder(dir_fd)


def _temp_name(name: str) -> str:
    # Keep the temporary name within NAME_MAX however long `name` is.
    stem = os.fsdecode(os.fsencode(name)[:64])
    return f".{stem}.{secrets.token_hex(4)}{_TEMP_SUFFIX}"


def sync_folder(dir_fd: int) -> None:
    """fsync the folder (its descriptor may be O_PATH, which cannot be synced itself); best effort."""
    with suppress(OSError):
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, mode: int | None) -> None:
    """`write_at` for a path SneakyCode chose itself (session files, undo): its folder is opened as given."""
    fd = os.open(path.parent, _FOLDER_FLAGS)
    try:
        write_at(fd, path.name, data, mode if mode is not None else NEW_FILE_MODE)
    finally:
        os.close(fd)


def symlink_at(dir_fd: int, name: str, target: str) -> None:
    """Make `name` in the folder a symbolic link to `target`, replacing what is there atomically: the link
    is made under a temporary name and renamed over `name`, so nothing in the way is followed."""
    _replace_with(dir_fd, name, lambda tmp: os.symlink(target, tmp, dir_fd=dir_fd))


@contextmanager
def parent_folder(root: Path, relative: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """The folder that holds `root/relative`, reached by open_folder (its missing folders made, plainly,
    when `create`), and the last name, for acting on it with the *_at functions; closed when the block
    ends. A relative path with an empty, `.` or `..` part is a ValueError: it could leave the root."""
    parts = relative.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{relative!r} is not a path below the root")

    def make(dir_fd: int, index: int) -> None:
        os.mkdir(parts[index], dir_fd=dir_fd)

    fd = open_folder(root, parts[:-1], make if create else None)
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def remove_empty_folders(root: Path, parts: Sequence[str]) -> None:
    """Remove `root/parts...` and then each folder above it, as long as they are empty (never the root).

    Each folder is removed from the one reached above it by open_folder, so a folder swapped for a link is
    never followed; the first that is not an empty folder (or cannot be reached) ends the climb."""
    for depth in range(len(parts), 0, -1):
        try:
            fd = open_folder(root, parts[: depth - 1])
        except (OSError, PathChanged):
            return
        try:
            os.rmdir(parts[depth - 1], dir_fd=fd)
        except OSError:  # not empty, not a folder (a link: ENOTDIR), or gone
            return
        finally:
            os.close(fd)
