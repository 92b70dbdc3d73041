"""`Session.result()` reads the journal and the checkpoints incrementally (session/change_reader.py) and still
answers exactly what a read from scratch answers, request after request."""

from __future__ import annotations

import subprocess
from pathlib import Path

import sneakycode
from sneakycode.errors import CheckpointError
from sneakycode.session.checkpoints import read_records
from sneakycode.session.journal import Journal
from sneakycode.session.shadow_git import ShadowRepo
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import call, finish


def from_scratch(session: sneakycode.Session, journal_before: int, records_before: int) -> list[str]:
    """`files_changed` as it was computed before: the whole journal and checkpoints file read again."""
    ctx = session._ctx
    records = read_records(ctx.session_dir)[records_before:]
    first = next((r for r in records if r.kind == "before"), None)
    last = next((r for r in reversed(records) if r.kind == "end"), None)
    snapshotted: list[str] = []
    if first is not None and last is not None and first.tree != last.tree:
        try:
            repo = ShadowRepo.find(ctx.session_dir, ctx.workspace.root)
            snapshotted = [c.path for c in repo.changes(first.commit, last.commit)]
        except CheckpointError:
            pass
    shown = [ctx.workspace.display(ctx.workspace.root / p) for p in snapshotted]
    journaled = [ctx.workspace.display(e.path) for e in Journal(ctx.session_dir).entries()[journal_before:]]
    return list(dict.fromkeys([*shown, *journaled]))


def test_results_of_a_long_session_match_a_read_from_scratch(server: ScriptedServer, repo: Path) -> None:
    """Speed, issue 42: every result re-read the whole journal and checkpoints file; the incremental read must
    give the same files_changed after each request (file tools, a command's writes, an unchanged request)."""
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    requests = [
        [call("write_file", file_path="a.txt", content="a\n"), finish("a")],
        [call("read_file", file_path="calc.py"),
         call("str_replace", file_path="calc.py", old_str="a - b", new_str="a + b"), finish("fixed")],
        [call("run_command", command="echo made > made.txt"), finish("ran")],
        [{"content": "nothing to do"}],
        [call("write_file", file_path="sub/b.txt", content="b\n"),
         call("write_file", file_path="a.txt", content="a2\n"), finish("b")],
    ]
    for steps in requests:
        server.add_steps(steps)
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                                 mode="yolo")
    with sneakycode.Session(options) as session:
        journal_before, records_before = session.changes.before, session.changes.records_before
        seen: list[list[str]] = []
        for number in range(len(requests)):
            result = session.run(f"request {number}")
            assert result.status in ("finished", "answered"), result.message
            assert result.files_changed == from_scratch(session, journal_before, records_before)
            seen.append(result.files_changed)
    assert seen[0] == ["a.txt"] and set(seen[-1]) == {"a.txt", "calc.py", "made.txt", "sub", "sub/b.txt"}
