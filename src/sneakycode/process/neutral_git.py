"""git for SneakyCode's own use, run where a command may have written: no program of a repository's choosing.

git runs programs that its configuration or a repository file names, during ordinary commands: `core.fsmonitor`
on every index refresh, hooks, a pager, external diff and textconv drivers. The repository guard
(protected.py) keeps a sandboxed command from writing that configuration; this is the second lock, for the
git SneakyCode itself runs afterwards, unsandboxed:

- `-c` settings that switch those programs off (NEUTRAL_CONFIG): they outrank every config file, and git
  passes them on to the git processes it starts itself (GIT_CONFIG_PARAMETERS);
- an environment built from scratch: none of the caller's GIT_* variables (GIT_EXTERNAL_DIFF, GIT_DIR, ...),
  no system configuration, no prompt. The user's own `~/.gitconfig` stays: it is theirs, not the repository's;
- GIT_DIR and GIT_WORK_TREE set from what the caller recorded before any command ran, so a `.git` a command
  replaced (a gitfile pointing at a repository of its making) is not followed.

Diff commands also need `--no-ext-diff --no-textconv` (DIFF_FLAGS): an empty `diff.external` would be run as
a program rather than turn it off.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

NEUTRAL_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "core.pager=cat",
    "submodule.recurse=false",
    "diff.submodule=short",  # `log` would run git in a submodule the command could have made
    "gc.auto=0",
    "maintenance.auto=false",
)
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color")
# What git needs from the caller's environment: where programs and the user's own configuration are.
_KEPT = ("PATH", "HOME", "XDG_CONFIG_HOME")


def neutral_git_argv(git: str, args: Sequence[str]) -> list[str]:
    """`git args` with every program a repository could name switched off (see NEUTRAL_CONFIG)."""
    argv = [git, "--no-pager"]
    for setting in NEUTRAL_CONFIG:
        argv += ["-c", setting]
    return [*argv, *args]


def neutral_git_environment(*, git_dir: Path | None = None, work_tree: Path | None = None) -> dict[str, str]:
    """A clean environment for git: PATH and the user's home, C locale, no system config, no prompt, and
    GIT_DIR / GIT_WORK_TREE when given (git then ignores whatever `.git` the work tree holds)."""
    env = {name: os.environ[name] for name in _KEPT if name in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0")
    if git_dir is not None:
        env["GIT_DIR"] = str(git_dir)
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    return env
