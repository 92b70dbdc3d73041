"""A session's language servers: one per server and root, started on first use, on one event loop in a thread
of its own (tool calls come from worker threads), all stopped when the session closes.

Before every question the documents a server holds are brought in step with the disk (a file changed by a
command, or deleted, is sent again or closed), so its answers are about the files as they are now; and a
server that could read a file the deny rules now hide (hiding.py) is started again first.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlparse

from sneakycode.config import LoadedSettings
from sneakycode.errors import ErrorCode, ToolError
from sneakycode.tools.lsp.hiding import HiddenScan, View
from sneakycode.tools.lsp.servers import ServerSpec, configured_servers, language_id, root_for, server_for
from sneakycode.workspace.files import Workspace

if TYPE_CHECKING:  # pygls loads when a server starts, not when an edit only asks whether one could
    from sneakycode.tools.lsp.client import LspClient

T = TypeVar("T")
_SLICE_SECONDS = 0.1  # how often a waiting tool call looks at its cancel signal
_CLOSE_SECONDS = 15.0


class LanguageServers:
    """`client_for` a file (started if need be), `run` a coroutine on the servers' loop, `close` everything."""

    def __init__(self, loaded: LoadedSettings, log_dir: Path, *, start_early: bool = True) -> None:
        self.loaded = loaded
        # Whether an edit starts a server in the background for the next one: not in a one-shot
        # `sneakycode tool` call, which would pay the client's import and the server's start for nothing.
        self.start_early = start_early
        self.settings = loaded.settings.lsp
        self.workspace = loaded.workspace.resolve()
        self.log_dir = log_dir
        self._specs: list[ServerSpec] | None = None
        self._clients: dict[tuple[str, Path], LspClient] = {}
        self._starting: dict[tuple[str, Path], concurrent.futures.Future[LspClient]] = {}
        self._start_tasks: set[asyncio.Task[Any]] = set()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        self._scan = HiddenScan(self.workspace)

    @property
    def specs(self) -> list[ServerSpec]:
        if self._specs is None:
            self._specs = configured_servers(self.loaded)
        return self._specs

    def spec_for(self, language: str | None) -> ServerSpec | None:
        return server_for(self.specs, language) if language else None

    def running(self) -> list[LspClient]:
        with self._lock:
            return [client for client in self._clients.values() if client.alive]

    def view(self, hidden: Callable[[str], str | None]) -> View:
        """What a server must not read now: the workspace's files that `hidden` (the deny rules) hides."""
        return self._scan.view(hidden)

    def client_for(self, spec: ServerSpec, file: Path, view: View, cancel: threading.Event | None = None
                   ) -> LspClient:
        """The running server for `file` that reads nothing `view` covers, started and initialized first if
        there is none (a ToolError when that fails or takes longer than lsp.startup_timeout)."""
        root = root_for(spec, file, self.workspace)
        client = self.wait(self.start(spec, root, view), cancel)
        if client.view != view:  # it was already starting for an older view
            client = self.wait(self.start(spec, root, view), cancel)
        return client

    def ready_client(self, spec: ServerSpec, file: Path, view: View) -> LspClient | None:
        """The server for `file` if it is up now (for this `view`); else None, and it is started in the
        background so the next edit or call finds it (an edit never waits for a server to start), unless
        servers are not started early."""
        root = root_for(spec, file, self.workspace)
        with self._lock:
            client = self._clients.get((spec.name, root))
            if client is not None and client.alive and client.view == view:
                return client
        if not self.start_early:
            return None
        future = self.start(spec, root, view)
        # A failed start is told on the next call; looking at it here keeps it from being logged as unretrieved.
        future.add_done_callback(lambda done: done.cancelled() or done.exception())
        return None

    def start(self, spec: ServerSpec, root: Path, view: View) -> concurrent.futures.Future[LspClient]:
        """The server for `spec` at `root` that reads nothing `view` covers: the running one, the one starting,
        or a new one (replacing one started for another view)."""
        key = (spec.name, root)
        with self._lock:
            if self._closed:
                raise ToolError(ErrorCode.LANGUAGE_SERVER_FAILED, "the session is closing; no server starts")
            client = self._clients.get(key)
            if client is not None and client.alive and client.view == view:
                done: concurrent.futures.Future[LspClient] = concurrent.futures.Future()
                done.set_result(client)
                return done
            pending = self._starting.get(key)
            if pending is not None and not pending.done():
                return pending
            future = asyncio.run_coroutine_threadsafe(self._start(spec, root, view), self._ensure_loop())
            self._starting[key] = future
            return future

    async def _start(self, spec: ServerSpec, root: Path, view: View) -> LspClient:
        from sneakycode.tools.lsp.client import LspClient

        task = asyncio.current_task()
        if task is not None:
            self._start_tasks.add(task)
            task.add_done_callback(self._start_tasks.discard)
        key = (spec.name, root)
        old = self._clients.pop(key, None)
        if old is not None:
            await old.stop(graceful=False)
        log = self.log_dir / f"{spec.name}-{len(os.listdir(self.log_dir)) if self.log_dir.is_dir() else 0}.log"
        client = LspClient(spec, root, log, self.settings.request_timeout, view, self.workspace)
        try:
            await client.start(self.settings.startup_timeout)
        except BaseException:
            await client.stop(graceful=False)
            raise
        with self._lock:
            self._clients[key] = client
        return client

    def run(self, coroutine: Callable[[], Coroutine[Any, Any, T]], cancel: threading.Event | None = None) -> T:
        """Run `coroutine()` on the servers' loop and wait for it (a cancelled call stops waiting)."""
        return self.wait(asyncio.run_coroutine_threadsafe(coroutine(), self._ensure_loop()), cancel)

    def wait(self, future: concurrent.futures.Future[T], cancel: threading.Event | None = None) -> T:
        while True:
            try:
                return future.result(_SLICE_SECONDS)
            except concurrent.futures.TimeoutError:
                if cancel is not None and cancel.is_set():
                    future.cancel()
                    raise ToolError(ErrorCode.CANCELLED, "the language server call was cancelled") from None

    def close(self) -> None:
        """Stop every server (shutdown, exit, then its process group) and the loop; safe to call twice."""
        with self._lock:
            self._closed = True
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._stop_all(), loop).result(_CLOSE_SECONDS)
        except Exception:
            pass
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(_CLOSE_SECONDS)

    async def _stop_all(self) -> None:
        # A server still starting is cancelled and waited for: its start stops what it had started.
        starting = list(self._start_tasks)
        for task in starting:
            task.cancel()
        await asyncio.gather(*starting, return_exceptions=True)
        clients = list(self._clients.values())
        self._clients.clear()
        await asyncio.gather(*(client.stop() for client in clients), return_exceptions=True)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def serve() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                try:
                    loop.run_forever()
                finally:
                    loop.run_until_complete(loop.shutdown_asyncgens())
                    loop.close()

            thread = threading.Thread(target=serve, name="sneakycode-lsp", daemon=True)
            thread.start()
            ready.wait()
            self._loop, self._thread = loop, thread
        return self._loop


