"""Configured checkers (`[diagnostics.checkers] python = "ruff check --output-format=json {file}"`): run one
on a file through process/ (timeout, whole process group killed) and read what it says about that file.

A checker that cannot start, times out or prints what its reader does not understand gives a one-line note
and no findings; it never fails the edit that asked for it.
"""

from __future__ import annotations

import os
import shlex
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from sneakycode.process.environment import command_environment
from sneakycode.process.supervise import run_process
from sneakycode.tools.diagnostics.findings import Checked
from sneakycode.tools.diagnostics.outputs import reader_for

CAPTURE_LIMIT = 4 << 20
KILL_GRACE_SECONDS = 1.0
_STDERR_CHARS = 120


@dataclass(frozen=True)
class Checker:
    """A checker command template and where it runs (the workspace root, so project configs apply)."""

    template: str
    cwd: Path
    timeout: float
    cancel: threading.Event | None = None

    def argv(self, file: Path) -> list[str]:
        # Split first, substitute after: a file name with spaces or quotes stays one argument.
        return [word.replace("{file}", str(file)) for word in shlex.split(self.template)]

    def run(self, file: Path) -> Checked:
        """The checker's findings about `file` (as it is on disk now)."""
        try:
            argv = self.argv(file)
        except ValueError as exc:
            return Checked([], [f"Note: the checker command {self.template!r} cannot be split into words ({exc})."])
        if not argv:
            return Checked([], [])
        name, reader = reader_for(argv)
        try:
            result = run_process(
                argv,
                cwd=self.cwd,
                env=command_environment(),
                timeout=self.timeout,
                capture_limit=CAPTURE_LIMIT,
                kill_grace=KILL_GRACE_SECONDS,
                cancel=self.cancel,
            )
        except OSError as exc:
            why = exc.strerror or str(exc)
            return Checked([], [f"Note: checker {name} could not start ({why}); its findings are not shown."])
        if result.ending.timed_out:
            return Checked([], [f"Note: checker {name} took longer than {self.timeout:g} s and was stopped; its "
                                "findings are not shown."])
        if result.ending.cancelled:
            return Checked([], [f"Note: checker {name} was stopped by the cancel; its findings are not shown."])
        stdout = result.stdout.decode("utf-8", errors="replace")
        try:
            located = reader(stdout, name)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            stderr = " ".join(result.stderr.decode("utf-8", errors="replace").split())[:_STDERR_CHARS]
            said = f"; stderr: {stderr}" if stderr else ""
            ending = result.ending.exit_code if result.ending.exit_code is not None else result.ending.signal_name
            return Checked([], [f"Note: the output of checker {name} could not be read as {name}'s ({exc}; exit "
                                f"{ending}{said}); its findings are not shown."])
        return Checked([f for printed, f in located if self._same_file(printed, file)], [])

    def run_on_text(self, like: Path, text: str) -> Checked:
        """The checker's findings about `text` as if it were `like`: checked as a copy beside it, so the
        same project configuration and import paths apply; the copy is always removed. Not a dot-file (eslint
        ignores those) and a valid module name (ruff and pyright judge the name too); where a message names
        the copy, it is made to name `like`, so it compares equal to the same finding about the real file."""
        try:
            fd, name = tempfile.mkstemp(prefix="_sneakycode_before_", suffix=like.suffix, dir=like.parent)
        except OSError as exc:
            return Checked([], [f"Note: no copy of the old text could be made for the checker ({exc.strerror})."])
        temp = Path(name)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            checked = self.run(temp)
        finally:
            temp.unlink(missing_ok=True)
        renamed = [
            replace(f, message=f.message.replace(temp.name, like.name).replace(temp.stem, like.stem))
            for f in checked.findings
        ]
        return Checked(renamed, checked.notes)

    def _same_file(self, printed: str, file: Path) -> bool:
        try:
            return (self.cwd / printed).resolve() == file.resolve()
        except (OSError, ValueError):
            return False

