"""Drive the editor face through the SDK's own client side against the scripted model server on 127.0.0.1:
in process by default (`running_agent`: the agent's connection on one end of a socket pair, the SDK's client on
the other, both in the test's event loop, so a test pays no process start), or as the real `sneakycode acp`
process (`spawned_agent`, `acp.spawn_agent_process`) where stdio, lifetime or limits are what is tested.
`Editor` plays the editor: it records every update and every raw JSON-RPC message, and answers permission
questions (and, when it offers them, file reads/writes and terminals) as a test tells it to."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from acp import connect_to_agent, schema, spawn_agent_process
from acp.agent.connection import AgentSideConnection
from acp.connection import StreamEvent

from sneakycode.testing.server import ScriptedServer

SRC = str(Path(__file__).resolve().parents[2] / "src")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def finish(message: str) -> dict[str, Any]:
    return call("finish", message=message)


class Editor:
    """The client side: what it was sent, and how it answers."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.asked: list[schema.RequestPermissionRequest] = []
        self.answers = list(answers or [])  # option ids, in order; when empty, the first "reject_once"
        self.wire: list[dict[str, Any]] = []
        self.ask_delay = 0.0

    async def request_permission(self, session_id: str, tool_call: schema.ToolCallUpdate,
                                 options: list[schema.PermissionOption], **_: Any) -> schema.RequestPermissionResponse:
        self.asked.append(schema.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options))
        if self.ask_delay:
            await asyncio.sleep(self.ask_delay)
        chosen = self.answers.pop(0) if self.answers else "reject_once"
        return schema.RequestPermissionResponse(outcome=schema.AllowedOutcome(outcome="selected", option_id=chosen))

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: type[Any]) -> list[Any]:
        return [update for _sid, update in self.updates if isinstance(update, kind)]

    def text(self) -> str:
        return "".join(u.content.text for u in self.of(schema.AgentMessageChunk)
                       if isinstance(u.content, schema.TextContentBlock))

    def observe(self, event: StreamEvent) -> None:
        self.wire.append({"direction": event.direction.value, **event.message})


def agent_env(server: ScriptedServer, **more: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC, "SNEAKYCODE_BASE_URL": server.base_url, "SNEAKYCODE_PROVIDER": "custom",
           "SNEAKYCODE_MODEL": "scripted-model", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
           "OPENAI_API_KEY": "unused"}
    env.update(more)
    return env


@asynccontextmanager
async def spawned_agent(editor: Editor, server: ScriptedServer, *args: str,
                        env: dict[str, str] | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """`sneakycode acp ARGS` spawned by the SDK, initialized as a client with `editor`'s capabilities."""
    async with spawn_agent_process(editor, sys.executable, "-m", "sneakycode.faces.cli.main", "acp", *args,
                                   env=env or agent_env(server),
                                   transport_kwargs={"limit": 50 * 1024 * 1024}) as (conn, process):
        conn._conn.add_observer(editor.observe)
        yield conn, process


@contextlib.contextmanager
def environment(env: dict[str, str]) -> Any:
    """The process environment as `env` says, for an agent run in process, restored afterwards."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@asynccontextmanager
async def running_agent(editor: Editor, server: ScriptedServer, *args: str,
                        env: dict[str, str] | None = None) -> AsyncIterator[tuple[Any, Any]]:
    """The editor face's agent in this process and event loop, speaking the protocol over a socket pair through
    the same transport `sneakycode acp` uses (faces/acp/wire.py); yields the SDK's client connection and the
    agent. `--workspace DIR` is the one argument it takes."""
    from sneakycode.faces.acp.command import STDIO_LIMIT
    from sneakycode.faces.acp.server import SneakyAgent
    from sneakycode.faces.acp.wire import StdioWire

    workspace = Path(args[args.index("--workspace") + 1]).resolve() if "--workspace" in args else None
    ours, theirs = socket.socketpair()
    with environment(env or agent_env(server)):
        agent_reader, agent_writer = await asyncio.open_connection(sock=ours, limit=STDIO_LIMIT)
        client_reader, client_writer = await asyncio.open_connection(sock=theirs, limit=STDIO_LIMIT)
        agent = SneakyAgent(workspace)
        agent_side = AgentSideConnection(cast(Any, agent), StdioWire(agent_reader, agent_writer, STDIO_LIMIT),
                                         listening=False, use_unstable_protocol=True)
        listening = asyncio.ensure_future(agent_side.listen())
        conn = connect_to_agent(editor, client_writer, client_reader, use_unstable_protocol=True)
        conn._conn.add_observer(editor.observe)
        try:
            yield conn, agent
        finally:
            listening.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await listening
            await agent.shutdown()
            for closing in (conn.close(), agent_side.close()):
                with contextlib.suppress(Exception):
                    await closing


async def initialized(conn: Any, fs: bool = False, terminal: bool = False) -> schema.InitializeResponse:
    capabilities = schema.ClientCapabilities(
        fs=schema.FileSystemCapabilities(read_text_file=fs, write_text_file=fs), terminal=terminal)
    response: schema.InitializeResponse = await asyncio.wait_for(
        conn.initialize(protocol_version=1, client_capabilities=capabilities), 60)
    return response


def run(coroutine: Callable[[], Any], timeout: float = 120) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine(), timeout))


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def server() -> Any:
    with ScriptedServer({"steps": []}) as running:
        yield running


class EditorWithFiles(Editor):
    """An editor that offers its files: `buffers` are open files with unsaved text (by absolute path)."""

    def __init__(self, answers: list[str] | None = None) -> None:
        super().__init__(answers)
        self.buffers: dict[str, str] = {}
        self.read_paths: list[str] = []
        self.written: list[tuple[str, str]] = []
        self.terminals: list[str] = []

    async def read_text_file(self, session_id: str, path: str, line: int | None = None, limit: int | None = None,
                             **_: Any) -> schema.ReadTextFileResponse:
        self.read_paths.append(path)
        text = self.buffers[path] if path in self.buffers else Path(path).read_text()
        return schema.ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> None:
        self.written.append((path, content))
        self.buffers[path] = content
        Path(path).write_text(content)  # as an editor saves its buffer

    async def create_terminal(self, session_id: str, command: str, **_: Any) -> schema.CreateTerminalResponse:
        self.terminals.append(command)
        raise RuntimeError("a command reached the editor's terminal")


def run_cli_in(ws: Path, *argv: str) -> Any:
    from tests.conftest import run_cli

    return run_cli(*argv, "--workspace", str(ws), env={"PYTHONPATH": SRC})
