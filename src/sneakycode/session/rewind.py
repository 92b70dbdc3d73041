"""Rewind: put the workspace (and optionally the conversation) back to a checkpoint taken before a turn.

Files. A snapshot of the workspace is taken now and compared with the checkpoint: every path that differs
is written back from the checkpoint (recreated if it was deleted, its bytes, executable bit or link target
restored), and every path the checkpoint does not hold is removed (with folders left empty by that). A path
is *changed by someone else* when it differs between the latest snapshot SneakyCode took (the end of the
last run, or the last rewind) and now: SneakyCode did not leave it that way. Such paths are listed and kept,
unless `force`, which makes the workspace exactly the checkpoint. Ignored files, files over
max_file_size_bytes, nested repositories and unreadable files are in no snapshot (at the checkpoint or now),
so rewind never writes or deletes them; the report names them. A file the checkpoint holds that is in no
snapshot now (a folder git cannot list), and, with `force`, anything else in no snapshot now that was not
left out at the checkpoint too, is *left*: the rewind did not do all it was asked, and says so (`ok` is False).

Every write and removal walks from the workspace root's descriptor without following links (the file
tools' anchored walk, workspace/anchored.py): a folder on the way swapped for a link, even mid-rewind, stops
that one path with a note, never a write or removal outside; the rest of the rewind goes on.

Conversation. The transcript goes back to just before the turn (see transcript.rewind_transcript); the
checkpoints of that turn and later ones are forgotten, because the turns after it will be numbered again.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from sneakycode.errors import CheckpointError
from sneakycode.session.checkpoints import (
    CheckpointRecord,
    append_record,
    read_records,
    visible_checkpoints,
)
from sneakycode.session.shadow_git import EMPTY_MODE, Change, ShadowRepo, Snapshot
from sneakycode.session.transcript import SavedSession, rewind_transcript
from sneakycode.workspace.anchored import (
    NEW_FILE_MODE,
    PathChanged,
    lstat_at,
    parent_folder,
    remove_empty_folders,
    symlink_at,
    write_at,
)
from sneakycode.workspace.paths import escaped

_GITLINK = "160000"
_SYMLINK = "120000"


@dataclass
class RewindReport:
    """What a rewind did, line by line, for the terminal or the REPL."""

    session_id: str
    turn: int
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    kept_paths: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # what the checkpoint holds (or, forced, lacks) but is still here
    conversation: SavedSession | None = None

    @property
    def ok(self) -> bool:
        """Whether the files are as asked: nothing kept, failed or left as it was."""
        return not self.kept and not self.failed and not self.left

    def lines(self) -> list[str]:
        out = [f"Rewound session {self.session_id} to before turn {self.turn}:"]
        out += [f"  {line}" for line in self.restored]
        if not self.restored and self.conversation is None:
            out.append("  the files were already as they were at that checkpoint")
        if self.conversation is not None:
            out.append(f"  conversation: {len(self.conversation.messages)} messages kept; --continue resumes there")
        out += [f"  note: {line}" for line in self.notes]
        out += [f"  FAILED: {line}" for line in self.failed]
        if self.left:
            out.append("NOT restored, because no snapshot holds them as they are now (make them readable, or move "
                       "them away, and rewind again):")  # fmt: skip
            out += [f"  {line}" for line in self.left]
        if self.kept:
            out.append("Kept, because they changed after SneakyCode last left them (`--force` restores them too):")
            out += [f"  {line}" for line in self.kept]
        return out


def choose_checkpoint(records: list[CheckpointRecord], turn: int | None) -> CheckpointRecord:
    """The checkpoint for `turn`: the first one taken at or after it (the turns between changed nothing),
    the last one when no turn is given."""
    visible = visible_checkpoints(records)
    if not visible:
        raise CheckpointError("this session has no checkpoints: no turn of it could change files")
    if turn is None:
        return visible[-1]
    for record in visible:
        if record.turn >= turn:
            return record
    turns = ", ".join(str(record.turn) for record in visible)
    raise CheckpointError(f"no checkpoint at or after turn {turn}; there are checkpoints before turns {turns}")


def rewind_session(
    session_dir: Path,
    session_id: str,
    workspace: Path,
    *,
    turn: int | None,
    files: bool = True,
    conversation: bool = True,
    force: bool = False,
    max_file_size: int,
) -> RewindReport:
    """Rewind a session's files and/or conversation to before `turn` (default: the last checkpoint)."""
    records = read_records(session_dir)
    target = choose_checkpoint(records, turn) if files or turn is None else None
    turn = turn if turn is not None else target.turn if target is not None else 0
    report = RewindReport(session_id, turn)
    if target is not None and files:
        repo = ShadowRepo.find(session_dir, workspace)
        latest = records[-1]
        now = repo.snapshot("before rewind", max_file_size, latest.snapshot)
        _restore(repo, target, latest, now, force, report)
        after = repo.snapshot(f"rewound to turn {turn}", max_file_size, now)
        append_record(session_dir, CheckpointRecord(
            "rewind", turn, after.commit, after.tree, time.time(), after.skipped, conversation, report.kept_paths,
            after.left_out,
        ))
    if conversation:
        report.conversation = rewind_transcript(session_dir, turn)
        if not files and records:
            last = records[-1]
            append_record(session_dir, CheckpointRecord(
                "rewind", turn, last.commit, last.tree, time.time(), last.skipped, True, last.foreign, last.left_out
            ))
    return report


