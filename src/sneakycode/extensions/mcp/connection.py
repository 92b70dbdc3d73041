"""One MCP server connection, held open on the manager's event-loop thread and called synchronously.

The official SDK's `Client` speaks the protocol; it runs on an anyio event loop in a background thread (a
`BlockingPortal`), because the agent and its tools are synchronous. Each call from a tool thread waits at
most `tool_timeout` and gives up at once when the turn is cancelled; a server whose process exits, or whose
connection fails, is `stopped` for good, and what it wrote on stderr is kept for the report.
"""

from __future__ import annotations

import concurrent.futures
import math
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

import anyio
import httpx2
import mcp_types
from anyio.from_thread import BlockingPortal
from mcp.client import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from sneakycode.extensions.mcp.config import ServerSpec
from sneakycode.extensions.mcp.transport import MAX_MESSAGE_BYTES, ServerProcess, stdio_transport
from sneakycode.version import __version__

Status = Literal["starting", "ready", "failed", "stopped", "disabled"]
T = TypeVar("T")
MAX_TOOL_PAGES = 100
STDERR_TAIL_BYTES = 2000
_POLL_SECONDS = 0.05
_WAIT_SLICE = 0.1
_EXIT_SETTLE_SECONDS = 0.5


class ServerUnavailable(Exception):
    """The server cannot answer: it failed to start, stopped, or its connection broke; the message says which."""


class CallTimedOut(Exception):
    """The server did not answer one call within its tool_timeout."""


class CallCancelled(Exception):
    """The turn was cancelled while the call was waiting."""


