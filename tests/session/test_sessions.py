"""Sessions: the JSONL transcript written as the run goes, resume (--continue / --resume), `sneakycode sessions`."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from sneakycode.agent.loop import RESUMED_NOTE, Agent
from sneakycode.agent.protocol import AssistantTurn
from sneakycode.agent.roles import Binding, BoundModel
from sneakycode.agent.setup import Calls, Conversation, RunConfig
from sneakycode.api.assembly import AgentSession, open_agent_session
from sneakycode.config import load_settings
from sneakycode.errors import ConfigError
from sneakycode.session.folders import new_session
from sneakycode.session.transcript import TRANSCRIPT, load_transcript
from sneakycode.tools.context import open_tool_context
from tests.agent.test_loop import Approver, Events, ScriptedModel, finish, reply, tc
from tests.conftest import run_main

TASKS = [{"id": "1", "content": "Fix it", "status": "in_progress"}]


def run_session(ws: Path, replies: list[Any], request: str = "Fix the bug", **open_args: Any) -> tuple[
    AgentSession, Agent, ScriptedModel
]:
    session = open_agent_session(load_settings(ws), **open_args)
    model = ScriptedModel(replies)
    history = session.saved.messages if session.saved else None
    agent = Agent(Binding(BoundModel(model)), Calls(session.ctx, Approver(True)),
                  Conversation(history=history, transcript=session.transcript), RunConfig(Events(), main=True))
    agent.run_turn(request)
    session.transcript.close()
    return session, agent, model


def records(session: AgentSession) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (session.ctx.session_dir / TRANSCRIPT).read_text().splitlines()]


def test_the_transcript_is_written_while_the_run_goes(ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    seen_mid_run: list[str] = []
    box: list[AgentSession] = []

    def look_at_transcript(cancel: threading.Event | None) -> AssistantTurn:
        seen_mid_run.append((box[0].ctx.session_dir / TRANSCRIPT).read_text())
        return finish("Done.")

    session = open_agent_session(load_settings(ws))
    box.append(session)
    model = ScriptedModel([reply(tc("read_file", file_path="a.txt")), look_at_transcript])
    agent = Agent(Binding(BoundModel(model)), Calls(session.ctx, None), Conversation(transcript=session.transcript),
                  RunConfig(Events(), main=True))
    agent.run_turn("Read a.txt")
    assert '"Read a.txt"' in seen_mid_run[0] and "hello" in seen_mid_run[0]
    kinds = [r["type"] for r in records(session)]
    assert kinds[:5] == ["message", "message", "turn", "message", "usage"] and kinds[-1] == "outcome"
    assert all(isinstance(r["time"], float) for r in records(session))
    assert records(session)[-1]["status"] == "finished"


def test_a_torn_last_line_is_skipped_on_replay(ws: Path) -> None:
    session, _, _ = run_session(ws, [reply(text="Hi.")])
    path = session.ctx.session_dir / TRANSCRIPT
    with path.open("a") as fh:
        fh.write('{"type": "message", "message": {"role": "user", "con')
    saved = load_transcript(path)
    assert [m["role"] for m in saved.messages] == ["system", "user", "assistant"]
    assert saved.outcome is not None and saved.outcome["status"] == "answered"


def test_continue_resumes_the_latest_session_with_its_messages_and_tasks(ws: Path) -> None:
    (ws / "a.txt").write_text("old\n")
    first, _, _ = run_session(
        ws, [reply(tc("read_file", file_path="a.txt"), tc("update_tasks", tasks=TASKS)), reply(text="Paused.")]
    )
    open_tool_context(load_settings(ws), kind="tool")  # a `sneakycode tool` session, without a transcript
    write = tc("write_file", file_path="a.txt", content="new\n")
    second, agent, model = run_session(ws, [reply(write), finish()], "Carry on", continue_latest=True)
    assert second.ctx.session_id == first.ctx.session_id and second.ctx.tasks == TASKS
    sent = model.requests[0]
    assert RESUMED_NOTE not in sent[0]["content"], "the system prompt (the cached prefix) stays as it was"
    assert [m.get("content") for m in sent if m["role"] == "user"] == ["Fix the bug", f"[{RESUMED_NOTE}]\n\nCarry on"]
    written = next(m["content"] for m in agent.history if m.get("tool_call_id") == write.id)
    assert written.startswith("Error [not_read]"), "reads do not survive a resume"
    assert (ws / "a.txt").read_text() == "old\n"


def test_resume_by_id_and_a_compacted_history_replays_from_the_snapshot(ws: Path) -> None:
    first, _, _ = run_session(ws, [reply(text="One.")])
    first.transcript = type(first.transcript)(first.ctx.session_dir)
    snapshot = [{"role": "system", "content": "s"}, {"role": "user", "content": "short"}]
    first.transcript.write("history", messages=snapshot)
    first.transcript.close()
    session = open_agent_session(load_settings(ws), resume_id=first.ctx.session_id)
    assert session.saved is not None and [m["content"] for m in session.saved.messages] == ["s", "short"]


def test_a_resumed_session_that_died_mid_turn_is_repaired(ws: Path) -> None:
    session = open_agent_session(load_settings(ws))
    session.transcript.message({"role": "user", "content": "go"})
    session.transcript.message({"role": "assistant", "content": "", "tool_calls": [
        {"id": "x1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}]})
    session.transcript.close()
    _, _, model = run_session(ws, [reply(text="Back.")], "again", continue_latest=True)
    tool = next(m for m in model.requests[0] if m["role"] == "tool")
    assert tool["tool_call_id"] == "x1" and tool["content"].startswith("Error [cancelled]")


def test_asking_for_a_session_that_cannot_be_resumed_says_why(ws: Path, tmp_path: Path) -> None:
    loaded = load_settings(ws)
    with pytest.raises(ConfigError, match="no saved session for the workspace"):
        open_agent_session(loaded, continue_latest=True)
    with pytest.raises(ConfigError, match="`sneakycode sessions` lists them"):
        open_agent_session(loaded, resume_id="20200101-000000-000000-abcd")
    other = tmp_path / "other"
    other.mkdir()
    theirs, _, _ = run_session(other, [reply(text="Hi.")])
    with pytest.raises(ConfigError, match="belongs to the workspace"):
        open_agent_session(loaded, resume_id=theirs.ctx.session_id)


def test_sessions_command_lists_this_workspaces_sessions(ws: Path) -> None:
    assert "No saved sessions" in run_main("sessions", "--workspace", str(ws)).stdout
    session, _, _ = run_session(ws, [reply(text="Hi.")], "Explain   the\nparser module")
    listed = run_main("sessions", "--workspace", str(ws))
    assert listed.code == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if line.startswith(session.ctx.session_id))
    assert "answered" in line and "Explain the parser module" in line
    assert "--resume ID" in listed.stdout


def test_a_state_folder_that_cannot_hold_sessions_is_a_config_error(tmp_path: Path) -> None:
    """Hardening class 9: a file where the sessions folder should be gave a traceback at session start."""
    (tmp_path / "sessions").write_text("")
    with pytest.raises(ConfigError, match=f"the state folder {tmp_path / 'sessions'} cannot be used"):
        new_session(tmp_path, tmp_path)
