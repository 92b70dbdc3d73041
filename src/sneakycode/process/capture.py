"""Bounded sinks for a process's output: what to keep in memory, and where the rest goes.

`HeadBuffer` keeps the start of a stream (output a program parses, where the start is what matters).
`HeadTailCapture` keeps the start and the end (what a person reads: the command's first lines and its
final summary or error) and, once the stream outgrows them, streams every byte to a numbered spill file,
so a command that prints gigabytes costs a bounded amount of memory and the full text is still on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO


class HeadBuffer:
    """Keeps the first `limit` bytes of a stream and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.limit - len(self.kept)
        if room > 0:
            self.kept += chunk[:room]


class HeadTailCapture:
    """Keeps the first `head_limit` and last `tail_limit` bytes of a stream. Once the stream outgrows them,
    every byte also goes to a new numbered file in `spill_dir` (up to `spill_limit` bytes), so the full
    output survives without living in memory."""

    def __init__(self, head_limit: int, tail_limit: int, spill_dir: Path | None = None, spill_limit: int = 0) -> None:
        self.head_limit = head_limit
        self.tail_limit = tail_limit
        self.spill_dir = spill_dir
        self.spill_limit = spill_limit
        self.head = bytearray()  # everything, until the stream overflows
        self.tail = bytearray()
        self.total = 0
        self.newlines = 0
        self.spill_path: Path | None = None
        self.spill_error: str | None = None
        self.spilled = 0
        self._spill: BinaryIO | None = None

    @property
    def overflowed(self) -> bool:
        return self.total > self.head_limit + self.tail_limit

    def feed(self, chunk: bytes) -> None:
        was_overflowed = self.overflowed
        self.total += len(chunk)
        self.newlines += chunk.count(b"\n")
        if was_overflowed:
            self._write_spill(chunk)
            self._keep_tail(chunk)
        elif not self.overflowed:
            self.head += chunk
        else:
            everything = bytes(self.head) + chunk
            self.head = bytearray(everything[: self.head_limit])
            self._keep_tail(everything[self.head_limit :])
            self._open_spill()
            self._write_spill(everything)

    def close(self) -> None:
        if self._spill is not None:
            self._spill.close()
            self._spill = None

    def _keep_tail(self, chunk: bytes) -> None:
        if len(chunk) >= self.tail_limit:
            self.tail = bytearray(chunk[len(chunk) - self.tail_limit :])
        else:
            self.tail += chunk
            del self.tail[: max(0, len(self.tail) - self.tail_limit)]

    def _open_spill(self) -> None:
        if self.spill_dir is None:
            self.spill_error = "no folder to save it in"
            return
        try:
            self.spill_dir.mkdir(parents=True, exist_ok=True)
            number = sum(1 for _ in self.spill_dir.iterdir()) + 1
            while True:
                path = self.spill_dir / f"{number}.log"
                try:
                    self._spill = path.open("xb")
                except FileExistsError:
                    number += 1
                    continue
                self.spill_path = path
                return
        except OSError as exc:
            self.spill_error = f"cannot create a file in {self.spill_dir}: {exc.strerror}"

    def _write_spill(self, chunk: bytes) -> None:
        if self._spill is None:
            return
        piece = chunk[: max(0, self.spill_limit - self.spilled)]
        try:
            self._spill.write(piece)
        except OSError as exc:
            self.spill_error = f"writing {self.spill_path} failed after {self.spilled} bytes: {exc.strerror}"
            self.close()
            return
        self.spilled += len(piece)
        if self.spilled >= self.spill_limit:
            self.close()
