"""The journal's paths and the checkpoint records of a session, read as they grow: what was read once is kept,
and each read takes only what was added since (new journal entries, the checkpoint lines past the last offset).

`Session.result()` asks after every request which files the session changed; reading the whole journal and
checkpoints file each time made a long session's results slower with every request. The answers are those of
`Journal.entries()` and `read_records`, read from scratch (tests/session/test_change_reader.py compares them).
"""

from __future__ import annotations

import bisect
import json
import os
from pathlib import Path

from sneakycode.session.checkpoints import CheckpointRecord, parse_record
from sneakycode.session.journal import entry_seq


class JournalPaths:
    """The path of every entry of a journal folder, in the order of their numbers; an entry's meta file is
    read once (its path never changes; undo marks and after-states live in other files)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._seqs: list[int] = []
        self._paths: list[Path] = []
        self._known: set[int] = set()

    def read(self) -> list[Path]:
        """Every entry's path, oldest first, as `Journal.entries()` lists them now."""
        try:
            names = os.listdir(self.folder)
        except (FileNotFoundError, NotADirectoryError):
            names = []
        for name in names:
            seq = entry_seq(name)
            if seq is None or seq in self._known:
                continue
            meta = json.loads((self.folder / name).read_text(encoding="utf-8"))
            at = bisect.bisect(self._seqs, seq)
            self._seqs.insert(at, seq)
            self._paths.insert(at, Path(meta["path"]))
            self._known.add(seq)
        return self._paths


class RecordTail:
    """The records of a checkpoints file, parsed from the offset the last read stopped at; only whole lines
    are taken (a line still being written is read when it is finished)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._records: list[CheckpointRecord] = []

    def read(self) -> list[CheckpointRecord]:
        """Every record of the file now, oldest first, as `read_records` reads them."""
        try:
            with self.path.open("rb") as fh:
                if os.fstat(fh.fileno()).st_size < self._offset:  # rewritten shorter: start again
                    self._offset, self._records = 0, []
                fh.seek(self._offset)
                added = fh.read()
        except OSError:
            self._offset, self._records = 0, []
            return self._records
        whole = added[: added.rfind(b"\n") + 1]
        self._offset += len(whole)
        for line in whole.decode("utf-8").splitlines():
            record = parse_record(line)
            if record is not None:
                self._records.append(record)
        return self._records
