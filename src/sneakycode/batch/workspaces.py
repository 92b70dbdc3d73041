"""Each task's own copy of its repository: a git worktree of a local repository (cheap, shares the objects)
or a clone of a URL, checked out at the task's `ref` under `DIR/tasks/ID`; and what the agent changed in it.

A copy left by a run that was killed is removed and made again, so a resumed task starts clean.

Once setup, the agent or the test has run in a copy, every git command batch runs there is neutral (see
process/neutral_git.py): no fsmonitor, hook, pager or diff driver of the repository's choosing, and the git
dir recorded when the copy was made rather than whatever `.git` the copy holds by then.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sneakycode.batch.spec import TaskSpec
from sneakycode.config.files import open_regular
from sneakycode.process.environment import find_program
from sneakycode.process.neutral_git import DIFF_FLAGS, neutral_git
from sneakycode.process.protected import gitfile_target
from sneakycode.process.supervise import run_process

GIT_TIMEOUT = 600.0
# The diff kept in results.jsonl; a task that rewrote the repository does not get a line of many megabytes.
MAX_DIFF_BYTES = 1 << 20


class TaskSetupError(Exception):
    """The task's copy could not be made (bad ref, unreachable URL); the message says which git step."""


@dataclass(frozen=True)
class TaskCopy:
    path: Path
    base_commit: str
    git_dir: Path
    """The copy's own git dir as git made it (a worktree's: in the source repository's .git/worktrees/)."""
    common_dir: Path
    """Where its objects and configuration live: the source repository's .git for a worktree."""


@dataclass(frozen=True)
class Changes:
    diff: str
    files: list[str]
    truncated: bool


def _git(args: list[str], cwd: Path, *, neutral: bool = False, git_dir: Path | None = None,
         index: Path | None = None) -> str:  # fmt: skip
    """git in `cwd`. `neutral` for a task copy: no program of the repository's choosing, and `git_dir` (the
    one recorded when the copy was made) rather than the copy's `.git`, which a command may have replaced;
    `index` instead of the git dir's own."""
    if neutral:
        git = find_program("git", not_under=cwd)  # it runs unsandboxed: never one a command wrote
        if git is None:
            raise TaskSetupError("git is not installed (or only inside the task's copy)")
        try:
            argv, env = neutral_git(git, args, cwd=cwd, git_dir=git_dir, work_tree=cwd if git_dir is not None else None)
        except OSError as exc:
            raise TaskSetupError(f"git {args[0]} was not run: {exc}") from None
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
    else:
        argv, env = ["git", *args], {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        result = run_process(argv, cwd=cwd, env=env, timeout=GIT_TIMEOUT, capture_limit=MAX_DIFF_BYTES + 1)
    except OSError as exc:
        raise TaskSetupError(f"git {args[0]} could not start: {exc.strerror}") from None
    if result.ending.exit_code != 0:
        said = result.stderr.decode("utf-8", "replace").strip() or f"exit code {result.ending.exit_code}"
        raise TaskSetupError(f"git {' '.join(args[:2])} failed: {said.splitlines()[-1] if said else ''}")
    return result.stdout.decode("utf-8", "replace")


def repository_git(args: list[str], cwd: Path, *, index: Path | None = None) -> str:
    """git in a repository batch did not make (the user's own, for attempts), neutral all the same: a change
    made by a model is applied there, and nothing of the repository's choosing should run while it is;
    `index` instead of the repository's own."""
    return _git(args, cwd, neutral=True, index=index)


# commit-tree needs an author; the user's may be unset, and this commit is no one's work but a snapshot's.
_SNAPSHOT_AUTHOR = ("-c", "user.name=SneakyCode", "-c", "user.email=sneakycode@localhost", "-c", "commit.gpgSign=false")


def snapshot_working_tree(top: Path) -> str:
    """A commit of the repository's working tree as it is now: HEAD's files with the uncommitted changes and the
    untracked files that are not ignored (what `git add --all` would stage), HEAD its parent (none in a
    repository with no commit yet). Staged in a scratch copy of the index, so the user's index, stash and
    branches stay as they are; the commit is referenced by nothing (git's gc drops it in time)."""
    with tempfile.TemporaryDirectory(prefix="sneakycode-snapshot-") as scratch:
        index = Path(scratch) / "index"
        # Seeded with the user's index (a copy): `add` then hashes only what changed.
        _copy_index(Path(repository_git(["rev-parse", "--path-format=absolute", "--git-path", "index"], top).strip()),
                    index)
        repository_git(["add", "--all"], top, index=index)
        tree = repository_git(["write-tree"], top, index=index).strip()
    try:
        parent = ["-p", repository_git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top).strip()]
    except TaskSetupError:  # no commit yet: the snapshot is the first
        parent = []
    message = "SneakyCode: the working tree the attempts start from"
    return repository_git([*_SNAPSHOT_AUTHOR, "commit-tree", "--no-gpg-sign", tree, *parent, "-m", message],
                          top).strip()


