"""git for SneakyCode's own use, run where a command may have written: no program of a repository's choosing.

git runs programs that its configuration or a repository file names, during ordinary commands: `core.fsmonitor`
on every index refresh, hooks, a pager, a clean or smudge filter (named by `.gitattributes`, defined by
`filter.NAME.*`) on `status`, `diff`, `add` and `checkout`, external diff and textconv drivers, credential
helpers, `gpg.program` when `log.showSignature` is on. The repository guard (protected.py) keeps a sandboxed
command from writing that configuration; this is the second lock, for the git SneakyCode itself runs,
unsandboxed (`neutral_git`):

- every configured key that names a program (PROGRAM_KEYS: git's documented ones) is set to an inert value
  (`neutral_value`) through GIT_CONFIG_COUNT / _KEY_n / _VALUE_n. Keys with a subsection (`filter.NAME.clean`)
  cannot be switched off by a fixed list, so the configuration git would read is listed first, with this same
  environment; those settings outrank every config file and reach the git processes git starts itself;
- `-c` settings for the keys with no subsection (NEUTRAL_CONFIG), so they hold even for a key set after the
  listing, and the submodules' work trees are not entered (a submodule's own config is not listed);
- an environment built from scratch: none of the caller's GIT_* variables (GIT_EXTERNAL_DIFF, GIT_DIR, ...),
  no system configuration, no prompt. The user's own `~/.gitconfig` is still read, but its programs are
  switched off like the repository's: a repository's `.gitattributes` picks which of them would run;
- GIT_DIR and GIT_WORK_TREE set from what the caller recorded before any command ran, so a `.git` a command
  replaced (a gitfile pointing at a repository of its making) is not followed.

Diff commands also need `--no-ext-diff --no-textconv` (DIFF_FLAGS): `diff.external` has no value that turns it
off (an empty one is still run), only the flag does.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from sneakycode.process.supervise import run_process

NEUTRAL_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={os.devnull}",
    "core.pager=",  # no pager (`cat` would be looked up on PATH)
    "credential.helper=",  # an empty helper empties the list of helpers configured before it
    "log.showSignature=false",  # it runs gpg.program on `log` and `show`
    "submodule.recurse=false",
    "diff.submodule=short",  # `log` would run git in a submodule the command could have made
    "diff.ignoreSubmodules=dirty",  # a submodule's work tree is compared by a git running its own config
    "gc.auto=0",
    "maintenance.auto=false",
)
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv", "--no-color")
# Every config key git documents (`git help --config`) whose value git runs as a program or that picks the
# program to run (a tool's name), matched on the whole key, any case. protected.py uses it too, to find the
# programs a configuration names inside the workspace.
PROGRAM_KEYS = re.compile(
    r"core\.(fsmonitor|hookspath|sshcommand|editor|pager|askpass|gitproxy|alternaterefscommand)"
    r"|credential\.(.+\.)?helper|diff\.external|diff\..+\.(command|textconv)|filter\..+\.(clean|smudge|process)"
    r"|merge\..+\.driver|(diff|merge)\.(gui)?tool|(mergetool|difftool|browser|man)\..+\.(cmd|path)"
    r"|gpg\.(.+\.)?program|gpg\.ssh\.defaultkeycommand|sequence\.editor|alias\..+|pager\..+"
    r"|remote\..+\.(uploadpack|receivepack|vcs)|uploadpack\.packobjectshook|imap\.tunnel"
    r"|sendemail\.(.+\.)?(smtpserver|tocmd|cccmd|sendmailcmd|headercmd)|interactive\.difffilter"
    r"|(web|help|instaweb)\.browser|instaweb\.httpd|man\.viewer|guitool\..+\.cmd|trailer\..+\.(command|cmd)"
    r"|submodule\..+\.update|hook\..+\.command",
    re.IGNORECASE,
)
# The inert value of the keys where an empty one is not (git would run the empty editor, or fail).
_INERT = (
    (re.compile(r"core\.fsmonitor|pager\..+", re.IGNORECASE), "false"),
    (re.compile(r"core\.hookspath", re.IGNORECASE), os.devnull),
    (re.compile(r"(core|sequence)\.editor", re.IGNORECASE), ":"),  # git's own "no editor"
    (re.compile(r"submodule\..+\.update", re.IGNORECASE), "none"),
)
_FILTER = re.compile(r"filter\.(.+)\.[^.]+", re.IGNORECASE)
# What git needs from the caller's environment: where programs and the user's own configuration are.
_KEPT = ("PATH", "HOME", "XDG_CONFIG_HOME")
_LISTING_TIMEOUT = 10.0
_LISTING_LIMIT = 4 << 20


def neutral_git(
    git: str, args: Sequence[str], *, cwd: Path, git_dir: Path | None = None, work_tree: Path | None = None
) -> tuple[list[str], dict[str, str]]:
    """The argv and environment that run `git args` in `cwd` with every program a configuration names switched
    off. Raises OSError when git's configuration cannot be listed in full (then nothing may run)."""
    env = neutral_git_environment(git_dir=git_dir, work_tree=work_tree)
    keys = configured_program_keys(git, cwd, env)
    settings = [(key, neutral_value(key)) for key in keys]
    # A filter with no command is skipped, unless `required`: then git would refuse the file instead.
    filters = dict.fromkeys(match.group(1) for key in keys if (match := _FILTER.fullmatch(key)))
    settings += [(f"filter.{name}.required", "false") for name in filters]
    env["GIT_CONFIG_COUNT"] = str(len(settings))
    for number, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{number}"] = key
        env[f"GIT_CONFIG_VALUE_{number}"] = value
    return neutral_git_argv(git, args), env


