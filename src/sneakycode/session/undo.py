"""Undo: put back what a session's tools changed, newest first, never over anyone else's work.

A path is restored only while it is exactly what the journalled mutation left; a path changed since then
(by the user, an editor, a formatter) is refused with the reason unless --force. Every check runs before
anything is restored, so a refusal restores nothing. Restored entries are marked undone rather than
journalled again, so running undo twice goes further back instead of redoing. The REPL's /undo calls
`undo_session` too.

Every check and every restore reaches the path from the workspace root's descriptor without following links
(workspace/anchored.py), as the file tools do: a folder on the way swapped for a link, even mid-undo, stops
that entry with a note and never reads, writes or removes anything outside.
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.session.journal import Journal, JournalEntry, PathState, capture
from sneakycode.workspace.anchored import NEW_FILE_MODE, PathChanged, parent_folder, symlink_at, write_at
from sneakycode.workspace.files import Workspace


@dataclass
class UndoReport:
    """What undo did (or would not do), line by line, for the terminal or the REPL."""

    session_id: str
    restored: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    remaining: int = 0

    @property
    def ok(self) -> bool:
        return not self.refused and not self.failed

    def lines(self) -> list[str]:
        if self.refused:
            return [
                f"Nothing was undone in session {self.session_id}: these files changed after SneakyCode changed them,"
                " and undo would throw those changes away:",
                *(f"  {line}" for line in self.refused),
                *(f"  FAILED: {line}" for line in self.failed),
                "Run `sneakycode undo --force` to restore them anyway.",
            ]
        if not self.restored and not self.failed:
            return [f"Nothing left to undo in session {self.session_id}."]
        out = [f"  {line}" for line in self.restored] + [f"  FAILED: {line}" for line in self.failed]
        out.append(f"Undid {len(self.restored)} change(s) from session {self.session_id}.")
        if self.remaining:
            out.append(f"{self.remaining} older change(s) remain; run `sneakycode undo` again to undo them too.")
        return out


def _same(actual: PathState, expected: PathState) -> bool:
    if actual.kind != expected.kind:
        return False
    if actual.kind == "file":
        return actual.sha256 == expected.sha256 and actual.mode == expected.mode
    return actual.target == expected.target


def _difference(left: PathState, now: PathState) -> str:
    if left.kind != now.kind:
        return f"became {now.describe()} (SneakyCode left {left.describe()})"
    if left.kind == "file" and left.sha256 == now.sha256:
        return f"its permissions changed (from {left.mode:o} to {now.mode:o})" if left.mode and now.mode else "changed"
    return {"file": "its content changed", "link": f"now points to {now.target}"}.get(left.kind, "changed")


def _at(entry: JournalEntry) -> str:
    return time.strftime("%H:%M:%S", time.localtime(entry.time))


def undo_session(session_dir: Path, session_id: str, root: Path, *, steps: int | None, force: bool,
                 extra_roots: Sequence[Path] = ()) -> UndoReport:
    """Revert the newest `steps` not-yet-undone mutations of a session (all when None). A change in an extra
    root (`--add-dir`) is reverted only when that root is given again (`extra_roots`): else it is reported
    as lying outside the workspace, and left alone."""
    journal = Journal(session_dir)
    workspace = Workspace(root, extra_roots=extra_roots)
    pending = [entry for entry in journal.entries() if not entry.undone]
    chosen = pending[-steps:] if steps else pending
    report = UndoReport(session_id, remaining=len(pending) - len(chosen))
    todo: list[JournalEntry] = []
    checked: set[Path] = set()
    for entry in reversed(chosen):
        shown = workspace.display(entry.path)
        try:
            actual = _capture(workspace, entry.path)
        except (OSError, PathChanged, ValueError) as exc:
            report.failed.append(f"{shown}: not restored, {_why(workspace, exc)}")
            continue
        todo.append(entry)
        if entry.path in checked:
            continue
        checked.add(entry.path)
        if _same(actual, entry.before) or (entry.after is not None and _same(actual, entry.after)):
            continue
        if entry.after is None:
            report.refused.append(
                f"{shown}: the change at {_at(entry)} did not finish, and the path is now {actual.describe()}"
            )
        else:
            change = _difference(entry.after, actual)
            report.refused.append(f"{shown}: {change} after SneakyCode's change at {_at(entry)}")
    if report.refused and not force:
        return report
    report.refused.clear()
    for entry in todo:
        try:
            report.restored.append(_restore(entry, workspace))
        except (OSError, PathChanged, ValueError) as exc:
            report.failed.append(f"{workspace.display(entry.path)}: not restored, {_why(workspace, exc)}")
            break
        journal.mark_undone(entry.seq)
    return report


def _relative(workspace: Workspace, path: Path) -> str:
    """The journalled path below the root that holds it, as open_folder walks it; ValueError when it is below
    none of the roots."""
    return path.relative_to(workspace.root_of(path)).as_posix()


def _capture(workspace: Workspace, path: Path) -> PathState:
    """The state of `path` now, looked up in its folder as reached from its root (absent when that is gone)."""
    try:
        with parent_folder(workspace.root_of(path), _relative(workspace, path)) as (folder, _):
            return capture(path, folder)[0]
    except FileNotFoundError:
        return PathState("absent")


def _why(workspace: Workspace, exc: Exception) -> str:
    if isinstance(exc, PathChanged):
        return (
            f"{exc.component} is no longer a folder (a symbolic link now, which undo does not follow); nothing "
            "outside the workspace was touched"
        )
    if isinstance(exc, ValueError):
        return f"it lies outside {workspace.where()}"
    if isinstance(exc, NotADirectoryError):
        return f"{exc.filename} is a file now, not a folder"
    return str(getattr(exc, "strerror", None) or exc)


def _restore(entry: JournalEntry, workspace: Workspace) -> str:
    """Put one path back to its state before the entry; return what was done, in words."""
    before, shown = entry.before, workspace.display(entry.path)
    relative = _relative(workspace, entry.path)
    try:
        # The folders leading to a file, link or folder that comes back are made again if they are gone.
        with parent_folder(workspace.root_of(entry.path), relative, create=before.kind != "absent") as (folder, name):
            return _restore_at(entry, folder, name, shown)
    except FileNotFoundError:
        if before.kind != "absent":
            raise
        return f"{shown}: already as it was before the change at {_at(entry)}"  # its folder is gone too


def _restore_at(entry: JournalEntry, folder: int, name: str, shown: str) -> str:
    before = entry.before
    actual, _ = capture(entry.path, folder)
    if _same(actual, before):
        return f"{shown}: already as it was before the change at {_at(entry)}"
    if before.kind == "absent":
        if actual.kind == "dir":
            try:
                os.rmdir(name, dir_fd=folder)
            except OSError as exc:
                if exc.errno != errno.ENOTEMPTY:
                    raise
                return f"kept folder {shown}/ (created at {_at(entry)}): it holds files SneakyCode did not create"
            return f"removed folder {shown}/ (created at {_at(entry)})"
        os.unlink(name, dir_fd=folder)
        return f"removed {shown} (created at {_at(entry)})"
    if before.kind == "dir":
        if actual.kind != "dir":
            os.mkdir(name, dir_fd=folder)  # FileExistsError when a file took its place
        return f"recreated folder {shown}/"
    if actual.kind == "dir":
        raise IsADirectoryError(errno.EISDIR, f"{shown} is now a folder; move it away to restore the file")
    if before.kind == "link":
        symlink_at(folder, name, before.target or "")
        return f"recreated link {shown} -> {before.target}"
    data = entry.before_bytes()
    if data is None:
        raise FileNotFoundError(errno.ENOENT, f"the journal lost the saved content of {shown}")
    write_at(folder, name, data, before.mode if before.mode is not None else NEW_FILE_MODE)
    verb = "recreated" if actual.kind == "absent" else "restored"
    return f"{verb} {shown} as it was before the change at {_at(entry)}"
