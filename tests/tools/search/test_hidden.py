"""Hardening class 6: a path deny rule covers every tool that shows file content or names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.permissions.gate import Gate
from sneakycode.tools.context import open_tool_context
from tests.conftest import project_config, run_cli


@pytest.fixture
def guarded(ws: Path) -> Path:
    (ws / ".env").write_text("API_TOKEN=s3cret\n")
    (ws / "secrets").mkdir()
    (ws / "secrets" / "k.txt").write_text("s3cret key\n")
    (ws / "app.py").write_text("token = 's3cret'\n")
    (ws / ".gitignore").write_text(".env\n")
    project_config(ws, '[permissions]\ndeny = ["read_file(.env)", "read_file(secrets/**)"]\n', trusted=False)
    return ws


@pytest.mark.parametrize("include_ignored", [False, True])
def test_grep_and_find_leave_out_what_read_file_may_not_read(guarded: Path, include_ignored: bool) -> None:
    gate = Gate(open_tool_context(load_settings(guarded)))
    grep = gate.run_direct("grep_files", {"pattern": "s3cret", "include_ignored": include_ignored})
    assert grep.success and grep.content.splitlines() == ["app.py:1:token = 's3cret'"]
    found = gate.run_direct("find_files", {"pattern": "*", "include_ignored": include_ignored})
    assert ".env" not in found.content and "secrets/k.txt" not in found.content and "app.py" in found.content
    named = gate.run_direct("grep_files", {"pattern": "s3cret", "path": ".env"})
    assert named.code == "permission_denied" and "read_file(.env)" in (named.error or "")


def test_the_cli_keeps_the_same_paths_out(guarded: Path) -> None:
    result = run_cli("tool", "grep_files", json.dumps({"pattern": "s3cret", "include_ignored": True}),
                     "--workspace", str(guarded))
    assert result.code == 0 and "API_TOKEN" not in result.stdout and "s3cret key" not in result.stdout


@pytest.mark.parametrize("fallback", [False, True])
def test_a_fifo_is_never_searched(ws: Path, monkeypatch: pytest.MonkeyPatch, fallback: bool) -> None:
    """Hardening class 5: a FIFO in the tree or named as the path must not make grep_files wait forever."""
    from sneakycode.tools.search import ripgrep

    if fallback:
        monkeypatch.setattr(ripgrep, "locate_rg", lambda: None)
    os.mkfifo(ws / "pipe")
    (ws / "a.txt").write_text("needle\n")
    gate = Gate(open_tool_context(load_settings(ws)))
    found = gate.run_direct("grep_files", {"pattern": "needle"})
    assert found.success and found.content.splitlines() == ["a.txt:1:needle"]
    named = gate.run_direct("grep_files", {"pattern": "needle", "path": "pipe"})
    assert named.code == "not_regular_file" and "FIFO" in (named.error or "")


def test_a_match_reported_through_a_folder_swapped_for_a_link_is_dropped(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hardening class 4: ripgrep walks by path names, so a folder swapped for a link to outside while it
    searches could show outside text; what it reports is checked against the workspace before it is shown."""
    from sneakycode.tools.search import ripgrep

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("needle from outside\n")
    (ws / "a.txt").write_text("needle\n")
    (ws / "sub").symlink_to(outside, target_is_directory=True)  # the swap, already done
    real_count = ripgrep.count

    def raced_count(*args: object, **kwargs: object) -> object:
        report = real_count(*args, **kwargs)  # type: ignore[arg-type]
        from sneakycode.tools.search.common import FileHits, GrepReport

        return GrepReport([*report.files, FileHits("sub/secret.txt", 1)], report.complete, report.searched)

    monkeypatch.setattr(ripgrep, "count", raced_count)
    result = Gate(open_tool_context(load_settings(ws))).run_direct("grep_files", {"pattern": "needle"})
    assert result.success and "outside" not in result.content and result.content.splitlines() == ["a.txt:1:needle"]
