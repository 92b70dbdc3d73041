"""Ignore files a repository makes hostile: grep_files and find_files skip them with a notice and search on.

ripgrep reads ignore files whole, by name, following links: `.gitignore -> /dev/zero` grew it by hundreds
of MB a second until the search timed out, and a FIFO made it wait as long. Each case below puts one such
file where ripgrep would read it, next to an ignore file that works, and checks that the search finishes
quickly, applies the file that works, searches what the hostile one would have hidden, and names it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.tools.base import ToolContext
from sneakycode.tools.context import open_tool_context
from sneakycode.tools.search import ripgrep
from tests.conftest import call


def _dev_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _oversized(path: Path) -> None:
    path.write_text("*.txt\n" + "#" * (1 << 20))


def _worktree_git_file(ws: Path, hazard: Callable[[Path], None]) -> Path:
    (ws / ".git").write_text("gitdir: gitdir\n")
    (ws / "gitdir").mkdir()
    hazard(ws / "gitdir" / "commondir")
    return ws / "gitdir" / "commondir"


HAZARDS: dict[str, tuple[Callable[[Path], Path], str]] = {
    ".gitignore -> /dev/zero": (lambda ws: _made(ws / ".gitignore", _dev_zero), "a character device"),
    "sub/.ignore FIFO": (lambda ws: _made(ws / "sub" / ".ignore", lambda p: os.mkfifo(p)), "a FIFO"),
    "sub/.rgignore over 1 MiB": (lambda ws: _made(ws / "sub" / ".rgignore", _oversized), "larger than"),
    ".git/info/exclude -> /dev/zero": (
        lambda ws: _made(ws / ".git" / "info" / "exclude", _dev_zero),
        "a character device",
    ),
    "worktree commondir -> /dev/zero": (lambda ws: _worktree_git_file(ws, _dev_zero), "a character device"),
    ".git file of 1 GiB": (lambda ws: _made(ws / ".git", lambda p: os.truncate(_touch(p), 1 << 30)), "larger than"),
}


def _touch(path: Path) -> Path:
    path.touch()
    return path


def _made(path: Path, make: Callable[[Path], object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    make(path)
    return path


@pytest.fixture
def repository(ws: Path) -> Path:
    (ws / "sub").mkdir()
    (ws / "top.txt").write_text("needle top\n")
    (ws / "sub" / "inner.txt").write_text("needle inner\n")
    (ws / "sub" / "noise.log").write_text("needle noise\n")
    (ws / ".ignore").write_text("*.log\n")  # a working ignore file beside the hostile one
    return ws


@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_hostile_ignore_file_is_skipped_with_a_notice_and_the_files_are_searched(
    repository: Path, hazard: str
) -> None:
    """Hardening round two, class 8: an ignore file linked to /dev/zero, a FIFO or an oversized one (and a
    worktree's `.git` file or `commondir`, which ripgrep reads too) made grep miss files or hang; now it is
    skipped with a notice and the rest is searched, ignore rules that work still applied."""
    make, reason = HAZARDS[hazard]
    hostile = make(repository)
    ctx: ToolContext = open_tool_context(load_settings(repository))
    start = time.monotonic()
    grep = call(ctx, "grep_files", pattern="needle")
    found = call(ctx, "find_files", pattern="*")
    assert time.monotonic() - start < 30
    shown = repository.joinpath(hostile).relative_to(repository).as_posix()
    for result in (grep, found):
        assert result.success, result.render()
        assert "Ignore files skipped, so their rules were not applied" in result.message
        assert f"{shown} ({reason}" in result.message
    assert grep.content.splitlines() == ["sub/inner.txt:1:needle inner", "top.txt:1:needle top"]
    assert {"sub/inner.txt", "top.txt"} <= set(found.content.splitlines())
    assert "sub/noise.log" not in found.content


def test_an_ignore_file_in_a_parent_folder_is_skipped_too(tmp_path: Path) -> None:
    """Hardening round two, class 8: ripgrep reads the ignore files of the workspace's parent folders."""
    (tmp_path / ".gitignore").symlink_to("/dev/zero")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("needle\n")
    result = call(open_tool_context(load_settings(ws)), "grep_files", pattern="needle")
    assert result.content == "a.txt:1:needle"
    assert f"{tmp_path / '.gitignore'} (a character device" in result.message


def test_sound_ignore_files_keep_ripgrep_and_include_ignored_reads_none(repository: Path) -> None:
    """Hardening round two, class 8: only a hostile ignore file moves a search off ripgrep; with
    include_ignored ripgrep reads no ignore file, so a hostile one does not matter and is not named."""
    assert ripgrep.locate_rg() is not None, "ripgrep ships in its wheel, a dependency"
    ctx = open_tool_context(load_settings(repository))
    assert call(ctx, "grep_files", pattern="needle").data["backend"] == "ripgrep"
    (repository / ".gitignore").symlink_to("/dev/zero")
    everything = call(ctx, "grep_files", pattern="needle", include_ignored=True)
    assert everything.data["backend"] == "ripgrep" and "skipped" not in everything.message
    assert "sub/noise.log:1:needle noise" in everything.content


@pytest.mark.parametrize("hazard", list(HAZARDS))
def test_a_hostile_ignore_file_made_after_a_search_is_seen_by_the_next_one(repository: Path, hazard: str) -> None:
    """Issue 29: the ignore-file check is remembered between searches (prewalk.py) while nothing it looked at
    changed; an ignore file made hostile after a first search must still be skipped by the next one, never
    handed to ripgrep on the strength of the remembered answer."""
    ctx = open_tool_context(load_settings(repository))
    first = call(ctx, "grep_files", pattern="needle")
    assert first.data["backend"] == "ripgrep" and "skipped" not in first.message
    assert call(ctx, "grep_files", pattern="needle").data["backend"] == "ripgrep"  # answered from memory
    make, reason = HAZARDS[hazard]
    hostile = make(repository)
    start = time.monotonic()
    again = call(ctx, "grep_files", pattern="needle")
    assert time.monotonic() - start < 30
    assert again.data["backend"] == "python"
    assert f"{hostile.relative_to(repository).as_posix()} ({reason}" in again.message


def test_an_ignore_file_grown_in_place_past_its_limit_is_seen_by_the_next_search(repository: Path) -> None:
    """Issue 29: growing an ignore file in place changes no folder, only the file; the remembered answer
    signs each ignore file it read too, so the next search skips the file that is now too large."""
    ctx = open_tool_context(load_settings(repository))
    assert call(ctx, "grep_files", pattern="needle").data["backend"] == "ripgrep"
    with (repository / ".ignore").open("a") as grown:
        grown.write("#" * (1 << 20))
    again = call(ctx, "grep_files", pattern="needle")
    assert again.data["backend"] == "python"
    assert ".ignore (larger than" in again.message
