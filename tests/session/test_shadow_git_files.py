"""Checkpoints follow the workspace's `.git` file and `commondir` to the user's info/exclude; both are read
through the regular-file reader, so a racing process that swaps `.git` for a FIFO never makes a snapshot
wait on it."""

from __future__ import annotations

from pathlib import Path

from sneakycode.session.shadow_git import _user_exclude_file
from tests.process.test_protected_gitfile import git_file_swapped_for_a_fifo, keeps_finishing


def test_a_git_file_swapped_for_a_fifo_never_hangs_the_exclude_lookup(ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 4: `.git` was read with read_text() after is_file(); under a racing swap
    to a FIFO that read waited forever. Lookups for 3 s under the race now all finish."""
    (tmp_path / "real-git" / "info").mkdir(parents=True)
    (tmp_path / "real-git" / "info" / "exclude").write_text("secret.env\n")
    found: set[Path | None] = set()
    with git_file_swapped_for_a_fifo(ws, tmp_path / "real-git"):
        assert keeps_finishing(lambda: found.add(_user_exclude_file(ws)))
    assert tmp_path / "real-git" / "info" / "exclude" in found  # the race let some lookups through
