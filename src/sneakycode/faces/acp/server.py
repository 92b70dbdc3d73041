"""The Agent Client Protocol methods, on `api.Session`: initialize, session/new, session/load, session/resume,
session/list, session/close, session/prompt, session/cancel, session/set_mode, session/set_config_option.
Every session is an `api.Session` built from Options (the editor's cwd as the workspace, its MCP servers as
`mcp_servers`), the same root as the terminal's and `-p`'s."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, schema
from acp.interfaces import Client

from sneakycode.api.editor import read_through, takes_images
from sneakycode.api.models import SETUP_HELP
from sneakycode.api.options import Options
from sneakycode.api.session import Session
from sneakycode.api.session_list import saved_session, saved_sessions
from sneakycode.api.timeline import history_of, note
from sneakycode.api.vocabulary import ConfigError, SneakyError
from sneakycode.faces.acp import commands, config_options, modes, updates
from sneakycode.faces.acp.client_fs import EditorFiles
from sneakycode.faces.acp.live import LiveSession, in_thread
from sneakycode.faces.acp.mcp_servers import mcp_servers_of
from sneakycode.faces.acp.permission import EditorApprover
from sneakycode.faces.acp.prompt import PromptProblem, build_request
from sneakycode.faces.acp.replay import Replay, prompt_note
from sneakycode.faces.acp.turns import stop_reason
from sneakycode.version import __version__

# How long a vanished client's sessions get to end their running turns before they are closed regardless.
WIND_DOWN_SECONDS = 10.0
PAGE = 50  # sessions per session/list answer
SETUP_METHOD = schema.TerminalAuthMethod(
    type="terminal", id="sneakycode-setup", name="Set up SneakyCode",
    description="Choose the provider, server URL, API key and model (the first-run setup), in a terminal",
    args=["--setup"])


def not_found(what: str, session_id: str) -> RequestError:
    """The protocol's -32002 Resource not found, naming the session (and nothing an editor user never typed)."""
    return RequestError(-32002, "Resource not found", {"sessionId": session_id, "message": what})


