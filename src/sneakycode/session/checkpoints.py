"""Checkpoints: a snapshot of the whole workspace before each agent turn that may change files.

The undo journal records what the file tools change, exactly; a checkpoint also covers what `run_command`
did (a build that deleted a folder, a formatter that rewrote fifty files). Snapshots live in the session's
shadow git repository (shadow_git.py); `<session>/checkpoints.jsonl` lists them, one JSON line each:

- `before`: taken before the first call of turn `turn` that may change files (what `rewind` restores);
- `end`: the workspace as a run that took checkpoints left it, so rewind can tell the agent's changes from
  changes made afterwards by someone else;
- `rewind`: the workspace right after a rewind, with the paths it kept as someone else left them
  (`foreign`); with `conversation` true, the conversation went back to before `turn` too, so the
  checkpoints of later turns are forgotten (their turn numbers will be used again).

Turn numbers count model replies across the whole session (every run of `--continue` goes on counting).
Taking a checkpoint never stops the run. What a snapshot cannot hold (a file over the size limit, a nested
repository, an unreadable file) is left out of it with a notice the first time, and the rest is snapshotted;
only when git is missing or fails as a whole (it cannot start, it times out) do checkpoints turn off for the
session, with the one-line notice.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sneakycode.errors import CheckpointError
from sneakycode.session.shadow_git import ShadowRepo, Snapshot

CHECKPOINTS_FILE = "checkpoints.jsonl"


@dataclass(frozen=True)
class CheckpointRecord:
    """One line of checkpoints.jsonl."""

    kind: str
    turn: int
    commit: str
    tree: str
    time: float
    skipped: list[str] = field(default_factory=list)
    conversation: bool = False
    foreign: list[str] = field(default_factory=list)  # rewind: paths kept as someone else left them
    left_out: dict[str, str] = field(default_factory=dict)  # paths git cannot hold, with the reason

    @property
    def snapshot(self) -> Snapshot:
        return Snapshot(self.commit, self.tree, self.skipped, self.left_out)


def read_records(session_dir: Path) -> list[CheckpointRecord]:
    """Every record of the session, oldest first; a torn last line is skipped."""
    try:
        lines = (session_dir / CHECKPOINTS_FILE).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [record for line in lines if (record := parse_record(line)) is not None]


def parse_record(line: str) -> CheckpointRecord | None:
    """One line of checkpoints.jsonl as a record; None for a line that is not one (torn, foreign)."""
    try:
        record = CheckpointRecord(**json.loads(line))
    except (ValueError, TypeError):
        return None
    return record if isinstance(record.skipped, list) and isinstance(record.left_out, dict) else None


def append_record(session_dir: Path, record: CheckpointRecord) -> None:
    with (session_dir / CHECKPOINTS_FILE).open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(asdict(record)) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def visible_checkpoints(records: list[CheckpointRecord]) -> list[CheckpointRecord]:
    """The `before` checkpoints that still belong to the conversation: a conversation rewind to before turn
    T forgets the checkpoints of later turns, and a new checkpoint of turn T replaces the old one."""
    kept: list[CheckpointRecord] = []
    for record in records:
        if record.kind == "before":
            kept = [earlier for earlier in kept if earlier.turn < record.turn] + [record]
        elif record.kind == "rewind" and record.conversation:
            kept = [earlier for earlier in kept if earlier.turn <= record.turn]
    return kept


class Checkpoints:
    """Takes the checkpoints of one agent session. Its methods never raise: they return a notice instead."""

    def __init__(self, session_dir: Path, workspace: Path, max_file_size: int) -> None:
        self.session_dir = session_dir
        self.workspace = workspace
        self.max_file_size = max_file_size
        self.notice: str | None = None
        self._repo: ShadowRepo | None = None
        self._noted: set[str] = set()
        try:
            self._repo = ShadowRepo.find(session_dir, workspace)
        except CheckpointError as exc:
            self._off(exc)

    @property
    def enabled(self) -> bool:
        return self._repo is not None

    def before_turn(self, turn: int) -> str | None:
        """Snapshot the workspace before turn `turn` changes it (once per turn); a notice for the user, or None."""
        return self._take("before", turn)

    def end_of_run(self, turn: int) -> str | None:
        """Snapshot what a run that took checkpoints left: the baseline for telling its changes from anyone
        else's."""
        return self._take("end", turn)

    def _take(self, kind: str, turn: int) -> str | None:
        if self._repo is None:
            return None
        records = read_records(self.session_dir)
        latest = records[-1] if records else None
        last_before = latest.turn if latest is not None and latest.kind == "before" else None
        # One `before` per turn; an `end` only after a `before` (a run that changed nothing needs no baseline).
        if (kind == "end" and last_before is None) or (kind == "before" and last_before == turn):
            return None
        parent = latest.snapshot if latest else None
        try:
            taken = self._repo.snapshot(f"{kind} turn {turn}", self.max_file_size, parent)
        except (CheckpointError, OSError) as exc:
            return self._off(exc)
        append_record(self.session_dir, CheckpointRecord(
            kind, turn, taken.commit, taken.tree, time.time(), taken.skipped, left_out=taken.left_out
        ))
        return self._left_out_notice(taken)

    def _left_out_notice(self, taken: Snapshot) -> str | None:
        """What this snapshot left out that no notice of the session named yet, in one line; None if nothing."""
        large = [path for path in taken.skipped if path not in self._noted]
        other = {path: why for path, why in taken.left_out.items() if path not in self._noted}
        self._noted.update(large, other)
        said = []
        if large:
            said.append(
                f"{len(large)} file(s) larger than max_file_size_bytes ({self.max_file_size} bytes): {_some(large)}"
            )
        if other:
            said.append(_some([f"{path} ({why})" for path, why in other.items()]))
        if not said:
            return None
        return f"checkpoint: not snapshotted, so `sneakycode rewind` leaves them as they are: {'; '.join(said)}"

    def _off(self, exc: Exception) -> str:
        self._repo = None
        self.notice = f"checkpoints are off for this session ({exc}); `sneakycode undo` still reverts file edits"
        return self.notice


def _some(items: list[str]) -> str:
    return ", ".join(items[:5]) + (f" and {len(items) - 5} more" if len(items) > 5 else "")


def open_checkpoints(session_dir: Path, workspace: Path, *, enabled: bool, max_file_size: int) -> Checkpoints | None:
    """The session's checkpoints, or None when the setting turns them off."""
    return Checkpoints(session_dir, workspace, max_file_size) if enabled else None
