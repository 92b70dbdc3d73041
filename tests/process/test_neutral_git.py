"""The neutral git (process/neutral_git.py): every config key git documents that names a program is switched
off, and a real repository whose configuration and `.gitattributes` plant programs on every such key has none
of them run by the git that `review`, batch, the repository guard and checkpoints run."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from sneakycode.batch.workspaces import TaskCopy, changes_since
from sneakycode.process.gitlinks import list_gitlinks
from sneakycode.process.neutral_git import DIFF_FLAGS, neutral_git
from sneakycode.process.supervise import run_process
from sneakycode.review.diff import collect_change
from sneakycode.session.shadow_git import ShadowRepo
from sneakycode.testing.server import ScriptedServer
from tests.conftest import run_cli

GIT = "git"
IDENTITY = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
# The last part of a documented key that says its value is a program (or the name of the tool to run).
PROGRAM_WORDS = {
    "cmd", "command", "program", "editor", "pager", "askpass", "sshcommand", "fsmonitor", "textconv", "clean",
    "smudge", "process", "driver", "helper", "hookspath", "gitproxy", "tunnel", "external", "browser", "httpd",
    "viewer", "smtpserver", "tocmd", "cccmd", "sendmailcmd", "headercmd", "difffilter", "packobjectshook",
    "uploadpack", "receivepack", "alternaterefscommand", "defaultkeycommand", "vcs", "tool", "guitool",
}  # fmt: skip
NOT_PROGRAMS = {"color.pager", "column.clean"}  # whether to colour paged output; a layout
# Program keys git documents in releases newer than some machines' git, or only on the command's own page.
EXTRA_KEYS = [
    "filter.<driver>.process", "trailer.<token>.command", "trailer.<token>.cmd", "hook.<name>.command",
    "sendemail.sendmailCmd", "alias.*", "credential.<url>.helper", "sendemail.<identity>.smtpServer",
]  # fmt: skip
INERT = {"", "false", ":", os.devnull, "none"}


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *IDENTITY, *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def documented_program_keys() -> list[str]:
    """The keys `git help --config` lists whose value names a program, with `<name>` placeholders filled in."""
    listed = subprocess.run(["git", "help", "--config"], capture_output=True, text=True, check=True).stdout
    keys: list[str] = []
    for key in [*listed.split(), *EXTRA_KEYS]:
        last = key.rsplit(".", 1)[-1].lower()
        tool_path = last == "path" and key.split(".")[0].lower() in {"browser", "difftool", "mergetool", "man"}
        is_program = (
            last in PROGRAM_WORDS or tool_path or key.lower() in {"alias.*", "pager.<cmd>", "submodule.<name>.update"}
        )
        if is_program and key.lower() not in NOT_PROGRAMS and "*" not in key.replace("alias.*", ""):
            keys.append(re.sub(r"<[^>]+>|\*", "planted", key))
    return sorted(set(keys))


def planted_program(folder: Path, label: str, markers: Path) -> Path:
    """A program that records that it ran (`label` in `markers`) and fails."""
    program = folder / f"planted-{label}"
    program.write_text(f"#!/bin/sh\necho {label} >> {markers}\nexit 1\n")
    program.chmod(0o755)
    return program


def test_every_program_key_git_documents_is_switched_off(tmp_path: Path) -> None:
    """Hardening round three, class 4: only fsmonitor, hooks and the pager were switched off; a filter, a
    credential helper, gpg.program, an editor (and every other key naming a program) kept the repository's
    value. Each documented key is planted in a real repository's config; the neutral git reads it as inert."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    program = planted_program(tmp_path, "any", tmp_path / "markers")
    keys = documented_program_keys()
    assert len(keys) >= 45 and "filter.planted.clean" in keys and "core.fsmonitor" in keys  # the listing works
    for key in keys:
        git(repo, "config", "--add", key, str(program))

    argv, env = neutral_git(GIT, ["config", "--null", "--list"], cwd=repo)
    listed = run_process(argv, cwd=repo, env=env, timeout=30).stdout.decode().split("\0")

    effective = {}
    for entry in listed:  # the last value of a key is the one git uses; an empty helper empties the list
        name, _, value = entry.partition("\n")
        effective[name.lower()] = value
    live = {key: effective.get(key.lower()) for key in keys if effective.get(key.lower()) not in INERT}
    assert live == {}


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with a committed file, a change to it, a staged new file, and every program its
    configuration and its `.gitattributes` can make git run planted (each writes its name into `markers`)."""
    repo, bin_dir, markers = tmp_path / "repo", tmp_path / "bin", tmp_path / "markers"
    repo.mkdir()
    bin_dir.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "first")
    (repo / "new.txt").write_text("new\n")
    git(repo, "add", "new.txt")  # staged, before anything is planted
    hooks = tmp_path / "planted-hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"):
        planted_program(hooks, hook, markers).rename(hooks / hook)
    planted = {
        "filter.planted.clean": "clean", "filter.planted.smudge": "smudge", "filter.planted.process": "process",
        "diff.planted.textconv": "textconv", "diff.planted.command": "diff-command", "diff.external": "external",
        "core.fsmonitor": "fsmonitor", "core.pager": "pager", "pager.diff": "pager-diff", "pager.log": "pager-log",
        "core.askPass": "askpass", "credential.helper": "credential", "gpg.program": "gpg",
        "core.editor": "editor", "sequence.editor": "sequence-editor", "core.sshCommand": "ssh",
    }  # fmt: skip
    for key, label in planted.items():
        git(repo, "config", key, str(planted_program(bin_dir, label, markers)))
    git(repo, "config", "filter.planted.required", "true")
    git(repo, "config", "core.hooksPath", str(hooks))
    git(repo, "config", "log.showSignature", "true")
    (repo / ".gitattributes").write_text("* filter=planted diff=planted\n")
    (repo / "a.txt").write_text("two\n")
    assert not markers.exists()
    return repo, markers


def test_review_runs_no_program_the_repository_names(hostile: tuple[Path, Path]) -> None:
    """Hardening round three, class 4: `review` ran the clean filter named in `.git/config` and
    `.gitattributes` while collecting the change."""
    repo, markers = hostile

    change = collect_change(repo)
    staged = collect_change(repo, staged=True)

    assert [f.path for f in change.files] == ["a.txt", "new.txt"]
    assert [f.path for f in staged.files] == ["new.txt"]
    assert "+two" in change.files[0].text()  # the real bytes, not a textconv's or a filter's
    assert not markers.exists(), markers.read_text()


def test_the_neutral_git_runs_no_program_through_status_add_checkout_log_or_commit(
    hostile: tuple[Path, Path],
) -> None:
    """Hardening round three, class 4: filters through status, add and checkout, hooks, gpg through
    `log.showSignature`, the pager, the editor: none runs under the neutral git."""
    repo, markers = hostile
    for args in (
        ["status", "--porcelain"], ["add", "-A"], ["diff", *DIFF_FLAGS, "--cached"], ["log", *DIFF_FLAGS, "-p", "-1"],
        [*IDENTITY, "commit", "-qm", "second"], ["checkout", "-q", "HEAD~1", "--", "a.txt"],
        ["checkout", "-q", "HEAD", "--", "a.txt"], ["show", *DIFF_FLAGS, "HEAD"],
        [*IDENTITY, "commit", "--amend", "-q"],
    ):  # fmt: skip
        argv, env = neutral_git(GIT, args, cwd=repo)
        result = run_process(argv, cwd=repo, env=env, timeout=30)
        assert result.ending.exit_code == 0, (args, result.stderr)
    # Without DIFF_FLAGS the emptied diff.external makes git stop, loudly; it still runs nothing.
    argv, env = neutral_git(GIT, ["diff", "HEAD~1"], cwd=repo)
    assert run_process(argv, cwd=repo, env=env, timeout=30).ending.exit_code != 0
    assert git(repo, "cat-file", "-p", "HEAD:new.txt") == "new\n"  # stored as it is: no clean filter
    assert not markers.exists(), markers.read_text()


def test_batch_guard_and_checkpoints_run_no_program_the_repository_names(
    hostile: tuple[Path, Path], tmp_path: Path
) -> None:
    """Hardening round three, class 4 and the advisory on settings that run a program before trust: batch's
    `add --all` ran the clean filter; the repository guard's gitlink listing and a checkpoint (SneakyCode's
    own git at the start of a session, before any trust question) must not run it either."""
    repo, markers = hostile
    base = git(repo, "rev-parse", "HEAD").strip()
    copy = TaskCopy(repo, base, repo / ".git", repo / ".git")

    changes = changes_since(copy)
    list_gitlinks(GIT, repo, repo / ".git" / "index")
    with tempfile.TemporaryDirectory() as session:
        ShadowRepo.find(Path(session), repo).snapshot("start", 1 << 20, None)

    assert sorted(changes.files) == [".gitattributes", "a.txt", "new.txt"]
    assert not markers.exists(), markers.read_text()


def test_a_configuration_too_large_to_list_runs_nothing(tmp_path: Path) -> None:
    """Hardening round three, class 4: a listing cut short could miss a key that names a program, so the
    neutral git refuses to run rather than run with part of it switched off."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    with (repo / ".git" / "config").open("a") as config:
        for number in range(120_000):
            config.write(f'[filter "f{number:06d}-padding-to-make-the-listing-long"]\n\tclean = x\n')

    with pytest.raises(OSError, match="could not be listed in full"):
        neutral_git(GIT, ["status"], cwd=repo)


