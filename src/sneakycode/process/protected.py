"""Workspace files that make programs run later, outside the sandbox: read-only inside it.

git runs hooks and the programs its configuration names (`core.fsmonitor`, `core.hooksPath`, filters, diff
and merge drivers, credential helpers, aliases, ...) during ordinary commands; SneakyCode reads
`.sneakycode/` and `.claude/` at start-up, an editor runs `.vscode/` tasks when it opens the folder, direnv
runs `.envrc`, a shell its start-up files (config/protected_paths.py, the one list). A sandboxed command that
could write them would have code run unsandboxed later. So, inside the sandbox:

- every place of that list at the workspace's top and, in the git dir: `config`, `hooks/`, `info/` (its
  `attributes` pick drivers), `commondir` and `config.worktree` (they change where configuration comes
  from), the same in submodule and worktree git dirs, every config file git reads that lies in the
  workspace (`include.path`), the `core.hooksPath` folder and any program a config value names inside the
  workspace are bound read-only;
- the git dir (or `.git` file) is bound onto itself, so it can be neither renamed nor replaced by one of the
  command's making, and so is every folder between a protected path and the workspace (a folder holding a
  mount point can be renamed, and a new one made in its place);
- a missing folder among them is covered by an empty read-only tmpfs; the empty folder bwrap creates on
  disk for it is removed afterwards if it is still empty;
- a missing file cannot be covered that way (git refuses an empty `commondir`), so one the command created
  (a `.git/commondir`, an `.envrc`, a `.mcp.json`) is deleted after the command and the user told, once
  every process of the sandbox is gone (they share its PID namespace); a protected path that was a
  symbolic link is put back if the command replaced the link;
- git also enters the repositories its index links to (submodules, gitlinks.py) and runs their
  configuration: their `.git` is protected like the workspace's own, one that was missing is deleted after
  the command if it made one, and so is the `.git` of a repository the command adds to an index it can
  write (a clone's `git add nested/`).

A repository the command creates itself (`git init` in a workspace that had none) is the command's own
content and is not covered.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from sneakycode.config import user_config_path
from sneakycode.config.files import read_regular
from sneakycode.config.protected_paths import PROTECTED_FILES, PROTECTED_FOLDERS
from sneakycode.process.environment import find_program
from sneakycode.process.gitlinks import IndexStamp, index_stamp, list_gitlinks
from sneakycode.process.neutral_git import PROGRAM_KEYS
from sneakycode.process.supervise import run_process

GIT_DIR_FOLDERS = ("hooks", "info")
GIT_DIR_FILES = ("config", "commondir", "config.worktree")
_GIT_TIMEOUT = 10.0
_MAX_MODULE_DEPTH = 4


@dataclass
class RepositoryGuard:
    """What one sandboxed command may not change in `workspace`: `mounts()` before it, `restore()` after."""

    workspace: Path
    read_only: list[Path] = field(default_factory=list)  # existing files and folders, bound read-only
    self_bound: list[Path] = field(default_factory=list)  # bound onto themselves: not renamed or replaced
    placeholders: list[Path] = field(default_factory=list)  # missing folders, covered by a read-only tmpfs
    absent_files: dict[Path, str] = field(default_factory=dict)  # missing files, deleted after if created: why
    links: dict[Path, str] = field(default_factory=dict)  # protected symbolic links and their targets
    indexes: list[_WatchedIndex] = field(default_factory=list)  # writable indexes: gitlinks added are undone
    # The guards of the extra roots (`--add-dir`): bound writable like the workspace, so guarded like it.
    others: list[RepositoryGuard] = field(default_factory=list)

    @classmethod
    def survey(cls, workspace: Path, held: Mapping[Path, str] | None = None,
               extra_roots: Sequence[Path] = ()) -> RepositoryGuard:
        """`held`: files protected for one run only, with why (a goal's check files): read-only like the rest.
        `extra_roots` are surveyed the same way, each as its own workspace."""
        guard = cls(workspace, others=[cls.survey(root) for root in extra_roots])
        for path, why in (held or {}).items():
            guard._file(path, why=why)
        for name in PROTECTED_FOLDERS:
            if name != ".git":  # the git dir, wherever its `.git` leads, is surveyed below
                guard._folder(workspace / name)
        for name, what in PROTECTED_FILES.items():
            guard._file(workspace / name, why=f"it is {what}")
        guard._folder(user_config_path().parent, missing=False)  # when the workspace holds the home folder
        git_dir = guard._git_dir(workspace / ".git")
        if git_dir is not None:
            guard._git_dir_contents(git_dir, missing=True)
            for sub in _nested_git_dirs(git_dir):
                guard._git_dir_contents(sub, missing=False)
        guard._from_git_config(top=workspace if os.path.lexists(workspace / ".git") else None)
        git = find_program("git", not_under=workspace)  # it runs unsandboxed
        if git is not None and _in_repository(workspace):
            guard._submodules(git, workspace, depth=1)
        return guard

    def mounts(self) -> list[str]:
        """bwrap arguments; they go after the workspace is bound."""
        argv: list[str] = []
        for path in self._pinned():
            argv += ["--bind", str(path), str(path)]
        for path in self.read_only:
            argv += ["--ro-bind", str(path), str(path)]
        for path in self.placeholders:
            argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
        for other in self.others:
            argv += other.mounts()
        return argv

    def _pinned(self) -> list[Path]:
        """The self-bound folders and every folder between them (or a protected path) and the workspace, each
        bound onto itself, parents first: a mount point cannot be renamed, and a folder that holds one can,
        so without this `mv vendor x` would let the command put a `vendor/.git` of its own in its place."""
        pinned = set(self.self_bound)
        for path in [*self.self_bound, *self.read_only, *self.placeholders]:
            pinned.update(folder for folder in path.parents if self.workspace in folder.parents)
        return sorted(pinned, key=lambda folder: len(folder.parts))

    def restore(self) -> list[str]:
        """Undo what the command could still do to protected paths; one note per thing undone."""
        notes = []
        for path in self.placeholders:
            with suppress(OSError):
                path.rmdir()  # only the empty folder bwrap made for the tmpfs; anything else stays
        for path, why in self.absent_files.items():
            if os.path.lexists(path):
                done = _undo(partial(self._remove_inside, path), "deleted")
                notes.append(f"{self._shown(path)} was created by the command and {done}: {why}")
        for watched in self.indexes:
            if index_stamp(watched.index) == watched.stamp:
                continue
            for name in sorted(list_gitlinks(watched.git, watched.work_tree, watched.index) - watched.links):
                nested = watched.work_tree / name / ".git"
                if os.path.lexists(nested):
                    done = _undo(partial(self._remove_inside, nested), "deleted")
                    notes.append(f"{self._shown(nested)} is a repository the command added to git's index, and was "
                                 f"{done}: git would enter it and run what its configuration names")  # fmt: skip
        for path, target in self.links.items():
            if not path.is_symlink() or os.readlink(path) != target:
                done = _undo(partial(_relink, path, target), "put back")
                notes.append(f"{self._shown(path)} was replaced by the command and {done} (a link to {target})")
        for other in self.others:
            notes += [f"{other.workspace}: {note}" for note in other.restore()]
        return notes

    def _remove_inside(self, path: Path) -> None:
        """Remove `path`, or the first symbolic link on the way to it from the workspace, never what lies
        behind a link (a command may have swapped a folder for one). Every process of the sandbox is gone by
        now, so nothing it left can swap another folder in between."""
        path = Path(os.path.normpath(path))  # a name from an index the command wrote may hold `..`
        if not self.inside(path) or path == self.workspace:
            return
        current = self.workspace
        for part in path.relative_to(self.workspace).parts:
            current = current / part
            if current.is_symlink() or not current.exists():
                break
        if os.path.lexists(current):
            _remove(current)

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

    def _file(self, path: Path, *, missing: bool = True, why: str = "git would follow it") -> None:
        real = self._real(path)
        if real is None or real in self.read_only:
            return
        if real.exists():
            self.read_only.append(real)
        elif missing and not os.path.lexists(real):
            self.absent_files.setdefault(real, why)

    def _git_dir(self, dot_git: Path) -> Path | None:
        """The workspace's git dir, bound onto itself; None when there is none or it is outside."""
        real = self._real(dot_git)
        if real is None:
            return None
        if real.is_file():  # a `gitdir: PATH` file (worktree, submodule): it must keep pointing there
            self.read_only.append(real)
            target = gitfile_target(real)
            real = self._real(target) if target is not None else None  # git follows one such file, not a chain
            if real is None:
                return None
        if not real.is_dir():
            return None
        if real not in self.self_bound:
            self.self_bound.append(real)
        return real

    def _submodules(self, git: str, work_tree: Path, depth: int) -> None:
        """The repositories git enters from `work_tree` (its index's gitlinks): an existing `.git` protected
        like the workspace's, a missing one deleted after the command if it made one, nested ones likewise;
        an index in the workspace is watched for gitlinks the command adds."""
        git_dir = _git_dir_anywhere(work_tree / ".git")
        index = git_dir / "index" if git_dir is not None else None
        links = list_gitlinks(git, work_tree, index)
        if index is not None and self.inside(index):
            self.indexes.append(_WatchedIndex(git, work_tree, index, index_stamp(index), links))
        for name in sorted(links):
            nested = work_tree / name / ".git"
            if not os.path.lexists(nested):
                self._file(nested)
                continue
            sub = self._git_dir(nested)
            if sub is not None:
                self._git_dir_contents(sub, missing=True)
            if depth < _MAX_MODULE_DEPTH and self.inside(Path(os.path.realpath(work_tree / name))):
                self._submodules(git, work_tree / name, depth + 1)

    def _git_dir_contents(self, git_dir: Path, *, missing: bool) -> None:
        for name in GIT_DIR_FOLDERS:
            self._folder(git_dir / name, missing=missing)
        for name in GIT_DIR_FILES:
            self._file(git_dir / name, missing=missing)

    def _from_git_config(self, top: Path | None) -> None:
        """Config files in the workspace, the hooks folder and programs that git's configuration names, also
        when the workspace is a folder inside a repository (`top`, its top level, is then found here)."""
        git = find_program("git", not_under=self.workspace)  # it runs unsandboxed
        if git is None or not _in_repository(self.workspace):  # outside a repository there is no config to ask
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


@dataclass(frozen=True)
class _WatchedIndex:
    """An index in the workspace, as it was before the command: its gitlinks and what marks a change."""

    git: str
    work_tree: Path
    index: Path
    stamp: IndexStamp | None
    links: frozenset[str]


def _in_repository(workspace: Path) -> bool:
    return "GIT_DIR" in os.environ or any(
        os.path.lexists(folder / ".git") for folder in (workspace, *workspace.parents)
    )


def _git_dir_anywhere(dot_git: Path) -> Path | None:
    """The git dir a `.git` folder or gitfile leads to, inside the workspace or not (where its index is)."""
    if dot_git.is_dir():
        return Path(os.path.realpath(dot_git))
    target = gitfile_target(dot_git) if dot_git.is_file() else None
    return Path(os.path.realpath(target)) if target is not None else None


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


def gitfile_target(gitfile: Path) -> Path | None:
    """The git dir a `gitdir: PATH` file (a worktree's or submodule's `.git`) names; None for anything else.
    Read as a regular file only: a FIFO there must not hang SneakyCode."""
    try:
        text = read_regular(gitfile, 4096).decode("utf-8", errors="replace")
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
