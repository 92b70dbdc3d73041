"""Ending what a command left running outside its process group: `setsid -f`, `setsid cmd &`, a daemon's
double fork. Killing the group does not reach those, and once their parent exits they belong to init.

Once `hardening` made SneakyCode a child subreaper (and called `enable`), such a process becomes our child
when its parent exits. Every process `supervise` starts is registered here while it runs, so a child of
ours that is not registered, and that left SneakyCode's own session, can only be something a command left
behind (every command starts in a session of its own; whatever calls `setsid` starts another). When a
command ends and no other supervised process is running (their leftovers cannot be told apart), those
orphans and everything under them get SIGTERM, then SIGKILL after the grace period, and are reaped.

Without `enable` nothing is swept: a process that is not a subreaper (a test runner calling `supervise`)
never adopts orphans, and its own children are not ours to end.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

_POLL_SECONDS = 0.02
# After SIGKILL, how long to keep looking for orphans (a process forking as fast as we kill).
_KILL_WAIT_SECONDS = 5.0
_EXIT_GRACE_SECONDS = 1.0
_PF_EXITING = 0x4  # in the flags of /proc/PID/stat

_enabled = False
_lock = threading.Lock()  # held while a process is started and registered, and while orphans are chosen
_live: set[int] = set()  # pids of supervised processes not yet finished


def enable() -> None:
    """Sweep orphans from now on (we are a subreaper), and once more at exit."""
    global _enabled
    if not _enabled:
        _enabled = True
        atexit.register(sweep, _EXIT_GRACE_SECONDS, everything=True)


def start(popen: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Start a process with `popen` and register it, so no sweep mistakes it for an orphan."""
    with _lock:
        proc = popen()
        _live.add(proc.pid)
    return proc


def register(pid: int) -> None:
    """Count a process started elsewhere (an asyncio child, like an MCP server) as supervised while it runs.
    It must be registered before any supervised command can end, or a sweep would take it for an orphan."""
    with _lock:
        _live.add(pid)


@contextmanager
def starting() -> Iterator[Callable[[int], None]]:
    """Hold off every sweep while a process is started elsewhere (a language server started in mid-session,
    while commands may be ending); call the function it gives with the new pid to register it."""
    with _lock:
        yield _live.add


def finished(pid: int) -> None:
    with _lock:
        _live.discard(pid)


def end_orphans(pid: int, grace: float) -> bool:
    """After supervised process `pid` is gone: end orphans unless another supervised process is running.
    True when something was signalled."""
    if not _enabled:
        return False
    with _lock:
        if _live - {pid}:
            return False
    return sweep(grace)


def sweep(grace: float, *, everything: bool = False) -> bool:
    """SIGTERM every orphan and its descendants, SIGKILL what is left after `grace`, and reap them; with
    `everything`, registered processes too (at exit). True when something was signalled."""
    if not _enabled:
        return False
    now = time.monotonic()
    kill_from, give_up = now + grace, now + grace + _KILL_WAIT_SECONDS
    termed: set[int] = set()
    while True:
        with _lock:
            targets = _orphans_and_descendants(everything)
            killing = time.monotonic() >= kill_from
            for pid in targets:
                if killing or pid not in termed:
                    with suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL if killing else signal.SIGTERM)
                    termed.add(pid)
        if not targets or time.monotonic() >= give_up:
            return bool(termed)
        time.sleep(_POLL_SECONDS)


def _orphans_and_descendants(everything: bool) -> list[int]:
    """Running orphans of ours and their descendants; zombie orphans are reaped on the way."""
    me, session = os.getpid(), os.getsid(0)
    children: dict[int, list[int]] = {}
    running: set[int] = set()
    orphans: list[int] = []
    for pid, ppid, sid, state in _process_table():
        children.setdefault(ppid, []).append(pid)
        if state == "running":
            running.add(pid)
        if ppid == me and sid != session and (everything or pid not in _live):
            if state == "zombie":
                with suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            else:
                orphans.append(pid)
    found: list[int] = []
    pending = orphans
    while pending:
        pid = pending.pop()
        if pid in running and pid not in found:
            found.append(pid)
        pending.extend(children.get(pid, []))
    return found


def _process_table() -> list[tuple[int, int, int, str]]:
    """(pid, ppid, session id, state) for every process in /proc; the state is "zombie", "exiting" (it will
    not run user code again, like bwrap's sandbox init tearing down as the command ends) or "running"."""
    table = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split(maxsplit=7)  # state, ppid, pgrp, session, tty, tpgid, flags
        if len(fields) < 7:
            continue
        state = "zombie" if fields[0] in (b"Z", b"X") else "exiting" if int(fields[6]) & _PF_EXITING else "running"
        table.append((int(entry), int(fields[1]), int(fields[3]), state))
    return table
