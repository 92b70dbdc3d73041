"""The bubblewrap sandbox run_command uses: the workspace writable, the rest of the filesystem read-only, a
private /tmp, and the network shared or cut off.

`probe` runs the exact wrapper once (per bwrap, workspace and network setting) around /bin/true, so a
missing bwrap, a kernel or container that forbids the namespaces it needs, or a workspace it cannot bind is
found before a command depends on it, and bwrap's own error is what the user and the model are told.

The sandboxed processes stay in the caller's process group (no `--new-session`): the child already runs
in a new session with no controlling terminal, and one group lets a timeout kill everything at once.
`--unshare-pid` makes bwrap the init of the sandbox, so leftovers die with the command;
`--die-with-parent` ends the sandbox if SneakyCode itself dies.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sneakycode.process.supervise import run_process

_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class SandboxProbe:
    available: bool
    reason: str = ""  # why not, when unavailable
    bwrap: str = ""  # the bwrap executable that works


def bwrap_argv(
    command: Sequence[str],
    *,
    bwrap: str,
    workspace: Path,
    cwd: Path,
    network: bool,
    readable: Sequence[Path] = (),
) -> list[str]:
    """`command` wrapped in bubblewrap; `readable` folders stay visible even under the private /tmp.
    Order matters: later mounts go on top of earlier ones, so a workspace under /tmp is bound over it."""
    argv = [
        bwrap,
        "--die-with-parent",
        "--unshare-pid",
        "--cap-drop", "ALL",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        "--bind", str(workspace), str(workspace),
        "--setenv", "TMPDIR", "/tmp",
    ]  # fmt: skip
    for folder in [*readable, *tools_under_tmp()]:
        argv += ["--ro-bind", str(folder), str(folder)]
    if not network:
        argv.append("--unshare-net")
    return [*argv, "--chdir", str(cwd), "--", *command]


def tools_under_tmp(search_path: str | None = None) -> list[Path]:
    """Folders under /tmp that commands still need inside the sandbox's private /tmp: this interpreter's
    environment and every PATH folder there (a virtualenv's root rather than only its bin/), read-only.
    Without them a project or CI checkout under /tmp loses its own tools (`.venv/bin/python: not found`)."""
    tmp = Path("/tmp")
    candidates = [Path(sys.prefix)]
    for entry in (search_path if search_path is not None else os.environ.get("PATH", "")).split(os.pathsep):
        if entry:
            folder = Path(entry)
            candidates.append(folder.parent if (folder.parent / "pyvenv.cfg").exists() else folder)
    found: list[Path] = []
    for folder in candidates:
        real = Path(os.path.realpath(folder))
        if tmp in real.parents and real.is_dir() and real not in found:
            found.append(real)
    return found


def probe(workspace: Path, *, network: bool) -> SandboxProbe:
    """Whether bwrap_argv works here; the result is remembered for the life of the process."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return SandboxProbe(False, "bwrap is not installed (Debian/Ubuntu package: bubblewrap)")
    return _probe(bwrap, workspace, network)


@cache
def _probe(bwrap: str, workspace: Path, network: bool) -> SandboxProbe:
    argv = bwrap_argv(["/bin/true"], bwrap=bwrap, workspace=workspace, cwd=workspace, network=network)
    try:
        result = run_process(argv, cwd=workspace, timeout=_PROBE_TIMEOUT, capture_limit=4096)
    except OSError as exc:
        return SandboxProbe(False, f"{bwrap} cannot be started: {exc.strerror}")
    if result.ending.exit_code == 0:
        return SandboxProbe(True, bwrap=bwrap)
    said = result.stderr.decode("utf-8", errors="replace").strip()
    if result.ending.timed_out:
        said = f"it did not finish within {_PROBE_TIMEOUT:.0f} s"
    elif not said:
        said = f"exit code {result.ending.exit_code}, signal {result.ending.signal_name}"
    return SandboxProbe(False, f"bwrap does not work here: {said}")