def list_checkpoints(session_dir: Path, workspace: Path) -> list[tuple[CheckpointRecord, list[str] | str]]:
    """Each visible checkpoint with the files its turn changed, or why that is not known."""
    records = read_records(session_dir)
    visible = visible_checkpoints(records)
    if not visible:
        return []
    repo = ShadowRepo.find(session_dir, workspace)
    listed: list[tuple[CheckpointRecord, list[str] | str]] = []
    for record in visible:
        later = records[records.index(record) + 1 :]
        if any(r.kind == "rewind" and r.conversation and r.turn == record.turn for r in later):
            listed.append((record, "(the conversation was rewound to before this turn)"))
        elif not later:
            listed.append((record, "(the turn did not finish)"))
        else:
            listed.append((record, [change.path for change in repo.changes(record.commit, later[0].commit)]))
    return listed


def _restore(
    repo: ShadowRepo, target: CheckpointRecord, latest: CheckpointRecord, now: Snapshot, force: bool,
    report: RewindReport,
) -> None:
    others = set(latest.foreign)
    if latest.tree != now.tree:
        others.update(change.path for change in repo.changes(latest.commit, now.commit))
    then = target.snapshot
    for path, why in sorted(now.left_out.items()):
        if force and then.left_out_reason(path) is None:  # made or changed since the checkpoint: not undone
            report.left.append(f"{escaped(path)}: left as it is, in no snapshot now: {why}")
        else:
            report.notes.append(f"{escaped(path)}: left as it is, in no snapshot: {why}")
    for path, why in sorted(then.left_out.items()):
        if path not in now.left_out:
            report.notes.append(f"{escaped(path)}: left as it is, in no snapshot at the checkpoint: {why} then")
    removals: list[Change] = []
    writes: list[Change] = []
    for change in repo.changes(target.commit, now.commit):
        # A path in no snapshot on either side differs only because git could not hold it: rewinding it
        # would delete a file that was merely too large or unreadable then, or write over one that is now.
        if change.path in now.skipped:
            report.notes.append(
                f"{escaped(change.path)}: kept, it is larger than max_file_size_bytes and in no snapshot"
            )
        elif change.path in then.skipped:
            report.notes.append(
                f"{escaped(change.path)}: kept, it was larger than max_file_size_bytes at the checkpoint, which does "
                "not hold it"
            )
        elif (unseen := now.left_out_reason(change.path)) is not None and change.old_mode != EMPTY_MODE:
            report.left.append(f"{escaped(change.path)}: the checkpoint holds it, not put back: {unseen}")
        elif now.left_out_reason(change.path) or then.left_out_reason(change.path):
            pass  # noted above, once for the whole folder
        elif _GITLINK in (change.old_mode, change.new_mode):  # a checkpoint from before nested repos were left out
            report.notes.append(f"{escaped(change.path)}/: kept, a nested git repository is not snapshotted")
        elif change.path in others and not force:
            report.kept.append(f"{escaped(change.path)}: {_what_changed(change)}")
            report.kept_paths.append(change.path)
        else:
            (removals if change.old_mode == EMPTY_MODE else writes).append(change)
    # Deepest first, so a folder that replaced a file is emptied before the file comes back.
    for change in sorted(removals, key=lambda c: c.path.count("/"), reverse=True):
        _attempt(report, change.path, "removed", partial(_remove, repo.workspace, change.path))
    for change in writes:
        _attempt(report, change.path, "restored", partial(_write, repo, change))