def neutral_value(key: str) -> str:
    """What a program key (PROGRAM_KEYS) is set to so that git runs nothing: empty, unless that is not inert."""
    return next((value for pattern, value in _INERT if pattern.fullmatch(key)), "")


def configured_program_keys(git: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """The program keys (PROGRAM_KEYS) set in the configuration git reads from `cwd` with `env`, each once.
    A listing git refuses (no repository there, a config file it cannot parse) is empty: the command itself
    then fails the same way. One cut short is an OSError: a key it did not show could name a program."""
    result = run_process(neutral_git_argv(git, ["config", "--list", "--name-only", "-z"]), cwd=cwd, env=env,
                         timeout=_LISTING_TIMEOUT, capture_limit=_LISTING_LIMIT)  # fmt: skip
    if result.ending.timed_out or result.stdout_total > _LISTING_LIMIT:
        raise OSError(f"git's configuration could not be listed in full within {_LISTING_TIMEOUT:.0f} s and "
                      f"{_LISTING_LIMIT >> 20} MiB, so its programs could not be switched off")  # fmt: skip
    if result.ending.exit_code != 0:
        return []
    names = result.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    return list(dict.fromkeys(name for name in names if PROGRAM_KEYS.fullmatch(name)))


def neutral_git_argv(git: str, args: Sequence[str]) -> list[str]:
    """`git args` with the programs of NEUTRAL_CONFIG switched off; `neutral_git` adds the configured ones."""
    argv = [git, "--no-pager"]
    for setting in NEUTRAL_CONFIG:
        argv += ["-c", setting]
    return [*argv, *args]


def neutral_git_environment(*, git_dir: Path | None = None, work_tree: Path | None = None) -> dict[str, str]:
    """A clean environment for git: PATH and the user's home, C locale, no system config, no prompt, and
    GIT_DIR / GIT_WORK_TREE when given (git then ignores whatever `.git` the work tree holds). On its own it
    suits only a repository whose every config file is SneakyCode's (the checkpoints' shadow repository);
    anything else goes through `neutral_git`."""
    env = {name: os.environ[name] for name in _KEPT if name in os.environ}
    env.setdefault("PATH", "/usr/bin:/bin")
    env.update(LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0")
    if git_dir is not None:
        env["GIT_DIR"] = str(git_dir)
    if work_tree is not None:
        env["GIT_WORK_TREE"] = str(work_tree)
    return env
