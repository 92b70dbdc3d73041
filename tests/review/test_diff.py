"""Collecting the change with real git: exact paths (spaces, non-ASCII, renames), binary and deleted files,
the hunks' new-side lines, and placing findings on them; a repository's git configuration chooses no
program (an external diff driver) for the review."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sneakycode.review.diff import collect_change, split_hunk
from sneakycode.review.findings import place_findings
from tests.review.conftest import CALC, commit_all, finding, git


def test_paths_renames_binary_and_deleted_files_are_read_exactly(repo: Path) -> None:
    (repo / "old name.py").write_text("".join(f"line{n} = {n}\n" for n in range(1, 21)))
    (repo / "gone.py").write_text("X = 1\n")
    (repo / "logo.bin").write_bytes(b"\x00\x01\x02")
    commit_all(repo, "files")
    git(repo, "mv", "old name.py", "névé dir.py")
    (repo / "névé dir.py").write_text("".join(f"line{n} = {n}\n" for n in range(1, 21)).replace("line15 = 15",
                                                                                                  "line15 = 'x'"))
    (repo / "gone.py").unlink()
    (repo / "logo.bin").write_bytes(b"\x00\x01\x03")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b") + "# diff --git a/x b/x\n")
    git(repo, "add", "-A")
    change = collect_change(repo, staged=True)
    by_path = {f.path: f for f in change.files}
    assert set(by_path) == {"calc.py", "gone.py", "logo.bin", "névé dir.py"}
    renamed = by_path["névé dir.py"]
    assert renamed.old_path == "old name.py" and [h.new_range for h in renamed.hunks] == [(12, 18)]
    assert by_path["gone.py"].deleted and by_path["logo.bin"].binary and not by_path["logo.bin"].hunks
    assert [h.new_range for h in by_path["calc.py"].hunks] == [(1, 7)]  # a '+# diff --git' line is body, not a file
    assert change.root == repo.resolve() and change.described == "the staged changes"

    placed = place_findings([finding("old name.py", 15), finding("gone.py", 1), finding("logo.bin", 1),
                             finding("./calc.py", 7)], change)
    assert [(f["path"], f["line"]) for f in placed.findings] == [("névé dir.py", 15), ("calc.py", 7)]
    assert any("gone.py" in note and "deletes" in note for note in placed.notes)
    assert any("logo.bin" in note and "shows no lines" in note for note in placed.notes)


def test_a_repository_cannot_make_the_review_run_its_diff_driver(repo: Path) -> None:
    marker = repo.parent / "driver-ran"
    git(repo, "config", "diff.external", f"touch {marker}; false")
    (repo / ".gitattributes").write_text("*.py diff=evil\n")
    git(repo, "config", "diff.evil.textconv", f"touch {marker}; cat")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    change = collect_change(repo)
    assert not marker.exists()
    assert [f.path for f in change.files] == ["calc.py"]  # untracked files (.gitattributes) are not in `diff HEAD`
    assert any("-    return a + b" in "\n".join(h.lines) for f in change.files for h in f.hunks)


def test_a_subfolder_workspace_and_paths_are_relative_as_git_takes_them(repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("A = 1\n")
    commit_all(repo, "pkg")
    (repo / "pkg" / "mod.py").write_text("A = 2\n")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    change = collect_change(repo / "pkg", paths=["mod.py"])
    assert [f.path for f in change.files] == ["pkg/mod.py"] and change.root == repo.resolve()


def test_split_hunk_keeps_true_headers_and_every_line(repo: Path) -> None:
    lines = [f"v{n} = {n}" for n in range(1, 101)]
    (repo / "v.py").write_text("\n".join(lines) + "\n")
    commit_all(repo, "v")
    edited = [line if n % 3 else f"{line}  # changed" for n, line in enumerate(lines, 1)]
    edited.insert(50, "inserted = True")
    (repo / "v.py").write_text("\n".join(edited) + "\n")
    (hunk,) = collect_change(repo).files[0].hunks
    pieces = split_hunk(hunk, 300)
    assert len(pieces) > 5 and sum((p.lines for p in pieces), ()) == hunk.lines
    for piece in pieces:
        assert len("\n".join(piece.lines)) <= 300 or len(piece.lines) == 1
        number = piece.new_start
        for line in piece.lines:
            if line[:1] in (" ", "+"):
                assert edited[number - 1] == line[1:]
                number += 1
        assert number == piece.new_start + piece.new_count


def test_the_users_diff_settings_do_not_change_what_is_parsed(repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "mod.py").write_text("A = 1\n")
    commit_all(repo, "pkg")
    (repo / "pkg" / "mod.py").write_text("A = 2\n")
    for setting in ("diff.relative=true", "diff.noprefix=true", "diff.mnemonicPrefix=true", "color.diff=always"):
        git(repo, "config", *setting.split("="))
    change = collect_change(repo / "pkg")
    assert [f.path for f in change.files] == ["pkg/mod.py"]
    assert change.files[0].head.splitlines()[0] == "diff --git a/pkg/mod.py b/pkg/mod.py"
    assert change.files[0].hunks[0].lines == ("-A = 1", "+A = 2")


def test_collecting_the_change_leaves_the_repository_as_it_was(repo: Path) -> None:
    """`git diff HEAD` writes the index back when a file's stat data went stale (even with GIT_OPTIONAL_LOCKS=0);
    the review's git works on a copy of the index, so the repository is left byte for byte as it was."""
    (repo / "notes.txt").write_text("unchanged\n")
    commit_all(repo, "notes")
    os.utime(repo / "notes.txt", (1_000_000_000, 1_000_000_000))  # same content, stale stat data
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    index = repo / ".git" / "index"
    before = index.read_bytes()
    for mode in ({}, {"staged": True}, {"commit": "HEAD"}):
        collect_change(repo, **mode)
    assert index.read_bytes() == before


def test_a_same_size_edit_right_after_a_commit_is_seen(repo: Path) -> None:
    """Regression: the index copy took a new mtime, so git's racy-entry check no longer caught an edit of the
    same size made in the commit's second (git compares whole seconds here), and the change looked empty."""
    (repo / "calc.py").write_text(CALC.replace("a + b", "b + a"))
    commit_all(repo, "swap")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))  # same size, most likely the same second
    time.sleep(1.1)  # the copy is made a second later
    assert [f.path for f in collect_change(repo).files] == ["calc.py"]
