"""The keys of the interactive terminal: the prompt's bindings (Enter sends; Alt+Enter, Ctrl-J or a trailing
backslash adds a line; Shift+Tab cycles the permission mode) and the Esc watcher that interrupts a turn.

While a turn runs nobody reads the terminal (prompt_toolkit reads only at the prompt), so `EscWatcher`
reads it on a thread in cbreak mode: a lone Esc byte cancels the turn, Ctrl-C stays a signal (cbreak keeps
ISIG) and anything else typed meanwhile is dropped. Whatever asks a question mid-turn (an approval) must
wrap the question in `paused()`, or the watcher would take its keys.
"""

from __future__ import annotations

import os
import select
import sys
import termios
import threading
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from sneakycode.api.vocabulary import PermissionMode

MODE_CYCLE = (PermissionMode.DEFAULT, PermissionMode.AUTO_EDIT, PermissionMode.PLAN)
ESC = b"\x1b"
# An escape sequence (an arrow key, Alt+X) arrives as ESC and more bytes at once; a lone ESC is the key.
SEQUENCE_GAP_SECONDS = 0.05
POLL_SECONDS = 0.1

KEY_TABLE = (
    ("Enter", "send the message"),
    ("Alt+Enter, Ctrl-J, or \\ at the end of the line", "add a line"),
    ("Tab", "complete /commands, @paths and command or skill names"),
    ("Up / Down", "earlier messages (history is kept per workspace)"),
    ("Shift+Tab", "cycle the mode: default -> auto-edit -> plan"),
    ("Esc or Ctrl-C (during a turn)", "interrupt: the stream stops, a running command is killed"),
    ("Ctrl-C (at the prompt)", "clear the line; twice on an empty line leaves"),
    ("Ctrl-D", "leave"),
)


def next_mode(mode: PermissionMode) -> PermissionMode:
    """The mode Shift+Tab switches to; from a mode outside the cycle (yolo) it goes back to default."""
    if mode not in MODE_CYCLE:
        return MODE_CYCLE[0]
    return MODE_CYCLE[(MODE_CYCLE.index(mode) + 1) % len(MODE_CYCLE)]


def prompt_bindings(cycle_mode: Callable[[], None]) -> KeyBindings:
    """The prompt's own keys, added after prompt_toolkit's defaults so they win."""
    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    @bindings.add("c-j")
    def _add_line(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("enter")
    def _send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        document = buffer.document
        if document.is_cursor_at_the_end and document.text.endswith("\\"):
            buffer.delete_before_cursor(1)  # a shell habit: the backslash continues the line
            buffer.insert_text("\n")
            return
        buffer.validate_and_handle()

    @bindings.add("s-tab")
    def _cycle(event: KeyPressEvent) -> None:
        cycle_mode()
        event.app.invalidate()

    return bindings


class EscWatcher:
    """Reads the terminal during a turn; a lone Esc calls `interrupt`. A no-op when stdin is not a terminal."""

    def __init__(self, interrupt: Callable[[], None], fd: int | None = None) -> None:
        self.interrupt = interrupt
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._lock = threading.Lock()
        self._paused = False
        self._stop = threading.Event()
        self._saved: list[Any] | None = None

    @contextmanager
    def watching(self) -> Iterator[None]:
        if not os.isatty(self.fd):
            yield
            return
        self._saved = termios.tcgetattr(self.fd)
        tty.setcbreak(self.fd)
        self._stop.clear()
        thread = threading.Thread(target=self._run, name="esc-watcher", daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._stop.set()
            thread.join()
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            self._saved = None

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Give the terminal back (its own mode, its keys) to a question asked mid-turn."""
        if self._saved is None:
            yield
            return
        with self._lock:
            self._paused = True
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
        try:
            yield
        finally:
            with self._lock:
                tty.setcbreak(self.fd)
                self._paused = False

    def _run(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.fd], [], [], POLL_SECONDS)
            if not ready:
                continue
            with self._lock:  # checked under the lock, so a question that just paused us gets its key
                # Readiness is asked again under the lock: a question that was paused while we waited for the
                # lock may have read the key itself, and a blocking read would then hold this thread (and the
                # turn's end, which joins it) until the next key press.
                still = not self._paused and select.select([self.fd], [], [], 0)[0]
                data = os.read(self.fd, 64) if still else None
            if data is None:
                self._stop.wait(POLL_SECONDS)
            elif data == ESC and not select.select([self.fd], [], [], SEQUENCE_GAP_SECONDS)[0]:
                self.interrupt()
            # Anything else (typed ahead, the rest of an escape sequence) is dropped: the turn has the screen.
