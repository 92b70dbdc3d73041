"""Workspace files that make programs run later, outside the sandbox: read-only inside it.

git runs hooks and the programs its configuration names (`core.fsmonitor`, `core.hooksPath`, filters, diff
and merge drivers, credential helpers, aliases, ...) during ordinary commands, and SneakyCode reads
`.sneakycode/` at start-up. A sandboxed command that could write them would have code run unsandboxed the
next time the user, or SneakyCode, runs git. So, inside the sandbox:

- `.sneakycode/` and, in the git dir: `config`, `hooks/`, `info/` (its `attributes` pick drivers),
  `commondir` and `config.worktree` (they change where configuration comes from), the same in submodule
  and worktree git dirs, every config file git reads that lies in the workspace (`include.path`), the
  `core.hooksPath` folder and any program a config value names inside the workspace are bound read-only;
- the git dir (or `.git` file) is bound onto itself, so it can be neither renamed nor replaced by one of the
  command's making;
- a missing folder among them is covered by an empty read-only tmpfs; the empty folder bwrap creates on
  disk for it is removed afterwards if it is still empty;
- a missing file cannot be covered that way (git refuses an empty `commondir`), so one the command created
  is deleted after the command, once every process of the sandbox is gone (they share its PID namespace);
  a protected path that was a symbolic link is put back if the command replaced the link.

A repository the command creates itself (`git init` in a workspace that had none) is the command's own
content and is not covered.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from sneakycode.config import PROJECT_CONFIG, user_config_path
from sneakycode.config.files import read_head
from sneakycode.process.environment import find_program
from sneakycode.process.supervise import run_process

GIT_DIR_FOLDERS = ("hooks", "info")
GIT_DIR_FILES = ("config", "commondir", "config.worktree")
# Config keys whose value git runs as a program (matched on the lower-cased key git --list prints).
PROGRAM_KEYS = re.compile(
    r"core\.(fsmonitor|sshcommand|editor|pager|askpass|gitproxy)|credential\.(.+\.)?helper|diff\.external"
    r"|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)|merge\..+\.driver|mergetool\..+\.cmd"
    r"|difftool\..+\.cmd|gpg\.(.+\.)?program|sequence\.editor|alias\..+|pager\..+|remote\..+\.(uploadpack"
    r"|receivepack)|uploadpack\.packobjectshook|sendemail\.smtpserver|interactive\.difffilter|web\.browser"
    r"|browser\..+\.cmd|man\..+\.cmd"
)
_GIT_TIMEOUT = 10.0
_MAX_MODULE_DEPTH = 4
_GITFILE_BYTES = 4096  # a `gitdir: PATH` line fits with room to spare


@dataclass
class RepositoryGuard:
    """What one sandboxed command may not change in `workspace`: `mounts()` before it, `restore()` after."""

    workspace: Path
    read_only: list[Path] = field(default_factory=list)  # existing files and folders, bound read-only
    self_bound: list[Path] = field(default_factory=list)  # bound onto themselves: not renamed or replaced
    placeholders: list[Path] = field(default_factory=list)  # missing folders, covered by a read-only tmpfs
    absent_files: list[Path] = field(default_factory=list)  # missing files: deleted after if created
    links: dict[Path, str] = field(default_factory=dict)  # protected symbolic links and their targets

    @classmethod
    def survey(cls, workspace: Path) -> RepositoryGuard:
        guard = cls(workspace)
        guard._folder(workspace / PROJECT_CONFIG.parent)
        guard._folder(user_config_path().parent, missing=False)  # when the workspace holds the home folder
        git_dir = guard._git_dir(workspace / ".git")
        if git_dir is not None:
            guard._git_dir_contents(git_dir, missing=True)
            for sub in _nested_git_dirs(git_dir):
                guard._git_dir_contents(sub, missing=False)
        guard._from_git_config(top=workspace if os.path.lexists(workspace / ".git") else None)
        return guard

    def mounts(self) -> list[str]:
        """bwrap arguments; they go after the workspace is bound."""
        argv: list[str] = []
        for path in self.self_bound:
            argv += ["--bind", str(path), str(path)]
        for path in self.read_only:
            argv += ["--ro-bind", str(path), str(path)]
        for path in self.placeholders:
            argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
        return argv

    def restore(self) -> list[str]:
        """Undo what the command could still do to protected paths; one note per thing undone."""
        notes = []
        for path in self.placeholders:
            with suppress(OSError):
                path.rmdir()  # only the empty folder bwrap made for the tmpfs; anything else stays
        for path in self.absent_files:
            if os.path.lexists(path):
                done = _undo(partial(_remove, path), "deleted")
                notes.append(f"{self._shown(path)} was created by the command and {done}: git would follow it")
        for path, target in self.links.items():
            if not path.is_symlink() or os.readlink(path) != target:
                done = _undo(partial(_relink, path, target), "put back")
                notes.append(f"{self._shown(path)} was replaced by the command and {done} (a link to {target})")
        return notes

    def _shown(self, path: Path) -> str:
        return str(path.relative_to(self.workspace))

    def inside(self, path: Path) -> bool:
        return path == self.workspace or self.workspace in path.parents

    def _real(self, path: Path) -> Path | None:
        """Where `path` really is, when that is in the workspace (elsewhere the whole sandbox is read-only);
        remembers a link so a command that replaces it is undone."""
        if path.is_symlink() and self.inside(path):
            self.links[path] = os.readlink(path)
        real = Path(os.path.realpath(path))
        return real if self.inside(real) and real != self.workspace else None

    def _folder(self, path: Path, *, missing: bool = True) -> None:
        real = self._real(path)
        if real is None or real in self.read_only:
            return
        if real.is_dir() or real.is_file():
            self.read_only.append(real)
        elif missing and not os.path.lexists(real) and os.access(real.parent, os.W_OK):
            self.placeholders.append(real)

    def _file(self, path: Path, *, missing: bool = True) -> None:
        real = self._real(path)
        if real is None or real in self.read_only:
            return
        if real.exists():
            self.read_only.append(real)
        elif missing and not os.path.lexists(real):
            self.absent_files.append(real)

    def _git_dir(self, dot_git: Path) -> Path | None:
        """The workspace's git dir, bound onto itself; None when there is none or it is outside."""
        real = self._real(dot_git)
        if real is None:
            return None
        if real.is_file():  # a `gitdir: PATH` file (worktree, submodule): it must keep pointing there
            self.read_only.append(real)
            target = _gitfile_target(real)
            real = self._real(target) if target is not None else None  # git follows one such file, not a chain
            if real is None:
                return None
        if not real.is_dir():
            return None
        self.self_bound.append(real)
        return real

    def _git_dir_contents(self, git_dir: Path, *, missing: bool) -> None:
        for name in GIT_DIR_FOLDERS:
            self._folder(git_dir / name, missing=missing)
        for name in GIT_DIR_FILES:
            self._file(git_dir / name, missing=missing)

    def _from_git_config(self, top: Path | None) -> None:
        """Config files in the workspace, the hooks folder and programs that git's configuration names, also
        when the workspace is a folder inside a repository (`top`, its top level, is then found here)."""
        git = find_program("git", not_under=self.workspace)  # it runs unsandboxed
        in_repository = "GIT_DIR" in os.environ or any(
            os.path.lexists(folder / ".git") for folder in (self.workspace, *self.workspace.parents)
        )
        if git is None or not in_repository:  # outside a repository there is no config of its own to ask about
            return
        try:
            result = run_process(
                [git, "config", "--list", "--show-origin", "-z"], cwd=self.workspace, timeout=_GIT_TIMEOUT
            )
        except OSError:
            return
        if result.ending.exit_code != 0:
            return
        records = _config_records(result.stdout)
        for origin, _, _ in records:
            if origin.startswith("file:"):
                config_file = Path(os.path.normpath(self.workspace / os.path.expanduser(origin[5:])))
                self._file(config_file, missing=False)
                if top is None and config_file.parts[-2:] == (".git", "config"):
                    top = config_file.parent.parent
        top = top or self.workspace
        for _, key, value in records:
            if key == "core.hookspath" and value:
                self._folder(top / os.path.expanduser(value))
            elif value and PROGRAM_KEYS.fullmatch(key):
                program = _first_word(value.removeprefix("!"))
                if "/" in program:
                    self._file(top / os.path.expanduser(program), missing=False)


