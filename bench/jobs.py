"""A background job that prints 1 GB: time and memory, against the same pipeline read by a plain loop.

  direct        `head -c 1G /dev/zero | tr '\\0' x` read to /dev/null by a bare os.read loop (the reference)
  job           the same command as a SneakyCode job (process/jobs.py): ring buffer + capped session log
  job (tool)    run_command(background=true) through the gate, sandbox as configured, then the job tool
                waiting for it to exit

Memory is this process's VmRSS, sampled every 20 ms while the output flows, minus VmRSS before it started,
and the peak (VmHWM) over the whole process at the end. Sessions go to a temporary state dir.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.process.environment import shell_argv
from sneakycode.process.jobs import JobTable
from sneakycode.tools.context import open_tool_context

COMMAND = "head -c 1073741824 /dev/zero | tr '\\0' x"


def status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class RssSampler:
    def __init__(self) -> None:
        self.before = status_kib("VmRSS")
        self.peak = self.before
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.stop.wait(0.02):
            self.peak = max(self.peak, status_kib("VmRSS"))

    def finish(self) -> int:
        self.stop.set()
        self.thread.join()
        return self.peak - self.before


def direct() -> tuple[float, int]:
    sampler = RssSampler()
    start = time.monotonic()
    proc = subprocess.Popen(shell_argv(COMMAND), stdout=subprocess.PIPE)
    assert proc.stdout is not None
    while os.read(proc.stdout.fileno(), 1 << 16):
        pass
    proc.wait()
    return time.monotonic() - start, sampler.finish()


def job(tmp: Path) -> tuple[float, int]:
    table = JobTable()
    sampler = RssSampler()
    start = time.monotonic()
    started = table.start(shell_argv(COMMAND), command=COMMAND, cwd=tmp, env=None, log_dir=tmp / "logs", max_jobs=1)
    started.wait(lambda: not started.running, time.monotonic() + 600)
    took = time.monotonic() - start
    assert started.total == 1 << 30, started.total
    return took, sampler.finish()


def job_tool(tmp: Path) -> tuple[float, int]:
    ws = tmp / "ws"
    ws.mkdir()
    ctx = open_tool_context(load_settings(ws))
    gate = Gate(ctx)
    sampler = RssSampler()
    start = time.monotonic()
    gate.run_direct("run_command", {"command": COMMAND, "background": True})
    result = gate.run_direct("job", {"job_id": 1, "pattern": "never printed", "wait_seconds": 600})
    took = time.monotonic() - start
    assert result.data["output_bytes"] == 1 << 30, result.data
    ctx.close()
    return took, sampler.finish()


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_STATE_HOME"] = str(Path(tmp) / "state")
        rows = [("direct (reference)", *direct()), ("job", *job(Path(tmp))), ("job (tool)", *job_tool(Path(tmp)))]
    reference = rows[0][1]
    print("| way | seconds for 1 GB | MB/s | RSS growth while it runs | vs direct |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, seconds, grown in rows:
        ratio = seconds / reference
        print(f"| {name} | {seconds:.2f} | {1024 / seconds:,.0f} | {grown / 1024:.1f} MB | {ratio:.2f}x |")
    print(f"\npeak RSS of the whole process (VmHWM): {status_kib('VmHWM') / 1024:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
