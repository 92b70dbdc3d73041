"""The only place that starts subprocesses (run_command, ripgrep, git).

Every child runs in its own session (a trusted helper such as ripgrep: in its own process group) with stdin
closed: a command that waits for input gets EOF instead of hanging, and a timeout, a cancel, or an exit that
leaves background jobs behind ends the whole process group (SIGTERM, then SIGKILL after a grace period),
grandchildren included; what it detached from the group with `setsid` is ended too where SneakyCode is a
subreaper (see reaper). One loop reads stdout and stderr as they arrive and hands each chunk to a sink, so
the caller decides what to keep: `run_process` keeps the head of each stream (for output a program parses),
`run_captured` keeps the head and tail of the interleaved output, stderr apart, and streams the rest to a
spill file, so memory stays bounded while a command prints gigabytes.
"""

from __future__ import annotations

import fcntl
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from sneakycode.process import reaper
from sneakycode.process.capture import HeadBuffer, HeadTailCapture

__all__ = [
    "CapturedRun",
    "Ending",
    "HeadBuffer",
    "HeadTailCapture",
    "ProcessResult",
    "Stream",
    "run_captured",
    "run_process",
    "signal_name",
    "supervise",
]

_READ_SIZE = 1 << 20
_PIPE_SIZE = 1 << 20
_POLL_SECONDS = 0.05
# After the group is gone, how long a pipe may stay open (held by a process that escaped with setsid).
_DRAIN_SECONDS = 0.5
# After SIGKILL, how long to wait for members we may not signal (another uid) before giving up on them.
_KILL_WAIT_SECONDS = 5.0
_PF_EXITING = 0x4  # /proc/PID/stat flags: the process is exiting and will not run user code again

Stream = Literal["stdout", "stderr"]
OutputSink = Callable[[Stream, bytes], None]

def signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


@dataclass(frozen=True)
class Ending:
    """How a process ended. exit_code is None when a signal ended it; signal_name is None when we did."""

    exit_code: int | None
    signal_name: str | None
    timed_out: bool
    cancelled: bool
    duration: float
    background_killed: bool  # it exited but left processes (in its group, or detached: see reaper) that were ended


@dataclass
class ProcessResult:
    """A finished process: how it ended, and the head of each stream (with each stream's full size)."""

    ending: Ending
    stdout: bytes
    stderr: bytes
    stdout_total: int
    stderr_total: int

    @property
    def truncated(self) -> bool:
        return self.stdout_total > len(self.stdout) or self.stderr_total > len(self.stderr)


@dataclass
class CapturedRun:
    ending: Ending
    output: HeadTailCapture  # stdout and stderr interleaved in arrival order, spilled when large
    stderr: HeadTailCapture


def run_captured(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    timeout: float | None,
    cancel: threading.Event | None,
    kill_grace: float,
    head_limit: int,
    tail_limit: int,
    spill_dir: Path | None,
    spill_limit: int,
    on_output: Callable[[bytes], None] | None = None,
) -> CapturedRun:
    """Run argv, keeping head and tail of its interleaved output and of its stderr (see HeadTailCapture);
    `on_output` also sees each chunk as it arrives (progress shown while the command runs)."""
    output = HeadTailCapture(head_limit, tail_limit, spill_dir, spill_limit)
    stderr = HeadTailCapture(head_limit, tail_limit)

    def sink(stream: Stream, chunk: bytes) -> None:
        output.feed(chunk)
        if on_output is not None:
            on_output(chunk)
        if stream == "stderr":
            stderr.feed(chunk)

    try:
        ending = supervise(argv, cwd=cwd, env=env, timeout=timeout, cancel=cancel, kill_grace=kill_grace, sink=sink)
    finally:
        output.close()
    return CapturedRun(ending, output, stderr)


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    capture_limit: int = 1 << 20,
    cancel: threading.Event | None = None,
    kill_grace: float = 2.0,
    own_session: bool = True,
    stdin: bytes | None = None,
) -> ProcessResult:
    """Run argv to completion (or timeout/cancel), keeping at most capture_limit bytes of each stream.
    own_session=False and stdin: see supervise.

    Raises OSError when argv[0] or cwd cannot be used.
    """
    out, err = HeadBuffer(capture_limit), HeadBuffer(capture_limit)

    def sink(stream: Stream, chunk: bytes) -> None:
        (out if stream == "stdout" else err).feed(chunk)

    ending = supervise(
        argv, cwd=cwd, env=env, timeout=timeout, cancel=cancel, kill_grace=kill_grace, sink=sink,
        own_session=own_session, stdin=stdin,
    )
    return ProcessResult(ending, bytes(out.kept), bytes(err.kept), out.total, err.total)


