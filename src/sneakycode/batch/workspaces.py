"""Each task's own copy of its repository: a git worktree of a local repository (cheap, shares the objects)
or a clone of a URL, checked out at the task's `ref` under `DIR/tasks/ID`; and what the agent changed in it.

A copy left by a run that was killed is removed and made again, so a resumed task starts clean.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sneakycode.batch.spec import TaskSpec
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


@dataclass(frozen=True)
class Changes:
    diff: str
    files: list[str]
    truncated: bool


def _git(args: list[str], cwd: Path, timeout: float = GIT_TIMEOUT) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        result = run_process(["git", *args], cwd=cwd, env=env, timeout=timeout, capture_limit=MAX_DIFF_BYTES + 1)
    except OSError as exc:
        raise TaskSetupError(f"git {args[0]} could not start: {exc.strerror}") from None
    if result.ending.exit_code != 0:
        said = result.stderr.decode("utf-8", "replace").strip() or f"exit code {result.ending.exit_code}"
        raise TaskSetupError(f"git {' '.join(args[:2])} failed: {said.splitlines()[-1] if said else ''}")
    return result.stdout.decode("utf-8", "replace")


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
    return TaskCopy(target, _git(["rev-parse", "HEAD"], target).strip())


def changes_since(copy: TaskCopy) -> Changes:
    """The agent's changes against the commit the task started from, new files included (staged in the
    copy's own index, which nothing else uses)."""
    _git(["add", "--all"], copy.path)
    files = [line for line in _git(["diff", "--cached", "--name-only", copy.base_commit], copy.path).splitlines()
             if line]  # fmt: skip
    diff = _git(["diff", "--cached", "--no-color", "--no-ext-diff", copy.base_commit], copy.path)
    truncated = len(diff.encode()) > MAX_DIFF_BYTES
    if truncated:
        diff = diff.encode()[:MAX_DIFF_BYTES].decode("utf-8", "ignore")
    return Changes(diff, files, truncated)


def git_common_dir(copy: TaskCopy) -> Path:
    """Where the copy's git data lives: the source repository's .git for a worktree."""
    return Path(_git(["rev-parse", "--path-format=absolute", "--git-common-dir"], copy.path).strip())


def remove_copy(task: TaskSpec, tasks_dir: Path) -> None:
    """Drop a task's copy (and a worktree's registration in its repository)."""
    target = tasks_dir / task.id
    shutil.rmtree(target, ignore_errors=True)
    if not task.is_url:
        with contextlib.suppress(TaskSetupError), _repository_lock(Path(task.repo)):
            _git(["worktree", "prune"], Path(task.repo))
