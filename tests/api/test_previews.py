"""Issue 36: what a face shows about a call (api/previews.py): the edit saying yes would write, computed by the
tool against the session's files without writing, and the call's arguments parsed as the loop parses them."""

from __future__ import annotations

from pathlib import Path

import sneakycode
from sneakycode.api.previews import call_arguments, call_path, call_preview
from sneakycode.api.session import Session
from sneakycode.api.vocabulary import ProposedEdit
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC


def test_a_proposed_edit_is_the_tools_own_and_writes_nothing(server: ScriptedServer, repo: Path) -> None:
    options = sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True)
    with Session(options) as session:
        edit = session.proposed_edit("str_replace", {"file_path": "calc.py", "old_str": "a - b", "new_str": "a + b"})
        failing = session.proposed_edit("str_replace", {"file_path": "calc.py", "old_str": "nowhere", "new_str": ""})
        assert session.proposed_edit("read_file", {"file_path": "calc.py"}) is None
    assert isinstance(edit, ProposedEdit) and edit.before == CALC and "a + b" in edit.after
    assert isinstance(failing, str) and failing  # the tool's own words for why it would fail
    assert (repo / "calc.py").read_text() == CALC


def test_call_arguments_path_and_preview() -> None:
    assert call_arguments('{"file_path": "a.py"}') == {"file_path": "a.py"}
    assert call_arguments("{not json") is None
    assert call_path("read_file", {"file_path": "a.py"}) == "a.py"
    assert call_path("no_such_tool", {}) is None
    assert call_preview("run_command", {"command": "pytest -q"}).text == "$ pytest -q"
    assert call_preview("no_such_tool", {"x": 1}).syntax == "json"
