"""The only place that turns a model-supplied path into a real file, and the only place that writes files.

Containment is decided on real paths (symlinks resolved) right before each use, never by string prefix:
`/work/proj-other` is not inside `/work/proj`. Text is decoded on reading and written back in the same
format (textfiles.py: encoding, BOM and line-ending style are kept). Writes go to a temporary
file in the same folder, are fsynced and renamed over the target, so a crash leaves the old file whole.
The read ledger remembers what the model last saw of each file, so edits of unseen or changed files are
refused; the mutation journal (when set) is told about every change before it happens, for undo.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.workspace.paths import contains, locate
from sneakycode.workspace.textfiles import TextFile, TextFormat, decode_text, encode_text, sha256_bytes, short_diff

_NEAR_MISS_WALK_LIMIT = 5000
_SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "__pycache__", ".mypy_cache", ".pytest_cache"})


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


class MutationJournal(Protocol):
    """Told about every mutation before it happens, so it can be undone, and after it succeeded, so undo can
    tell whether anything else changed the path since."""

    def record_before(self, path: Path, action: str) -> None: ...

    def record_after(self, path: Path) -> None: ...


@dataclass
class LedgerEntry:
    sha256: str
    text: str


@dataclass
class ReadLedger:
    """What the model last saw of each file (by real path): the bytes' hash and the decoded text."""

    entries: dict[Path, LedgerEntry] = field(default_factory=dict)

    def record(self, tf: TextFile) -> None:
        self.entries[tf.path] = LedgerEntry(tf.sha256, tf.text)

    def forget(self, path: Path) -> None:
        self.entries.pop(path, None)

    def clear(self) -> None:
        self.entries.clear()

    def has_read(self, path: Path) -> bool:
        return path in self.entries