class Connection:
    """A server's lifetime: `serve` (on the loop) connects, lists tools and holds the connection until `stop`."""

    def __init__(self, spec: ServerSpec, workspace: Path, log_dir: Path, portal: BlockingPortal) -> None:
        self.spec = spec
        self.workspace = workspace
        self.portal = portal
        self.process = ServerProcess(log_dir / f"{_file_name(spec.name)}.stderr.log")
        self.status: Status = "starting"
        self.error: str | None = None
        self.tools: list[mcp_types.Tool] = []
        self.prompts: list[mcp_types.Prompt] = []
        self.settled = threading.Event()
        self._client: Client | None = None
        self._stop: anyio.Event | None = None
        self._served: concurrent.futures.Future[None] | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def start(self) -> None:
        """Begin connecting in the background; `settled` is set once it is ready or has failed."""
        self._served = self.portal.start_task_soon(self._serve)

    async def _serve(self) -> None:
        self._stop = anyio.Event()
        timeout = self.spec.settings.startup_timeout
        # One scope for the whole lifetime, its deadline lifted once the server is up: the SDK's task groups
        # are entered inside it and must be left inside it too.
        with anyio.CancelScope(deadline=anyio.current_time() + timeout) as scope:
            try:
                async with Client(
                    self._transport(),
                    client_info=mcp_types.Implementation(name="sneakycode", version=__version__),
                    cache=None,
                ) as client:
                    self.tools = await _all_tools(client)
                    self.prompts = await _all_prompts(client)
                    scope.deadline = math.inf
                    self._client = client
                    self.process.ready = True
                    self.status = "ready"
                    self.settled.set()
                    await self._stop.wait()
            except Exception as exc:  # the SDK, the transport and the server raise many kinds; all mean "down"
                self._fail(f"{'it did not start' if self.status == 'starting' else 'its connection failed'}: "
                           f"{_describe(exc)}")
        if scope.cancelled_caught and self.status == "starting":
            self._fail(f"it did not start within its startup_timeout of {timeout:g} s")
        if self.status == "ready":
            self.status = "stopped"
        self._client = None
        self.settled.set()

    def _fail(self, error: str) -> None:
        if self.error is None:
            self.error = error
        self.status = "failed"

    def _transport(self) -> AbstractAsyncContextManager[Any]:
        settings = self.spec.settings
        if self.spec.transport == "stdio":
            cwd = self.workspace / Path(settings.cwd).expanduser() if settings.cwd else self.workspace
            argv = [settings.command or "", *settings.args]
            return stdio_transport(argv, settings.env, cwd, self.process)
        url = settings.url or ""
        if self.spec.transport == "sse":
            return sse_client(url, headers=settings.headers)
        return _http_transport(url, settings.headers)

    def call(self, name: str, arguments: dict[str, Any], cancel: threading.Event) -> mcp_types.CallToolResult:
        """Call one tool from a synchronous thread (see `request` for how it can fail)."""
        return self.request(lambda client: client.call_tool(name, arguments), cancel)

    def get_prompt(self, name: str, arguments: dict[str, str], cancel: threading.Event) -> mcp_types.GetPromptResult:
        """`prompts/get` with the prompt's arguments (see `request` for how it can fail)."""
        return self.request(lambda client: client.get_prompt(name, arguments), cancel)

    def read_resource(self, uri: str, cancel: threading.Event) -> mcp_types.ReadResourceResult:
        """`resources/read` of one URI (see `request` for how it can fail)."""
        return self.request(lambda client: client.read_resource(uri), cancel)

    def request(self, send: Callable[[Client], Awaitable[T]], cancel: threading.Event) -> T:
        """One request from a synchronous thread, bounded by tool_timeout: the answer, or ServerUnavailable,
        CallTimedOut, CallCancelled (and the SDK's MCPError when the server refuses the request)."""
        self.check_alive()
        future = self.portal.start_task_soon(self._request, send)
        while True:
            try:
                return future.result(timeout=_WAIT_SLICE)
            except concurrent.futures.TimeoutError:
                if cancel.is_set():
                    future.cancel()
                    raise CallCancelled() from None
            except concurrent.futures.CancelledError:
                raise CallCancelled() from None

    async def _request(self, send: Callable[[Client], Awaitable[T]]) -> T:
        client = self._client
        if client is None:
            raise ServerUnavailable(self.unavailable_reason())
        found: list[T] = []
        raised: list[Exception] = []
        with anyio.move_on_after(self.spec.settings.tool_timeout) as deadline:
            async with anyio.create_task_group() as tasks:

                async def call() -> None:
                    try:
                        found.append(await send(client))
                    except Exception as exc:  # kept to re-raise outside the task group, unwrapped
                        raised.append(exc)
                    tasks.cancel_scope.cancel()

                tasks.start_soon(call)
                tasks.start_soon(self._until_exit, tasks.cancel_scope)
        if found:
            return found[0]
        if raised and not (isinstance(raised[0], MCPError) and raised[0].code == mcp_types.CONNECTION_CLOSED):
            raise raised[0]
        if deadline.cancelled_caught:
            raise CallTimedOut(f"the server did not answer within its tool_timeout of "
                               f"{self.spec.settings.tool_timeout:g} s")
        if self.error is None:
            await self._settle_exit()
            code = self.process.exit_code
            self._fail("its connection closed" if code is None else f"its process exited with code {code}")
        raise ServerUnavailable(self.unavailable_reason())

    async def _settle_exit(self) -> None:
        """A closed connection usually means the process is exiting: give it a moment to say how."""
        if self.process.process is not None:
            with anyio.move_on_after(_EXIT_SETTLE_SECONDS):
                while self.process.exit_code is None:
                    await anyio.sleep(_POLL_SECONDS)

    async def _until_exit(self, scope: anyio.CancelScope) -> None:
        """Cancel `scope` when the server process exits (a call to a dead server would wait forever)."""
        if self.process.process is None:
            return
        while self.process.exit_code is None:
            await anyio.sleep(_POLL_SECONDS)
        self._fail(f"its process exited with code {self.process.exit_code}")
        scope.cancel()

    def check_alive(self) -> None:
        """ServerUnavailable unless the server is ready and (for stdio) its process still runs."""
        if self.status == "ready" and self.process.exit_code is not None:
            self._fail(f"its process exited with code {self.process.exit_code}")
        if self.status != "ready":
            raise ServerUnavailable(self.unavailable_reason())

    def unavailable_reason(self) -> str:
        notes = " ".join(self.process.notes)
        reason = self.error or ("it is still starting" if self.status == "starting" else f"it is {self.status}")
        return " ".join(part for part in (f"MCP server {self.name} is not available: {reason}.", notes) if part)

    def stderr_tail(self) -> str:
        """The last lines the server wrote on stderr (stdio servers), or ""."""
        try:
            with self.process.stderr_log.open("rb") as log:
                log.seek(0, 2)
                size = log.tell()
                log.seek(max(0, size - STDERR_TAIL_BYTES))
                tail = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        if size > STDERR_TAIL_BYTES:
            tail = tail.split("\n", 1)[-1]
        return tail.strip()

    def request_stop(self) -> None:
        """Ask the connection to close (it stops its server process); returns at once."""
        if self._stop is not None and not self.portal_stopped():
            self.portal.call(self._stop.set)

    def portal_stopped(self) -> bool:
        return self._served is None or self._served.done()

    def wait_stopped(self, timeout: float) -> None:
        if self._served is not None:
            try:
                self._served.result(timeout=timeout)
            except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError):
                self._served.cancel()
            except Exception:  # already reported through status and error
                pass


@asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    # A read timeout as long as the SDK's default; the call's own tool_timeout is what bounds a call.
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0, read=300.0)) as http,
        streamable_http_client(url, http_client=http, max_sse_event_size=MAX_MESSAGE_BYTES) as streams,
    ):
        yield streams


async def _all_tools(client: Client) -> list[mcp_types.Tool]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def _all_prompts(client: Client) -> list[mcp_types.Prompt]:
    if client.server_capabilities.prompts is None:
        return []
    return list((await client.list_prompts()).prompts)


def _describe(exc: BaseException) -> str:
    """The innermost useful message of an exception (task groups wrap them in groups)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if isinstance(exc, OSError) else text


def _file_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name) or "server"
