"""Hardening class 9: a line range of a file too large to read whole is streamed, not refused.

The hint for a file over max_file_size_bytes suggested start_line/end_line, which failed the same way.
`read_window` decodes as it streams and keeps only the window (and only the head of an endless line).
"""

from __future__ import annotations

import io
from typing import BinaryIO, cast

import pytest

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.workspace.window import Window, read_window


def window(raw: bytes, start: int, end: int, max_chars: int = 1_000_000, max_line_chars: int = 50) -> Window:
    return read_window(
        cast(BinaryIO, io.BufferedReader(io.BytesIO(raw))),
        start, end, max_chars=max_chars, max_line_chars=max_line_chars, label="'big.txt'", size=len(raw),
    )


def test_lines_in_the_middle_are_returned_with_what_follows() -> None:
    raw = b"".join(b"line %d\n" % i for i in range(1, 100_001))
    got = window(raw, 50_000, 50_002)
    assert [line.text for line in got.lines] == ["line 50000", "line 50001", "line 50002"]
    assert got.more and got.total is None


def test_the_last_lines_say_the_file_ends_and_a_start_past_it_gives_the_count() -> None:
    raw = b"a\nb\nc"
    got = window(raw, 2, 10)
    assert [line.text for line in got.lines] == ["b", "c"] and not got.more and got.total == 3
    past = window(raw, 7, 9)
    assert past.lines == [] and past.total == 3


def test_an_endless_line_keeps_only_its_head_and_counts_the_rest() -> None:
    raw = b"short\r\n" + b"x" * 1_000_000 + b"\r\nafter\r\n"
    got = window(raw, 1, 3)
    assert got.lines[0].text == "short" and got.lines[0].length == 5
    assert len(got.lines[1].text) == 51 and got.lines[1].length == 1_000_000
    assert got.lines[2].text == "after"


def test_the_window_stops_at_its_character_budget() -> None:
    raw = b"".join(b"%010d\n" % i for i in range(1000))
    got = window(raw, 1, 1000, max_chars=100)
    assert len(got.lines) == 10 and got.more


def test_utf16_and_bom_files_stream_as_text() -> None:
    raw = "\ufeffeins\nzwei\n".encode("utf-16-le")
    assert [line.text for line in window(raw, 2, 2).lines] == ["zwei"]
    assert [line.text for line in window(b"\xef\xbb\xbfone\ntwo\n", 1, 1).lines] == ["one"]


@pytest.mark.parametrize("raw", [b"\x00\x01binary" * 10, b"text\n" * 5 + b"caf\xe9\n", b"ok\n" * 3000 + b"a\x00b\n"])
def test_binary_content_is_still_refused(raw: bytes) -> None:
    with pytest.raises(ToolError) as exc:
        window(raw, 1, 10_000)
    assert exc.value.code == ErrorCode.BINARY_FILE


def test_streaming_a_long_way_checks_the_tool_budget_and_cancel() -> None:
    """Hardening class 7: skipping to a far line of a huge file is a long loop, so it honours the call's
    time budget and Ctrl-C (the checkpoint raises and the read stops)."""
    calls = 0

    def checkpoint() -> None:
        nonlocal calls
        calls += 1
        if calls > 3:
            raise ToolError(ErrorCode.CANCELLED, "read_file was cancelled")

    raw = b"x\n" * 100_000
    with pytest.raises(ToolError) as exc:
        read_window(
            cast(BinaryIO, io.BufferedReader(io.BytesIO(raw))), 90_000, 90_001, max_chars=1000, max_line_chars=50,
            label="'big.txt'", size=len(raw), checkpoint=checkpoint,
        )
    assert exc.value.code == ErrorCode.CANCELLED
