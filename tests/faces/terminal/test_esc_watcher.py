"""The Esc watcher of a turn, on a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import threading
import time

from sneakycode.faces.terminal.keys import EscWatcher


def test_a_key_a_question_took_while_the_watcher_waited_does_not_hold_the_turns_end() -> None:
    """Regression: the approval's key arrived, the watcher saw the terminal ready and waited for its lock while
    the question (paused) read the key; the watcher then read with nothing left and blocked, so the turn's end,
    which joins it, hung until the next key press (the terminal's approval tests hung about one run in 20
    under load). The watcher now asks again under the lock before it reads."""
    master, slave = pty.openpty()
    watcher = EscWatcher(lambda: None, fd=slave)
    ended = threading.Event()
    try:
        with watcher._lock:  # the watcher, woken by the key, waits here while the question reads it
            context = watcher.watching()
            context.__enter__()
            os.write(master, b"y")
            deadline = time.monotonic() + 5
            while not select.select([slave], [], [], 0)[0] and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)  # three of its polls: it has seen the key and waits on the lock (no event to wait on)
            assert os.read(slave, 1) == b"y"  # the question took it

        def end_the_turn() -> None:
            context.__exit__(None, None, None)
            ended.set()

        threading.Thread(target=end_the_turn, daemon=True).start()
        assert ended.wait(3), "the turn's end waited on the watcher's read"
    finally:
        if not ended.is_set():
            os.write(master, b"x")  # let a blocked watcher go, so the test leaves no thread behind
            ended.wait(3)
        os.close(master)
        os.close(slave)
