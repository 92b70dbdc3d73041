"""A session's timeline as it happened, for a face that shows it again (an editor's `session/load`): the
messages in order with the reasoning that came before each reply, the notes the face left along the way
(what the user attached, the diff an edit showed), and the permission mode last set.

The transcript (session/transcript.py) is the record; a face reads it here, never its file, and adds to it
with `note` (records of type `note`, which replaying the conversation for the model ignores).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sneakycode.api.session import Session

NOTE = "note"


@dataclass
class History:
    """`entries` in order: `{"type": "message", "message": {...}}` (a chat message as the model saw it),
    `{"type": "reasoning", "text": ...}` (before the reply it led to) and `{"type": "note", "kind": ..., ...}`
    (a face's own). `mode`: the permission mode last set in the session, if any was."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    mode: str | None = None


def history_of(session: Session) -> History:
    """The history of `session` so far (a loaded session's, from its start). A compaction or rewind replaces
    the messages before it, as it did for the model; reasoning and notes before it go with them, except the
    notes, which stay (they describe calls by id)."""
    from sneakycode.session.transcript import TRANSCRIPT

    path = session._ctx.session_dir / TRANSCRIPT
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return History()
    history = History()
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:  # a torn last line
            continue
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if kind == "message" and isinstance(record.get("message"), dict):
            history.entries.append({"type": "message", "message": record["message"]})
        elif kind == "reasoning":
            history.entries.append({"type": "reasoning", "text": str(record.get("text", ""))})
        elif kind == "history" and isinstance(record.get("messages"), list):
            notes = [entry for entry in history.entries if entry["type"] == NOTE]
            history.entries = [*notes, *({"type": "message", "message": m} for m in record["messages"]
                                         if isinstance(m, dict))]
        elif kind == NOTE and isinstance(record.get("kind"), str):
            history.entries.append({key: value for key, value in record.items() if key != "time"})
        elif kind == "mode":
            history.mode = str(record.get("mode") or "") or None
    return history


def note(session: Session, kind: str, **fields: Any) -> None:
    """Add a face's note to the session's record (on the thread that runs the session, or between requests):
    replayed by `history_of`, ignored when the conversation is resumed for the model."""
    session._parts.transcript.write(NOTE, kind=kind, **fields)