def supervise(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str] | None,
    timeout: float | None,
    cancel: threading.Event | None,
    kill_grace: float,
    sink: OutputSink,
    own_session: bool = True,
    stdin: bytes | None = None,
) -> Ending:
    """Run argv in a new session with stdin closed, feeding its output to `sink` until it and every process
    left in its group are gone. Raises OSError when argv[0] or cwd cannot be used.

    `stdin` bytes (a hook's event) are written to its stdin, which is then closed, from a thread: a child
    that prints before it reads must not block on a full pipe while we block writing to it.

    own_session=False starts it in a new process group of our session instead, for a helper that never opens
    the terminal: on Linux a new session is also a new scheduler autogroup, and under CPU load that alone
    costs a short-lived ripgrep 10-30% of its wall time. It is still stopped and killed as a group."""
    start = time.monotonic()
    proc = reaper.start(
        lambda: subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=own_session,
            process_group=None if own_session else 0,
        )
    )
    deadline = None if timeout is None else start + timeout
    if stdin is not None and proc.stdin is not None:
        threading.Thread(target=_feed_stdin, args=(proc.stdin, stdin), daemon=True).start()
    try:
        with _Supervision(proc, sink) as run:
            try:
                stop = run.until_done(deadline, cancel, kill_grace)
            except BaseException:  # Ctrl-C or a failing sink must not leave the command running unsupervised
                run.signal_group(signal.SIGKILL)
                raise
    finally:
        reaper.finished(proc.pid)
    returncode = proc.returncode
    ended_by_us = stop in ("timed_out", "cancelled")
    return Ending(
        exit_code=returncode if returncode is not None and returncode >= 0 else None,
        signal_name=None if ended_by_us else signal_name(returncode),
        timed_out=stop == "timed_out",
        cancelled=stop == "cancelled",
        duration=time.monotonic() - start,
        background_killed=stop == "background",
    )


