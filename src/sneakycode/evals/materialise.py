"""An eval task as a batch task: its repo/ folder made a git repository under OUT/repos/ID, and a `test`
command that first writes the hidden files into the task's copy, then runs the task's test.

Why the hidden files travel inside the test command: batch runs `test` in the task's copy, in the sandbox,
only after the agent has ended, so this is the first moment they exist there; and a command carries them
without a file the model could find (the sandbox shows the agent the whole filesystem read-only, and an
output folder under /tmp would not even be visible to the test step). The model never sees the command.
"""

from __future__ import annotations

import os
import secrets
import shlex
import shutil
from pathlib import Path

from sneakycode.batch.spec import TaskSpec
from sneakycode.errors import ConfigError
from sneakycode.evals.content import copy_suite_folder
from sneakycode.evals.suite import EvalTask
from sneakycode.process.supervise import run_process

GIT_TIMEOUT = 60.0
# The repository's one commit is the same on every machine and every run: no user config, fixed identity.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C",
    "GIT_AUTHOR_NAME": "sneakycode-eval", "GIT_AUTHOR_EMAIL": "eval@sneakycode.invalid",
    "GIT_COMMITTER_NAME": "sneakycode-eval", "GIT_COMMITTER_EMAIL": "eval@sneakycode.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}  # fmt: skip


def _git(args: list[str], cwd: Path) -> None:
    env = {**os.environ, **GIT_ENV}
    try:
        result = run_process(["git", *args], cwd=cwd, env=env, timeout=GIT_TIMEOUT)
    except OSError as exc:
        raise ConfigError(f"git could not start: {exc.strerror}") from None
    if result.ending.exit_code != 0:
        said = result.stderr.decode("utf-8", "replace").strip()
        raise ConfigError(f"git {args[0]} failed in {cwd}: {said or result.ending.exit_code}")


def make_repository(task: EvalTask, target: Path) -> Path:
    """The task's repo/ copied to `target` as a git repository with one commit (a copy left by an earlier
    run is made again); only its regular files inside the suite folder are copied (content.py)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    copy_suite_folder(task.repo_dir, target, task.suite_folder)
    _git(["init", "-q", "-b", "main"], target)
    _git(["add", "-A"], target)
    _git(["commit", "-q", "--no-verify", "--allow-empty", "-m", "the task's starting point"], target)
    return target


def write_files_script(hidden: dict[str, str]) -> str:
    """Shell lines that (re)create each file with exactly its text: whatever the model left at that path (a
    file of its own, a link) is removed first, so the test that runs is the suite's."""
    lines = ["set -e"]
    for relative, text in sorted(hidden.items()):
        marker = "SNEAKYCODE_EVAL_" + secrets.token_hex(8)
        while marker in text:  # never in practice; a marker inside the text would end the here-document early
            marker = "SNEAKYCODE_EVAL_" + secrets.token_hex(8)
        path = shlex.quote(relative)
        parent = shlex.quote(str(Path(relative).parent))
        lines.append(f"rm -rf -- {path}; mkdir -p -- {parent}; cat > {path} <<'{marker}'\n{text}{marker}")
    lines.append("set +e")
    return "\n".join(lines) + "\n"


def hidden_test_command(task: EvalTask) -> str:
    return write_files_script(task.hidden) + task.test


def batch_task(task: EvalTask, repo: Path, *, model: dict[str, str | None], max_turns: int | None,
               timeout: float | None, hide: list[Path]) -> TaskSpec:  # fmt: skip
    """The batch task that runs `task` once: the agent in a copy of `repo`, then the hidden test; `hide`:
    what its sandboxed commands must not see (the suite, the other tasks' copies)."""
    return TaskSpec(
        id=task.id, repo=str(repo), prompt=task.prompt, test=hidden_test_command(task),
        timeout=timeout or task.timeout, max_turns=max_turns or task.max_turns, model=model.get("model"),
        provider=model.get("provider"), base_url=model.get("base_url"), sandbox_hide=tuple(map(str, hide)),
    )  # fmt: skip