def test_a_headless_run_in_an_untrusted_repository_runs_no_program_it_names(hostile: tuple[Path, Path]) -> None:
    """Hardening round three, advisory: settings in a repository that run a program before the trust
    question is answered. A run in it (no --trust-project) takes checkpoints, surveys the repository for the
    sandbox and lists its gitlinks, all with SneakyCode's own git, and edits a file: nothing planted runs."""
    repo, markers = hostile
    steps = [
        {"tool_calls": [{"name": "write_file", "arguments": {"file_path": "b.txt", "content": "b\n"}}]},
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo ran > c.txt"}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"message": "done"}}]},
    ]
    loopback = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    with ScriptedServer({"steps": steps, "models": ["scripted-model"]}) as server:
        result = run_cli("-p", "Add files", "--base-url", server.base_url, "--model", "scripted-model",
                         "--workspace", str(repo), "--yes", env=loopback)  # fmt: skip

    assert result.code == 0, result.stderr
    assert (repo / "b.txt").read_text() == "b\n" and (repo / "c.txt").read_text() == "ran\n"
    assert "checkpoints are off" not in result.stderr
    assert not markers.exists(), markers.read_text()


def test_a_submodules_own_configuration_runs_nothing_either(tmp_path: Path) -> None:
    """Hardening round three, class 4: `git diff` against the work tree starts git again in each submodule
    to see whether it is dirty, and that git reads the submodule's own config, whose filter names the
    listing of the outer repository cannot know. The neutral git does not look into a submodule's work tree."""
    origin, repo, markers = tmp_path / "origin", tmp_path / "repo", tmp_path / "markers"
    for folder in (origin, repo):
        folder.mkdir()
        git(folder, "init", "-q")
    (origin / "lib.txt").write_text("lib\n")
    git(origin, "add", "lib.txt")
    git(origin, "commit", "-qm", "lib")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "first")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(origin), "vendor")
    git(repo, "commit", "-qm", "vendor")
    vendor = repo / "vendor"
    git(vendor, "config", "filter.inner.clean", str(planted_program(tmp_path, "inner-clean", markers)))
    git(vendor, "config", "core.fsmonitor", str(planted_program(tmp_path, "inner-fsmonitor", markers)))
    (vendor / ".gitattributes").write_text("* filter=inner\n")
    (vendor / "lib.txt").write_text("LIB\n")  # the same size: git compares the content, through the filter
    (repo / "a.txt").write_text("two\n")

    change = collect_change(repo)

    assert not markers.exists(), markers.read_text()
    assert [f.path for f in change.files] == ["a.txt"]  # the submodule's commit is unchanged
