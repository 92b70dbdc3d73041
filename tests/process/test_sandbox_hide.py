"""`tools.shell.sandbox_hide`: paths run_command's sandbox covers, as eval hides its suite (the installed
package's hidden tests and solutions) from the agent's commands; a hidden path stays covered even inside a
folder the sandbox binds back (a virtualenv under /tmp)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sneakycode.config import load_settings
from sneakycode.tools.context import open_tool_context
from tests.conftest import call
from tests.process.test_sandbox import require_bwrap


def test_a_hidden_path_reads_as_nothing_even_inside_a_folder_bound_back(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hardening round three, class 6: eval's suite lies in site-packages; when that virtualenv is under /tmp
    the sandbox binds it back over its private /tmp (so the project's tools work), and the suite folder in it
    must stay covered; a hidden file outside /tmp reads as empty."""
    require_bwrap(ws)
    venv = tmp_path / "venv"
    suites = venv / "lib" / "site-packages" / "sneakycode" / "evals" / "suites"
    suites.mkdir(parents=True)
    (suites / "test_eval_hidden.py").write_text("the hidden test\n")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin").mkdir()
    (venv / "lib" / "shown.txt").write_text("the rest of the virtualenv\n")
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:/usr/bin:/bin")
    hidden_file = Path("/etc/hostname")
    if not hidden_file.is_file() or not hidden_file.read_text().strip():
        pytest.skip("this machine has no /etc/hostname to hide")
    settings = {"tools.shell.sandbox": "bwrap", "tools.shell.sandbox_hide": [str(suites), str(hidden_file)]}
    ctx = open_tool_context(load_settings(ws, flags=settings))
    command = (f"cat {venv / 'lib' / 'shown.txt'}; ls {suites}; cat {suites / 'test_eval_hidden.py'}; "
               f'echo "[$(cat {hidden_file})]"')  # fmt: skip
    result = call(ctx, "run_command", command=command)
    assert "the rest of the virtualenv" in result.content, result.content
    assert "the hidden test" not in result.content and "No such file" in result.content, result.content
    assert "[]" in result.content, result.content


def test_hardening_round_three_the_shared_map_index_is_hidden_from_commands(ws: Path, tmp_path: Path) -> None:
    """Hardening round three, class 11: the map's tags shared by all sessions (repo_map.index_dir, which a batch
    points outside the task's state folder) must be out of a sandboxed command's reach: what it wrote there
    would reach other sessions' maps."""
    require_bwrap(ws)
    shared = ws / "shared-tags"  # where a command could reach it (its /tmp is its own)
    shared.mkdir()
    (shared / "tags.sqlite3").write_text("the shared tags\n")
    settings = {"tools.shell.sandbox": "bwrap", "repo_map.index_dir": str(shared)}
    ctx = open_tool_context(load_settings(ws, flags=settings))
    result = call(ctx, "run_command", command=f"cat {shared / 'tags.sqlite3'}; echo planted > {shared}/x; ls {shared}")
    assert "the shared tags" not in result.content, result.content
    assert not (shared / "x").exists()
