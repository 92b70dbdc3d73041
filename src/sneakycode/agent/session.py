"""The agent transcript: one JSONL file per session, appended as things happen, replayed to resume.

Each line is one record with a `type` and a `time`: `message` (a chat message exactly as sent to the
model), `usage` (one model reply's token counts), `tasks` (the task list after update_tasks), `history`
(the whole message list after compaction replaced older messages) and `outcome` (how a run ended). Every
line is flushed and synced before the run goes on, so a crash loses at most the line being written, and a
torn last line is skipped on replay.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sneakycode.config import LoadedSettings, state_dir
from sneakycode.errors import ConfigError
from sneakycode.launch import config_error_exit, workspace_settings
from sneakycode.runtime import open_tool_context
from sneakycode.sessions import SessionInfo, latest_session, list_sessions, load_session
from sneakycode.tools.base import ToolContext

TRANSCRIPT = "transcript.jsonl"


class Transcript:
    """Appends records to `<session>/transcript.jsonl`."""

    def __init__(self, session_dir: Path) -> None:
        self.path = session_dir / TRANSCRIPT
        self._fh = self.path.open("a", encoding="utf-8")

    def write(self, record_type: str, **fields: Any) -> None:
        self._fh.write(json.dumps({"type": record_type, "time": time.time(), **fields}, ensure_ascii=False) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def message(self, message: dict[str, Any]) -> None:
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


def load_transcript(path: Path) -> SavedSession:
    saved = SavedSession()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return saved
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
        elif kind == "tasks":
            saved.tasks = list(record["tasks"])
        elif kind == "usage":
            saved.prompt_tokens += int(record.get("prompt_tokens", 0))
            saved.completion_tokens += int(record.get("completion_tokens", 0))
        elif kind == "outcome":
            saved.outcome = record
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


@dataclass
class AgentSession:
    """A tool context over a new or resumed session, its transcript, and what a resumed one held."""

    ctx: ToolContext
    transcript: Transcript
    saved: SavedSession | None


def open_agent_session(
    loaded: LoadedSettings, *, continue_latest: bool = False, resume_id: str | None = None
) -> AgentSession:
    """Open the session to work in; a resumed one brings back its messages and task list (not its reads)."""
    info = find_session(loaded, continue_latest=continue_latest, resume_id=resume_id)
    saved = load_transcript(info.dir / TRANSCRIPT) if info is not None else None
    ctx = open_tool_context(loaded, kind="agent", session=info)
    if saved is not None:
        ctx.tasks = list(saved.tasks)
    return AgentSession(ctx, Transcript(ctx.session_dir), saved)


def run_sessions_command(args: argparse.Namespace) -> int:
    """`sneakycode sessions`: the saved agent sessions of this workspace, oldest first."""
    try:
        loaded = workspace_settings(args.workspace)
    except ConfigError as exc:
        return config_error_exit("sessions", exc)
    infos = [s for s in list_sessions(state_dir(loaded.settings), loaded.workspace) if (s.dir / TRANSCRIPT).exists()]
    if not infos:
        print(f"No saved sessions for {loaded.workspace}.")
        return 0
    print(f"{'ID':<30} {'STARTED':<17} {'TURNS':>5}  {'STATUS':<11} TASK")
    for info in infos:
        saved = load_transcript(info.dir / TRANSCRIPT)
        turns = sum(1 for m in saved.messages if m.get("role") == "assistant")
        status = str(saved.outcome.get("status", "")) if saved.outcome else "unfinished"
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
        task = " ".join(saved.first_prompt.split())
        task = task if len(task) <= 60 else task[:57] + "..."
        print(f"{info.id:<30} {started:<17} {turns:>5}  {status:<11} {task}")
    print("\nResume one with `sneakycode -p TASK --resume ID`, or the latest with `--continue`.")
    return 0
