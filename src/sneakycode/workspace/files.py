"""The only place that turns a model-supplied path into a real file, and the only place that writes files.

Containment is decided on real paths (symlinks resolved) right before each use, never by string prefix:
`/work/proj-other` is not inside `/work/proj`. Then the file is used through folder descriptors reached
from the root without following links (anchored.py), so a folder swapped for a link to outside in between
stops the tool instead of redirecting it. Only regular files are opened for reading, without blocking
(a FIFO or a device is refused, not waited on), and never more than the size limit is read. Text is
decoded on reading and written back in the same format (textfiles.py: encoding, BOM and line-ending style
are kept). Writes go to a temporary file in the same folder, are fsynced and renamed over the target, so a
crash leaves the old file whole. The read ledger remembers what the model last saw of each file, so edits
of unseen or changed files are refused; the mutation journal (when set) is told about every change before
it happens, for undo. The root, `.git/` and `.sneakycode/` are never changed (protected.py).

Extra roots (`--add-dir`, checked once by roots.py) are part of the workspace for every tool: a path inside
one is contained by the same rules, reached from that root's descriptor, and protected the same way.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sneakycode.config.files import NotRegularFile, kind_of, open_regular
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.workspace.anchored import (
    NEW_FILE_MODE,
    PathChanged,
    atomic_write_bytes,
    lstat_at,
    open_folder,
    write_at,
)
from sneakycode.workspace.file_errors import closing_fd, io_error, not_regular, read_only, short
from sneakycode.workspace.ledger import LedgerEntry, MutationJournal, ReadLedger, SinceRead
from sneakycode.workspace.near_misses import near_misses
from sneakycode.workspace.paths import escaped, locate, root_of, written_problem
from sneakycode.workspace.protected import protection
from sneakycode.workspace.textfiles import TextFile, TextFormat, decode_text, encode_text, sha256_bytes, short_diff
from sneakycode.workspace.textfiles import as_held as as_the_editor_holds_it

__all__ = [
    "LedgerEntry",
    "MutationJournal",
    "OpenFile",
    "ReadLedger",
    "SinceRead",
    "Workspace",
    "atomic_write_bytes",
]


@dataclass
class OpenFile:
    """A regular file opened for reading through its checked folder: the handle, its fstat and real path."""

    fh: BinaryIO
    info: os.stat_result
    path: Path


class Workspace:
    """A workspace root with its limits, read ledger and optional mutation journal."""

    def __init__(
        self,
        root: Path,
        *,
        max_file_size_bytes: int = 1_048_576,
        journal: MutationJournal | None = None,
        extra_roots: Sequence[Path] = (),
    ) -> None:
        self.root = root.resolve()
        # Checked and resolved once by roots.extra_roots (existing folders, no protected place among them).
        self.extra_roots = tuple(extra_roots)
        self.roots = (self.root, *self.extra_roots)
        self.max_file_size_bytes = max_file_size_bytes
        self.journal = journal
        self.ledger = ReadLedger()
        # An editor face (`sneakycode acp`): a file's real path -> its text in the editor, or None (textfiles.as_held).
        self.editor_text: Callable[[Path], str | None] | None = None
        # Real paths protected for the current run only, with why (a goal's check files): see workspace/protected.py.
        self.held: dict[Path, str] = {}

    # ---- paths -------------------------------------------------------------------------------------

    def display(self, path: Path) -> str:
        """The path as the model should write it: relative to the root, with `/`; bytes that are not UTF-8
        shown escaped (`bad\\xff.txt`)."""
        try:
            rel = path.relative_to(self.root)
        except ValueError:
            return escaped(str(path))
        return escaped(rel.as_posix() or ".")

    def contains(self, path: Path) -> bool:
        """True when `path` (already absolute and normalised) is a root or below one."""
        return root_of(self.roots, path) is not None

    def root_of(self, real: Path) -> Path:
        """The root (the workspace's, or an extra one) that holds `real`, a path `resolve` returned."""
        return root_of(self.roots, real) or self.root

    def where(self) -> str:
        """The workspace as an error message names it: its root and the extra roots."""
        if not self.extra_roots:
            return f"the workspace {self.root}"
        return f"the workspace {self.root} and the added folders ({', '.join(map(str, self.extra_roots))})"

    def check_written(self, user_path: str) -> None:
        """Refuse what no file system can use, before anything looks at the disk."""
        if not user_path or not user_path.strip():
            raise ToolError(ErrorCode.INVALID_PATH, "the path is empty")
        if "\x00" in user_path:
            raise ToolError(ErrorCode.INVALID_PATH, f"the path {short(user_path)} contains a NUL byte")
        if user_path.startswith("~"):
            raise ToolError(
                ErrorCode.INVALID_PATH,
                f"the path {user_path!r} starts with '~'; home folders are not expanded and lie outside the workspace",
            )
        problem = written_problem(user_path, Path(os.path.normpath(self.root / user_path)))
        if problem is not None:
            raise ToolError(problem.code, f"the path {short(user_path)} {problem.text}")

    def resolve(self, user_path: str, *, must_exist: bool = False) -> Path:
        """The real, contained path for a model-supplied path, or a ToolError saying exactly why not."""
        self.check_written(user_path)
        located = locate(self.root, user_path, self.extra_roots)
        if located.problem is not None:
            raise ToolError(located.problem.code, f"the path {short(user_path)} {located.problem.text}")
        lexical, real = located.lexical, located.real
        if located.written is None and not located.real_inside:
            raise ToolError(
                ErrorCode.OUTSIDE_WORKSPACE,
                f"{user_path!r} resolves to {lexical}, outside {self.where()}",
            )
        if not located.real_inside:
            raise ToolError(
                ErrorCode.SYMLINK_ESCAPE,
                f"{user_path!r} goes through a symbolic link to {real}, outside {self.where()}",
            )
        if must_exist and not os.path.lexists(real):
            raise self.not_found(user_path, real)
        return real

    def not_found(self, user_path: str, real: Path) -> ToolError:
        misses = self.near_misses(real)
        detail = ("Did you mean: " + ", ".join(misses)) if misses else ""
        return ToolError(ErrorCode.NOT_FOUND, f"{user_path!r} does not exist", detail=detail)

    def near_misses(self, missing: Path, limit: int = 3) -> list[str]:
        """Up to `limit` existing paths that look like the missing one (see near_misses.py)."""
        return [self.display(path) for path in near_misses(self.root_of(missing), missing, limit)]

    def is_protected(self, real: Path) -> bool:
        """The roots themselves and anything under .git/ or .sneakycode/ are never changed or deleted by tools."""
        return protection(self.roots, real, "", self.held) is not None

    def require_unprotected(self, real: Path, user_path: str) -> None:
        refusal = protection(self.roots, real, user_path, self.held)
        if refusal is not None:
            raise refusal

    # ---- folders, reached without following links --------------------------------------------------

    def _open_folder(self, folder: Path, user_path: str, *, create: bool = False) -> int:
        """A descriptor of `folder` (a real path inside a root), walked from the root that holds it, its missing
        parts created (and journalled) when `create`; a ToolError when a part is a file, became a link, or
        cannot be reached."""
        root = self.root_of(folder)
        parts = folder.relative_to(root).parts

        def make(dir_fd: int, index: int) -> None:
            self._mkdir_at(dir_fd, root.joinpath(*parts[: index + 1]))

        try:
            return open_folder(root, parts, make if create else None)
        except PathChanged as exc:
            raise ToolError(
                ErrorCode.PATH_CHANGED,
                f"{user_path!r} changed while in use: {escaped(exc.component)!r} was a folder and is not one "
                "now (a symbolic link is not followed)",
            ) from None
        except NotADirectoryError as exc:
            verb = "created" if create else "reached"
            raise ToolError(
                ErrorCode.NOT_A_DIRECTORY,
                f"{escaped(str(exc.filename))!r} is a file, so {user_path!r} cannot be {verb}",
            ) from None
        except FileNotFoundError:
            raise self.not_found(user_path, folder) from None
        except OSError as exc:
            raise io_error(user_path, exc) from None

    def _mkdir_at(self, dir_fd: int, real: Path) -> None:
        if self.journal is not None:
            self.journal.record_before(real, "mkdir", dir_fd)
        os.mkdir(real.name, dir_fd=dir_fd)
        if self.journal is not None:
            self.journal.record_after(real, dir_fd)

    # ---- reading -----------------------------------------------------------------------------------

    def open_file(self, user_path: str) -> OpenFile:
        """A regular file inside the workspace, opened for reading (never blocking); the caller closes it."""
        real = self.resolve(user_path, must_exist=True)
        if real in self.roots:
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory, not a file")
        with closing_fd(self._open_folder(real.parent, user_path)) as folder:
            try:
                fh, info = open_regular(real.name, dir_fd=folder, follow_symlinks=False)
            except NotRegularFile as exc:
                raise not_regular(user_path, exc.kind) from None
            except FileNotFoundError:
                raise self.not_found(user_path, real) from None
            except OSError as exc:
                raise io_error(user_path, exc) from None
        return OpenFile(fh, info, real)

    def read_text(self, user_path: str) -> TextFile:
        """Read and decode a text file inside the workspace (size and binary checks included)."""
        opened = self.open_file(user_path)
        with opened.fh:
            if opened.info.st_size > self.max_file_size_bytes:
                raise self._too_large(user_path, opened.info.st_size)
            raw = opened.fh.read(self.max_file_size_bytes + 1)
        if len(raw) > self.max_file_size_bytes:
            raise self._too_large(user_path, len(raw))
        text, fmt = decode_text(raw, repr(user_path))
        if self.editor_text is not None:
            held = self.editor_text(opened.path)
            text, raw = as_the_editor_holds_it(held, text, fmt, raw, self.max_file_size_bytes)
        return TextFile(
            path=opened.path,
            text=text,
            encoding=fmt.encoding,
            bom=fmt.bom,
            newline=fmt.newline,
            mode=stat.S_IMODE(opened.info.st_mode),
            sha256=sha256_bytes(raw),
            size=len(raw),
        )

    def _too_large(self, user_path: str, size: int) -> ToolError:
        return ToolError(
            ErrorCode.FILE_TOO_LARGE,
            f"{user_path!r} is {size} bytes, over the limit of {self.max_file_size_bytes} bytes",
        )

    def read_since(self, user_path: str, real: Path) -> SinceRead:
        """The file as the model last saw it and as it is now, provided it may be changed at all (not
        protected, not read-only) and the model read it. Whether an outside change in between is acceptable
        is the caller's to judge: an edit can be merged with it, a whole-file write cannot."""
        self.require_unprotected(real, user_path)
        entry = self.ledger.entries.get(real)
        if entry is None:
            raise ToolError(ErrorCode.NOT_READ, f"{user_path!r} has not been read in this session")
        current = self.read_text(user_path)
        if not current.mode & 0o222:
            raise read_only(user_path, current.mode)
        return SinceRead(entry, current)

    def require_fresh(self, user_path: str, real: Path) -> TextFile:
        """The file's current content, provided read_since allows the change and nothing changed it since."""
        since = self.read_since(user_path, real)
        if since.changed:
            raise ToolError(
                ErrorCode.STALE_READ,
                f"{user_path!r} changed on disk since it was last read",
                detail=short_diff(since.seen.text, since.current.text, self.display(real)),
            )
        return since.current

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
        with closing_fd(self._open_folder(real.parent, user_path, create=True)) as folder:
            mode = self._replaceable_mode(folder, real, user_path)
            if like is not None:
                mode = like.mode
            if self.journal is not None:
                self.journal.record_before(real, "write", folder)
            try:
                write_at(folder, real.name, data, mode if mode is not None else NEW_FILE_MODE)
            except OSError as exc:
                raise io_error(user_path, exc) from None
            if self.journal is not None:
                self.journal.record_after(real, folder)
        written = TextFile(
            path=real,
            text=text,
            encoding=fmt.encoding,
            bom=fmt.bom,
            newline=fmt.newline,
            mode=mode if mode is not None else NEW_FILE_MODE,
            sha256=sha256_bytes(data),
            size=len(data),
        )
        self.ledger.record(written)
        return written

    def _replaceable_mode(self, folder: int, real: Path, user_path: str) -> int | None:
        """The mode of the file about to be replaced (None when there is none), or why it must stay."""
        try:
            info = lstat_at(folder, real.name)
        except OSError as exc:
            raise io_error(user_path, exc) from None
        if info is None:
            return None
        if stat.S_ISDIR(info.st_mode):
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory; give a file path")
        if stat.S_ISLNK(info.st_mode):
            raise ToolError(
                ErrorCode.PATH_CHANGED, f"{user_path!r} changed while in use: it is now a symbolic link"
            )
        if not stat.S_ISREG(info.st_mode):
            raise not_regular(user_path, kind_of(info.st_mode), "replaced")
        mode = stat.S_IMODE(info.st_mode)
        if not mode & 0o222 or not os.access(real.name, os.W_OK, dir_fd=folder):
            raise read_only(user_path, mode)
        return mode

    def make_dirs(self, user_path: str) -> bool:
        """`mkdir -p` inside the workspace, each created folder journalled; False when it already existed."""
        real = self.resolve(user_path)
        self.require_unprotected(real, user_path)
        existed = os.path.isdir(real)
        with closing_fd(self._open_folder(real, user_path, create=True)):
            pass
        return not existed

    def delete_file(self, user_path: str) -> tuple[Path, int]:
        """Delete one file. A symbolic link is removed itself, never its target."""
        self.check_written(user_path)
        folder_path, name = os.path.split(os.path.normpath(user_path))
        if name in ("", ".", ".."):
            real = self.resolve(user_path, must_exist=True)
            self.require_unprotected(real, user_path)
            raise ToolError(ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory; delete_file removes files only")
        real = self.resolve(folder_path or ".") / name
        self.require_unprotected(real, user_path)
        with closing_fd(self._open_folder(real.parent, user_path)) as folder:
            info = lstat_at(folder, name)
            if info is None:
                raise self.not_found(user_path, real)
            if stat.S_ISDIR(info.st_mode):
                raise ToolError(
                    ErrorCode.IS_DIRECTORY, f"{user_path!r} is a directory; delete_file removes files only"
                )
            if self.journal is not None:
                self.journal.record_before(real, "delete", folder)
            try:
                os.unlink(name, dir_fd=folder)
            except OSError as exc:
                raise io_error(user_path, exc) from None
            if self.journal is not None:
                self.journal.record_after(real, folder)
        self.ledger.forget(real)
        return real, info.st_size
