"""The undo journal: the state of a path before each tool mutation, and the state the mutation left.

Entries live in `<session>/journal/`, numbered in the order the mutations happened: `NNNNNN.json` holds the
prior state (absent, a folder, a symbolic link, or a file's mode and hash) and `NNNNNN.bin` the old bytes;
`NNNNNN.after.json` holds the state right after the mutation, so undo can tell whether anything changed
the path since; `NNNNNN.undone` marks an entry undo has restored. Undo's own restores are not entries, so
a second undo continues with older entries instead of undoing the undo.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from sneakycode.config.files import NotRegularFile, open_regular
from sneakycode.workspace.files import atomic_write_bytes
from sneakycode.workspace.textfiles import sha256_bytes

JOURNAL_DIR = "journal"
_ENTRY_NAME = re.compile(r"^(\d+)\.json$")


@dataclass(frozen=True)
class PathState:
    """What a path was at one moment: absent, a folder, a symbolic link (its target) or a file (its hash)."""

    kind: str
    mode: int | None = None
    sha256: str | None = None
    target: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PathState:
        return cls(str(data["kind"]), data.get("mode"), data.get("sha256"), data.get("target"))

    def describe(self) -> str:
        return {"absent": "absent", "dir": "a folder", "link": f"a link to {self.target}"}.get(self.kind, "a file")


ABSENT = PathState("absent")


def capture(path: Path, folder: int | None = None) -> tuple[PathState, bytes | None]:
    """The state of `path` now, and its bytes when it is a regular file. With `folder` (a descriptor of the
    path's folder, as the workspace reached it) the entry is looked up in that folder, so what is recorded
    is what the tool acts on even if a folder on the path is swapped meanwhile."""
    where: str | Path = path.name if folder is not None else path
    try:
        info = os.stat(where, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return ABSENT, None
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return PathState("link", mode, target=os.readlink(where, dir_fd=folder)), None
    if stat.S_ISDIR(info.st_mode):
        return PathState("dir", mode), None
    if not stat.S_ISREG(info.st_mode):
        return PathState("other", mode), None
    try:
        # Opened as a regular file only: one swapped for a FIFO since the lstat must not hang the journal.
        fh, _ = open_regular(where, dir_fd=folder, follow_symlinks=False)
    except NotRegularFile:
        return PathState("other", mode), None
    with fh:
        data = fh.read()
    return PathState("file", mode, sha256_bytes(data)), data


@dataclass(frozen=True)
class JournalEntry:
    seq: int
    path: Path
    action: str
    time: float
    before: PathState
    after: PathState | None
    undone: bool
    folder: Path

    def before_bytes(self) -> bytes | None:
        blob = self.folder / f"{self.seq:06d}.bin"
        return blob.read_bytes() if blob.exists() else None


class Journal:
    """Implements workspace.MutationJournal for one session folder."""

    def __init__(self, session_dir: Path) -> None:
        self.folder = session_dir / JOURNAL_DIR
        self._next = max((entry.seq for entry in self.entries()), default=-1) + 1
        self._pending: dict[Path, int] = {}

    def record_before(self, path: Path, action: str, folder: int | None = None) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        seq = self._next
        self._next += 1
        state, data = capture(path, folder)
        if data is not None:
            atomic_write_bytes(self.folder / f"{seq:06d}.bin", data, 0o600)
        meta = {"seq": seq, "path": str(path), "action": action, "time": time.time(), "before": asdict(state)}
        atomic_write_bytes(self.folder / f"{seq:06d}.json", json.dumps(meta).encode(), 0o600)
        self._pending[path] = seq

    def record_after(self, path: Path, folder: int | None = None) -> None:
        seq = self._pending.pop(path, None)
        if seq is None:
            return
        state, _ = capture(path, folder)
        atomic_write_bytes(self.folder / f"{seq:06d}.after.json", json.dumps(asdict(state)).encode(), 0o600)

    def mark_undone(self, seq: int) -> None:
        atomic_write_bytes(self.folder / f"{seq:06d}.undone", f"{time.time()}\n".encode(), 0o600)

    def entries(self) -> list[JournalEntry]:
        """All entries, oldest first."""
        if not self.folder.is_dir():
            return []
        found = []
        for meta_path in self.folder.iterdir():
            seq = entry_seq(meta_path.name)
            if seq is None:
                continue
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            after_path = self.folder / f"{seq:06d}.after.json"
            after = None
            if after_path.exists():
                after = PathState.from_json(json.loads(after_path.read_text(encoding="utf-8")))
            found.append(
                JournalEntry(
                    seq=seq,
                    path=Path(meta["path"]),
                    action=str(meta["action"]),
                    time=float(meta["time"]),
                    before=PathState.from_json(meta["before"]),
                    after=after,
                    undone=(self.folder / f"{seq:06d}.undone").exists(),
                    folder=self.folder,
                )
            )
        return sorted(found, key=lambda entry: entry.seq)


def entry_seq(name: str) -> int | None:
    """The number of the entry whose meta file is called `name`; None for the journal's other files."""
    named = _ENTRY_NAME.match(name)
    return int(named.group(1)) if named is not None else None