def iso(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).isoformat().replace("+00:00", "Z")


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
            images = await in_thread(lambda: takes_images(Options(workspace=self.workspace)), "sneakycode-acp-init")
        return schema.InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=schema.AgentCapabilities(
                load_session=True,
                prompt_capabilities=schema.PromptCapabilities(image=images, audio=False, embedded_context=True),
                mcp_capabilities=schema.McpCapabilities(http=True, sse=True),
                session_capabilities=schema.SessionCapabilities(
                    list=schema.SessionListCapabilities(), close=schema.SessionCloseCapabilities(),
                    resume=schema.SessionResumeCapabilities(),
                    additional_directories=schema.SessionAdditionalDirectoriesCapabilities()),
            ),
            agent_info=schema.Implementation(name="sneakycode", title="SneakyCode", version=__version__),
            auth_methods=[SETUP_METHOD],
        )

    async def authenticate(self, method_id: str, **_: Any) -> schema.AuthenticateResponse:
        """The setup runs in the editor's terminal (`sneakycode acp --setup`) and saves to the user config,
        which every session reads as it starts: nothing is left to do here."""
        if method_id != SETUP_METHOD.id:
            raise RequestError.invalid_params({"methodId": f"{method_id!r} is not {SETUP_METHOD.id!r}"})
        return schema.AuthenticateResponse()

    # ---- sessions ------------------------------------------------------------------------------

    def _workspace(self, cwd: str) -> Path:
        if self.workspace is not None:
            return self.workspace
        path = Path(cwd)
        if not path.is_absolute():
            raise RequestError.invalid_params({"cwd": f"must be an absolute path, got {cwd!r}"})
        return path

    def _options(self, cwd: str, mcp_servers: list[Any] | None = None, resume: str | None = None,
                 more_roots: list[str] | None = None) -> Options:
        # Extra roots, like `--add-dir`: the session checks them (a ConfigError, -32602, names a bad one).
        relative = [root for root in more_roots or () if not Path(root).is_absolute()]
        if relative:
            raise RequestError.invalid_params({"additionalDirectories": f"must be absolute paths, got {relative[0]!r}"})
        return Options(workspace=self._workspace(cwd), mcp_servers=mcp_servers_of(mcp_servers), resume=resume,
                       interactive=True, add_dirs=tuple(more_roots or ()))

    async def _open(self, options: Options) -> LiveSession:
        if self.client is None:
            raise RequestError.internal_error({"details": "no client connection"})
        live = LiveSession(self.client, asyncio.get_running_loop())

        def assemble() -> None:
            session = Session(options, sink=live, approver_for=lambda ctx: EditorApprover(live, ctx))
            live.session_id = session.session_id
            live.session = session
            live.models = config_options.listed_models(session)

        try:
            await in_thread(assemble, "sneakycode-acp-open")
        except ConfigError as exc:
            if str(exc) == SETUP_HELP:  # no provider yet: the client runs the setup, tries again
                raise RequestError.auth_required({"message": str(exc), "authMethods": [SETUP_METHOD.id]}) from None
            raise RequestError(-32602, f"The session cannot start: {exc}") from None
        except SneakyError as exc:
            raise RequestError(-32603, f"The session cannot start: {exc}") from None
        self.sessions[live.session_id] = live
        fs = self.client_capabilities.fs if self.client_capabilities is not None else None
        if fs is not None and fs.read_text_file and fs.write_text_file and live.session is not None:
            live.files = EditorFiles(self.client, live.loop, live.session_id)
            read_through(live.session, live.files.text_of)
        return live

    def _mode_list(self, live: LiveSession) -> list[schema.SessionMode]:
        assert live.session is not None
        return modes.offered(live.session)

    def _modes(self, live: LiveSession) -> schema.SessionModeState:
        assert live.session is not None
        return modes.state(live.session)

    def _config(self, live: LiveSession) -> list[Any]:
        assert live.session is not None
        return list(config_options.options_of(live.session, self._mode_list(live), live.models))

    def _announce(self, live: LiveSession) -> None:
        """After the response (queued behind it): what assembling the session said, then the commands it
        offers. A client learns of a new session from the response, so nothing about it may come first."""
        assert live.session is not None
        if not live.pumping:
            live.start_pump()
        listed = commands.available(live.session)
        live.post(schema.AvailableCommandsUpdate(session_update="available_commands_update",
                                                 available_commands=listed))

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None,
                          additional_directories: list[str] | None = None, **_: Any) -> schema.NewSessionResponse:
        with self._answering():
            live = await self._open(self._options(cwd, mcp_servers, more_roots=additional_directories))
        asyncio.get_running_loop().call_soon(self._announce, live)
        return schema.NewSessionResponse(session_id=live.session_id, modes=self._modes(live),
                                         config_options=self._config(live))

    async def _end_open(self, session_id: str) -> bool:
        """End this connection's session `session_id` (its turn cancelled, its jobs and MCP servers stopped);
        False when it has none by that id."""
        live = self.sessions.pop(session_id, None)
        if live is None:
            return False
        live.cancel()
        await live.stop()
        if live.session is not None:
            await in_thread(partial(live.close_after_turn, live.session, WIND_DOWN_SECONDS), "sneakycode-acp-close")
        return True

    async def _saved(self, cwd: str, session_id: str) -> None:
        """A -32002 error unless this workspace has a saved session `session_id` (-32602: not an id at all)."""
        try:
            found = await in_thread(lambda: saved_session(self._options(cwd), session_id), "sneakycode-acp-find")
        except ConfigError as exc:
            raise RequestError.invalid_params({"sessionId": str(exc)}) from None
        if found is None:
            raise not_found(f"no saved session {session_id!r} in this workspace", session_id)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None,
                           **_: Any) -> schema.LoadSessionResponse:
        with self._answering():
            options = self._options(cwd, mcp_servers, session_id, more_roots=additional_directories)
            await self._end_open(session_id)  # loaded again in this connection: the open one ends first
            await self._saved(cwd, session_id)
            live = await self._open(options)
            session = live.session
            assert session is not None
            live.start_pump()  # the client named this session: its history may come before the answer
            history = await in_thread(lambda: history_of(session), "sneakycode-acp-history")
            for update in Replay(live.tool_for, session).of(history.entries):
                live.post(update)
            if session.tasks:
                live.post(updates.plan_of(session.tasks))
            modes.restore(session, history.mode)
            await live.flush()  # the history is shown before the load is answered, as the protocol asks
        asyncio.get_running_loop().call_soon(self._announce, live)
        return schema.LoadSessionResponse(modes=self._modes(live), config_options=self._config(live))

    async def resume_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                             additional_directories: list[str] | None = None,
                             **_: Any) -> schema.ResumeSessionResponse:
        """Reopen a session without replaying it (the editor still shows it): one already open in this
        connection is answered as it is; a saved one is opened with its conversation and mode."""
        with self._answering():
            options = self._options(cwd, mcp_servers, session_id, more_roots=additional_directories)
            live = self.sessions.get(session_id)
            if live is None or live.session is None:
                await self._saved(cwd, session_id)
                live = await self._open(options)
                opened = live.session
                assert opened is not None
                history = await in_thread(lambda: history_of(opened), "sneakycode-acp-history")
                modes.restore(opened, history.mode)
                live.titled = True  # the editor has the thread, title included
        asyncio.get_running_loop().call_soon(self._announce, live)
        return schema.ResumeSessionResponse(modes=self._modes(live), config_options=self._config(live))

    async def close_session(self, session_id: str, **_: Any) -> schema.CloseSessionResponse:
        """The editor released the thread: its turn is cancelled and the session closed (its background jobs
        killed, its MCP servers stopped). The saved session stays, to be loaded or resumed later."""
        with self._answering():
            if not await self._end_open(session_id):
                raise not_found(f"no session {session_id!r} is open in this connection", session_id)
        return schema.CloseSessionResponse()

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_: Any) -> schema.ListSessionsResponse:
        """The saved sessions of the workspace (`cwd`, or the one `--workspace` named), the latest first,
        `PAGE` at a time; the cursor is where the next page starts."""
        if cwd is None and self.workspace is None:
            raise RequestError.invalid_params({"cwd": "name the workspace whose sessions to list"})
        start = int(cursor) if cursor is not None and cursor.isdigit() else 0
        try:
            found = await in_thread(lambda: saved_sessions(self._options(cwd or str(self.workspace))),
                                    "sneakycode-acp-list")
        except ConfigError as exc:
            raise RequestError.invalid_params({"cwd": str(exc)}) from None
        page = found[start:start + PAGE]
        return schema.ListSessionsResponse(
            sessions=[schema.SessionInfo(session_id=info.id, cwd=str(info.workspace), title=info.title or None,
                                         updated_at=iso(info.updated)) for info in page],
            next_cursor=str(start + PAGE) if start + PAGE < len(found) else None)

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None or live.session is None:
            raise not_found(f"no session {session_id!r} is open in this connection", session_id)
        return live

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> schema.SetSessionModeResponse:
        live = self._live(session_id)
        assert live.session is not None
        offered = [mode.id for mode in self._mode_list(live)]
        if mode_id not in offered:  # yolo only when it is already in force (--mode or the settings), never asked
            raise RequestError.invalid_params({"modeId": f"{mode_id!r} is not one of {', '.join(offered)}"})
        live.session.set_mode(mode_id)
        live.post(schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id))
        live.post(schema.ConfigOptionUpdate(session_update="config_option_update", config_options=self._config(live)))
        return schema.SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **_: Any) -> schema.SetSessionConfigOptionResponse:
        live = self._live(session_id)
        session = live.session
        assert session is not None
        before = str(session.mode)
        offered = [mode.id for mode in self._mode_list(live)]
        with self._answering():
            await in_thread(lambda: config_options.apply(session, config_id, str(value), offered),
                            "sneakycode-acp-config")
        if str(session.mode) != before:
            live.post(schema.CurrentModeUpdate(session_update="current_mode_update", current_mode_id=str(session.mode)))
        return schema.SetSessionConfigOptionResponse(config_options=self._config(live))

    async def cancel(self, session_id: str, **_: Any) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            live.cancel()

    # ---- prompts -------------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **_: Any) -> schema.PromptResponse:
        live = self._live(session_id)
        if live.prompting:
            raise RequestError.invalid_request({"sessionId": "a prompt is already running in this session"})
        live.prompting = True
        try:
            with self._answering():
                response = await self._prompt(live, prompt)
            await self._tell_title(live)
            return response
        finally:
            live.prompting = False

    async def _prompt(self, live: LiveSession, blocks: list[Any]) -> schema.PromptResponse:
        session = live.session
        assert session is not None
        if not live.pumping:  # (a prompt cannot come before the new session's answer, after which it runs)
            live.start_pump()
        try:  # on a worker thread: a file dragged in is read as the editor holds it, which means asking it
            request = await in_thread(lambda: build_request(blocks, session), "sneakycode-acp-prompt")
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
        live.finish_reason = None

        def turn() -> Any:
            note(session, "prompt", blocks=prompt_note(blocks))  # a loaded session shows the request as sent
            return session.run(request.text, request.images)

        try:
            result = await in_thread(lambda: live.working(turn), "sneakycode-acp-turn")
        except ConfigError as exc:  # a /command that does not exist, an image the model cannot take
            await live.flush()
            raise RequestError.invalid_params({"prompt": str(exc)}) from None
        await live.flush()
        if result.status == "error":
            raise RequestError(-32603, result.message, {"status": "error", "errorKind": result.error_kind})
        if result.status in ("turn_limit", "budget"):
            live.post(updates.message_text(f"\n\n_{result.message}_"))
            await live.flush()
        return schema.PromptResponse(stop_reason=stop_reason(result, live.finish_reason))

    async def _tell_title(self, live: LiveSession) -> None:
        """Once the session has a title (the small model names it after the first request), the editor's
        thread list shows it (`session_info_update`)."""
        session = live.session
        if live.titled or session is None:
            return
        found = await in_thread(lambda: saved_session(session.options, session.session_id), "sneakycode-acp-title")
        if found is not None and found.title:
            live.titled = True
            live.post(schema.SessionInfoUpdate(session_update="session_info_update", title=found.title,
                                               updated_at=iso(found.updated)))
            await live.flush()

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
        for session_id in list(self.sessions):
            try:
                await self._end_open(session_id)
            except Exception:  # closing the other sessions matters more
                continue
        self.sessions.clear()
