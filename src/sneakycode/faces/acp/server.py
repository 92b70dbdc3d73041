"""The Agent Client Protocol methods, on `api.Session`: initialize, session/new, session/load, session/prompt,
session/cancel, session/set_mode. Every session is an `api.Session` built from Options (the editor's cwd as
the workspace, its MCP servers as `mcp_servers`), the same root as the terminal's and `-p`'s."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, schema
from acp.interfaces import Client

from sneakycode.api.options import Options
from sneakycode.errors import ConfigError, SneakyError
from sneakycode.faces.acp import commands, updates
from sneakycode.faces.acp.client_fs import EditorFiles
from sneakycode.faces.acp.live import LiveSession, in_thread
from sneakycode.faces.acp.permission import EditorApprover
from sneakycode.faces.acp.prompt import PromptProblem, build_request
from sneakycode.faces.acp.turns import FinishWatch, stop_reason
from sneakycode.version import __version__

MODES = {
    "default": ("Default", "Ask before edits and commands"),
    "auto-edit": ("Auto-edit", "Edit files without asking; ask before commands"),
    "plan": ("Plan", "Read and plan only: nothing is edited or run"),
    "yolo": ("Yolo", "Run everything no deny rule blocks"),
}
OFFERED_MODES = ("default", "auto-edit", "plan")  # yolo is listed only while it is the mode in force
# How long a vanished client's sessions get to end their running turns before they are closed regardless.
WIND_DOWN_SECONDS = 10.0


def mcp_servers_of(servers: list[Any] | None) -> dict[str, dict[str, Any]]:
    """The editor's MCP servers as `[mcp.servers.NAME]` tables (stdio, streamable HTTP or SSE)."""
    tables: dict[str, dict[str, Any]] = {}
    for server in servers or []:
        if isinstance(server, schema.McpServerStdio):
            tables[server.name] = {"command": server.command, "args": list(server.args),
                                   "env": {pair.name: pair.value for pair in server.env}, "transport": "stdio"}
        elif isinstance(server, (schema.HttpMcpServer, schema.SseMcpServer)):
            tables[server.name] = {"url": server.url, "transport": server.type,
                                   "headers": {pair.name: pair.value for pair in server.headers}}
        else:
            raise RequestError.invalid_params({"mcpServers": f"{type(server).__name__} servers are not supported"})
    return tables


