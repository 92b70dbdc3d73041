"""Which files a run changed, for the headless result's `files_changed`.

Today the undo journal answers: every mutation a file tool made is an entry. A command that writes files
(`run_command`, a job) leaves no entry, so those changes are missing here. Issue 13's shadow-git checkpoints
see every change; once they land, `ChangeTracker` should diff the checkpoint taken at `start` against the
workspace instead, and keep the journal as the fallback where no checkpoint exists. Callers only see
`start` and `changed`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from sneakycode.session.journal import Journal


class ChangeTracker:
    """Remembers where the journal stood at `start`; `changed` lists the paths changed since, once each."""

    def __init__(self, session_dir: Path) -> None:
        self.journal = Journal(session_dir)
        self.before = len(self.journal.entries())

    def changed(self, display: Callable[[Path], str]) -> list[str]:
        return list(dict.fromkeys(display(entry.path) for entry in self.journal.entries()[self.before :]))