def _config_records(output: bytes) -> list[tuple[str, str, str]]:
    """(origin, key, value) from `git config --list --show-origin -z`: origin NUL key LF value NUL."""
    parts = output.decode("utf-8", errors="surrogateescape").split("\0")
    records = []
    for origin, entry in zip(parts[0::2], parts[1::2], strict=False):
        key, _, value = entry.partition("\n")
        records.append((origin, key, value))
    return records


def _first_word(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return words[0] if words else ""


def _gitfile_target(gitfile: Path) -> Path | None:
    # The repository decides what `.git` is: read through the regular-file reader, so a `.git` swapped for a
    # FIFO after the is_file() check is not waited on, and only the head of a huge one is read.
    try:
        text = read_head(gitfile, _GITFILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else gitfile.parent / target


def _nested_git_dirs(git_dir: Path) -> list[Path]:
    """Submodule git dirs (`modules/NAME`, nested) and linked worktrees' dirs (`worktrees/NAME`)."""
    found: list[Path] = []
    pending = [(git_dir / "modules", 1), (git_dir / "worktrees", _MAX_MODULE_DEPTH)]
    while pending:
        folder, depth = pending.pop()
        try:
            entries = [e for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if (path / "HEAD").is_file():
                found.append(path)
                pending.append((path / "modules", depth + 1))
            elif depth < _MAX_MODULE_DEPTH:  # a submodule named a/b lives in modules/a/b
                pending.append((path, depth + 1))
    return found


def _undo(action: Callable[[], object], done: str) -> str:
    """Run `action`; `done`, or why it failed (then the user has to look before running git)."""
    try:
        action()
    except OSError as exc:
        return f"could NOT be {done} ({exc.strerror}; check it before running git)"
    return done


def _relink(path: Path, target: str) -> None:
    _remove(path)
    os.symlink(target, path)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with suppress(FileNotFoundError):
            path.unlink()
