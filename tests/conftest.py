"""Shared fixtures: a real workspace folder, an isolated state/config home, a ToolContext, and a CLI runner.

Every test gets its own HOME/XDG folders so no user configuration or session of the machine leaks in.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sneakycode.config import load_settings, record_trust, trust_state_dir
from sneakycode.permissions.gate import Gate
from sneakycode.tools.base import ToolContext, ToolResult
from sneakycode.tools.context import open_tool_context


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    isolate_home(monkeypatch, home)
    yield home


def isolate_home(patch: pytest.MonkeyPatch, home: Path) -> None:
    """HOME and the XDG folders under `home`, and no SneakyCode setting or key from the environment (also for a
    fixture shared by a module's tests, which is set up before `isolated_home`)."""
    patch.setenv("HOME", str(home))
    patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    patch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    patch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    patch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    for name in list(os.environ):
        if name.startswith("SNEAKYCODE_") or name.endswith("_API_KEY"):
            patch.delenv(name, raising=False)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    """A tool session over `ws` with default settings."""
    return open_tool_context(load_settings(ws))


def call(ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    """Run a tool the way the model would (JSON arguments through the registry)."""
    return Gate(ctx).run_direct(name, json.dumps(args))


def project_config(ws: Path, text: str, *, trusted: bool = True) -> Path:
    """Write the workspace's `.sneakycode/config.toml`; `trusted` records the user's trust in it, as
    `sneakycode trust` does (over every repository file present, `.mcp.json` included), so what it asks for
    applies in full."""
    path = ws / ".sneakycode" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    if trusted:
        record_trust(ws.resolve(), trust_state_dir())
    return path


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str


def run_cli(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None,
            timeout: float = 60) -> CliResult:
    """Run the real `sneakycode` entry point in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "sneakycode.faces.cli.main", *argv],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def run_main(*argv: str, cwd: Path | None = None, env: dict[str, str] | None = None,
                       stdin: str | None = None, timeout: float = 60) -> CliResult:
    """Run the `sneakycode` entry point's `main(argv)` in this process: what `run_cli` gives (exit code,
    stdout, stderr) without a new interpreter paying a second of imports. For tests of what a command prints,
    writes and returns; a test of the process itself (signals, hardening, a closed stdout, the start-up time,
    what it leaves running) runs the real CLI with `run_cli`.

    Kept from leaking into later tests: the environment and working folder (restored), the start-up hardening
    (not applied: it would make this test process a subreaper and move credentials out of its environment for
    good; tests/process covers it), and the descriptors 1 and 2 (redirected to files for the call, so what a
    child the command starts writes there is captured too, as in a subprocess). A command that hangs past
    `timeout` ends this test process with every thread's stack on stderr, rather than hanging the run."""
    import faulthandler
    import tempfile

    from sneakycode.faces.cli import main as cli
    from sneakycode.process import environment, hardening

    with (tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, pytest.MonkeyPatch.context() as patch):
        for name, value in (env or {}).items():
            patch.setenv(name, value)
        if cwd is not None:
            patch.chdir(cwd)
        patch.setattr(hardening, "harden_process", lambda: hardening.Hardening(False, False, (), False))
        patch.setattr(hardening, "wipe_arguments", lambda secrets: True)
        patch.setattr(environment, "_held", dict(environment._held))
        streams = (sys.stdin, sys.stdout, sys.stderr)
        for stream in streams[1:]:
            stream.flush()
        saved = (os.dup(1), os.dup(2))
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.stdin = io.StringIO(stdin or "")
        sys.stdout, sys.stderr = (io.TextIOWrapper(os.fdopen(os.dup(fd), "wb"), encoding="utf-8", write_through=True)
                                  for fd in (1, 2))  # fmt: skip
        faulthandler.dump_traceback_later(timeout, exit=True, file=saved[1])
        try:
            code = cli.main(list(argv))
        except SystemExit as exit_:  # argparse's usage errors and --help/--version, as the interpreter maps them
            if isinstance(exit_.code, str):
                print(exit_.code, file=sys.stderr)
            code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        finally:
            faulthandler.cancel_dump_traceback_later()
            for stream in (sys.stdout, sys.stderr):
                stream.close()
            sys.stdin, sys.stdout, sys.stderr = streams
            for fd, original in zip((1, 2), saved, strict=True):
                os.dup2(original, fd)
                os.close(original)
        out.seek(0)
        err.seek(0)
        return CliResult(int(code), out.read().decode("utf-8", errors="replace"),
                         err.read().decode("utf-8", errors="replace"))


# No suite is left out of `make test` as a whole any more: a test slower than about 10 s on a loaded 2-core
# machine is marked `@pytest.mark.slow` on its own, with the reason beside it, and `make test-slow` runs it.
