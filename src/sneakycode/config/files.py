"""Opening files whose kind someone else chose: regular files only, never blocking, never past a limit.

A repository's author (or a model) decides what `.gitignore`, `AGENTS.md` or `notes.txt` is: a FIFO makes
a plain open() wait forever for a writer, `/dev/zero` never ends, and opening some devices does something.
So a file is first opened with O_PATH (no open side effects, no blocking), checked with fstat to be a
regular file, and only then reopened for reading through that descriptor, non-blocking; a reader then reads
at most its limit. Config, the workspace guard, the ignore-file walk, image attachments and the `.git`
files the repository guard and checkpoints follow all open files here.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class NotRegularFile(OSError):
    """The path names a folder, FIFO, device, socket or (not followed) link; `kind` says which."""

    def __init__(self, filename: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{kind}, not a regular file", filename)
        self.kind = kind


class OverLimit(OSError):
    """The file holds more than the reader's limit of bytes."""

    def __init__(self, filename: str, limit: int) -> None:
        super().__init__(errno.EFBIG, f"larger than {limit} bytes", filename)
        self.limit = limit


def kind_of(mode: int) -> str:
    """What a stat mode says a file is, in words ("a FIFO (named pipe)", "a regular file", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def open_regular(
    path: str | os.PathLike[str], *, dir_fd: int | None = None, follow_symlinks: bool = True
) -> tuple[BinaryIO, os.stat_result]:
    """The file opened for reading and its fstat, or NotRegularFile (or another OSError, such as
    FileNotFoundError). With `follow_symlinks` off a link is not followed: it is NotRegularFile itself."""
    nofollow = 0 if follow_symlinks else os.O_NOFOLLOW
    handle = os.open(path, os.O_PATH | os.O_CLOEXEC | nofollow, dir_fd=dir_fd)
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(os.fspath(path), kind_of(info.st_mode))
        fd = _reopen_for_reading(handle, path, dir_fd, nofollow)
    finally:
        os.close(handle)
    try:
        if os.fstat(fd).st_ino != info.st_ino:
            raise NotRegularFile(os.fspath(path), "a file that changed while it was opened")
        return os.fdopen(fd, "rb"), info
    except BaseException:
        os.close(fd)
        raise


def _reopen_for_reading(handle: int, path: str | os.PathLike[str], dir_fd: int | None, nofollow: int) -> int:
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        # The O_PATH descriptor pins the inode that was checked; /proc reopens exactly that inode.
        return os.open(f"/proc/self/fd/{handle}", flags)
    except FileNotFoundError:
        # No /proc: open the path again, still without blocking; the inode check in the caller catches a swap.
        return os.open(path, flags | nofollow, dir_fd=dir_fd)


def read_regular(
    path: str | os.PathLike[str], limit: int, *, dir_fd: int | None = None, follow_symlinks: bool = True
) -> bytes:
    """The whole file, when it is a regular file of at most `limit` bytes; else NotRegularFile, OverLimit
    or the OSError of the open (FileNotFoundError when there is nothing)."""
    fh, _ = open_regular(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
    with fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OverLimit(os.fspath(path), limit)
    return data
