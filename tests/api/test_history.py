"""Issue 36: the session's history verbs a face calls (api/history.py): the conversation as Markdown, the other
saved sessions, what the session changed, undo, and where a prompt's history is kept."""

from __future__ import annotations

from pathlib import Path

import sneakycode
from sneakycode.api.session import Session
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC, fixing_steps


def options(server: ScriptedServer, repo: Path, state: Path) -> sneakycode.Options:
    return sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", mode="yolo",
                              state_dir=state, settings={"retry_backoff": 0.01})


def test_export_diff_and_undo_of_a_session_that_fixed_a_file(server: ScriptedServer, repo: Path,
                                                             tmp_path: Path) -> None:
    server.add_steps(fixing_steps())
    with Session(options(server, repo, tmp_path / "state")) as session:
        assert session.diff().paths == [] and not session.has_undoable_changes()
        session.run("fix add")
        exported = session.export_markdown()
        assert exported.startswith(f"# SneakyCode session {session.session_id}\n\n## User\n\nfix add")
        assert "**Tool call** `str_replace`" in exported
        changed = session.diff()
        assert changed.patch is not None
        assert "-    return a - b" in changed.patch and "+    return a + b" in changed.patch
        assert session.has_undoable_changes()
        report = session.undo()
        assert report.ok and (repo / "calc.py").read_text() == CALC
        assert not session.has_undoable_changes()
        assert session.history()[1]["content"] == "fix add"


def test_saved_sessions_lists_the_others_newest_first_with_their_first_request(
        server: ScriptedServer, repo: Path, tmp_path: Path) -> None:
    server.add_steps([{"content": "one"}, {"content": "two"}])
    state = tmp_path / "state"
    with Session(options(server, repo, state)) as first:
        first.run("the first request")
    with Session(options(server, repo, state)) as second:
        [saved] = second.saved_sessions()
        assert (saved.id, saved.first_prompt) == (first.session_id, "the first request")
        assert second.resume(saved.id) == 2  # the request and its answer
        history_file = second.prompt_history_path()
    assert history_file.is_relative_to(state) and history_file.parent.name == "prompt-history"
