"""A suite's files, read as untrusted input: the one walker and copier of a task's repo/, hidden/ and
solution/ folders.

A suite folder is someone else's (a downloaded suite, a colleague's): a link in it may point at `~/.aws` or
`/dev/zero`, an entry may be a FIFO or a device, a file may be huge. So a folder is walked without following
links; a regular file is taken, and a link only when it ends at a regular file inside the suite folder
(read as that file); any other entry (a link leaving the suite, a link to a folder, a FIFO, a device, a
socket) is a problem naming the entry, and so is a file or folder past its bound. Files are read through
the one bounded reader (config/files.py), never following a link, so nothing is read past its limit.

Hand-written walk: os.walk recurses in Python 3.11 (deep nesting raises RecursionError) and follows links
to folders when asked; this one keeps its own stack and sees every entry's own kind.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from sneakycode.config.files import NotRegularFile, OverLimit, kind_of, read_regular
from sneakycode.errors import ConfigError

MAX_FILE_BYTES = 4 * 1024 * 1024
"""One file of a task folder, at most."""
MAX_FOLDER_BYTES = 32 * 1024 * 1024
"""All files of one task folder (repo/, hidden/ or solution/) together, at most."""
MAX_ENTRIES = 5000
"""Files and folders in one task folder, at most."""
BYTECODE_FOLDER = "__pycache__"
BYTECODE_SUFFIX = ".pyc"


@dataclass(frozen=True)
class SuiteFile:
    relative: str
    """Where the file goes in a copy, relative to the folder walked (never with `..`)."""
    source: Path
    """The regular file inside the suite folder that holds its bytes (a link's target, resolved)."""
    size: int


def _is_bytecode(name: str, is_folder: bool) -> bool:
    """What Python leaves beside a suite's files (pip byte-compiles an installed package, the suite
    included): never part of a task."""
    return name == BYTECODE_FOLDER if is_folder else name.endswith(BYTECODE_SUFFIX)


def _entry_file(path: Path, relative: str, suite_root: Path, problems: list[str]) -> SuiteFile | None:
    """The file an entry stands for, or None with a problem appended."""
    try:
        info = os.lstat(path)
        source = path
        if stat.S_ISLNK(info.st_mode):
            source = Path(os.path.realpath(path))
            if source != suite_root and suite_root not in source.parents:
                problems.append(f"{path}: a link leaving the suite folder (to {source}); only files inside it are "
                                "copied")  # fmt: skip
                return None
            info = os.stat(source)
    except OSError as exc:
        problems.append(f"{path}: cannot be read: {exc.strerror or exc}")
        return None
    if not stat.S_ISREG(info.st_mode):
        linked = " (through a link)" if source != path else ""
        problems.append(f"{path}: {kind_of(info.st_mode)}{linked}, not a regular file; only regular files are copied")
        return None
    if info.st_size > MAX_FILE_BYTES:
        problems.append(f"{path}: {info.st_size} bytes; a suite's file holds at most {MAX_FILE_BYTES}")
        return None
    return SuiteFile(relative, source, info.st_size)


def suite_folder_files(folder: Path, suite_root: Path, problems: list[str]) -> list[SuiteFile]:
    """The files of a task folder, sorted by where they go; every entry that is not taken is a problem
    appended to `problems` (nothing is opened to find out)."""
    root = Path(os.path.realpath(suite_root))
    try:
        top = os.lstat(folder)
    except OSError as exc:
        problems.append(f"{folder}: cannot be read: {exc.strerror or exc}")
        return []
    if not stat.S_ISDIR(top.st_mode):
        problems.append(f"{folder}: {kind_of(top.st_mode)}, not a folder (a task's folders are never links)")
        return []
    found: list[SuiteFile] = []
    entries = total = 0
    stack = [(folder, "")]
    while stack:
        current, prefix = stack.pop()
        try:
            with os.scandir(current) as listing:
                children = sorted(listing, key=lambda entry: entry.name)
        except OSError as exc:
            problems.append(f"{current}: cannot be listed: {exc.strerror or exc}")
            continue
        for entry in children:
            entries += 1
            if entries > MAX_ENTRIES:
                problems.append(f"{folder}: more than {MAX_ENTRIES} files and folders; a task folder holds fewer")
                return found
            is_folder = entry.is_dir(follow_symlinks=False)
            if _is_bytecode(entry.name, is_folder):
                continue
            relative = prefix + entry.name
            if is_folder:
                stack.append((Path(entry.path), relative + "/"))
            elif (file := _entry_file(Path(entry.path), relative, root, problems)) is not None:
                total += file.size
                found.append(file)
    if total > MAX_FOLDER_BYTES:
        problems.append(f"{folder}: its files hold {total} bytes; a task folder holds at most {MAX_FOLDER_BYTES}")
    return sorted(found, key=lambda file: file.relative)


def read_suite_file(file: SuiteFile) -> bytes:
    """The file's bytes through the bounded reader (a link swapped in since the walk is not followed)."""
    try:
        return read_regular(file.source, MAX_FILE_BYTES, follow_symlinks=False)
    except NotRegularFile as exc:
        raise ConfigError(f"{file.source}: {exc.kind}, not a regular file; only regular files are copied") from None
    except OverLimit:
        raise ConfigError(f"{file.source}: a suite's file holds at most {MAX_FILE_BYTES} bytes") from None
    except OSError as exc:
        raise ConfigError(f"{file.source}: cannot be read: {exc.strerror or exc}") from None


def copy_suite_folder(folder: Path, target: Path, suite_root: Path) -> None:
    """The regular files of `folder` written under `target` (over what is there); a ConfigError names every
    entry that is not copied, before anything is written."""
    problems: list[str] = []
    files = suite_folder_files(folder, suite_root, problems)
    if problems:
        raise ConfigError(f"{folder}: {len(problems)} problem(s), nothing was copied:\n" + "\n".join(problems))
    written = 0
    for file in files:
        data = read_suite_file(file)
        written += len(data)
        if written > MAX_FOLDER_BYTES:  # a file that grew since the walk
            raise ConfigError(f"{folder}: its files hold more than {MAX_FOLDER_BYTES} bytes")
        path = target / file.relative
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.exists():
                path.unlink()  # a solution file replaces the repository's; never written through a link
            path.write_bytes(data)
        except OSError as exc:
            raise ConfigError(f"{file.source}: cannot be copied to {path}: {exc.strerror or exc}") from None
