"""Background jobs: commands that keep running (a dev server, a watcher) while the session goes on.

A job starts in a session of its own with stdin closed, like every command (see supervise). One reader
thread per job moves its output (stdout and stderr interleaved) into a ring buffer that keeps the last
RING_BYTES and into the session's log file (up to LOG_LIMIT_BYTES), so memory stays bounded whatever the job
prints, and readers wait on it with a deadline. Ending a job ends its process group: SIGTERM, then SIGKILL
after a grace period.

No job outlives SneakyCode:
- `JobTable.kill_all` runs when the session ends (headless end, interactive exit, Ctrl-C) and at exit;
- the job's first process gets `PR_SET_PDEATHSIG` (SIGKILL when SneakyCode dies, even by SIGKILL), set in
  the child between fork and exec; the signal follows the *thread* that forked, so every job is started
  from one launcher thread that lives as long as the process;
- a watchdog process (`process/watchdog.py`) holds the read end of a pipe and the list of job process
  groups: when SneakyCode dies the pipe closes and the watchdog ends those groups. `PR_SET_PDEATHSIG` alone
  reaches only the first process, not the server `bash -c 'cd web && npm run dev'` forked.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from sneakycode.process import reaper
from sneakycode.process.group_watch import Watchdog, shared_watchdog
from sneakycode.process.supervise import _group_has_running_member, signal_name

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

RING_BYTES = 1 << 20
LOG_LIMIT_BYTES = 256 << 20  # a job printing at full speed for hours must not fill the disk
_READ_SIZE = 1 << 16
_PR_SET_PDEATHSIG = 1



@cache
def _launcher() -> ThreadPoolExecutor:
    """One long-lived thread starts every job, because PR_SET_PDEATHSIG fires when the forking thread ends.
    Made on first use, like libc's prctl, so sessions that start no job pay nothing for them."""
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="sneakycode-job-launcher")


class JobLimitReached(Exception):
    """tools.shell.max_jobs jobs are already running."""


@dataclass
class OutputSlice:
    """What a read returns: text from `start` to `end` (byte offsets into the whole output), and how much
    before `start` was asked for but has left the ring buffer."""

    text: bytes
    start: int
    end: int
    dropped: int


@dataclass
class Job:
    """One running (or finished) job. Offsets count every byte the job has printed."""

    id: int
    command: str
    pid: int
    log_path: Path | None
    started: float = field(default_factory=time.monotonic)
    exit_code: int | None = None
    signal: str | None = None
    killed: bool = False  # ended by us (kill, session end), not on its own
    ended: float | None = None
    total: int = 0
    read_to: int = 0  # where the model's last read stopped: the default `since`
    _ring: bytearray = field(default_factory=bytearray)
    _changed: threading.Condition = field(default_factory=threading.Condition)
    _proc: subprocess.Popen[bytes] | None = None
    _log_written: int = 0
    on_exit: Callable[[], object] | None = None

    @property
    def running(self) -> bool:
        return self.ended is None

    @property
    def status(self) -> str:
        if self.running:
            return "running"
        return "killed" if self.killed else "exited"

    def summary(self) -> dict[str, object]:
        """The job as headless JSON and `/jobs` show it."""
        return {
            "id": self.id, "command": self.command, "pid": self.pid, "status": self.status,
            "exit_code": self.exit_code, "signal": self.signal, "output_bytes": self.total,
            "log_path": str(self.log_path) if self.log_path else None,
            "seconds": round((self.ended or time.monotonic()) - self.started, 1),
        }  # fmt: skip

    def read(self, since: int | None = None) -> OutputSlice:
        """Output from `since` (default: where the last read stopped) to now; moves the read position."""
        with self._changed:
            start = self.read_to if since is None else max(0, since)
            first_kept = self.total - len(self._ring)
            dropped = max(0, first_kept - start)
            begin = max(start, first_kept)
            text = bytes(self._ring[begin - first_kept :]) if begin < self.total else b""
            self.read_to = self.total
            return OutputSlice(text, begin, self.total, dropped)

    def wait(self, until: Callable[[], bool], deadline: float, cancel: threading.Event | None = None) -> bool:
        """Wait until `until()` holds (checked whenever output arrives or the job ends), the deadline passes or
        `cancel` is set; True when it held."""
        with self._changed:
            while not until():
                left = deadline - time.monotonic()
                if left <= 0 or (cancel is not None and cancel.is_set()):
                    return False
                self._changed.wait(min(left, 0.1))
            return True

    def retained(self) -> tuple[bytes, int]:
        """The ring buffer's bytes and the offset of its first byte."""
        with self._changed:
            return bytes(self._ring), self.total - len(self._ring)

    def _feed(self, chunk: bytes, log: BinaryIO | None) -> None:
        if log is not None and self._log_written < LOG_LIMIT_BYTES:
            piece = chunk[: LOG_LIMIT_BYTES - self._log_written]
            try:
                log.write(piece)
                self._log_written += len(piece)
            except OSError:
                self._log_written = LOG_LIMIT_BYTES  # a full disk stops the log, never the job
        with self._changed:
            self.total += len(chunk)
            if len(chunk) >= RING_BYTES:
                self._ring[:] = chunk[-RING_BYTES:]
            else:
                self._ring += chunk
                excess = len(self._ring) - RING_BYTES
                if excess > 0:
                    del self._ring[:excess]
            self._changed.notify_all()

    def _finish(self, returncode: int) -> None:
        with self._changed:
            self.exit_code = returncode if returncode >= 0 else None
            self.signal = signal_name(returncode)
            self.ended = time.monotonic()
            self._changed.notify_all()