def _attempt(report: RewindReport, path: str, verb: str, action: Callable[[], str]) -> None:
    shown = escaped(path)
    try:
        report.restored.append(action())
    except PathChanged as exc:
        report.failed.append(
            f"{shown}: not {verb}, {escaped(exc.component)} is no longer a folder (a symbolic link now, which "
            "rewind does not follow); nothing outside the workspace was touched"
        )
    except NotADirectoryError as exc:
        report.failed.append(f"{shown}: not {verb}, {escaped(str(exc.filename))} is a file now, not a folder")
    except (OSError, CheckpointError, ValueError) as exc:
        report.failed.append(f"{shown}: not {verb}, {getattr(exc, 'strerror', None) or exc}")


def _what_changed(change: Change) -> str:
    if change.new_mode == EMPTY_MODE:
        return "deleted since"
    if change.old_mode == EMPTY_MODE:
        return "created since"
    return "changed since"


def _remove(root: Path, relative: str) -> str:
    """Remove what is at `relative` (a link itself, never its target), then the folders that leaves empty."""
    try:
        with parent_folder(root, relative) as (folder, name):
            info = lstat_at(folder, name)
            if info is not None and stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, f"{escaped(relative)} is now a folder; move it away to rewind")
            if info is not None:
                os.unlink(name, dir_fd=folder)
    except FileNotFoundError:  # a folder above it is gone already, and it with it
        pass
    remove_empty_folders(root, relative.split("/")[:-1])
    return f"removed {escaped(relative)} (created after the checkpoint)"


def _write(repo: ShadowRepo, change: Change) -> str:
    """Put the checkpoint's file or link back at `change.path`, creating the folders it needs on the way."""
    data = repo.blob(change.old_blob)
    with parent_folder(repo.workspace, change.path, create=True) as (folder, name):
        info = lstat_at(folder, name)
        if info is not None and stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{escaped(change.path)} is now a folder; move it away to rewind")
        if change.old_mode == _SYMLINK:
            symlink_at(folder, name, os.fsdecode(data))
        else:  # renamed over what is there: a link in the way is replaced, never written through
            write_at(folder, name, data, _mode_for(info, executable=change.old_mode == "100755"))
    return f"{'restored' if info is not None else 'recreated'} {escaped(change.path)}"


def _mode_for(info: os.stat_result | None, *, executable: bool) -> int:
    """Git keeps only the executable bit: the rest of the mode stays what the file has now (what a new file
    gets, under the umask, when there is none)."""
    mode = stat.S_IMODE(info.st_mode) if info is not None and stat.S_ISREG(info.st_mode) else NEW_FILE_MODE
    return mode | ((mode & 0o444) >> 2) if executable else mode & ~0o111
