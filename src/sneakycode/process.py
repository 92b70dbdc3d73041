"""The only place that starts subprocesses (run_command, ripgrep, git).

Every child runs in its own session with stdin closed, so a timeout or cancel can kill the whole process
group (grandchildren included) and a command that waits for input gets EOF instead of hanging. Output is
read as it arrives and only a bounded amount is kept, so a command that prints gigabytes cannot exhaust
memory.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 65536


@dataclass
class ProcessResult:
    exit_code: int | None
    signal_name: str | None
    timed_out: bool
    cancelled: bool
    duration: float
    stdout: bytes
    stderr: bytes
    stdout_total: int
    stderr_total: int

    @property
    def truncated(self) -> bool:
        return self.stdout_total > len(self.stdout) or self.stderr_total > len(self.stderr)


class _BoundedReader(threading.Thread):
    """Drains one pipe, keeping the first `limit` bytes and counting the rest."""

    def __init__(self, fd: int, limit: int) -> None:
        super().__init__(daemon=True)
        self.fd = fd
        self.limit = limit
        self.kept = bytearray()
        self.total = 0

    def run(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, _CHUNK)
            except OSError:
                break
            if not chunk:
                break
            self.total += len(chunk)
            room = self.limit - len(self.kept)
            if room > 0:
                self.kept += chunk[:room]
        os.close(self.fd)


def kill_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """SIGTERM the child's process group, then SIGKILL whatever is left after `grace` seconds."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; members that ignored SIGTERM may remain in the group.
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return


def signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    capture_limit: int = 1 << 20,
    cancel: threading.Event | None = None,
    kill_grace: float = 2.0,
) -> ProcessResult:
    """Run argv to completion (or timeout/cancel), keeping at most capture_limit bytes of each stream."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
        )
    finally:
        os.close(out_w)
        os.close(err_w)
    readers = [_BoundedReader(out_r, capture_limit), _BoundedReader(err_r, capture_limit)]
    for reader in readers:
        reader.start()
    timed_out = cancelled = False
    deadline = None if timeout is None else start + timeout
    while proc.poll() is None:
        if cancel is not None and cancel.is_set():
            cancelled = True
            break
        if deadline is not None and time.monotonic() >= deadline:
            timed_out = True
            break
        try:
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            pass
    if timed_out or cancelled:
        kill_group(proc, kill_grace)
    else:
        # The leader exited; background children still holding the pipes would block the readers forever.
        for reader in readers:
            reader.join(timeout=0.5)
        if any(reader.is_alive() for reader in readers):
            kill_group(proc, 0.2)
    for reader in readers:
        reader.join()
    duration = time.monotonic() - start
    return ProcessResult(
        exit_code=proc.returncode if proc.returncode is not None and proc.returncode >= 0 else None,
        signal_name=None if (timed_out or cancelled) else signal_name(proc.returncode),
        timed_out=timed_out,
        cancelled=cancelled,
        duration=duration,
        stdout=bytes(readers[0].kept),
        stderr=bytes(readers[1].kept),
        stdout_total=readers[0].total,
        stderr_total=readers[1].total,
    )
