"""run_command's overhead over running the same trivial command directly, with and without the sandbox.

For `true` and `echo hi`, the median wall time of:
  direct              subprocess.run(["/bin/bash", "-c", CMD])  (the reference)
  direct in bwrap     the same argv wrapped exactly as run_command wraps it
  run_command         through the tool registry, in this process (sandbox off / bwrap)
  sneakycode tool     `sneakycode tool run_command '{"command": CMD}'` as a new process (off / bwrap)
Ratios are against `direct`. Sessions go to a temporary state dir. Runs in well under a minute.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from _cli_env import prepare_cli_env
from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.process.environment import shell_argv
from sneakycode.process.sandbox import SandboxProbe, bwrap_argv, probe
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context

COMMANDS = ("true", "echo hi")
IN_PROCESS_RUNS = 60
CLI_RUNS = 8


def medians_ms(ways: list[tuple[str, Callable[[], object], int]]) -> list[float]:
    """Median wall time of each way, measured in interleaved rounds so a busy neighbour skews all alike."""
    for _, action, _ in ways:
        action()  # warm caches (imports, the sandbox probe) outside the measurement
    samples: list[list[float]] = [[] for _ in ways]
    for round_number in range(max(runs for _, _, runs in ways)):
        for times, (_, action, runs) in zip(samples, ways, strict=True):
            if round_number < runs:
                start = time.perf_counter()
                action()
                times.append(time.perf_counter() - start)
    return [statistics.median(times) * 1000 for times in samples]


def ways_to_run(
    command: str, ws: Path, sandbox: SandboxProbe, contexts: dict[str, ToolContext], cli_env: dict[str, str]
) -> list[tuple[str, Callable[[], object], int]]:
    """(label, action, repetitions) for every way of running `command` that the table compares."""
    argv = shell_argv(command)
    quiet = {"cwd": ws, "capture_output": True, "check": True}
    ways: list[tuple[str, Callable[[], object], int]] = [
        ("direct", partial(subprocess.run, argv, **quiet), IN_PROCESS_RUNS)
    ]
    if sandbox.available:
        wrapped = bwrap_argv(argv, bwrap=sandbox.bwrap, workspace=ws, cwd=ws, network=True)
        ways.append(("direct in bwrap", partial(subprocess.run, wrapped, **quiet), IN_PROCESS_RUNS))
    for mode, ctx in contexts.items():
        call = partial(Gate(ctx).run_direct, "run_command", {"command": command})
        ways.append((f"run_command, sandbox {mode}", call, IN_PROCESS_RUNS))
    for mode in contexts:
        cli = [sys.executable, "-m", "sneakycode.faces.cli.main", "tool", "run_command",
               json.dumps({"command": command})]
        env = {**cli_env, "SNEAKYCODE_TOOLS__SHELL__SANDBOX": mode}
        ways.append((f"sneakycode tool, sandbox {mode}", partial(subprocess.run, cli, env=env, **quiet), CLI_RUNS))
    return ways


def main() -> int:
    prepare_cli_env()
    with tempfile.TemporaryDirectory() as tmp:
        ws, state = (Path(tmp) / "ws").resolve(), Path(tmp) / "state"
        ws.mkdir()
        sandbox = probe(ws, network=True)
        if not sandbox.available:
            print(f"(sandbox rows skipped: {sandbox.reason})\n")
        contexts = {
            mode: open_tool_context(
                load_settings(ws, flags={"tools.shell.sandbox": mode, "state_dir": str(state)}), kind="bench"
            )
            for mode in (["off", "bwrap"] if sandbox.available else ["off"])
        }
        cli_env = {**os.environ, "SNEAKYCODE_STATE_DIR": str(state)}
        rows = []
        for command in COMMANDS:
            ways = ways_to_run(command, ws, sandbox, contexts, cli_env)
            rows += [(command, label, ms) for (label, _, _), ms in zip(ways, medians_ms(ways), strict=True)]
    print("| command | how | median ms | vs direct |")
    print("| --- | --- | ---: | ---: |")
    for command, label, ms in rows:
        direct = next(m for c, lab, m in rows if c == command and lab == "direct")
        print(f"| `{command}` | {label} | {ms:.2f} | {ms / direct:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
