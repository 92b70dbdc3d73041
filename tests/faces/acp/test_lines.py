"""Hardening round three, class 8: lines read with a bound (acp/lines.py), whatever chunks they arrive in."""

from __future__ import annotations

import asyncio

from sneakycode.faces.acp.lines import CUT, BoundedLines, Overlong, head_members


class Trickle:
    """A byte source that hands out at most `step` bytes at a time."""

    def __init__(self, data: bytes, step: int) -> None:
        self.data, self.step, self.at = data, step, 0

    async def read(self, n: int) -> bytes:
        piece = self.data[self.at:self.at + min(n, self.step)]
        self.at += len(piece)
        return piece


def lines_of(data: bytes, step: int, limit: int) -> list[bytes | Overlong]:
    async def read_all() -> list[bytes | Overlong]:
        reader, found = BoundedLines(Trickle(data, step), limit), []
        while (line := await reader.next()) is not None:
            found.append(line)
        return found

    return asyncio.run(read_all())


def test_lines_come_whole_whatever_the_chunks_and_a_long_one_is_dropped_with_its_head() -> None:
    data = b"short\n" + b'{"id":7,"params":"' + b"x" * 100 + b'"}\n' + b"\nlast"
    for step in (1, 3, 7, 1000):
        first, long, blank, last = lines_of(data, step, limit=50)
        assert (first, blank, last) == (b"short\n", b"\n", b"last")
        assert isinstance(long, Overlong) and long.size == 121 and long.head.startswith(b'{"id":7')


def test_the_head_of_a_dropped_line_names_its_members_up_to_the_one_cut_off() -> None:
    assert head_members(b' { "jsonrpc" : "2.0", "id": 12, "method": "session/prompt", "params": {"prompt": [{"te') == {
        "jsonrpc": "2.0", "id": 12, "method": "session/prompt", "params": CUT}
    assert head_members(b'{"jsonrpc":"2.0","id":"a","result":{"content":"xxx') == {
        "jsonrpc": "2.0", "id": "a", "result": CUT}
    assert head_members(b"[1, 2") == {} and head_members(b"") == {} and head_members(b'{"id"') == {}
