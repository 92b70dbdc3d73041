"""The re-read that checks shown lines (verify.py) finds every line ripgrep reported, wherever it sits in the
file: read in pieces, a shown line at a piece's edge, several in one piece, or a last line without a line
break. Its reading skips straight to the shown lines, so it is compared here with the plain split."""

from __future__ import annotations

import io
import random

import pytest

from sneakycode.tools.search import verify


def plain_lines(data: bytes, wanted: set[int]) -> dict[int, str]:
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()  # a final line break ends the last line; it does not start one
    return {n: lines[n - 1].decode("utf-8", "replace").removesuffix("\r") for n in wanted if n <= len(lines)}


@pytest.mark.parametrize("chunk", [3, 64, 1 << 16])
def test_the_shown_lines_are_read_wherever_they_sit(monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    monkeypatch.setattr(verify, "_CHUNK", chunk)
    rnd = random.Random(chunk)
    for _ in range(1500):
        count = rnd.randint(0, 60)
        lines = [b"x" * rnd.choice([0, 1, 5, 70, 200]) + (b"\r" if rnd.random() < 0.2 else b"") for _ in range(count)]
        data = b"\n".join(lines) + (b"\n" if rnd.random() < 0.5 else b"")
        wanted = {rnd.randint(1, count + 2) for _ in range(rnd.randint(1, 5))}
        assert verify._lines_at(io.BytesIO(data), wanted) == plain_lines(data, wanted), (data, wanted)


def test_a_binary_file_is_never_compared() -> None:
    data = b"line one\nline\0two\nline three\n"
    assert verify._lines_at(io.BytesIO(data), {3}) is None