class _Supervision:
    """One selector over stdout, stderr and a pipe a waiter thread writes to once the leader is reaped.

    Reaping in a thread (not polling) means a fast command returns as soon as it exits. Once the leader is
    reaped its pid stays reserved by the kernel while any member still uses it as process group id, so
    `killpg` after reaping can only reach the command's own leftovers.
    """

    def __init__(self, proc: subprocess.Popen[bytes], sink: OutputSink) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.pgid = proc.pid
        self.sink = sink
        self.reaped = False
        self.selector = selectors.DefaultSelector()
        for stream, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr)):
            _widen_pipe(pipe.fileno())
            self.selector.register(pipe.fileno(), selectors.EVENT_READ, stream)
        self.reaped_r, reaped_w = os.pipe()
        self.selector.register(self.reaped_r, selectors.EVENT_READ, None)
        threading.Thread(target=_reap, args=(proc, reaped_w), daemon=True).start()

    def __enter__(self) -> _Supervision:
        return self

    def __exit__(self, *exc: object) -> None:
        self.selector.close()
        os.close(self.reaped_r)
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()

    def until_done(self, deadline: float | None, cancel: threading.Event | None, grace: float) -> str | None:
        """Pump output until the group is gone and the pipes are closed; returns why we stopped it, if we did."""
        stop: str | None = None
        term_at: float | None = None
        kill_at: float | None = None
        gone_at: float | None = None
        while True:
            now = time.monotonic()
            alive = self.group_alive()
            if alive and term_at is None:
                if cancel is not None and cancel.is_set():
                    stop = "cancelled"
                elif deadline is not None and now >= deadline:
                    stop = "timed_out"
                elif self.reaped:
                    stop = "background"
                if stop is not None:
                    self.signal_group(signal.SIGTERM)
                    term_at = now
            elif alive and kill_at is None and term_at is not None and now >= term_at + grace:
                self.signal_group(signal.SIGKILL)
                kill_at = now
            if not alive or (kill_at is not None and now >= kill_at + _KILL_WAIT_SECONDS):
                if gone_at is None and reaper.end_orphans(self.pgid, grace):
                    stop = stop or "background"  # what it left outside its group: see reaper
                gone_at = gone_at or now
                if not self.pipes_open or now >= gone_at + _DRAIN_SECONDS:
                    return stop
            self.pump(_POLL_SECONDS)

    @property
    def pipes_open(self) -> bool:
        return any(key.data is not None for key in self.selector.get_map().values())

    def pump(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            if key.data is None:
                self.selector.unregister(key.fd)
                self.reaped = True
                continue
            chunk = os.read(key.fd, _READ_SIZE)
            if chunk:
                self.sink(key.data, chunk)
            else:
                self.selector.unregister(key.fd)

    def group_alive(self) -> bool:
        """Whether any process of the group is still running (zombies nobody reaps do not count)."""
        if not self.reaped:
            return True
        try:
            os.killpg(self.pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return _group_has_running_member(self.pgid)

    def signal_group(self, sig: signal.Signals) -> None:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)


def _feed_stdin(pipe: IO[bytes], data: bytes) -> None:
    with suppress(OSError):  # a child that exits (or closes stdin) without reading it all is its own business
        pipe.write(data)
    with suppress(OSError):
        pipe.close()


def _reap(proc: subprocess.Popen[bytes], notify_fd: int) -> None:
    proc.wait()
    with suppress(OSError):  # the supervisor gave up on an unkillable leader and closed its end
        os.write(notify_fd, b"x")
    os.close(notify_fd)


def _widen_pipe(fd: int) -> None:
    """A larger pipe buffer means fewer, larger reads when a command floods its output (Linux only)."""
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)
    if set_size is not None:
        with suppress(OSError):
            fcntl.fcntl(fd, set_size, _PIPE_SIZE)


def _group_has_running_member(pgid: int) -> bool:
    """Scan /proc for a member of the group that is neither a zombie nor already exiting. Where init is
    slow to reap orphans (or never does, in some containers) dead grandchildren stay zombies, and bwrap's
    sandbox init is still tearing its namespaces down when the command's result is in: `killpg(pgid, 0)`
    would call both alive.

    Members were forked after the leader, so only higher pids are read, unless pid numbers wrapped around
    since the leader started; that keeps the scan cheap on a machine with thousands of processes.
    """
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    wrapped = _last_pid() < pgid
    for entry in entries:
        if not entry.isdigit() or (not wrapped and int(entry) < pgid):
            continue
        try:
            fd = os.open(f"/proc/{entry}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            stat = os.read(fd, 1024)
        except OSError:
            continue
        finally:
            os.close(fd)
        # After the command name: state, ppid, pgrp, session, tty, tpgid, flags, ...
        fields = stat[stat.rfind(b")") + 2 :].split(maxsplit=7)
        if len(fields) < 7 or int(fields[2]) != pgid:
            continue
        if fields[0] not in (b"Z", b"X") and not int(fields[6]) & _PF_EXITING:
            return True
    return False


def _last_pid() -> int:
    """The pid most recently handed out in our pid namespace (0, meaning unknown, forces a full scan)."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as fh:
            return int(fh.read())
    except (OSError, ValueError):
        return 0
