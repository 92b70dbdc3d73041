"""The undo journal: before any tool changes a path, its prior state (bytes and mode, or absence) is saved.

Entries live in `<session>/journal/` as `NNNNNN.json` (+ `NNNNNN.bin` for the old bytes), numbered in the
order the mutations happened, so undo replays them backwards.
"""

from __future__ import annotations

import json
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sneakycode.workspace import atomic_write_bytes, sha256_bytes

JOURNAL_DIR = "journal"


@dataclass(frozen=True)
class JournalEntry:
    seq: int
    path: Path
    action: str
    existed: bool
    was_dir: bool
    mode: int | None
    before: bytes | None
    time: float


class Journal:
    """Implements workspace.MutationJournal for one session folder."""

    def __init__(self, session_dir: Path) -> None:
        self.folder = session_dir / JOURNAL_DIR
        self._next = len(list(self.folder.glob("*.json"))) if self.folder.is_dir() else 0

    def record_before(self, path: Path, action: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        seq = self._next
        self._next += 1
        existed = os.path.lexists(path)
        was_dir = path.is_dir() and not path.is_symlink()
        mode = stat.S_IMODE(path.lstat().st_mode) if existed else None
        meta: dict[str, Any] = {
            "seq": seq,
            "path": str(path),
            "action": action,
            "existed": existed,
            "was_dir": was_dir,
            "mode": mode,
            "time": time.time(),
        }
        if existed and not was_dir and path.is_file():
            data = path.read_bytes()
            atomic_write_bytes(self.folder / f"{seq:06d}.bin", data, 0o600)
            meta["sha256"] = sha256_bytes(data)
        atomic_write_bytes(self.folder / f"{seq:06d}.json", json.dumps(meta).encode(), 0o600)

    def entries(self) -> list[JournalEntry]:
        """All entries, oldest first."""
        if not self.folder.is_dir():
            return []
        found = []
        for meta_path in sorted(self.folder.glob("*.json")):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            blob = meta_path.with_suffix(".bin")
            found.append(
                JournalEntry(
                    seq=int(meta["seq"]),
                    path=Path(meta["path"]),
                    action=str(meta["action"]),
                    existed=bool(meta["existed"]),
                    was_dir=bool(meta["was_dir"]),
                    mode=meta["mode"],
                    before=blob.read_bytes() if blob.exists() else None,
                    time=float(meta["time"]),
                )
            )
        return found
