"""Undo: put back what a session's tools changed, newest first, never over anyone else's work.

A path is restored only while it is exactly what the journalled mutation left; a path changed since then
(by the user, an editor, a formatter) is refused with the reason unless --force. Every check runs before
anything is restored, so a refusal restores nothing. Restored entries are marked undone rather than
journalled again, so running undo twice goes further back instead of redoing. The REPL's /undo calls
`undo_session` too.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from sneakycode.session.journal import Journal, JournalEntry, PathState, capture
from sneakycode.workspace.files import Workspace, atomic_write_bytes


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


def undo_session(session_dir: Path, session_id: str, root: Path, *, steps: int | None, force: bool) -> UndoReport:
    """Revert the newest `steps` not-yet-undone mutations of a session (all when None)."""
    journal = Journal(session_dir)
    workspace = Workspace(root)
    pending = [entry for entry in journal.entries() if not entry.undone]
    chosen = pending[-steps:] if steps else pending
    report = UndoReport(session_id, remaining=len(pending) - len(chosen))
    todo: list[JournalEntry] = []
    checked: set[Path] = set()
    for entry in reversed(chosen):
        shown = workspace.display(entry.path)
        if not _inside(workspace, entry.path):
            report.failed.append(f"{shown}: not restored, it now lies outside the workspace (through a symbolic link)")
            continue
        todo.append(entry)
        if entry.path in checked:
            continue
        checked.add(entry.path)
        actual, _ = capture(entry.path)
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
        except OSError as exc:
            report.failed.append(f"{workspace.display(entry.path)}: {exc.strerror or exc}")
            break
        journal.mark_undone(entry.seq)
    return report


def _inside(workspace: Workspace, path: Path) -> bool:
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    return workspace.contains(Path(os.path.realpath(parent))) and workspace.contains(path)


def _restore(entry: JournalEntry, workspace: Workspace) -> str:
    """Put one path back to its state before the entry; return what was done, in words."""
    path, before = entry.path, entry.before
    shown = workspace.display(path)
    actual, _ = capture(path)
    if _same(actual, before):
        return f"{shown}: already as it was before the change at {_at(entry)}"
    if before.kind == "absent":
        if actual.kind == "dir":
            if any(path.iterdir()):
                return f"kept folder {shown}/ (created at {_at(entry)}): it holds files SneakyCode did not create"
            path.rmdir()
            return f"removed folder {shown}/ (created at {_at(entry)})"
        path.unlink()
        return f"removed {shown} (created at {_at(entry)})"
    if before.kind == "dir":
        path.mkdir(parents=True, exist_ok=True)
        return f"recreated folder {shown}/"
    path.parent.mkdir(parents=True, exist_ok=True)
    if actual.kind == "dir":
        raise IsADirectoryError(21, f"{shown} is now a folder; move it away to restore the file")
    if before.kind == "link":
        if actual.kind != "absent":
            path.unlink()
        os.symlink(before.target or "", path)
        return f"recreated link {shown} -> {before.target}"
    data = entry.before_bytes()
    if data is None:
        raise FileNotFoundError(2, f"the journal lost the saved content of {shown}")
    atomic_write_bytes(path, data, before.mode)
    verb = "recreated" if actual.kind == "absent" else "restored"
    return f"{verb} {shown} as it was before the change at {_at(entry)}"
