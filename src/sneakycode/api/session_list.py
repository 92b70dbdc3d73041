"""The saved sessions of a workspace, as a face lists them (an editor's thread history, `session/list`): id,
title, when it was last active. Only sessions that hold a conversation are listed; an id that is not a
name is refused with the same ConfigError as `--resume` gives (session/folders.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sneakycode.api.options import Options
from sneakycode.api.settings import load_options
from sneakycode.config import state_dir
from sneakycode.session.folders import SessionInfo, list_sessions, load_session
from sneakycode.session.transcript import TRANSCRIPT, load_transcript

TITLE_CHARS = 80  # a session without a title is named by the start of its first request


@dataclass(frozen=True)
class SavedSessionInfo:
    id: str
    workspace: Path
    title: str
    updated: float  # seconds since the epoch: when its transcript was last written


def _info(found: SessionInfo) -> SavedSessionInfo | None:
    path = found.dir / TRANSCRIPT
    try:
        updated = path.stat().st_mtime
    except OSError:
        return None
    saved = load_transcript(path)
    if not saved.messages:
        return None
    first = " ".join(saved.first_prompt.split())
    title = saved.title or (first[:TITLE_CHARS] + ("…" if len(first) > TITLE_CHARS else ""))
    return SavedSessionInfo(found.id, found.workspace, title, updated)


def saved_sessions(options: Options) -> list[SavedSessionInfo]:
    """The saved sessions of `options.workspace` that hold a conversation, the most recently active first."""
    loaded = load_options(options)
    listed = [info for found in list_sessions(state_dir(loaded.settings), loaded.workspace)
              if (info := _info(found)) is not None]
    return sorted(listed, key=lambda info: info.updated, reverse=True)


def saved_session(options: Options, session_id: str) -> SavedSessionInfo | None:
    """The saved session `session_id` of `options.workspace`, or None when this workspace has none by that id
    (or it holds no conversation); a ConfigError when `session_id` is not a session id at all."""
    loaded = load_options(options)
    found = load_session(state_dir(loaded.settings), session_id)
    if found is None or found.workspace != loaded.workspace:
        return None
    return _info(found)
