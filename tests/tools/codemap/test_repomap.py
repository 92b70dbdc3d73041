"""The repository map: ranked by use, focused on what the conversation names, within its budget, blind to
ignored, denied and oversized files, and kept up to date by mtime and size in the session folder."""

from __future__ import annotations

from pathlib import Path

from sneakycode.tools.codemap import index as index_module
from sneakycode.tools.codemap.index import CACHE_NAME
from sneakycode.tools.codemap.outline import estimate_tokens
from sneakycode.tools.codemap.repomap import Focus, RepoMap, build_map


def nothing_hidden(path: str) -> str | None:
    return None


def build(root: Path, tokens: int = 400, **more: object) -> RepoMap:
    options: dict[str, object] = {"hidden": nothing_hidden, "max_file_bytes": 1 << 20, **more}
    return build_map(root, max_tokens=tokens, **options)  # type: ignore[arg-type]


def shown_names(repo_map: RepoMap) -> list[str]:
    """The defined names in the order the outline lists their files and lines."""
    names = []
    for line in repo_map.text.splitlines():
        if line.startswith("  "):
            words = line.split()
            names.append(words[2].split("(")[0].rstrip(":"))
    return names


def test_the_most_used_definitions_come_first(repo: Path) -> None:
    repo_map = build(repo)
    files = [line for line in repo_map.text.splitlines() if not line.startswith("  ")]
    assert files[:2] == ["billing/ledger.py:", "billing/receipts.py:"], repo_map.text
    assert "  6 def record_payment(ledger, amount):" in repo_map.text.splitlines()[:5]
    assert files[-1] == "tools/lonely.py:"  # nothing uses it: last
    assert repo_map.files == 9


def test_a_small_budget_keeps_only_the_best_and_holds(repo: Path) -> None:
    tiny = build(repo, tokens=20)
    assert 0 < estimate_tokens(tiny.text) <= 20
    assert shown_names(tiny) == ["record_payment"]  # the most used, one file header and one line
    small = build(repo, tokens=30)
    assert 0 < estimate_tokens(small.text) <= 30
    assert shown_names(small) == ["Ledger", "record_payment"]
    large = build(repo, tokens=2000)
    assert estimate_tokens(large.text) <= 2000 and large.definitions > small.definitions
    assert "lonely_helper" in shown_names(large)  # nothing uses it, so it comes last, but it is there


def test_a_mentioned_file_has_its_definitions_promoted(repo: Path) -> None:
    plain = build(repo, tokens=40)
    assert "lonely_helper" not in shown_names(plain)
    by_path = build(repo, tokens=40, focus=Focus(text="Please double the value in tools/lonely.py"))
    assert by_path.focus_files == ("tools/lonely.py",)
    assert shown_names(by_path)[:2] == ["lonely_helper", "LonelyWidget"]
    by_name = build(repo, tokens=40, focus=Focus(text="what does lonely.py do?"))  # the only file of that name
    assert "lonely_helper" in shown_names(by_name)
    read = build(repo, tokens=40, focus=Focus(files=frozenset({"tools/lonely.py"})))  # read or edited
    assert "lonely_helper" in shown_names(read)


def test_ignored_and_denied_and_oversized_files_are_left_out(repo: Path) -> None:
    (repo / ".gitignore").write_text("generated/\n")
    (repo / ".git").mkdir()
    (repo / "generated").mkdir()
    (repo / "generated" / "gen.py").write_text("from billing.ledger import Ledger\n\ndef generated_thing():\n"
                                               "    Ledger()\n")
    (repo / "secret").mkdir()
    (repo / "secret" / "keys.py").write_text("def secret_key_loader():\n    pass\n")
    (repo / "big.py").write_text("def huge_function_here():\n    pass\n" + "# padding\n" * 2000)
    repo_map = build(repo, tokens=4000, hidden=lambda path: "read_file(secret/**)" if path.startswith("secret/")
                     else None, max_file_bytes=4096)
    names = shown_names(repo_map)
    assert "Ledger" in names
    for left_out in ("generated_thing", "secret_key_loader", "huge_function_here"):
        assert left_out not in names
    assert "big.py" in repo_map.refresh.oversized


def test_the_index_is_kept_in_the_session_folder_and_follows_edits(repo: Path, tmp_path: Path) -> None:
    session = tmp_path / "session"
    session.mkdir()
    first = build(repo, cache_dir=session)
    assert first.refresh.parsed == 9 and (session / CACHE_NAME).is_file()
    assert build(repo, cache_dir=session).refresh.parsed == 0
    lonely = repo / "tools" / "lonely.py"
    lonely.write_text(lonely.read_text() + "\n\ndef freshly_added_function():\n    return lonely_helper(1)\n")
    edited = build(repo, tokens=4000, cache_dir=session)
    assert edited.refresh.parsed == 1
    assert "freshly_added_function" in shown_names(edited)
    (repo / "shop" / "orders_5.py").unlink()
    assert build(repo, cache_dir=session).refresh.removed == 1
    # Another process of the session (its memory empty) starts from the log: nothing to parse again.
    index_module._indexes.clear()
    again = build(repo, tokens=4000, cache_dir=session)
    assert again.refresh.parsed == 0 and again.files == 8
    assert "freshly_added_function" in shown_names(again)


def test_a_new_session_starts_from_the_newest_log_of_another(repo: Path, tmp_path: Path) -> None:
    older, newer = tmp_path / "sessions" / "20260101-000000-1", tmp_path / "sessions" / "20260101-000001-2"
    older.mkdir(parents=True)
    build(repo, cache_dir=older)
    index_module._indexes.clear()
    newer.mkdir()
    assert build(repo, cache_dir=newer).refresh.parsed == 0
    assert (newer / CACHE_NAME).is_file()


def test_a_build_out_of_time_leaves_the_rest_for_the_next_and_says_so(repo: Path, tmp_path: Path) -> None:
    from sneakycode.tools.codemap.repomap import with_heading

    session = tmp_path / "session"
    session.mkdir()
    hurried = build(repo, cache_dir=session, seconds=0.0)
    assert hurried.refresh.parsed == 0 and (hurried.refresh.walk_cut or hurried.refresh.pending)
    assert "not read yet" in with_heading(hurried)
    full = build(repo, cache_dir=session)
    assert full.refresh.parsed == 9 and not full.refresh.pending and "not read yet" not in with_heading(full)
