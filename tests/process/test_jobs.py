"""Issue 16: background jobs keep a bounded amount of output in memory whatever they print, and no job
outlives SneakyCode: not at session end, and not when SneakyCode itself is SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sneakycode.process.environment import shell_argv
from sneakycode.process.jobs import RING_BYTES, JobLimitReached, JobTable
from tests.process.test_supervise import marker, running_with


@pytest.fixture
def table() -> Iterator[JobTable]:
    jobs = JobTable()
    yield jobs
    jobs.kill_all(0.2)


def sleeps(tag: str) -> list[int]:
    """The running `sleep TAG` processes themselves (not the shells or parents whose command line names them)."""
    found = []
    for pid in running_with(tag):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() == f"sleep\0{tag}\0".encode():
                found.append(pid)
        except OSError:
            continue
    return found


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_a_job_printing_1_gb_keeps_memory_bounded_and_its_tail_readable(table: JobTable, tmp_path: Path) -> None:
    before = rss_kib()
    job = table.start(
        shell_argv("head -c 1073741824 /dev/zero | tr '\\0' x; echo; echo the-end"), command="flood", cwd=tmp_path,
        env=None, log_dir=tmp_path / "logs", max_jobs=1,
    )  # fmt: skip
    peak = before
    deadline = time.monotonic() + 120
    while job.running and time.monotonic() < deadline:
        peak = max(peak, rss_kib())
        time.sleep(0.05)
    assert not job.running and job.exit_code == 0
    assert job.total == (1 << 30) + len("\nthe-end\n")
    piece = job.read()
    assert piece.text.endswith(b"x\nthe-end\n") and len(piece.text) == RING_BYTES
    assert piece.dropped == job.total - RING_BYTES
    # The ring buffer is 1 MB; what reading at 1 GB/s adds beyond it (pipe reads, thread stacks) stays small.
    assert peak - before < 64 * 1024, f"RSS grew by {(peak - before) // 1024} MB while the job printed 1 GB"
    assert job.log_path is not None and job.log_path.stat().st_size == 256 << 20  # the log is capped


def test_kill_ends_the_whole_process_group_term_then_kill(table: JobTable, tmp_path: Path) -> None:
    tag = marker()
    script = f"trap '' TERM; sleep {tag} & sleep {tag}; wait"  # ignores SIGTERM: only SIGKILL ends it
    job = table.start(shell_argv(script), command=script, cwd=tmp_path, env=None, log_dir=None, max_jobs=1)
    deadline = time.monotonic() + 5
    while len(sleeps(tag)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(sleeps(tag)) == 2
    started = time.monotonic()
    table.kill(job, grace=0.3)
    assert not job.running and job.killed and job.status == "killed"
    assert running_with(tag) == []
    assert time.monotonic() - started < 5


def test_max_jobs_bounds_how_many_run(table: JobTable, tmp_path: Path) -> None:
    first = table.start(shell_argv("sleep 30"), command="sleep 30", cwd=tmp_path, env=None, log_dir=None, max_jobs=1)
    with pytest.raises(JobLimitReached):
        table.start(shell_argv("sleep 30"), command="sleep 30", cwd=tmp_path, env=None, log_dir=None, max_jobs=1)
    table.kill(first, grace=0.2)
    second = table.start(shell_argv("true"), command="true", cwd=tmp_path, env=None, log_dir=None, max_jobs=1)
    assert second.id == 2


def test_reads_continue_where_the_last_one_stopped(table: JobTable, tmp_path: Path) -> None:
    job = table.start(shell_argv("echo one; sleep 0.3; echo two"), command="x", cwd=tmp_path, env=None,
                      log_dir=tmp_path, max_jobs=1)
    job.wait(lambda: job.total >= 4, time.monotonic() + 5)
    assert job.read().text == b"one\n"
    job.wait(lambda: not job.running, time.monotonic() + 5)
    assert job.read().text == b"two\n"
    assert job.read(since=0).text == b"one\ntwo\n"
    assert job.log_path is not None and job.log_path.read_bytes() == b"one\ntwo\n"


SNEAKY_WITH_A_JOB = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from sneakycode.config import load_settings
    from sneakycode.permissions.gate import Gate
    from sneakycode.process.hardening import harden_process
    from sneakycode.tools.context import open_tool_context

    harden_process()
    ctx = open_tool_context(load_settings(Path(sys.argv[1])))
    tag = sys.argv[2]
    # The job's shell forks: the server-like grandchild is what PR_SET_PDEATHSIG alone would miss.
    result = Gate(ctx).run_direct("run_command", {"command": f"sleep {tag} & sleep {tag}; wait", "background": True})
    print(result.data["pid"], flush=True)
    time.sleep(600)
""")


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_sigkill_of_sneakycode_itself_leaves_no_job_running(ws: Path, sandbox: str) -> None:
    tag = marker()
    env = {**os.environ, "SNEAKYCODE_TOOLS__SHELL__SANDBOX": f'"{sandbox}"'}
    parent = subprocess.Popen([sys.executable, "-c", SNEAKY_WITH_A_JOB, str(ws), tag], stdout=subprocess.PIPE,
                              env=env, text=True)
    try:
        assert parent.stdout is not None
        leader = int(parent.stdout.readline())
        deadline = time.monotonic() + 10
        while len(sleeps(tag)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        members = sleeps(tag)
        assert len(members) == 2, "the job's two sleeps should be running"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while (running_with(tag) or _alive(leader)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running_with(tag) == [] and not _alive(leader), "a job outlived SneakyCode"
    finally:
        parent.kill()
        for pid in running_with(tag):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")
