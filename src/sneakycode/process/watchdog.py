"""The jobs' watchdog: a tiny process that ends job process groups once SneakyCode is gone.

SneakyCode starts it with a pipe on its stdin and writes `+PGID` when a job starts and `-PGID` when one
ends. The kernel closes the pipe when SneakyCode exits for any reason, SIGKILL included; at end of file the
watchdog sends SIGTERM to every group it still holds, then SIGKILL after a grace period, and exits.

It runs as a script (`python -S -E watchdog.py`): stdlib only, so it starts in milliseconds and imports
nothing a workspace could shadow.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

GRACE_SECONDS = 1.0


def _signal_all(groups: set[int], sig: signal.Signals) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    groups: set[int] = set()
    for raw in sys.stdin.buffer:
        line = raw.strip()
        if line[:1] in (b"+", b"-") and line[1:].isdigit():
            pgid = int(line[1:])
            if line[:1] == b"+":
                groups.add(pgid)
            else:
                groups.discard(pgid)
    if groups:
        _signal_all(groups, signal.SIGTERM)
        time.sleep(GRACE_SECONDS)
        _signal_all(groups, signal.SIGKILL)
    return 0


if __name__ == "__main__":
    sys.exit(main())