class SneakyAgent:
    """The agent side of the connection: one LiveSession per editor session."""

    def __init__(self, workspace: Path | None = None) -> None:
        self.workspace = workspace
        self.client: Client | None = None
        self.client_capabilities: schema.ClientCapabilities | None = None
        self.sessions: dict[str, LiveSession] = {}
        self._in_flight = 0

    @contextlib.contextmanager
    def _answering(self) -> Iterator[None]:
        """Counts a request being answered, so the end of input lets the answers already under way go out."""
        self._in_flight += 1
        try:
            yield
        finally:
            self._in_flight -= 1

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # ---- initialize ----------------------------------------------------------------------------

    async def initialize(self, protocol_version: int, client_capabilities: schema.ClientCapabilities | None = None,
                         client_info: schema.Implementation | None = None, **_: Any) -> schema.InitializeResponse:
        # One protocol version exists (1): a client asking for another is answered with ours, and decides.
        self.client_capabilities = client_capabilities
        with self._answering():
            images = await in_thread(self._model_takes_images, "sneakycode-acp-init")
        return schema.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=images, audio=False, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
            ),
            agent_info=schema.Implementation(name="sneakycode", title="SneakyCode", version=__version__),
            auth_methods=[],
        )

    def _model_takes_images(self) -> bool:
        from sneakycode.agent.model.families import supports_images_for
        from sneakycode.api.settings import load_options

        try:
            settings = load_options(Options(workspace=self.workspace)).settings
        except ConfigError:
            return False
        return supports_images_for(settings.model, settings.supports_images)

    # ---- sessions ------------------------------------------------------------------------------

    def _workspace(self, cwd: str) -> Path:
        if self.workspace is not None:
            return self.workspace
        path = Path(cwd)
        if not path.is_absolute():
            raise RequestError.invalid_params({"cwd": f"must be an absolute path, got {cwd!r}"})
        return path

    async def _open(self, cwd: str, mcp_servers: list[Any] | None, resume: str | None) -> LiveSession:
        if self.client is None:
            raise RequestError.internal_error({"details": "no client connection"})
        options = Options(workspace=self._workspace(cwd), mcp_servers=mcp_servers_of(mcp_servers), resume=resume,
                          interactive=True)
        live = LiveSession(self.client, asyncio.get_running_loop())

        def assemble() -> None:
            from sneakycode.api.session import Session

            session = Session(options, sink=live, approver_for=lambda ctx: EditorApprover(live, ctx))
            session.agent.model = FinishWatch(session.agent.model)
            live.session_id = session.session_id
            live.session = session

        try:
            await in_thread(assemble, "sneakycode-acp-open")
        except ConfigError as exc:
            raise RequestError(-32602, f"The session cannot start: {exc}") from None
        except SneakyError as exc:
            raise RequestError(-32603, f"The session cannot start: {exc}") from None
        self.sessions[live.session_id] = live
        fs = self.client_capabilities.fs if self.client_capabilities is not None else None
        if fs is not None and fs.read_text_file and fs.write_text_file and live.session is not None:
            live.files = EditorFiles(self.client, live.loop, live.session_id)
            live.session.ctx.workspace.editor_text = live.files.text_of
        return live

    def _modes(self, live: LiveSession) -> schema.SessionModeState:
        assert live.session is not None
        current = str(live.session.agent.mode)
        shown = [*OFFERED_MODES, *([current] if current not in OFFERED_MODES else [])]
        return schema.SessionModeState(current_mode_id=current, available_modes=[
            schema.SessionMode(id=mode, name=MODES[mode][0], description=MODES[mode][1]) for mode in shown])

    def _announce(self, live: LiveSession) -> None:
        """After the response (queued behind it): what assembling the session said, then the commands it
        offers. A client learns of a new session from the response, so nothing about it may come first."""
        assert live.session is not None
        if not live.pumping:
            live.start_pump()
        listed = commands.available(live.session)
        live.post(schema.AvailableCommandsUpdate(session_update="available_commands_update",
                                                 available_commands=listed))

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **_: Any) -> schema.NewSessionResponse:
        with self._answering():
            live = await self._open(cwd, mcp_servers, None)
        asyncio.get_running_loop().call_soon(self._announce, live)
        return schema.NewSessionResponse(session_id=live.session_id, modes=self._modes(live))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           **_: Any) -> schema.LoadSessionResponse:
        with self._answering():
            earlier = self.sessions.pop(session_id, None)
            if earlier is not None:  # loaded again in this connection: the open one ends first
                earlier.cancel()
                await earlier.stop()
                if earlier.session is not None:
                    await in_thread(partial(earlier.close_after_turn, earlier.session, WIND_DOWN_SECONDS),
                                    "sneakycode-acp-close")
            return await self._load(cwd, session_id, mcp_servers)

    async def _load(self, cwd: str, session_id: str, mcp_servers: list[Any] | None) -> schema.LoadSessionResponse:
        live = await self._open(cwd, mcp_servers, session_id)
        assert live.session is not None
        live.start_pump()  # the client named this session: its history may come before the answer
        saved = live.session.parts.saved
        for update in updates.replayed((saved.messages if saved else [])[1:], live.tool_for, live.session.ctx):
            live.post(update)
        if saved is not None and saved.tasks:
            live.post(updates.plan_of(list(saved.tasks)))
        await live.flush()  # the history is shown before the load is answered, as the protocol asks
        asyncio.get_running_loop().call_soon(self._announce, live)
        return schema.LoadSessionResponse(modes=self._modes(live))

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None or live.session is None:
            raise RequestError.invalid_params({"sessionId": f"no session {session_id!r} in this connection"})
        return live

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> schema.SetSessionModeResponse:
        live = self._live(session_id)
        assert live.session is not None
        offered = [mode.id for mode in self._modes(live).available_modes]
        if mode_id not in offered:  # yolo only when it is already in force (--mode or the settings), never asked
            raise RequestError.invalid_params({"modeId": f"{mode_id!r} is not one of {', '.join(offered)}"})
        live.session.agent.set_mode(mode_id)
        live.post(schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id))
        return schema.SetSessionModeResponse()

    async def cancel(self, session_id: str, **_: Any) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            live.cancel()

    # ---- prompts -------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> schema.PromptResponse:
        live = self._live(session_id)
        session = live.session
        assert session is not None
        if live.prompting:
            raise RequestError.invalid_request({"sessionId": "a prompt is already running in this session"})
        live.prompting = True
        try:
            with self._answering():
                return await self._prompt(live, prompt)
        finally:
            live.prompting = False

    async def _prompt(self, live: LiveSession, blocks: list[Any]) -> schema.PromptResponse:
        session = live.session
        assert session is not None
        if not live.pumping:  # (a prompt cannot come before the new session's answer, after which it runs)
            live.start_pump()
        try:  # on a worker thread: a file dragged in is read as the editor holds it, which means asking it
            request = await in_thread(lambda: build_request(blocks, session.agent.gate, session.ctx.supports_images,
                                                            session.model), "sneakycode-acp-prompt")
        except PromptProblem as exc:
            raise RequestError.invalid_params({"prompt": str(exc)}) from None
        for problem in request.problems:
            live.post(updates.message_text(f"_Not attached: {problem}_\n\n"))
        own = commands.own_command(request.text)
        if own is not None:
            say = lambda text: live.post(updates.message_text(text))  # noqa: E731
            await in_thread(lambda: live.working(lambda: commands.run_own(session, *own, say)),
                            "sneakycode-acp-command")
            await live.flush()
            return schema.PromptResponse(stop_reason="end_turn")
        watch = session.agent.model
        if isinstance(watch, FinishWatch):
            watch.last = None
        try:
            result = await in_thread(lambda: live.working(lambda: session.run(request.text, request.images)),
                                     "sneakycode-acp-turn")
        except ConfigError as exc:  # a /command that does not exist, an image the model cannot take
            await live.flush()
            raise RequestError.invalid_params({"prompt": str(exc)}) from None
        await live.flush()
        if result.status == "error":
            raise RequestError(-32603, result.message, {"status": "error", "errorKind": result.error_kind})
        if result.status in ("turn_limit", "budget"):
            live.post(updates.message_text(f"\n\n_{result.message}_"))
            await live.flush()
        return schema.PromptResponse(stop_reason=stop_reason(result, watch.last if isinstance(watch, FinishWatch)
                                                             else None))

    # ---- the end -------------------------------------------------------------------------------

    async def wind_down(self, grace: float) -> None:
        """The input has ended: every turn is cancelled, and the answers under way (a cancelled prompt's
        `cancelled`, an initialize sent just before the end) get up to `grace` seconds to go out."""
        for live in self.sessions.values():
            live.cancel()
        deadline = asyncio.get_running_loop().time() + grace
        while self._in_flight and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.05)  # the answers' own sends, queued as their handlers returned

    async def shutdown(self) -> None:
        """The client has gone (or asked us to stop): every turn cancelled, then every session closed, so its
        jobs are killed and its MCP servers stopped."""
        for live in self.sessions.values():
            live.cancel()
        for live in list(self.sessions.values()):
            await live.stop()
            session = live.session
            if session is None:
                continue
            try:
                await in_thread(partial(live.close_after_turn, session, WIND_DOWN_SECONDS), "sneakycode-acp-close")
            except Exception:  # closing the other sessions matters more
                continue
        self.sessions.clear()
