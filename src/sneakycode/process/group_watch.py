"""The one watchdog of a SneakyCode process (see watchdog.py), told which process groups to end if we die.

Jobs and MCP stdio servers both run in process groups of their own that must not outlive SneakyCode, even
when it is SIGKILLed and no exit hook runs. One watchdog serves them all: it is started on first use, so a
run that starts neither pays nothing, and it outlives every group it holds by construction.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from contextlib import suppress
from pathlib import Path

from sneakycode.process import reaper
from sneakycode.process.watchdog import GRACE_SECONDS

_started = threading.Lock()
_shared: Watchdog | None = None


class Watchdog:
    """The watchdog process and the pipe we tell it about groups through: `+PGID` to hold, `-PGID` to drop."""

    def __init__(self, proc: subprocess.Popen[bytes] | None) -> None:
        self.proc = proc
        self.lock = threading.Lock()

    @classmethod
    def start(cls) -> Watchdog:
        script = Path(__file__).with_name("watchdog.py")
        argv = [sys.executable, "-S", "-E", str(script), str(os.getpid())]
        try:
            proc = reaper.start(
                lambda: subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True,  # Ctrl-C at the terminal is for SneakyCode, not for it
                    cwd="/",
                )
            )  # fmt: skip
        except OSError:
            return cls(None)  # the exit hooks (and PR_SET_PDEATHSIG for jobs) still apply
        watchdog = cls(proc)
        atexit.register(watchdog.close)
        return watchdog

    def watch(self, pgid: int) -> None:
        self._say(f"+{pgid}\n")

    def forget(self, pgid: int) -> None:
        self._say(f"-{pgid}\n")

    def close(self) -> None:
        """At exit: end its input, as the kernel would a moment later, and reap it once it has ended what it
        still held (nothing, after a normal end), so the interpreter does not report it as left running."""
        if self.proc is None or self.proc.stdin is None:
            return
        with self.lock, suppress(OSError, ValueError):
            self.proc.stdin.close()
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(GRACE_SECONDS + 1.0)

    def _say(self, line: str) -> None:
        if self.proc is None or self.proc.stdin is None:
            return
        with self.lock, suppress(OSError, ValueError):
            self.proc.stdin.write(line.encode())
            self.proc.stdin.flush()


def shared_watchdog() -> Watchdog:
    """This process's watchdog, started on the first call."""
    global _shared
    with _started:
        if _shared is None:
            _shared = Watchdog.start()
        return _shared