@contextmanager
def _repository_lock(repo: Path) -> Iterator[None]:
    """One worktree change at a time per repository, across threads, processes and Ray workers: `worktree
    prune` would drop a worktree another task is adding (its folder not written yet), and git's own locks
    make a concurrent `worktree add` fail instead of wait. flock, because it is all this needs and is
    released by the kernel if the holder dies."""
    lock_path = repo / ".git" / "sneakycode-batch.lock"
    if not lock_path.parent.is_dir():  # a bare repository or a .git file: lock beside the repository instead
        lock_path = repo.parent / f".{repo.name}.sneakycode-batch.lock"
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare_copy(task: TaskSpec, tasks_dir: Path) -> TaskCopy:
    """A fresh copy of the task's repository at its ref; raises TaskSetupError saying what failed."""
    target = tasks_dir / task.id
    tasks_dir.mkdir(parents=True, exist_ok=True)
    if task.is_url:
        shutil.rmtree(target, ignore_errors=True)
        _git(["clone", "--quiet", "--no-checkout", task.repo, str(target)], tasks_dir)
        _git(["checkout", "--quiet", "--detach", task.ref or "HEAD"], target)
    else:
        repo = Path(task.repo)
        with _repository_lock(repo):
            if target.exists():
                shutil.rmtree(target, ignore_errors=True)
            _git(["worktree", "prune"], repo)  # forget a copy a killed run left behind
            _git(["worktree", "add", "--quiet", "--force", "--detach", str(target), task.ref or "HEAD"], repo)
    # Nothing has run in the copy yet: the git dir it names now is the one later git calls hold on to.
    found = _git(["rev-parse", "--path-format=absolute", "--absolute-git-dir", "--git-common-dir", "HEAD"], target,
                 neutral=True).splitlines()  # fmt: skip
    return TaskCopy(target, found[2].strip(), Path(found[0]), Path(found[1]))


def changes_since(copy: TaskCopy) -> Changes:
    """The agent's changes against the commit the task started from, new files included. They are staged in
    a scratch copy of the index: the copy's own stays as the agent left it, so a nested repository the model
    made is not registered there (git would enter it, and run its configuration, on a user's `git status`)."""
    with tempfile.TemporaryDirectory(prefix="sneakycode-diff-") as scratch:
        index = Path(scratch) / "index"
        _copy_index(copy.git_dir / "index", index)
        _git(["add", "--all"], copy.path, neutral=True, git_dir=copy.git_dir, index=index)
        listed = _git(["diff", "--cached", "--name-only", "-z", copy.base_commit], copy.path, neutral=True,
                      git_dir=copy.git_dir, index=index)  # fmt: skip
        diff = _git(["diff", "--cached", *DIFF_FLAGS, copy.base_commit], copy.path, neutral=True,
                    git_dir=copy.git_dir, index=index)  # fmt: skip
    files = [name for name in listed.split("\0") if name]
    truncated = len(diff.encode()) > MAX_DIFF_BYTES
    if truncated:
        diff = diff.encode()[:MAX_DIFF_BYTES].decode("utf-8", "ignore")
    return Changes(diff, files, truncated)


def _copy_index(source: Path, target: Path) -> None:
    """Seed the scratch index with the copy's own, so `add` reuses what it knows of unchanged files rather
    than hash them all. Only a regular file: a sandboxed command could have put a FIFO there (a clone's
    index is in the copy); without one, git starts from an empty index and the diff is the same."""
    try:
        handle, _ = open_regular(source, follow_symlinks=False)
    except OSError:
        return
    with handle, target.open("wb") as out:
        shutil.copyfileobj(handle, out)


def git_entry_changed(copy: TaskCopy) -> str | None:
    """Why the copy's `.git` is no longer the one git made for it (None when it still is): a user's plain
    `git status` there would then follow it. The repository guard keeps a sandboxed step from changing it;
    an unsandboxed one (--no-sandbox) may."""
    dot_git = copy.path / ".git"
    try:
        info = os.lstat(dot_git)
    except OSError:
        return f"{dot_git} is gone"
    made = os.path.realpath(copy.git_dir)
    if made == os.path.realpath(dot_git):  # a clone: its git dir is this folder
        same = stat.S_ISDIR(info.st_mode)
    else:  # a worktree: a `gitdir: PATH` file
        target = gitfile_target(dot_git) if stat.S_ISREG(info.st_mode) else None
        same = target is not None and os.path.realpath(target) == made
    if same:
        return None
    return (f"{dot_git} was replaced after the copy was made (batch used {copy.git_dir}); do not run git in "
            "this copy before checking it")


def remove_copy(task: TaskSpec, tasks_dir: Path) -> None:
    """Drop a task's copy (and a worktree's registration in its repository)."""
    target = tasks_dir / task.id
    shutil.rmtree(target, ignore_errors=True)
    if not task.is_url:
        with contextlib.suppress(TaskSetupError), _repository_lock(Path(task.repo)):
            _git(["worktree", "prune"], Path(task.repo))