class Workspace:
    """A workspace root with its limits, read ledger and optional mutation journal."""

    def __init__(
        self,
        root: Path,
        *,
        max_file_size_bytes: int = 1_048_576,
        journal: MutationJournal | None = None,
    ) -> None:
        self.root = root.resolve()
        self.max_file_size_bytes = max_file_size_bytes
        self.journal = journal
        self.ledger = ReadLedger()

    # ---- paths -------------------------------------------------------------------------------------

    def display(self, path: Path) -> str:
        """The path as the model should write it: relative to the root, with `/`."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return str(path)
        return rel.as_posix() or "."

    def contains(self, path: Path) -> bool:
        """True when `path` (already absolute and normalised) is the root or below it."""
        return contains(self.root, path)

    def resolve(self, user_path: str, *, must_exist: bool = False) -> Path:
        """The real, contained path for a model-supplied path, or a ToolError saying exactly why not."""
        if not user_path or not user_path.strip():
            raise ToolError(ErrorCode.INVALID_PATH, "the path is empty")
        if "\x00" in user_path:
            raise ToolError(ErrorCode.INVALID_PATH, f"the path {user_path!r} contains a NUL byte")
        if user_path.startswith("~"):
            raise ToolError(
                ErrorCode.INVALID_PATH,
                f"the path {user_path!r} starts with '~'; home folders are not expanded and lie outside the workspace",
            )
        located = locate(self.root, user_path)
        lexical, real = located.lexical, located.real
        if located.written is None and not located.real_inside:
            raise ToolError(
                ErrorCode.OUTSIDE_WORKSPACE,
                f"{user_path!r} resolves to {lexical}, outside the workspace {self.root}",
            )
        if not located.real_inside:
            raise ToolError(
                ErrorCode.SYMLINK_ESCAPE,
                f"{user_path!r} goes through a symbolic link to {real}, outside the workspace {self.root}",
            )
        if must_exist and not os.path.lexists(real):
            raise self.not_found(user_path, real)
        return real

    def not_found(self, user_path: str, real: Path) -> ToolError:
        misses = self.near_misses(real)
        detail = ("Did you mean: " + ", ".join(misses)) if misses else ""
        return ToolError(ErrorCode.NOT_FOUND, f"{user_path!r} does not exist", detail=detail)

    def near_misses(self, missing: Path, limit: int = 3) -> list[str]:
        """Up to `limit` existing paths that look like the missing one: similar names in the nearest existing
        parent folder first, then files of the same name elsewhere in the tree."""
        found: list[str] = []
        parent = missing.parent
        while not parent.is_dir() and self.contains(parent) and parent != self.root:
            parent = parent.parent
        if parent.is_dir() and self.contains(parent):
            try:
                names = [entry.name for entry in os.scandir(parent)]
            except OSError:
                names = []
            for name in difflib.get_close_matches(missing.name, names, n=limit, cutoff=0.6):
                found.append(self.display(parent / name))
        for path in self._walk_files(limit=_NEAR_MISS_WALK_LIMIT):
            if len(found) >= limit:
                break
            if path.name == missing.name and self.display(path) not in found:
                found.append(self.display(path))
        return found[:limit]

    def _walk_files(self, limit: int) -> Iterator[Path]:
        seen = 0
        stack = [self.root]
        while stack and seen < limit:
            folder = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                seen += 1
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in _SKIP_DIRS:
                        stack.append(Path(entry.path))
                else:
                    yield Path(entry.path)

    def is_protected(self, real: Path) -> bool:
        """The root itself and anything under .git/ are never changed or deleted by tools."""
        if real == self.root:
            return True
        return ".git" in real.relative_to(self.root).parts

    def require_unprotected(self, real: Path, user_path: str) -> None:
        if self.is_protected(real):
            what = "the workspace root" if real == self.root else "inside .git/"
            raise ToolError(ErrorCode.PROTECTED_PATH, f"{user_path!r} is {what}, which tools never change")

    # ---- reading -----------------------------------------------------------------------------------

    def read_text(self, user_path: str) -> TextFile:
        """Read and decode a text file inside the workspace (size and binary checks included)."""
        real = self.resolve(user_path, must_exist=True)
        if real.is_dir():
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory, not a file")
        try:
            fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise _io_error(user_path, exc) from None
        with os.fdopen(fd, "rb") as fh:
            # Re-check containment on the opened file itself: a link swapped in after resolve() is caught.
            opened = Path(os.path.realpath(f"/proc/self/fd/{fd}")) if os.path.exists("/proc/self/fd") else real
            if not self.contains(opened):
                raise ToolError(ErrorCode.SYMLINK_ESCAPE, f"{user_path!r} now points outside the workspace")
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise ToolError(ErrorCode.IO_ERROR, f"{user_path!r} is not a regular file")
            if info.st_size > self.max_file_size_bytes:
                raise ToolError(
                    ErrorCode.FILE_TOO_LARGE,
                    f"{user_path!r} is {info.st_size} bytes, over the limit of {self.max_file_size_bytes} bytes",
                )
            raw = fh.read(self.max_file_size_bytes + 1)
        text, fmt = decode_text(raw, repr(user_path))
        return TextFile(
            path=real,
            text=text,
            encoding=fmt.encoding,
            bom=fmt.bom,
            newline=fmt.newline,
            mode=stat.S_IMODE(info.st_mode),
            sha256=sha256_bytes(raw),
            size=len(raw),
        )

    def require_fresh(self, user_path: str, real: Path) -> TextFile:
        """The file's current content, provided the model read it and nothing changed it since."""
        entry = self.ledger.entries.get(real)
        if entry is None:
            raise ToolError(ErrorCode.NOT_READ, f"{user_path!r} has not been read in this session")
        current = self.read_text(user_path)
        if current.sha256 != entry.sha256:
            raise ToolError(
                ErrorCode.STALE_READ,
                f"{user_path!r} changed on disk since it was last read",
                detail=short_diff(entry.text, current.text, self.display(real)),
            )
        return current

    # ---- writing -----------------------------------------------------------------------------------

    def write_text(self, user_path: str, text: str, *, like: TextFile | None = None) -> TextFile:
        """Atomically write text, in the format of `like` (the file it replaces) or as plain UTF-8/LF.

        `text` is in decoded form: for a CRLF file each "\n" becomes "\r\n" on disk.

        The ledger is updated to what was written, so our own edits never count as outside changes.
        """
        real = self.resolve(user_path)
        self.require_unprotected(real, user_path)
        fmt = TextFormat(like.encoding, like.bom, like.newline) if like else TextFormat()
        try:
            data = encode_text(text, fmt)
        except UnicodeEncodeError as exc:
            raise ToolError(
                ErrorCode.INVALID_ARGUMENTS, f"the content cannot be encoded as {fmt.encoding}: {exc}"
            ) from None
        if len(data) > self.max_file_size_bytes:
            raise ToolError(
                ErrorCode.FILE_TOO_LARGE,
                f"the new content is {len(data)} bytes, over the limit of {self.max_file_size_bytes} bytes",
            )
        mode = like.mode if like else None
        if mode is None and real.exists():
            mode = stat.S_IMODE(real.stat().st_mode)
        self.make_parents(real, user_path)
        if self.journal is not None:
            self.journal.record_before(real, "write")
        try:
            atomic_write_bytes(real, data, mode)
        except OSError as exc:
            raise _io_error(user_path, exc) from None
        if self.journal is not None:
            self.journal.record_after(real)
        written = TextFile(
            path=real,
            text=text,
            encoding=fmt.encoding,
            bom=fmt.bom,
            newline=fmt.newline,
            mode=mode if mode is not None else 0o666 & ~_UMASK,
            sha256=sha256_bytes(data),
            size=len(data),
        )
        self.ledger.record(written)
        return written

    def make_parents(self, real: Path, user_path: str) -> None:
        """Create the missing parent folders of `real` (each one journalled), refusing files in the way."""
        missing: list[Path] = []
        parent = real.parent
        while not parent.exists():
            missing.append(parent)
            parent = parent.parent
        if not parent.is_dir():
            raise ToolError(
                ErrorCode.NOT_A_DIRECTORY, f"{self.display(parent)!r} is a file, so {user_path!r} cannot be created"
            )
        for folder in reversed(missing):
            self.make_dir(folder, user_path)

    def make_dir(self, real: Path, user_path: str) -> bool:
        """Create one folder (parents must exist); False when it already existed."""
        if real.is_dir():
            return False
        if real.exists():
            raise ToolError(ErrorCode.NOT_A_DIRECTORY, f"{self.display(real)!r} exists and is a file")
        if self.journal is not None:
            self.journal.record_before(real, "mkdir")
        try:
            real.mkdir()
        except OSError as exc:
            raise _io_error(user_path, exc) from None
        if self.journal is not None:
            self.journal.record_after(real)
        return True

    def delete_file(self, user_path: str) -> tuple[Path, int]:
        """Delete one file. A symbolic link is removed itself, never its target."""
        link = self._link_entry(user_path)
        real = link if link is not None else self.resolve(user_path, must_exist=True)
        self.require_unprotected(real, user_path)
        if link is None and real.is_dir():
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory; delete_file removes files only")
        size = real.lstat().st_size
        if self.journal is not None:
            self.journal.record_before(real, "delete")
        try:
            real.unlink()
        except OSError as exc:
            raise _io_error(user_path, exc) from None
        if self.journal is not None:
            self.journal.record_after(real)
        self.ledger.forget(real)
        return real, size

    def _link_entry(self, user_path: str) -> Path | None:
        """The contained path of `user_path` itself when it is a symbolic link (its folder resolved), else None."""
        parent_user = os.path.dirname(user_path.rstrip("/")) or "."
        lexical = self.resolve(parent_user) / os.path.basename(user_path.rstrip("/"))
        return lexical if lexical.is_symlink() and self.contains(lexical) else None


def atomic_write_bytes(path: Path, data: bytes, mode: int | None) -> None:
    """Write `data` to `path` so that readers see the old bytes or the new, never a mix.

    Temp file in the same folder (same filesystem, so rename is atomic), fsync, chmod, rename, fsync folder.
    """
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".sneakycode-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    with suppress(OSError):
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)



def _io_error(user_path: str, exc: OSError) -> ToolError:
    return ToolError(ErrorCode.IO_ERROR, f"{user_path!r}: {exc.strerror or exc}")
