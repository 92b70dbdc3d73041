"""The session's history for a face: the conversation (and its Markdown export), the other saved sessions of
the workspace (what `resume` can continue), what the session changed (`diff`) and taking its edits back
(`undo`). The records themselves are session/'s (transcript, journal, checkpoints)."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sneakycode.api.assembly import Parts
    from sneakycode.config import LoadedSettings
    from sneakycode.session.folders import SessionInfo
    from sneakycode.session.undo import UndoReport

DIFF_LIMIT_BYTES = 4 << 20


@dataclass(frozen=True)
class SavedSession:
    """Another saved session of the workspace: its id, when it started (epoch seconds), its first request."""

    id: str
    created: float
    first_prompt: str


@dataclass(frozen=True)
class SessionDiff:
    """What the session changed: `patch`, the diff from its first checkpoint to its latest (commands' changes
    included), or, with checkpoints off (`patch` None), the files its edits touched."""

    patch: str | None
    paths: list[str] = field(default_factory=list)


def _fence(text: str, info: str = "") -> str:
    """A code fence longer than any run of backticks inside `text`, so the text cannot close it."""
    ticks = 3
    while "`" * ticks in text:
        ticks += 1
    fence = "`" * ticks
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"


def _arguments(raw: str) -> str:
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


def conversation_markdown(history: Sequence[Mapping[str, Any]], title: str) -> str:
    """The conversation as Markdown: the user's requests, the model's replies, each tool call with its
    arguments and each result, in order. The system prompt is left out: it is ours, not the conversation."""
    from sneakycode.agent.images import content_text

    parts = [f"# {title}"]
    names: dict[str, str] = {}
    for message in history:
        role = message.get("role")
        text = content_text(message.get("content")).strip()
        if role == "user":
            parts.append(f"## User\n\n{text}")
        elif role == "assistant":
            section = "## Assistant" + (f"\n\n{text}" if text else "")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                names[call.get("id", "")] = function.get("name", "?")
                section += f"\n\n**Tool call** `{function.get('name', '?')}`\n\n"
                section += _fence(_arguments(function.get("arguments", "")), "json")
            parts.append(section)
        elif role == "tool":
            name = names.get(message.get("tool_call_id", ""), "tool")
            parts.append(f"**Result** of `{name}`\n\n{_fence(text)}")
    return "\n\n".join(parts) + "\n"


def other_sessions(parts: Parts, loaded: LoadedSettings) -> list[SessionInfo]:
    """The workspace's saved sessions with a transcript, other than this one, oldest first."""
    from sneakycode.config import state_dir
    from sneakycode.session.folders import list_sessions
    from sneakycode.session.transcript import TRANSCRIPT

    current = parts.ctx.session_id
    return [info for info in list_sessions(state_dir(loaded.settings), loaded.workspace)
            if info.id != current and (info.dir / TRANSCRIPT).exists()]


class HistoryVerbs:
    """Mixed into `Session`: its conversation, its neighbours and its changes."""

    _parts: Parts
    loaded: LoadedSettings
    _running: threading.Lock

    def history(self) -> list[dict[str, Any]]:
        """The conversation as chat messages (system prompt first), as a copy."""
        return [dict(message) for message in self._parts.agent.history]

    def export_markdown(self) -> str:
        """The conversation as Markdown, titled with the session's id (`/export`)."""
        return conversation_markdown(self._parts.agent.history, f"SneakyCode session {self._parts.ctx.session_id}")

    def saved_sessions(self, limit: int = 10) -> list[SavedSession]:
        """The workspace's other saved sessions, newest first (at most `limit`): what `resume(id)` continues."""
        from sneakycode.session.transcript import TRANSCRIPT, load_transcript

        found = other_sessions(self._parts, self.loaded)[::-1][:limit]
        return [SavedSession(info.id, info.created, load_transcript(info.dir / TRANSCRIPT).first_prompt)
                for info in found]

    def diff(self) -> SessionDiff:
        """Everything this session changed. A CheckpointError when the checkpoints cannot be read."""
        from sneakycode.session.checkpoints import read_records
        from sneakycode.session.journal import Journal
        from sneakycode.session.shadow_git import ShadowRepo

        ctx = self._parts.ctx
        records = read_records(ctx.session_dir)
        first = next((record for record in records if record.kind == "before"), None)
        if first is not None:
            repo = ShadowRepo.find(ctx.session_dir, ctx.workspace.root)
            return SessionDiff(repo.run("diff", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch",
                                        first.commit, records[-1].commit, limit=DIFF_LIMIT_BYTES))
        entries = Journal(ctx.session_dir).entries()
        return SessionDiff(None, list(dict.fromkeys(ctx.workspace.display(entry.path) for entry in entries)))

    def undo(self, steps: int | None = None) -> UndoReport:
        """Revert this session's newest `steps` edits (all when None); files changed since are left alone and
        named in the report."""
        from sneakycode.session.undo import undo_session

        with self._running:
            ctx = self._parts.ctx
            return undo_session(ctx.session_dir, ctx.session_id, ctx.workspace.root, steps=steps, force=False,
                                extra_roots=ctx.workspace.extra_roots)

    def has_undoable_changes(self) -> bool:
        """Whether the session's edits left anything for `sneakycode undo` to revert."""
        from sneakycode.session.journal import Journal

        return any(not entry.undone for entry in Journal(self._parts.ctx.session_dir).entries())

    def prompt_history_path(self) -> Path:
        """Where a face keeps what was typed at its prompt, one file per workspace (in the state folder), so
        Up brings back what was typed here."""
        import hashlib

        from sneakycode.config import state_dir

        digest = hashlib.sha256(str(self.loaded.workspace).encode("utf-8")).hexdigest()[:16]
        return state_dir(self.loaded.settings) / "prompt-history" / digest
