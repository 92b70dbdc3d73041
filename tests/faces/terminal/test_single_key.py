"""The one-key approval answer on a real pseudo-terminal."""

from __future__ import annotations

import io
import os
import sys
import termios

import pytest

from sneakycode.faces.terminal.single_key import read_key


class _Question(io.StringIO):
    """stdout that, the moment the question shows, notes the terminal's mode and presses `y` (as a user or
    pexpect does): whatever the terminal does with that key then is what the user gets."""

    def __init__(self, slave: int, master: int) -> None:
        super().__init__()
        self.slave, self.master = slave, master
        self.canonical_when_shown: bool | None = None

    def flush(self) -> None:
        if self.getvalue() and self.canonical_when_shown is None:
            self.canonical_when_shown = bool(termios.tcgetattr(self.slave)[3] & termios.ICANON)
            # In cooked mode the key may be flushed and the read would wait forever: fail now instead.
            assert not self.canonical_when_shown, "the question showed before the terminal was in raw mode"
            os.write(self.master, b"y")


def test_a_key_pressed_the_moment_the_question_shows_is_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (the flaky approval tests): the question was written while the terminal was still in cooked
    mode and raw mode came after it with TCSAFLUSH, so a key pressed as soon as the question showed was flushed
    (or echoed and held for Enter) and the approval waited forever."""
    master, slave = os.openpty()
    try:
        shown = _Question(slave, master)
        monkeypatch.setattr(sys, "stdin", os.fdopen(slave, "r", closefd=False))
        monkeypatch.setattr(sys, "stdout", shown)
        assert read_key("Allow? ") == "y"
        assert termios.tcgetattr(slave)[3] & termios.ICANON  # the terminal's own mode is back
    finally:
        os.close(master)
        os.close(slave)
