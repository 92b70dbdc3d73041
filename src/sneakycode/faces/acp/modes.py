"""The permission modes an editor may choose (`modes`, `session/set_mode`, the mode picker): default,
auto-edit and plan; yolo is listed only while it is the mode in force (set by --mode or the settings), never
offered, and never restored from a session's history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp import schema

if TYPE_CHECKING:
    from sneakycode.api.session import Session

MODES = {
    "default": ("Default", "Ask before edits and commands"),
    "auto-edit": ("Auto-edit", "Edit files without asking; ask before commands"),
    "plan": ("Plan", "Read and plan only: nothing is edited or run"),
    "yolo": ("Yolo", "Run everything no deny rule blocks"),
}
OFFERED_MODES = ("default", "auto-edit", "plan")


def offered(session: Session) -> list[schema.SessionMode]:
    current = str(session.mode)
    shown = [*OFFERED_MODES, *([current] if current not in OFFERED_MODES else [])]
    return [schema.SessionMode(id=mode, name=MODES[mode][0], description=MODES[mode][1]) for mode in shown]


def state(session: Session) -> schema.SessionModeState:
    return schema.SessionModeState(current_mode_id=str(session.mode), available_modes=offered(session))


def restore(session: Session, mode: str | None) -> None:
    """The mode a loaded session last had, if the editor could have chosen it (never yolo from a file)."""
    if mode in OFFERED_MODES and mode != str(session.mode):
        session.set_mode(mode)
