"""Which files a run changed, for the headless result's `files_changed`.

Where the session takes checkpoints (checkpoints.py), the answer is the difference between the first
checkpoint taken since `start` (the workspace before the run's first call that could change anything) and
the latest end-of-run snapshot, so files a command wrote or deleted (`run_command`, a job, a formatter hook)
are listed too. The undo journal adds what the file tools changed where no snapshot sees it (an ignored
file, one over the snapshot size limit), and is the whole answer when checkpoints are off or failed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sneakycode.errors import CheckpointError
from sneakycode.session.change_reader import JournalPaths, RecordTail
from sneakycode.session.checkpoints import CHECKPOINTS_FILE
from sneakycode.session.journal import JOURNAL_DIR
from sneakycode.session.shadow_git import ShadowRepo


class ChangeTracker:
    """Remembers where the journal and the checkpoints stood at `start`; `changed` lists the paths changed since,
    once each, in the order git lists them, then the journal's."""

    def __init__(self, session_dir: Path, workspace: Path) -> None:
        self.session_dir = session_dir
        self.workspace = workspace
        # Read as they grow (change_reader.py): a long session's every result does not re-read them whole.
        self.journal = JournalPaths(session_dir / JOURNAL_DIR)
        self.records = RecordTail(session_dir / CHECKPOINTS_FILE)
        self.before = len(self.journal.read())
        self.records_before = len(self.records.read())
        self._compared: tuple[tuple[str, str], list[str]] | None = None  # the last two snapshots compared

    def changed(self, display: Callable[[Path], str]) -> list[str]:
        snapshotted = [display(self.workspace / path) for path in self._snapshot_changes()]
        journaled = [display(path) for path in self.journal.read()[self.before :]]
        return list(dict.fromkeys([*snapshotted, *journaled]))

    def _snapshot_changes(self) -> list[str]:
        """Paths (relative to the workspace) that differ between the run's first checkpoint and its last end
        snapshot; none when the run took no checkpoint (it changed nothing a snapshot sees, or they are off)."""
        records = self.records.read()[self.records_before :]
        first = next((record for record in records if record.kind == "before"), None)
        last = next((record for record in reversed(records) if record.kind == "end"), None)
        if first is None or last is None or first.tree == last.tree:
            return []
        pair = (first.commit, last.commit)
        if self._compared is not None and self._compared[0] == pair:  # commits never change: nor does their diff
            return self._compared[1]
        try:
            repo = ShadowRepo.find(self.session_dir, self.workspace)
            paths = [change.path for change in repo.changes(first.commit, last.commit)]
        except CheckpointError:  # git went away since the snapshots: the journal still answers
            return []
        self._compared = (pair, paths)
        return paths
