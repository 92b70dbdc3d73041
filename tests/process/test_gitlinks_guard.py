"""The repository guard and the repositories git enters from the workspace (submodules and other gitlinks),
through `sneakycode tool run_command` in bubblewrap, with a plain `git status` run afterwards as the user
would: a marker outside the workspace shows whether git ran a program the command chose."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.process.test_sandbox import require_bwrap
from tests.process.test_sandbox_hardening import git, sandboxed_cli

IDENTITY = ["-c", "user.email=t@example.com", "-c", "user.name=t"]


@pytest.fixture
def repo(ws: Path) -> Path:
    """A repository with a commit and a submodule `vendor` that is not checked out (its folder is empty)."""
    require_bwrap(ws)
    assert shutil.which("git") is not None, "git is part of every machine SneakyCode is tested on (.ci/run)"
    git(ws, "init", "-q")
    (ws / "a.txt").write_text("a\n")
    git(ws, "add", "a.txt")
    git(ws, *IDENTITY, "commit", "-qm", "first")
    (ws / ".gitmodules").write_text('[submodule "vendor"]\n\tpath = vendor\n\turl = ./vendor\n')
    git(ws, "update-index", "--add", "--cacheinfo", f"160000,{git(ws, 'rev-parse', 'HEAD').strip()},vendor")
    git(ws, "add", ".gitmodules")
    git(ws, *IDENTITY, "commit", "-qm", "submodule")
    (ws / "vendor").mkdir(exist_ok=True)
    return ws


def _nested_repo_with_monitor(folder: str, marker: Path) -> str:
    """Shell that makes `folder` a repository with a commit whose core.fsmonitor writes `marker`."""
    return (f"printf '#!/bin/sh\\necho ran >> {marker}\\n' > monitor.sh; chmod +x monitor.sh; "
            f"git init -q {folder}; git -C {folder} {' '.join(IDENTITY)} commit -q --allow-empty -m n; "
            f"git -C {folder} config core.fsmonitor \"$PWD/monitor.sh\"")  # fmt: skip


def _user_status(ws: Path) -> None:
    subprocess.run(["git", "status"], cwd=ws, capture_output=True, timeout=60, check=False, env=dict(os.environ))


def test_a_command_cannot_check_out_a_submodule_of_its_own_making(repo: Path, tmp_path: Path) -> None:
    """Hardening round two, class 1: a submodule's folder is empty; a command that puts a repository there
    (`git init vendor`, its config naming a program) had git run that program on the user's next
    `git status`, unsandboxed. The `.git` it made is deleted when it ends, and the command is told."""
    marker = tmp_path / "marker"
    result = sandboxed_cli(repo, _nested_repo_with_monitor("vendor", marker) + "; echo tried")
    assert "tried" in result.stdout, result.stderr
    assert "vendor/.git was created by the command and deleted" in result.stdout
    assert not (repo / "vendor" / ".git").exists()
    _user_status(repo)
    assert not marker.exists()


def test_a_repository_the_command_adds_to_the_index_loses_its_git_dir(repo: Path, tmp_path: Path) -> None:
    """Hardening round two, class 1: `git add nested` (a repository the command made) registers it in the
    index, and the user's `git status` then entered it and ran its fsmonitor. Its `.git` is deleted when
    the command ends; its files stay."""
    marker = tmp_path / "marker"
    plant = _nested_repo_with_monitor("nested", marker) + "; echo kept > nested/file.txt; git add nested; echo tried"
    result = sandboxed_cli(repo, plant)
    assert "tried" in result.stdout, result.stderr
    assert "nested/.git is a repository the command added to git's index, and was deleted" in result.stdout
    assert (repo / "nested" / "file.txt").read_text() == "kept\n" and not (repo / "nested" / ".git").exists()
    _user_status(repo)
    assert not marker.exists()


def test_a_checked_out_submodules_configuration_is_read_only(repo: Path, tmp_path: Path) -> None:
    """Hardening round two, class 1: a submodule that is checked out (its `.git` a gitfile into
    `.git/modules/`) keeps its gitfile and configuration: the command can neither point it elsewhere nor
    give it an fsmonitor."""
    marker = tmp_path / "marker"
    modules = repo / ".git" / "modules" / "vendor"
    modules.parent.mkdir()
    git(repo, "init", "-q", "--separate-git-dir", str(modules), str(repo / "vendor"))
    git(repo / "vendor", *IDENTITY, "commit", "-q", "--allow-empty", "-m", "v")
    gitfile, config = (repo / "vendor" / ".git").read_text(), (modules / "config").read_bytes()
    plant = (f"printf '#!/bin/sh\\necho ran >> {marker}\\n' > monitor.sh; chmod +x monitor.sh; "
             "git -C vendor config core.fsmonitor \"$PWD/monitor.sh\"; echo 'gitdir: ../elsewhere' > vendor/.git; "
             "mv vendor vendor-moved; echo tried")  # fmt: skip
    result = sandboxed_cli(repo, plant)
    assert "tried" in result.stdout, result.stderr
    assert (repo / "vendor" / ".git").read_text() == gitfile and (modules / "config").read_bytes() == config
    assert not (repo / "vendor-moved").exists()
    _user_status(repo)
    assert not marker.exists()


def test_a_submodule_folder_swapped_for_a_link_is_removed_not_what_it_leads_to(repo: Path, tmp_path: Path) -> None:
    """Hardening round two, class 1: the command replaces the empty submodule folder by a link to a
    repository outside the workspace. Undoing it removes the link; the repository behind it is untouched."""
    outside = tmp_path / "outside"
    outside.mkdir()
    git(outside, "init", "-q")
    result = sandboxed_cli(repo, f"rmdir vendor && ln -s {outside} vendor; echo tried")
    assert "tried" in result.stdout, result.stderr
    assert not os.path.lexists(repo / "vendor")
    assert (outside / ".git" / "HEAD").is_file()


def test_ordinary_git_work_with_a_submodule_still_succeeds(repo: Path) -> None:
    """Hardening round two, class 1: the guard takes nothing from a command that leaves submodules alone:
    it edits, stages and commits as usual, and is told nothing."""
    result = sandboxed_cli(repo, f"echo b > b.txt && git add b.txt && git {' '.join(IDENTITY)} commit -qm b && "
                                 "git status --short && echo done")  # fmt: skip
    assert "done" in result.stdout, result.stderr
    assert "deleted" not in result.stdout
    assert git(repo, "log", "-1", "--format=%s").strip() == "b"
