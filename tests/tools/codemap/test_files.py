"""Which files the repository map reads: what git lists in a repository, no vendored trees elsewhere, and at
most MAX_SOURCE_FILES of them, said in the map."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from sneakycode.tools.codemap import index as index_module
from sneakycode.tools.codemap.repomap import with_heading
from tests.tools.codemap.test_repomap import build


def _vendored_trees(root: Path) -> None:
    for relative in (".venv/lib/python3.12/site-packages/pkg/mod.py", "node_modules/left/index.js",
                     "vendor/github.com/x/lib.go", "deps/site-packages/other.py", "myenv/lib/tool.py"):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("def vendored_code():\n    return 1\n")
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")  # a virtualenv by another name
    (root / "app.py").write_text("def main():\n    return 0\n")


def test_outside_a_repository_the_map_skips_virtualenvs_site_packages_node_modules_and_vendor(ws: Path) -> None:
    """Regression: a folder whose .venv no ignore file hid was mapped whole (19,297 files, 87 s cold)."""
    _vendored_trees(ws)
    repo_map = build(ws)
    assert repo_map.files == 1 and "app.py:" in repo_map.text
    assert "vendored_code" not in repo_map.text


def test_in_a_repository_the_map_reads_what_git_lists(ws: Path) -> None:
    _vendored_trees(ws)
    (ws / "tracked_vendor").mkdir()
    (ws / "tracked_vendor" / "kept.py").write_text("def kept():\n    return 2\n")
    (ws / "new.py").write_text("def fresh():\n    return 3\n")  # untracked, not ignored: the model just wrote it
    (ws / ".gitignore").write_text("ignored.py\n")
    (ws / "ignored.py").write_text("def ignored():\n    return 4\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "add", "app.py", "tracked_vendor/kept.py", ".gitignore"], cwd=ws, check=True)
    repo_map = build(ws)
    assert sorted(line for line in repo_map.text.splitlines() if not line.startswith(" ")) == [
        "app.py:", "new.py:", "tracked_vendor/kept.py:"]
    assert "vendored_code" not in repo_map.text and "ignored" not in repo_map.text


def test_the_map_stops_at_its_file_cap_and_says_so(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_module, "MAX_SOURCE_FILES", 3)
    for number in range(5):
        (ws / f"m{number}.py").write_text(f"def f{number}():\n    return {number}\n")
    repo_map = build(ws)
    assert repo_map.files == 3 and repo_map.refresh.capped
    assert "the map stops at 3 source files" in with_heading(repo_map)
