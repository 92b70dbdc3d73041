"""Hardening round three, class 7: a session id is a name, looked up only inside the state folder, by every
command that takes one (--resume, undo/rewind --session, `sessions`; ACP session/load in tests/faces/acp)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sneakycode.api.options import Options
from sneakycode.api.settings import load_options
from sneakycode.errors import ConfigError
from sneakycode.session.folders import checked_session_id, list_sessions, load_session, new_session
from tests.conftest import run_main


def plant(folder: Path, ws: Path, session_id: str | None = None) -> dict[str, str]:
    """A session folder with a transcript, a journal and a checkpoint file, as a hostile repository or file
    could leave one; returns every file's text, to show later that nothing was read into or written there."""
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({"id": session_id or folder.name, "workspace": str(ws),
                                                  "created": 1.0, "kind": "agent"}))
    (folder / "transcript.jsonl").write_text(json.dumps(
        {"type": "message", "time": 1.0, "message": {"role": "user", "content": "planted instructions"}}) + "\n")
    (folder / "journal").write_text("not a journal\n")
    (folder / "checkpoints.jsonl").write_text("")
    return {p.name: p.read_text() for p in folder.iterdir()}


@pytest.fixture
def state(tmp_path: Path) -> Path:
    folder = tmp_path / "state"
    (folder / "sessions").mkdir(parents=True)
    return folder


@pytest.mark.parametrize("bad", ["../planted", "../../planted", "/tmp/planted", "a/b", "..", ".", ".hidden", "",
                                 "x\ny", "id\x1b[2J", "a\\b", "x" * 101])
def test_a_session_id_that_is_not_a_plain_name_is_refused_with_what_an_id_looks_like(bad: str) -> None:
    with pytest.raises(ConfigError, match="is not a session id"):
        checked_session_id(bad)


def test_the_ids_sessions_are_given_are_ids(tmp_path: Path) -> None:
    info = new_session(tmp_path, tmp_path)
    assert checked_session_id(info.id) == info.id
    assert load_session(tmp_path, info.id) == info


def test_the_api_refuses_a_resume_that_is_a_path_before_anything_is_read(ws: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    files = plant(planted, ws.resolve())
    with pytest.raises(ConfigError, match="is not a session id"):
        load_options(Options(workspace=ws, resume=str(planted), state_dir=tmp_path / "state"))
    assert {p.name: p.read_text() for p in planted.iterdir()} == files


def test_a_link_or_a_copied_meta_in_the_sessions_folder_does_not_pass_for_a_session(
        ws: Path, state: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    plant(outside, ws.resolve(), session_id="linked")
    (state / "sessions" / "linked").symlink_to(outside)
    plant(state / "sessions" / "copied", ws.resolve(), session_id="someone-else")
    (state / "sessions" / "not an id").mkdir()
    assert load_session(state, "linked") is None and load_session(state, "copied") is None
    assert list_sessions(state) == []


@pytest.mark.parametrize("argv", [
    ["-p", "go on", "--resume", "{planted}"],
    ["-p", "go on", "--resume", "../planted"],
    ["undo", "--session", "../planted", "--force"],
    ["rewind", "--session", "{planted}", "--force"],
])
def test_commands_refuse_a_session_id_that_is_a_path_and_touch_nothing_there(
        ws: Path, state: Path, tmp_path: Path, argv: list[str]) -> None:
    planted = tmp_path / "planted"
    files = plant(planted, ws.resolve())
    done = run_main(*[arg.format(planted=planted) for arg in argv], "--workspace", str(ws),
                    env={"SNEAKYCODE_STATE_DIR": str(state), "SNEAKYCODE_BASE_URL": "http://127.0.0.1:9/v1",
                        "SNEAKYCODE_PROVIDER": "custom", "SNEAKYCODE_MODEL": "m", "OPENAI_API_KEY": "unused"})
    assert done.code == 2, (done.stdout, done.stderr)
    assert "is not a session id" in done.stderr and "Traceback" not in done.stderr
    assert {p.name: p.read_text() for p in planted.iterdir()} == files
    assert sorted(p.name for p in (state / "sessions").iterdir()) == []  # no session was started either


def test_sessions_lists_only_the_sessions_inside_the_state_folder(ws: Path, state: Path, tmp_path: Path) -> None:
    plant(tmp_path / "outside", ws.resolve(), session_id="linked")
    (state / "sessions" / "linked").symlink_to(tmp_path / "outside")
    listed = run_main("sessions", "--workspace", str(ws), env={"SNEAKYCODE_STATE_DIR": str(state)})
    assert listed.code == 0 and "No saved sessions" in listed.stdout, listed
