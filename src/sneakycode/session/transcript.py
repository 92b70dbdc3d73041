"""The agent transcript: one JSONL file per session, appended as things happen, replayed to resume.

Each line is one record with a `type` and a `time`: `message` (a chat message exactly as sent to the
model), `usage` (one model reply's token counts), `tasks` (the task list after update_tasks), `history`
(the whole message list after compaction or a rewind replaced older messages; a rewind's also carries
`turns`), `turn` (a model turn starts: its number in the session), `title` (the name the small model gave
the session) and `outcome` (how a run ended). Every
line is flushed and synced before the run goes on, so a crash loses at most the line being written, and a
torn last line is skipped on replay.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings, state_dir
from sneakycode.errors import CheckpointError, ConfigError
from sneakycode.session.folders import SessionInfo, latest_session, load_session

TRANSCRIPT = "transcript.jsonl"


class Transcript:
    """Appends records to `<session>/transcript.jsonl`."""

    def __init__(self, session_dir: Path) -> None:
        self.path = session_dir / TRANSCRIPT
        self._fh = self.path.open("a", encoding="utf-8")
        # The loop, tool threads and a face's notes (api/timeline.py) write: one whole line at a time.
        self._one_at_a_time = threading.Lock()

    def write(self, record_type: str, **fields: Any) -> None:
        line = json.dumps({"type": record_type, "time": time.time(), **fields}, ensure_ascii=False) + "\n"
        with self._one_at_a_time:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())

    def message(self, message: Mapping[str, Any]) -> None:
        self.write("message", message=message)

    def close(self) -> None:
        self._fh.close()


@dataclass
class SavedSession:
    """What a transcript holds, replayed: the message list to continue from and the session's state."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, str]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    outcome: dict[str, Any] | None = None
    first_prompt: str = ""
    title: str = ""
    turns: int = 0  # model turns so far in the session's conversation


def load_transcript(path: Path) -> SavedSession:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return SavedSession()
    return replay(lines)


def replay(lines: list[str]) -> SavedSession:
    """The session as these transcript lines leave it."""
    saved = SavedSession()
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        kind = record.get("type")
        if kind == "message":
            message = record["message"]
            saved.messages.append(message)
            if not saved.first_prompt and message.get("role") == "user":
                saved.first_prompt = str(message.get("content") or "")
        elif kind == "history":
            saved.messages = list(record["messages"])
            saved.turns = int(record.get("turns", saved.turns))
        elif kind == "turn":
            saved.turns = int(record["turn"])
        elif kind == "tasks":
            saved.tasks = list(record["tasks"])
        elif kind == "usage":
            saved.prompt_tokens += int(record.get("prompt_tokens", 0))
            saved.completion_tokens += int(record.get("completion_tokens", 0))
        elif kind == "outcome":
            saved.outcome = record
        elif kind == "title":
            saved.title = str(record.get("title") or "")
    return saved


def rewind_transcript(session_dir: Path, turn: int) -> SavedSession:
    """Take the conversation back to just before model turn `turn` (its latest start in the transcript),
    appending a `history` record so `--continue` resumes from there; a CheckpointError when the transcript
    holds no such turn."""
    path = session_dir / TRANSCRIPT
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    start = None
    for index, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("type") == "turn" and record.get("turn") == turn:
            start = index
    if start is None:
        raise CheckpointError(f"the conversation has no turn {turn} to go back to")
    saved = replay(lines[:start])
    transcript = Transcript(session_dir)
    try:
        transcript.write("history", messages=saved.messages, reason=f"rewound to before turn {turn}", turns=turn - 1)
        transcript.write("tasks", tasks=saved.tasks)
    finally:
        transcript.close()
    return saved


def find_session(loaded: LoadedSettings, *, continue_latest: bool, resume_id: str | None) -> SessionInfo | None:
    """The session to resume (None for a new one); a ConfigError says why a requested one cannot be used."""
    root = state_dir(loaded.settings)
    if resume_id:
        info = load_session(root, resume_id)
        if info is None or not (info.dir / TRANSCRIPT).exists():
            raise ConfigError(
                f"--resume {resume_id}: no saved agent session with that id; `sneakycode sessions` lists them"
            )
        if info.workspace != loaded.workspace:
            raise ConfigError(
                f"--resume {resume_id}: that session belongs to the workspace {info.workspace}; "
                f"run from there or pass --workspace {info.workspace}"
            )
        return info
    if continue_latest:
        info = latest_session(root, loaded.workspace, predicate=TRANSCRIPT)
        if info is None:
            raise ConfigError(f"--continue: there is no saved session for the workspace {loaded.workspace}")
        return info
    return None
