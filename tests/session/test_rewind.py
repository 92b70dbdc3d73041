"""Rewind's writes and removals go through the anchored walk, and what no snapshot holds is never rewound."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sneakycode.session.checkpoints import Checkpoints
from sneakycode.session.rewind import RewindReport, rewind_session
from sneakycode.session.shadow_git import ShadowRepo

OUTSIDE_TEXT = "OUTSIDE SECRET\n"


@pytest.fixture
def session(tmp_path: Path) -> Path:
    folder = tmp_path / "session"
    folder.mkdir()
    return folder


def files_rewind(session: Path, ws: Path, *, force: bool = True, limit: int = 1 << 20) -> RewindReport:
    return rewind_session(session, "s", ws, turn=None, conversation=False, force=force, max_file_size=limit)


def test_a_folder_swapped_for_a_link_after_the_check_stops_that_path_only(
    session: Path, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hardening round two, class 2: rewind checked that sub/ lay inside, then wrote sub/... by path; sub/
    swapped for a link to outside in between got the checkpoint's files written (and others removed) there.
    Here the swap lands in that window every time: when rewind reads the first blob to write back."""
    outside = tmp_path / "outside"
    outside.mkdir()
    for name in ("f.txt", "gone.txt", "made.txt"):
        (outside / name).write_text(OUTSIDE_TEXT)
    (ws / "sub").mkdir()
    (ws / "sub" / "f.txt").write_text("inside\n")
    (ws / "sub" / "gone.txt").write_text("inside\n")
    (ws / "top.txt").write_text("top\n")
    checkpoints = Checkpoints(session, ws, max_file_size=1 << 20)
    checkpoints.before_turn(1)
    (ws / "sub" / "f.txt").write_text("changed\n")
    (ws / "sub" / "gone.txt").unlink()
    (ws / "sub" / "made.txt").write_text("made\n")
    (ws / "top.txt").write_text("changed\n")
    checkpoints.end_of_run(1)
    blob = ShadowRepo.blob

    def blob_then_swap(repo: ShadowRepo, blob_id: str) -> bytes:
        if not (ws / "sub").is_symlink():
            (ws / "sub").rename(ws / "sub.real")
            (ws / "sub").symlink_to(outside)
        return blob(repo, blob_id)

    monkeypatch.setattr(ShadowRepo, "blob", blob_then_swap)
    report = files_rewind(session, ws)

    assert {p.name: p.read_text() for p in outside.iterdir()} == dict.fromkeys(
        ("f.txt", "gone.txt", "made.txt"), OUTSIDE_TEXT
    )
    assert (ws / "top.txt").read_text() == "top\n"  # the rest of the rewind went on
    assert not report.ok
    stopped = [line for line in report.failed if "sub is no longer a folder" in line]
    assert any(line.startswith("sub/f.txt: not restored") for line in stopped), report.failed
    assert any(line.startswith("sub/gone.txt: not restored") for line in stopped), report.failed


def test_a_link_in_place_of_a_folder_is_never_removed_through(session: Path, ws: Path, tmp_path: Path) -> None:
    """Hardening round two, class 2: a file created after the checkpoint is removed from the folder reached
    inside the workspace; sub/ swapped for a link to outside after rewind listed the changes stops that
    removal (a clear note, nothing outside removed) instead of following the link."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "made.txt").write_text(OUTSIDE_TEXT)
    (ws / "sub").mkdir()
    (ws / "keep.txt").write_text("keep\n")
    checkpoints = Checkpoints(session, ws, max_file_size=1 << 20)
    checkpoints.before_turn(1)
    (ws / "sub" / "made.txt").write_text("made\n")
    checkpoints.end_of_run(1)
    original = ShadowRepo.changes

    def changes_then_swap(repo: ShadowRepo, old: str, new: str) -> list:  # type: ignore[type-arg]
        found = original(repo, old, new)
        if any(change.path == "sub/made.txt" for change in found) and not (ws / "sub").is_symlink():
            (ws / "sub").rename(ws / "sub.real")
            (ws / "sub").symlink_to(outside)
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ShadowRepo, "changes", changes_then_swap)
        report = files_rewind(session, ws)

    assert (outside / "made.txt").read_text() == OUTSIDE_TEXT
    assert any(line.startswith("sub/made.txt: not removed") for line in report.failed), report.failed


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
    assert any("vendored: left as it is, in no snapshot at the checkpoint: a nested git repository then" in line
               for line in lines)
    assert any("big.log: kept, it was larger than max_file_size_bytes at the checkpoint" in line for line in lines)


def test_a_restored_file_gets_the_checkpoints_executable_bit_and_the_umask(session: Path, ws: Path) -> None:
    """Recreated files get what git would give them: 0o666 or 0o777 under the umask."""
    (ws / "run.sh").write_text("#!/bin/sh\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "data.txt").write_text("d\n")
    checkpoints = Checkpoints(session, ws, max_file_size=1 << 20)
    checkpoints.before_turn(1)
    (ws / "run.sh").unlink()
    (ws / "data.txt").unlink()
    checkpoints.end_of_run(1)
    files_rewind(session, ws)
    umask = os.umask(0)
    os.umask(umask)
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o777 & ~umask
    assert (ws / "data.txt").stat().st_mode & 0o777 == 0o666 & ~umask
