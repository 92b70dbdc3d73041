"""What no snapshot holds is never rewound."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sneakycode.session.checkpoints import Checkpoints
from sneakycode.session.rewind import RewindReport, rewind_session


@pytest.fixture
def session(tmp_path: Path) -> Path:
    folder = tmp_path / "session"
    folder.mkdir()
    return folder


def files_rewind(session: Path, ws: Path, *, force: bool = True, limit: int = 1 << 20) -> RewindReport:
    return rewind_session(session, "s", ws, turn=None, conversation=False, force=force, max_file_size=limit)


def test_a_file_left_out_of_the_checkpoint_is_not_deleted_when_it_becomes_snapshottable(
    session: Path, ws: Path
) -> None:
    """Hardening round two, class 3: a path the checkpoint could not hold (a nested repository, a file over
    the size limit) is absent from it; once it could be snapshotted, rewind took it for "created after the
    checkpoint" and deleted it."""
    subprocess.run(["git", "init", "-q", "vendored"], cwd=ws, check=True)
    (ws / "vendored" / "code.py").write_text("kept\n")
    (ws / "big.log").write_bytes(b"x" * 5000)
    (ws / "a.txt").write_text("a\n")
    checkpoints = Checkpoints(session, ws, max_file_size=1000)
    checkpoints.before_turn(1)
    subprocess.run(["rm", "-rf", str(ws / "vendored" / ".git")], check=True)  # a plain folder now
    (ws / "big.log").write_bytes(b"small\n")
    (ws / "a.txt").write_text("changed\n")
    checkpoints.end_of_run(1)

    report = files_rewind(session, ws, limit=1000)

    assert (ws / "vendored" / "code.py").read_text() == "kept\n"
    assert (ws / "big.log").read_bytes() == b"small\n"
    assert (ws / "a.txt").read_text() == "a\n"
    lines = report.lines()
    assert report.ok, lines
    assert any("vendored: left as it is, it was a nested git repository" in line for line in lines)
    assert any("big.log: kept, it was larger than max_file_size_bytes at the checkpoint" in line for line in lines)
