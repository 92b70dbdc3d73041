"""What a session left on disk, outside a live session: the saved sessions of a workspace, undo, rewind.

Thin verbs over `session/` (folders, transcript, undo journal, checkpoints) for `sneakycode sessions`, `undo`
and `rewind`; the guards (containment, the journal's checks, the checkpoint store) stay the core's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sneakycode.config import LoadedSettings, state_dir
from sneakycode.session.checkpoints import CHECKPOINTS_FILE, CheckpointRecord
from sneakycode.session.folders import SessionInfo, latest_session, list_sessions, load_session
from sneakycode.session.transcript import TRANSCRIPT, load_transcript

if TYPE_CHECKING:
    from sneakycode.session.rewind import RewindReport
    from sneakycode.session.undo import UndoReport

__all__ = ["CheckpointRecord", "SavedSummary", "SessionInfo", "checkpoints", "find_session", "latest_changed",
           "latest_checkpointed", "rewind", "saved_sessions", "undo"]


@dataclass(frozen=True)
class SavedSummary:
    """One saved session as `sneakycode sessions` lists it."""

    info: SessionInfo
    turns: int
    status: str
    """How its last run ended, or `unfinished`."""
    task: str
    """Its title or first prompt, on one line."""


def saved_sessions(loaded: LoadedSettings) -> list[SavedSummary]:
    """The sessions of this workspace that hold a transcript, oldest first."""
    found = []
    for info in list_sessions(state_dir(loaded.settings), loaded.workspace):
        if not (info.dir / TRANSCRIPT).exists():
            continue
        saved = load_transcript(info.dir / TRANSCRIPT)
        turns = sum(1 for m in saved.messages if m.get("role") == "assistant")
        status = str(saved.outcome.get("status", "")) if saved.outcome else "unfinished"
        found.append(SavedSummary(info, turns, status, " ".join((saved.title or saved.first_prompt).split())))
    return found


def find_session(loaded: LoadedSettings, session_id: str) -> SessionInfo | None:
    """The session with this id (whatever its workspace); a ConfigError for an id that is not one."""
    return load_session(state_dir(loaded.settings), session_id)


def latest_changed(loaded: LoadedSettings) -> SessionInfo | None:
    """The newest session of this workspace that changed files (it has an undo journal)."""
    return latest_session(state_dir(loaded.settings), loaded.workspace, predicate="journal")


def latest_checkpointed(loaded: LoadedSettings) -> SessionInfo | None:
    """The newest session of this workspace with checkpoints to rewind to."""
    return latest_session(state_dir(loaded.settings), loaded.workspace, predicate=CHECKPOINTS_FILE)


def undo(info: SessionInfo, *, steps: int | None, force: bool) -> UndoReport:
    """Revert the session's mutations, newest first (all, or `steps`); `force` also those changed since."""
    from sneakycode.session.undo import undo_session

    return undo_session(info.dir, info.id, info.workspace, steps=steps, force=force)


def rewind(info: SessionInfo, loaded: LoadedSettings, *, turn: int | None, files: bool, conversation: bool,
           force: bool) -> RewindReport:
    """Put files and/or the conversation back to before `turn` (default: the last); a CheckpointError when
    there is no such checkpoint."""
    from sneakycode.session.rewind import rewind_session

    return rewind_session(info.dir, info.id, info.workspace, turn=turn, files=files, conversation=conversation,
                          force=force, max_file_size=loaded.settings.max_file_size_bytes)


def checkpoints(info: SessionInfo) -> list[tuple[CheckpointRecord, list[str] | str]]:
    """Each checkpoint with the files its turn changed (or why that is not known)."""
    from sneakycode.session.rewind import list_checkpoints

    return list_checkpoints(info.dir, info.workspace)
