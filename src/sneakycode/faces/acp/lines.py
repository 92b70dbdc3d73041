"""Newline-delimited messages read with a bound: a line longer than the limit is never held in memory.

asyncio's `StreamReader.readuntil` enforces its limit by raising, and reading on past it (as an image-sized
line needs) means holding the whole line; a 300 MB line took 657 MB. Here a line is gathered chunk by chunk
and, once it passes the limit, the rest of it is read and dropped as it arrives: what is kept is its first
bytes (`HEAD`), enough to say which request it was, so the answer can name its id.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Protocol

READ_CHUNK = 1 << 18
HEAD = 1 << 16  # of a dropped line: enough for the members before a long "params" or "result"


class ByteSource(Protocol):
    async def read(self, n: int) -> bytes:
        """Up to `n` bytes as soon as there are some; b"" at the end of input."""
        ...


@dataclass(frozen=True)
class Overlong:
    """A line over the limit, dropped: its size and its first bytes."""

    size: int
    head: bytes


@dataclass
class BoundedLines:
    """The lines of `source` (each with its newline, when it had one) of at most `limit` bytes; a longer one
    comes back as Overlong, having taken at most `limit + READ_CHUNK` bytes of memory."""

    source: ByteSource
    limit: int
    _chunk: bytes = field(default=b"", init=False)  # the last chunk read, taken up to `_at`
    _at: int = field(default=0, init=False)

    async def next(self) -> bytes | Overlong | None:
        """The next line, or None at the end of input."""
        parts: list[bytes] = []
        size = 0
        head: bytes | None = None  # set once the line is over the limit: from then on, nothing more is kept
        while True:
            if self._at >= len(self._chunk):
                self._chunk, self._at = await self.source.read(READ_CHUNK), 0
            if not self._chunk:  # the end of input: what came since the last newline is the last line
                if head is not None:
                    return Overlong(size, head)
                return b"".join(parts) if parts else None
            newline = self._chunk.find(b"\n", self._at)
            end = newline + 1 if newline >= 0 else len(self._chunk)
            piece, self._at = self._chunk[self._at:end], end
            size += len(piece)
            if head is None:
                parts.append(piece)
                if size - (newline >= 0) > self.limit:
                    head, parts = _first_bytes(parts, HEAD), []
            if newline >= 0:
                return Overlong(size, head) if head is not None else b"".join(parts)


def _first_bytes(parts: list[bytes], count: int) -> bytes:
    taken: list[bytes] = []
    for part in parts:
        taken.append(part[:count - sum(map(len, taken))])
        if sum(map(len, taken)) >= count:
            break
    return b"".join(taken)


CUT = object()  # a member whose value the head cuts off


def head_members(head: bytes) -> dict[str, object]:
    """The top-level members of a JSON object that its first bytes hold, in order; the member the head cuts
    off is there with the value CUT (its name is still known, which tells a request from a response)."""
    text = head.decode("utf-8", "ignore")
    decoder = json.JSONDecoder()
    members: dict[str, object] = {}
    at = _skip_space(text, 0)
    if text[at:at + 1] != "{":
        return members
    at += 1
    while True:
        try:
            name, at = decoder.raw_decode(text, _skip_space(text, at))
        except ValueError:
            return members
        at = _skip_space(text, at)
        if not isinstance(name, str) or text[at:at + 1] != ":":
            return members
        try:
            value, at = decoder.raw_decode(text, _skip_space(text, at + 1))
        except ValueError:
            members[name] = CUT
            return members
        members[name] = value
        at = _skip_space(text, at)
        if text[at:at + 1] != ",":
            return members
        at += 1


def _skip_space(text: str, at: int) -> int:
    while text[at:at + 1] in (" ", "\t", "\r", "\n"):
        at += 1
    return at
