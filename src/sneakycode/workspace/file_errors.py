"""The workspace's small helpers: a descriptor closed however a block ends, and the coded errors a file
operation reports (a folder or a link where a file was expected, a read-only file, an OS error)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sneakycode.errors import ErrorCode, ToolError


@contextmanager
def closing_fd(fd: int) -> Iterator[int]:
    """`with closing_fd(os.open(...)) as fd:` closes the descriptor however the block ends."""
    try:
        yield fd
    finally:
        os.close(fd)


def not_regular(user_path: str, kind: str, verb: str = "read") -> ToolError:
    if kind == "a folder":
        return ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory, not a file")
    if kind == "a symbolic link":
        return ToolError(ErrorCode.PATH_CHANGED, f"{user_path!r} changed while in use: it is now a symbolic link")
    return ToolError(ErrorCode.NOT_REGULAR_FILE, f"{user_path!r} is {kind}, not a regular file, so it is not {verb}")


def read_only(user_path: str, mode: int) -> ToolError:
    return ToolError(
        ErrorCode.READ_ONLY_FILE,
        f"{user_path!r} is read-only (mode {mode:04o}), so it is not replaced",
    )


def short(user_path: str) -> str:
    shown = repr(user_path)
    return shown if len(shown) <= 120 else f"{shown[:100]}...' ({len(user_path)} characters)"


def io_error(user_path: str, exc: OSError) -> ToolError:
    return ToolError(ErrorCode.IO_ERROR, f"{short(user_path)}: {exc.strerror or exc}")

