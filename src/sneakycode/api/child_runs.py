"""A face that runs SneakyCode itself as a child (the CI Action runs `sneakycode -p` and `review`): started
the one way every subprocess starts (process/supervise.py: its own session, the whole group killed on timeout),
its output fed to the caller as it comes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from sneakycode.process.capture import HeadBuffer
from sneakycode.process.supervise import Stream, supervise

__all__ = ["HeadBuffer", "Stream", "run_command_line"]

COMMAND_LINE = [sys.executable, "-m", "sneakycode.faces.cli.main"]
"""How a child SneakyCode is started: this interpreter, so it is the same installation."""


def run_command_line(argv: list[str], *, cwd: Path, env: dict[str, str], stdin: bytes | None, timeout: float | None,
                     kill_grace: float, sink: Callable[[Stream, bytes], None]) -> int | None:
    """Run `sneakycode ARGV` and wait; its exit code (None when it was killed at `timeout`)."""
    ending = supervise([*COMMAND_LINE, *argv], cwd=cwd, env=env, stdin=stdin, timeout=timeout, cancel=None,
                       kill_grace=kill_grace, sink=sink)
    return ending.exit_code