def workspace_reader(workspace: Workspace, hidden: Callable[[str], str | None]) -> Callable[[Path], str | None]:
    """Reads a file inside the workspace through its guard (size limit, regular files only); None otherwise,
    and None for a file `hidden` (the deny rules) hides, under its own name or where a link to it leads: a
    file the server was shown may since have become a link to a hidden one."""

    def read(path: Path) -> str | None:
        if not workspace.contains(path):
            return None
        try:
            real = workspace.display(workspace.resolve(workspace.display(path)))
            if hidden(workspace.display(path)) is not None or hidden(real) is not None:
                return None
            return workspace.read_text(real).text
        except (ToolError, OSError):
            return None

    return read


def path_of(uri: str) -> Path:
    """The file a `file://` URI names (percent-escapes undone)."""
    return Path(unquote(urlparse(uri).path))


def stamp_of(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


def refresh(client: LspClient, read: Callable[[Path], str | None], skip: Path | None = None) -> None:
    """Bring the documents the server holds in step with the disk: changed ones sent again, gone ones closed."""
    for uri, held in list(client.documents.items()):
        path = path_of(uri)
        if path == skip:
            continue
        stamp = stamp_of(path)
        if stamp is None:
            client.forget(path)
        elif stamp != held.stamp:
            text = read(path)
            if text is None:
                client.forget(path)
            else:
                client.show(path, text, language_id_of(client, path), stamp)


def language_id_of(client: LspClient, path: Path) -> str:
    from sneakycode.tools.diagnostics.languages import language_of

    language = language_of(path.name, "")
    return language_id(language) if language in client.spec.languages and language else language_id(
        client.spec.languages[0])
