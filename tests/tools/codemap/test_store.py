"""The tags every session shares by content (store.py, speed issue 42): a second session, a batch task's
worktree or an eval's copy of the same repository reuses what a first one parsed; a broken store is made again,
never a crash; it stays bounded; and a file a deny rule hides never reaches a map through it."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from sneakycode.tools.codemap import index as index_module
from sneakycode.tools.codemap import store as store_module
from sneakycode.tools.codemap.repomap import RepoMap, build_map
from sneakycode.tools.codemap.store import STORE_NAME


def build(root: Path, session: Path, shared: Path, hidden: object = None) -> RepoMap:
    session.mkdir(parents=True, exist_ok=True)
    rule = hidden if hidden is not None else (lambda path: None)
    return build_map(root, max_tokens=4000, hidden=rule, max_file_bytes=1 << 20,  # type: ignore[arg-type]
                     cache_dir=session, index_dir=shared)


@pytest.fixture(autouse=True)
def _fresh_process() -> None:
    """Each test starts as a new process would: no index or store connection in memory."""
    index_module._indexes.clear()
    store_module._stores.clear()


def test_a_copy_of_the_repository_elsewhere_reuses_the_parsed_tags(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "state" / "codemap"
    first = build(repo, tmp_path / "a" / "sessions" / "1", shared)
    assert first.refresh.parsed == 9 and (shared / STORE_NAME).is_file()
    worktree = tmp_path / "worktree"  # a batch task's copy: another path, other mtimes, the same content
    shutil.copytree(repo, worktree)
    (worktree / "tools" / "lonely.py").write_text("def changed_in_this_copy():\n    return 1\n")
    index_module._indexes.clear()
    second = build(worktree, tmp_path / "b" / "sessions" / "1", shared)  # another state folder: no log to seed from
    assert (second.refresh.reused, second.refresh.parsed) == (8, 1)
    assert second.text.replace("changed_in_this_copy", "") != second.text
    assert first.text.split("tools/lonely.py")[0] == second.text.split("tools/lonely.py")[0]


def test_a_corrupt_store_is_made_again_and_the_build_goes_on(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "codemap"
    shared.mkdir()
    (shared / STORE_NAME).write_bytes(b"this is not a database" * 100)
    assert build(repo, tmp_path / "a" / "s", shared).refresh.parsed == 9
    index_module._indexes.clear()
    store_module._stores.clear()
    assert build(repo, tmp_path / "b" / "s", shared).refresh.reused == 9  # made again, and used


def test_a_row_that_is_not_tags_is_dropped_and_parsed_again(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "codemap"
    build(repo, tmp_path / "a" / "s", shared)
    store_module._stores.clear()
    with sqlite3.connect(shared / STORE_NAME) as db:
        db.execute("UPDATE tags SET tags = '[[[\"x\", \"not a line\", \"\"]], {}]'")
        db.execute("UPDATE tags SET tags = 'garbage' WHERE rowid = 1")
    db.close()
    index_module._indexes.clear()
    again = build(repo, tmp_path / "b" / "s", shared)
    assert (again.refresh.reused, again.refresh.parsed) == (0, 9)
    assert "def record_payment(ledger, amount):" in again.text


def test_the_store_keeps_only_the_latest_rows(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "MAX_ROWS", 4)
    shared = tmp_path / "codemap"
    build(repo, tmp_path / "a" / "s", shared)
    store_module._stores.clear()
    with sqlite3.connect(shared / STORE_NAME) as db:
        assert db.execute("SELECT count(*) FROM tags").fetchone() == (4,)
    db.close()


def test_hardening_round_three_a_denied_file_never_reaches_a_map_through_the_store(repo: Path,
                                                                                   tmp_path: Path) -> None:
    """Hardening round three, class 11: the shared store holds tags by content and no paths; a session whose
    deny rule hides a file never shows it, though another session parsed that content."""
    shared = tmp_path / "codemap"
    assert "record_payment" in build(repo, tmp_path / "a" / "s", shared).text
    index_module._indexes.clear()
    denied = build(repo, tmp_path / "b" / "s", shared, hidden=lambda path: "Read(billing/**)"
                   if path.startswith("billing/") else None)
    assert "billing/" not in denied.text and "def record_payment" not in denied.text
    assert denied.refresh.reused == 7


def test_a_tracked_file_changed_since_its_commit_is_not_taken_for_its_committed_content(repo: Path,
                                                                                        tmp_path: Path) -> None:
    """A tracked file git vouches for is looked up by the blob id git lists; one changed since must be looked
    up by what is on disk, or the map would show definitions the file no longer has."""
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "-m", "one"], check=True)
    shared = tmp_path / "codemap"
    build(repo, tmp_path / "a" / "s", shared)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    (clone / "tools" / "lonely.py").write_text("def rewritten_since_the_commit():\n    return 2\n")
    index_module._indexes.clear()
    again = build(clone, tmp_path / "b" / "s", shared)
    assert (again.refresh.reused, again.refresh.parsed) == (8, 1)
    assert "rewritten_since_the_commit" in again.text and "lonely_helper" not in again.text


def test_many_state_folders_keep_only_a_few_connections_open(repo: Path, tmp_path: Path) -> None:
    """A program making many isolated sessions (each its own temporary state folder) must not keep a database
    open for each of them."""
    def open_files() -> int:
        return len(list(Path("/proc/self/fd").iterdir()))

    before = open_files()
    for number in range(12):
        build(repo, tmp_path / f"state{number}" / "s", tmp_path / f"state{number}" / "codemap")
        index_module._indexes.clear()
    assert open_files() - before <= 3 * store_module._KEPT_OPEN
    assert build(repo, tmp_path / "other" / "s", tmp_path / "state0" / "codemap").refresh.reused == 9  # reopened
