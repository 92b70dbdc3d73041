"""The bubblewrap sandbox run_command uses: the workspace (and its extra roots, `--add-dir`) writable, the rest
of the filesystem read-only, a private /tmp, and the network shared or cut off. Credential folders and files
in the home folder (CREDENTIAL_PATHS) and SneakyCode's state folder (other sessions' transcripts and outputs; `hidden`)
are covered by an empty tmpfs or /dev/null, and what in the workspace would run programs later is read-only
(see protected.py).

`probe` runs the exact wrapper once (per bwrap, workspace and network setting) around /bin/true, so a
missing bwrap, a kernel or container that forbids the namespaces it needs, or a workspace it cannot bind is
found before a command depends on it, and bwrap's own error is what the user and the model are told.

The sandboxed processes stay in the caller's process group (no `--new-session`): the child already runs
in a new session with no controlling terminal, and one group lets a timeout kill everything at once.
`--unshare-pid` makes bwrap the init of the sandbox, so leftovers die with the command, and a command sees
no process outside it (no `/proc/PID/environ` of SneakyCode's); `--die-with-parent` ends the sandbox if
SneakyCode itself dies.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sneakycode.process.environment import find_program
from sneakycode.process.protected import RepositoryGuard
from sneakycode.process.sandbox_network import INSIDE_PROXY_SOCKET, through_proxy
from sneakycode.process.supervise import run_process

_PROBE_TIMEOUT = 10.0
# Relative to the home folder: where tools keep keys, tokens and passwords.
CREDENTIAL_PATHS = (
    ".ssh", ".aws", ".azure", ".gnupg", ".password-store", ".netrc", ".authinfo", ".authinfo.gpg", ".pgpass",
    ".my.cnf", ".git-credentials", ".config/git/credentials", ".config/gh", ".config/hub", ".config/gcloud",
    ".kube", ".docker/config.json", ".npmrc", ".pypirc", ".gem/credentials", ".cargo/credentials",
    ".cargo/credentials.toml", ".vault-token", ".terraform.d/credentials.tfrc.json", ".s3cfg", ".boto",
    ".config/rclone", ".oci", ".config/doctl", ".config/op", ".local/share/keyrings", ".cache/huggingface/token",
    ".huggingface/token", ".ollama/id_ed25519",
)  # fmt: skip


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
    hidden: Sequence[Path] = (),
    guard: RepositoryGuard | None = None,
    proxy_socket: Path | None = None,
    extra_roots: Sequence[Path] = (),
) -> list[str]:
    """`command` wrapped in bubblewrap; `readable` folders stay visible even under the private /tmp or a
    hidden folder; `hidden` (and CREDENTIAL_PATHS) are covered; `guard` keeps its paths read-only.
    `extra_roots` (checked by workspace/roots.py) are bound writable like the workspace.
    Order matters: later mounts go on top of earlier ones, so a workspace under /tmp is bound over it, a
    hidden folder that holds the workspace is covered before the workspace is bound, and one inside it after."""
    roots = (workspace, *extra_roots)
    existing = [path for path in [*(Path(os.path.realpath(p)) for p in hidden), *credential_paths()] if path.exists()]
    covered = [
        path
        for path in existing
        if Path("/tmp") not in path.parents or any(path == root or root in path.parents for root in roots)
    ]  # the private /tmp already hides what is under /tmp and outside the workspace
    around = [path for path in covered if any(path == root or path in root.parents for root in roots)]
    binds = [arg for root in roots for arg in ("--bind", str(root), str(root))]
    argv = [
        bwrap,
        "--die-with-parent",
        "--unshare-pid",
        "--cap-drop", "ALL",
        "--ro-bind", "/", "/",
        "--dev", "/dev",
        "--proc", "/proc",
        "--tmpfs", "/tmp",
        *_cover(around),
        *binds,
        *_cover([path for path in covered if path not in around]),
        *(guard.mounts() if guard is not None else []),
        "--setenv", "TMPDIR", "/tmp",
    ]  # fmt: skip
    shown = [*readable, *tools_under_tmp()]
    for folder in shown:
        argv += ["--ro-bind", str(folder), str(folder)]
    # A hidden path inside a folder bound back (an installed package in a virtualenv under /tmp) is covered
    # again on top: binding the folder must not show it.
    argv += _cover([path for path in existing if all(path not in (root, *root.parents) for root in roots)
                    and any(Path(folder) in path.parents for folder in shown)])  # fmt: skip
    if not network or proxy_socket is not None:
        argv.append("--unshare-net")
    if proxy_socket is not None:  # allowlist: the proxy's socket is the only way out (sandbox_network.py)
        argv += ["--ro-bind", str(proxy_socket), INSIDE_PROXY_SOCKET]
        command = through_proxy(command)
    return [*argv, "--chdir", str(cwd), "--", *command]


def credential_paths() -> list[Path]:
    """CREDENTIAL_PATHS that exist, as real paths, under $HOME and under the account's own home folder."""
    homes = {Path.home()}
    with suppress(KeyError, ImportError):
        import pwd

        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    found: list[Path] = []
    for home in homes:
        for relative in CREDENTIAL_PATHS:
            real = Path(os.path.realpath(home / relative))
            if real.exists() and real not in found:
                found.append(real)
    return found


def _cover(paths: Sequence[Path]) -> list[str]:
    """An empty tmpfs over each folder and /dev/null over each file: reads find nothing, writes vanish. A
    plain bind would mount /dev/null `nodev`, and a tool that reads its config file (npm, ~/.npmrc) would
    fail on EACCES rather than find it empty."""
    argv: list[str] = []
    for path in paths:
        argv += ["--tmpfs", str(path)] if path.is_dir() else ["--dev-bind", "/dev/null", str(path)]
    return argv


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
    """Whether bwrap_argv works here; the result is remembered for the life of the process. A bwrap in the
    workspace is never used: a sandboxed command could have put it there."""
    bwrap = find_program("bwrap", not_under=workspace)
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


def masking_argv(command: Sequence[str], *, bwrap: str, covered: Sequence[Path]) -> list[str]:
    """`command` in bubblewrap with the filesystem as it is (read-write, devices) except `covered`: each
    folder under an empty tmpfs, each file under /dev/null. For a helper that must not read what deny rules
    hide (a language server) but otherwise runs as unsandboxed; it stays in the caller's process group."""
    return [bwrap, "--die-with-parent", "--dev-bind", "/", "/", *_cover(covered), "--", *command]


def probe_masking(workspace: Path) -> SandboxProbe:
    """Whether masking_argv works here (a folder covered, as a language server's view would be); remembered
    for the life of the process. A bwrap in the workspace is never used."""
    bwrap = find_program("bwrap", not_under=workspace)
    if bwrap is None:
        return SandboxProbe(False, "bwrap is not installed (Debian/Ubuntu package: bubblewrap)")
    return _probe_masking(bwrap)


@cache
def _probe_masking(bwrap: str) -> SandboxProbe:
    argv = masking_argv(["/bin/true"], bwrap=bwrap, covered=[Path("/tmp")])
    try:
        result = run_process(argv, cwd=Path("/"), timeout=_PROBE_TIMEOUT, capture_limit=4096)
    except OSError as exc:
        return SandboxProbe(False, f"{bwrap} cannot be started: {exc.strerror}")
    if result.ending.exit_code == 0:
        return SandboxProbe(True, bwrap=bwrap)
    said = result.stderr.decode("utf-8", errors="replace").strip() or f"exit code {result.ending.exit_code}"
    return SandboxProbe(False, f"bwrap does not work here: {said}")
