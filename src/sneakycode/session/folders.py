"""Session folders under the state dir: one per agent run or `sneakycode tool` invocation.

A session folder holds `meta.json` (id, workspace, start time), the agent transcript, the mutation journal
and saved command outputs. Ids sort by creation time, so "the latest session of this workspace" is the
greatest id whose meta names that workspace. A state folder that cannot hold sessions (a file in its
place, no write permission) is a ConfigError naming the folder, like any other setting that does not work.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from sneakycode.errors import ConfigError


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


def load_session(state_root: Path, session_id: str) -> SessionInfo | None:
    folder = sessions_root(state_root) / session_id
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return SessionInfo(meta["id"], folder, Path(meta["workspace"]), float(meta["created"]))


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
        info = load_session(state_root, folder.name)
        if info is not None and (workspace is None or info.workspace == workspace):
            found.append(info)
    return found


def latest_session(state_root: Path, workspace: Path, predicate: str | None = None) -> SessionInfo | None:
    """The newest session of `workspace`; with `predicate`, the newest whose folder holds that file."""
    for info in reversed(list_sessions(state_root, workspace)):
        if predicate is None or (info.dir / predicate).exists():
            return info
    return None
