"""What the model last saw of each file, and the hook that lets undo see every change before it happens."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from sneakycode.workspace.textfiles import TextFile


class MutationJournal(Protocol):
    """Told about every mutation before it happens, so it can be undone, and after it succeeded, so undo can
    tell whether anything else changed the path since. `folder` is a descriptor of the path's folder as the
    workspace reached it (without following links): look the entry up there, not by path."""

    def record_before(self, path: Path, action: str, folder: int | None = None) -> None: ...

    def record_after(self, path: Path, folder: int | None = None) -> None: ...


@dataclass
class LedgerEntry:
    sha256: str
    text: str


@dataclass(frozen=True)
class SinceRead:
    """A file as the model last saw it and as it is on disk now."""

    seen: LedgerEntry
    current: TextFile

    @property
    def changed(self) -> bool:
        """Something other than our own writes changed the file since the model read it."""
        return self.current.sha256 != self.seen.sha256


@dataclass
class ReadLedger:
    """What the model last saw of each file (by real path): the bytes' hash and the decoded text."""

    entries: dict[Path, LedgerEntry] = field(default_factory=dict)

    def record(self, tf: TextFile) -> None:
        self.entries[tf.path] = LedgerEntry(tf.sha256, tf.text)

    def forget(self, path: Path) -> None:
        self.entries.pop(path, None)

    def clear(self) -> None:
        self.entries.clear()

    def has_read(self, path: Path) -> bool:
        return path in self.entries
