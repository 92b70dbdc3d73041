"""Issue 36, the session's verbs, written once for every face: set_mode, clear (SessionStart hooks again),
compact, rewind, tasks and jobs, through `sneakycode.Session` against the scripted server."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

import sneakycode
from sneakycode.testing.server import ScriptedServer
from tests.api.conftest import CALC, call, finish, fixing_steps
from tests.conftest import project_config

COUNTING = ("import pathlib; p = pathlib.Path('starts'); n = len(p.read_text()) if p.exists() else 0; "
            "p.write_text('x' * (n + 1)); print(f'SessionStart run {n + 1}')")


def options(server: ScriptedServer, repo: Path, **more: object) -> sneakycode.Options:
    return sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k", isolated=True,
                              settings={"retry_backoff": 0.01}, **more)  # type: ignore[arg-type]


def test_clear_starts_afresh_and_runs_the_session_start_hooks_again(server: ScriptedServer, repo: Path) -> None:
    hook = {"type": "command", "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(COUNTING)}"}
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    project_config(repo, "", trusted=True)
    server.add_steps([{"content": "one"}, {"content": "two"}])
    with sneakycode.Session(options(server, repo, trust_project=True)) as session:
        session.run("remember 42")
        session.clear()
        session.run("what number?")
    first, second = server.chat_requests
    assert "SessionStart run 1" in first["messages"][0]["content"]
    assert "SessionStart run 2" in second["messages"][0]["content"]
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["what number?"]


def test_set_mode_decides_the_next_call_under_the_new_mode(server: ScriptedServer, repo: Path) -> None:
    server.add_steps([call("write_file", file_path="new.txt", content="hi\n"), finish("done")])
    with sneakycode.Session(options(server, repo)) as session:
        with pytest.raises(ValueError):
            session.set_mode("reckless")
        session.set_mode("auto-edit")
        assert session.mode == "auto-edit"
        result = session.run("write it")
    assert result.status == "finished" and (repo / "new.txt").read_text() == "hi\n"


def test_compact_summarises_and_rewind_takes_files_and_conversation_back(server: ScriptedServer,
                                                                          repo: Path) -> None:
    server.add_steps([*fixing_steps(), {"content": "A summary of the fix."}])
    with sneakycode.Session(options(server, repo, mode="yolo")) as session:
        assert session.compact() is None  # nothing to compact yet
        session.run("fix add")
        assert (repo / "calc.py").read_text() != CALC
        report = session.rewind(1)
        assert report.ok and (repo / "calc.py").read_text() == CALC
        # the conversation as it was before the model's turn 1: the request, no edits
        assert [m["role"] for m in session._agent.history] == ["system", "user"]
        done = session.compact("the fix")
        assert done is not None
        assert session.tasks == [] and session.jobs() == []


def test_remembered_approvals_answer_without_asking_and_are_the_sessions(server: ScriptedServer, repo: Path) -> None:
    """"always" / "never" are kept by the session (issue 36), so every face (and a program) sees and sets the
    same ones: a remembered call is not put to the face's approver again."""
    asked: list[str] = []
    server.add_steps([
        call("run_command", command="touch allowed"),
        call("run_command", command="touch refused"),
        call("run_command", command="touch asked"),
        finish("done"),
    ])
    policy = lambda name, arguments: asked.append(arguments["command"]) or False  # noqa: E731
    settings = {"retry_backoff": 0.01, "tools.shell.sandbox": "off"}
    with sneakycode.Session(sneakycode.Options(workspace=repo, base_url=server.base_url, model="m", api_key="k",
                                               isolated=True, settings=settings, can_use_tool=policy)) as session:
        key = session.approvals.remember("run_command", {"command": "touch allowed"}, True)
        session.approvals.remember("run_command", {"command": "touch refused"}, False)
        assert key in session.approvals.always and len(session.approvals.never) == 1
        session.run("touch three files")
    assert asked == ["touch asked"]
    assert (repo / "allowed").exists() and not (repo / "refused").exists() and not (repo / "asked").exists()
    told = [m["content"] for m in server.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert "for the rest of this session" in told[1]


def test_resume_continues_another_sessions_conversation_here(server: ScriptedServer, repo: Path,
                                                             tmp_path: Path) -> None:
    server.add_steps([{"content": "noted"}, {"content": "42"}])
    state = tmp_path / "state"
    with sneakycode.Session(options(server, repo, state_dir=state)) as first:
        first.run("remember 42")
    with sneakycode.Session(options(server, repo, state_dir=state)) as second:
        with pytest.raises(sneakycode.ConfigError, match="no other saved session"):
            second.resume("no-such-session")
        assert second.resume(first.session_id) == 2
        second.run("what number?")
    users = [m["content"] for m in server.chat_requests[-1]["messages"] if m["role"] == "user"]
    assert users[0] == "remember 42" and users[-1].endswith("what number?")