class JobTable:
    """The jobs of one session. `start` refuses beyond `max_jobs` running jobs."""

    def __init__(self) -> None:
        self.jobs: dict[int, Job] = {}
        self._lock = threading.Lock()
        self._watchdog: Watchdog | None = None
        atexit.register(self.kill_all, 0.5)

    def running(self) -> list[Job]:
        return [job for job in self.jobs.values() if job.running]

    def get(self, job_id: int) -> Job | None:
        return self.jobs.get(job_id)

    def start(
        self,
        argv: Sequence[str],
        *,
        command: str,
        cwd: Path,
        env: Mapping[str, str] | None,
        log_dir: Path | None,
        max_jobs: int,
        on_exit: Callable[[], object] | None = None,
    ) -> Job:
        """Start argv as a job; raises JobLimitReached, or OSError when it cannot be started."""
        with self._lock:
            if len(self.running()) >= max_jobs:
                raise JobLimitReached(f"{max_jobs} jobs are running (tools.shell.max_jobs)")
            job_id = max(self.jobs, default=0) + 1
            log, log_path = _open_log(log_dir, job_id)
            try:
                proc = _launcher().submit(_popen, list(argv), cwd, env, _prctl()).result()
            except BaseException:
                if log is not None:
                    log.close()
                raise
            job = Job(job_id, command, proc.pid, log_path, _proc=proc, on_exit=on_exit)
            self.jobs[job_id] = job
            if self._watchdog is None:
                self._watchdog = shared_watchdog()
            self._watchdog.watch(proc.pid)
        threading.Thread(target=self._pump, args=(job, proc, log), daemon=True, name=f"job-{job_id}").start()
        return job

    def kill(self, job: Job, grace: float = 2.0) -> None:
        """End the job's process group: SIGTERM, then SIGKILL after `grace` seconds; returns once it ended."""
        if job.running:
            job.killed = True
        _signal_group(job.pid, signal.SIGTERM)
        if not job.wait(lambda: not job.running and not _group_has_running_member(job.pid), time.monotonic() + grace):
            _signal_group(job.pid, signal.SIGKILL)
            job.wait(lambda: not job.running, time.monotonic() + 5.0)

    def kill_all(self, grace: float = 2.0) -> list[Job]:
        """End every running job (the session is ending); returns those that were running."""
        running = self.running()
        for job in running:
            job.killed = True
            _signal_group(job.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace
        for job in running:
            if not job.wait(lambda j=job: not j.running, deadline):  # type: ignore[misc]
                _signal_group(job.pid, signal.SIGKILL)
        for job in running:
            _signal_group(job.pid, signal.SIGKILL)  # members that ignored SIGTERM after the leader left
            job.wait(lambda j=job: not j.running, time.monotonic() + 2.0)  # type: ignore[misc]
        return running

    def _pump(self, job: Job, proc: subprocess.Popen[bytes], log: BinaryIO | None) -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        try:
            while chunk := os.read(fd, _READ_SIZE):
                job._feed(chunk, log)
        except OSError:
            pass
        finally:
            proc.stdout.close()
            if log is not None:
                log.close()
        returncode = proc.wait()
        reaper.finished(proc.pid)
        # The leader is gone; what it left in its group is ended too (a job is one unit, like a command).
        if _group_has_running_member(job.pid):
            _signal_group(job.pid, signal.SIGKILL)
        if self._watchdog is not None:
            self._watchdog.forget(job.pid)
        job._finish(returncode)
        if job.on_exit is not None:
            with suppress(Exception):
                job.on_exit()


def _open_log(log_dir: Path | None, job_id: int) -> tuple[BinaryIO | None, Path | None]:
    if log_dir is None:
        return None, None
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        path = log_dir / f"job-{job_id}.log"
        return path.open("wb"), path
    except OSError:
        return None, None  # the ring buffer still has the recent output


def _popen(
    argv: list[str], cwd: Path, env: Mapping[str, str] | None, prctl: Callable[..., int] | None
) -> subprocess.Popen[bytes]:
    def die_with_parent() -> None:
        """In the child between fork and exec: SIGKILL when SneakyCode (the launcher thread) dies."""
        assert prctl is not None
        prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)

    return reaper.start(
        lambda: subprocess.Popen(
            argv,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent if prctl is not None else None,
        )
    )


@cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up before any fork: the child may only make the call, not load a library."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function



def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
