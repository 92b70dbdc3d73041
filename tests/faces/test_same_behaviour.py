"""Issue 36: the terminal and the editor face behave alike, because both call the same `Session` verbs. One
script drives both against the scripted server (each face with its own server and a workspace holding the
same files): "always allow" at the first edit, /compact, /clear, a mode switch that is accepted, one that is
refused, and a request under plan mode. What the user and the model see must come out the same.

The terminal is driven in process through its own code (the slash commands, the approver answering keys, the
request runner); the editor face is the real `sneakycode acp` spoken to through the SDK's client."""

from __future__ import annotations

import io
import json
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from rich.console import Console

from sneakycode.testing.server import ScriptedServer
from tests.conftest import project_config
from tests.faces.acp.conftest import Editor, agent_env, call, finish, initialized, run, running_agent

COUNTING = ("import pathlib; p = pathlib.Path('starts'); n = len(p.read_text()) if p.exists() else 0; "
            "p.write_text('x' * (n + 1)); print(f'SessionStart run {n + 1}')")

STEPS: list[dict[str, Any]] = [
    # "edit twice": asked once, "always" answered, the second edit of the same file goes ahead unasked
    call("read_file", file_path="notes.md"),
    call("str_replace", file_path="notes.md", old_str="one", new_str="two"),
    call("str_replace", file_path="notes.md", old_str="two", new_str="three"),
    finish("Done."),
    # /compact: the summary the model writes
    {"content": "The user had notes.md edited twice."},
    # "plan it", under plan mode: the write is refused without a question
    call("write_file", file_path="plan.txt", content="no\n"),
    {"content": "Planned."},
]

# What the script does, face-neutrally: ("prompt", text), ("slash", "/clear"), ("mode", name).
SCRIPT: list[tuple[str, str]] = [
    ("prompt", "edit twice"),
    ("slash", "/compact"),
    ("slash", "/clear"),
    ("mode", "plan"),
    ("mode", "reckless"),
    ("prompt", "plan it"),
]


@dataclass
class Seen:
    """What one face showed and did."""

    questions: int = 0
    modes: list[tuple[str, bool]] = field(default_factory=list)  # (asked for, accepted)


def workspace(root: Path) -> Path:
    root.mkdir()
    (root / "notes.md").write_text("one\n")
    hook = {"type": "command", "command": f"{shlex.quote(sys.executable)} -c {shlex.quote(COUNTING)}"}
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))
    project_config(root, "", trusted=True)
    return root


def drive_terminal(ws: Path, server: ScriptedServer) -> Seen:
    """The terminal's own slash commands, approver and request runner over one `Session`."""
    from sneakycode.api.options import Options
    from sneakycode.api.session import Session
    from sneakycode.faces.terminal.app import _run_request
    from sneakycode.faces.terminal.approver import TerminalApprover
    from sneakycode.faces.terminal.commands import SlashContext, run_slash
    from sneakycode.faces.terminal.render import TerminalSink

    out = io.StringIO()
    console = Console(file=out, width=160, color_system=None)
    keys = ["a", "s"]  # "always", then "for this session" (what the editor's "allow always" means)
    seen = Seen()

    def ask(question: str) -> str:
        if "[y]es" in question:
            seen.questions += 1
        return keys.pop(0) if keys else "n"

    sink = TerminalSink(console, animated=False)
    options = Options(workspace=ws, base_url=server.base_url, model="scripted-model", api_key="unused",
                      settings={"retry_backoff": 0.01})
    with Session(options, sink=sink, approver_for=lambda ctx: TerminalApprover(console, ask, ctx=ctx)) as session:
        slash = SlashContext(session, console, "scripted-model")
        session.start()
        for kind, text in SCRIPT:
            if kind == "prompt":
                _run_request(session, console, text, settle=sink.finish)
            elif kind == "slash":
                run_slash(slash, text)
            else:
                before = len(out.getvalue())
                run_slash(slash, f"/mode {text}")
                seen.modes.append((text, "mode set to" in out.getvalue()[before:]))
    return seen


def drive_editor(ws: Path, server: ScriptedServer) -> Seen:
    """The real `sneakycode acp`, as an editor speaks to it."""
    editor = Editor(["allow_always"])
    seen = Seen()

    async def go() -> None:
        async with running_agent(editor, server, env=agent_env(server)) as (conn, _process):
            await initialized(conn)
            new = await conn.new_session(cwd=str(ws), mcp_servers=[])
            for kind, text in SCRIPT:
                if kind in ("prompt", "slash"):
                    await conn.prompt(session_id=new.session_id, prompt=[text_block(text)])
                    continue
                try:
                    await conn.set_session_mode(session_id=new.session_id, mode_id=text)
                    seen.modes.append((text, True))
                except Exception:  # the SDK raises the agent's JSON-RPC error: the mode was refused
                    seen.modes.append((text, False))

    run(go)
    seen.questions = len(editor.asked)
    return seen


def conversation(server: ScriptedServer) -> list[list[str]]:
    """What the model was sent, request by request: the user's messages (the tool results' and the system
    prompt's wording aside, which name each face's workspace)."""
    return [[m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
             for m in request["messages"] if m["role"] == "user"] for request in server.chat_requests]


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def test_the_terminal_and_the_editor_face_behave_alike_for_the_same_script(tmp_path: Path) -> None:
    results: dict[str, tuple[Seen, Path, list[list[str]]]] = {}
    for face, drive in (("terminal", drive_terminal), ("editor", drive_editor)):
        ws = workspace(tmp_path / face)
        with ScriptedServer({"steps": STEPS}) as server:
            seen = drive(ws, server)
            results[face] = (seen, ws, conversation(server))
    (terminal, t_ws, t_sent), (editor, e_ws, e_sent) = results["terminal"], results["editor"]
    # "always allow" is the session's in both: the second edit of notes.md was not asked about
    assert terminal.questions == editor.questions == 1
    assert (t_ws / "notes.md").read_text() == (e_ws / "notes.md").read_text() == "three\n"
    # /clear ran the SessionStart hooks again in both (start-up, then clear)
    assert (t_ws / "starts").read_text() == (e_ws / "starts").read_text() == "xx"
    # plan is accepted, an unknown mode refused, alike; under plan the write is refused without a question
    assert terminal.modes == editor.modes == [("plan", True), ("reckless", False)]
    assert not (t_ws / "plan.txt").exists() and not (e_ws / "plan.txt").exists()
    # the model saw the same conversation: the compaction, then after /clear only the new request
    assert t_sent == e_sent
    assert len(t_sent) == len(STEPS) and t_sent[4][0].startswith("user: edit twice")  # the summary's request
    assert t_sent[-2:] == [["plan it"], ["plan it"]]
