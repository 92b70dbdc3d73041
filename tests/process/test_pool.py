"""Worker processes for GIL-bound work: results come back, a deadline or a dead worker ends the pool, and no
worker is left running afterwards."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sneakycode.process.pool import run_batches


def children() -> set[int]:
    """The live child processes of this one (any thread's), from /proc, but multiprocessing's resource tracker
    (it does no work and ends with this process)."""
    from multiprocessing import resource_tracker

    found: set[int] = set()
    for path in glob.glob(f"/proc/{os.getpid()}/task/*/children"):
        with open(path) as listing:
            found.update(int(pid) for pid in listing.read().split())
    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)
    return {pid for pid in found if _alive(pid) and pid != tracker}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_results_come_back_by_batch_and_no_worker_is_left() -> None:
    before = children()
    results, worked = run_batches(abs, [-3, -1, -2], 2, None)
    assert worked and results == {0: 3, 1: 1, 2: 2}
    assert children() == before


def test_a_deadline_ends_a_busy_worker_at_once() -> None:
    before = children()
    start = time.monotonic()
    results, worked = run_batches(time.sleep, [0.0, 60.0], 2, time.monotonic() + 3.0)
    assert time.monotonic() - start < 10.0  # not the 60 s the second batch would take
    assert worked and results == {0: None}  # the finished batch is kept, the cut one left out
    assert children() == before


def test_a_worker_that_dies_breaks_the_pool_without_leaving_processes() -> None:
    before = children()
    results, worked = run_batches(os._exit, [3], 2, time.monotonic() + 30.0)
    assert not worked and results == {}
    assert children() == before


def test_ctrl_c_is_the_callers_to_handle_the_workers_go_on_quietly(tmp_path: Path) -> None:
    """Like the REPL, which takes Ctrl-C to cancel a turn: the signal reaches the whole process group, and a
    worker must neither die of it (a broken pool) nor print a traceback."""
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import signal, time\n"
        "from sneakycode.process.pool import run_batches\n"
        "if __name__ == '__main__':\n"
        "    signal.signal(signal.SIGINT, lambda *_: print('caller saw Ctrl-C', flush=True))\n"
        "    print(run_batches(time.sleep, [0.0, 4.0], 2, None), flush=True)\n"
    )
    src = Path(__file__).resolve().parents[2] / "src"
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"}, start_new_session=True)
    time.sleep(2.0)  # the workers have started: one sleeps, the other waits for work
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C at a terminal does
    out, err = proc.communicate(timeout=60)
    assert out == "caller saw Ctrl-C\n({0: None, 1: None}, True)\n"
    assert err == "", err  # no traceback, no leaked-semaphore warning from multiprocessing
    give_up = time.monotonic() + 10.0  # multiprocessing's resource tracker ends once its pipe closes
    while (leftover := _session_members(proc.pid)) and time.monotonic() < give_up:
        time.sleep(0.1)
    assert leftover == [], leftover  # nothing of its session runs on


def _session_members(session: int) -> list[str]:
    found = subprocess.run(["ps", "-o", "pid=,args=", "-s", str(session)], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if line.strip()]
