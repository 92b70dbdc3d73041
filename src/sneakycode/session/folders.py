"""Session folders under the state dir: one per agent run or `sneakycode tool` invocation.

A session folder holds `meta.json` (id, workspace, start time), the agent transcript, the mutation journal
and saved command outputs. Ids sort by creation time, so "the latest session of this workspace" is the
greatest id whose meta names that workspace. A state folder that cannot hold sessions (a file in its
place, no write permission) is a ConfigError naming the folder, like any other setting that does not work.

A session id is a name, never a path: every id that comes from outside (--resume, ACP session/load, the api's
`resume`, `undo`/`rewind --session`) goes through `checked_session_id`, and a session is looked up only as a
folder directly inside the sessions folder, so `../elsewhere` or `/tmp/planted` cannot make SneakyCode replay,
send to the model or write checkpoints into a transcript planted outside the state folder.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from sneakycode.errors import ConfigError
from sneakycode.workspace.paths import contains

# What new_session makes (20261207-101241-123456-ab12) and any other plain name: letters, digits, `_`, `.`, `-`,
# starting with a letter or digit (so never `.`, `..` or a hidden name), no separator, at most 100 characters.
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,99}")


@dataclass(frozen=True)
class SessionInfo:
    id: str
    dir: Path
    workspace: Path
    created: float


def sessions_root(state_root: Path) -> Path:
    return state_root / "sessions"


def new_session(state_root: Path, workspace: Path, kind: str = "agent") -> SessionInfo:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    session_id = f"{stamp}-{(time.time_ns() // 1000) % 1_000_000:06d}-{secrets.token_hex(2)}"
    folder = sessions_root(state_root) / session_id
    created = time.time()
    meta = {"id": session_id, "workspace": str(workspace), "created": created, "kind": kind}
    try:
        folder.mkdir(parents=True, exist_ok=False)
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    except OSError as exc:
        raise unusable_state(sessions_root(state_root), exc) from None
    return SessionInfo(session_id, folder, workspace, created)


def unusable_state(folder: Path, exc: OSError) -> ConfigError:
    """The error for a state folder that cannot be used, naming it and what the system said."""
    where = f" ({exc.filename})" if exc.filename and str(exc.filename) != str(folder) else ""
    return ConfigError(
        f"the state folder {folder} cannot be used: {exc.strerror or exc}{where}; fix it, or set state_dir "
        "(SNEAKYCODE_STATE_DIR) to a folder you can write"
    )


def is_session_id(text: str) -> bool:
    return SESSION_ID.fullmatch(text) is not None


def checked_session_id(text: str) -> str:
    """`text` when it is a session id; a ConfigError saying what an id looks like when it is not (a path,
    `..`, a separator, a control character)."""
    if not is_session_id(text):
        raise ConfigError(
            f"{text[:120]!r} is not a session id: an id is a name like 20261207-101241-123456-ab12 (letters, digits, "
            "'_', '.', '-'), never a path; `sneakycode sessions` lists them"
        )
    return text


def load_session(state_root: Path, session_id: str) -> SessionInfo | None:
    """The session named `session_id` in the state folder, or None when there is none; a ConfigError when
    `session_id` is not an id at all."""
    return _session_in(sessions_root(state_root), checked_session_id(session_id))


def _session_in(root: Path, name: str) -> SessionInfo | None:
    """The session folder `name` directly inside `root`: not a link that leads elsewhere, and its meta.json
    names the same id (a copied or planted meta cannot pass for another session)."""
    folder = root / name
    try:
        if not contains(Path(os.path.realpath(root)), Path(os.path.realpath(folder))):
            return None
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if not isinstance(meta, dict) or meta.get("id") != name:
            return None
        return SessionInfo(name, folder, Path(meta["workspace"]), float(meta["created"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def list_sessions(state_root: Path, workspace: Path | None = None) -> list[SessionInfo]:
    """Sessions, oldest first; only those of `workspace` when given."""
    root = sessions_root(state_root)
    if not root.is_dir():
        return []
    try:
        folders = sorted(root.iterdir())
    except OSError as exc:
        raise unusable_state(root, exc) from None
    found = []
    for folder in folders:
        info = _session_in(root, folder.name) if is_session_id(folder.name) else None
        if info is not None and (workspace is None or info.workspace == workspace):
            found.append(info)
    return found


def latest_session(state_root: Path, workspace: Path, predicate: str | None = None) -> SessionInfo | None:
    """The newest session of `workspace`; with `predicate`, the newest whose folder holds that file."""
    for info in reversed(list_sessions(state_root, workspace)):
        if predicate is None or (info.dir / predicate).exists():
            return info
    return None
