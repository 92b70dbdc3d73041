"""One language server over stdio: started through process/, initialized, kept in step with the files it was
shown, asked questions with a deadline, and stopped (its whole process group) however it ends.

pygls's LanguageClient speaks the protocol and lsprotocol types every message, but its `start_io` starts the
program itself (asyncio, its own pipes, nobody's process group): here process/ starts it, and the client is
handed the pipes (`protocol.set_writer` and pygls's own reader loop, `run_async`), so the server is supervised
like every other child. Everything here runs on the host's event loop (host.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from lsprotocol import types as lsp
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient

from sneakycode.errors import ErrorCode, ToolError
from sneakycode.process.servers import server_environment, start_stream_server, stop_stream_server
from sneakycode.tools.lsp.hiding import View, server_argv
from sneakycode.tools.lsp.servers import ServerSpec

T = TypeVar("T")
_STDERR_TAIL = 300
EXIT_GRACE_SECONDS = 0.3

# pygls reports a server's bad message or a closed pipe through logging; with no handler configured Python
# would print those to the user's terminal. What went wrong reaches the model as a coded error instead.
for _name in ("pygls", "lsprotocol"):
    logging.getLogger(_name).addHandler(logging.NullHandler())
    logging.getLogger(_name).propagate = False


class _PipeWriter:
    """pygls's writer over the server's stdin: a write to a server that is gone is a BrokenPipeError (which
    fails the request at once) rather than a write asyncio drops and, after a few, warns about on stderr."""

    def __init__(self, stream: asyncio.StreamWriter) -> None:
        self.stream = stream

    def write(self, data: bytes) -> None:
        if self.stream.is_closing():
            raise BrokenPipeError("the language server's input is closed")
        self.stream.write(data)

    def close(self) -> None:
        self.stream.close()


@dataclass
class OpenDocument:
    """A file the server was shown: the text it holds, its version, and what the file was on disk then."""

    uri: str
    text: str
    version: int
    stamp: tuple[int, int]  # (mtime_ns, size) of the file when this text was sent


@dataclass
class Published:
    """The last diagnostics the server published for a document, and how many publishes there were so far."""

    count: int = 0
    version: int | None = None
    diagnostics: list[lsp.Diagnostic] = field(default_factory=list)


class LspClient:
    """A started server (`start`), its open documents, its published diagnostics, and `stop`. It runs where it
    cannot read what `view` covers; `sealed` is False when that could not be arranged (hiding.py), and then
    none of its free text may reach the model."""

    def __init__(self, spec: ServerSpec, root: Path, log_path: Path, request_timeout: float,
                 view: View | None = None, workspace: Path | None = None) -> None:
        self.spec = spec
        self.view = view or View()
        self.argv, self.sealed = server_argv(spec.argv, self.view, workspace or root)
        self.root = root
        self.log_path = log_path
        self.request_timeout = request_timeout
        self.client = LanguageClient("sneakycode", "0.1")
        self.process: asyncio.subprocess.Process | None = None
        self.documents: dict[str, OpenDocument] = {}
        self.published: dict[str, Published] = {}
        self.capabilities: lsp.ServerCapabilities | None = None
        self.failure: str | None = None  # why it stopped; a stopped client is replaced on the next call
        self._changed = asyncio.Event()
        self._exited = asyncio.Event()
        self._stop_reading = threading.Event()
        self._tasks: list[asyncio.Task[Any]] = []
        self._log: IO[bytes] | None = None
        self._register_handlers()

    @property
    def alive(self) -> bool:
        return self.failure is None and self.process is not None and self.process.returncode is None

    def _register_handlers(self) -> None:
        feature: Callable[[str], Callable[[Callable[..., Any]], Any]] = self.client.feature  # pygls is untyped here

        @feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: lsp.PublishDiagnosticsParams) -> None:
            seen = self.published.setdefault(params.uri, Published())
            seen.count += 1
            seen.version = params.version
            seen.diagnostics = list(params.diagnostics)
            self._changed.set()

        # Requests servers send whatever the client said it supports; an answer keeps them from waiting on one.
        @feature(lsp.WORKSPACE_CONFIGURATION)
        def configuration(params: lsp.ConfigurationParams) -> list[Any]:
            return [None for _ in params.items]

        @feature(lsp.CLIENT_REGISTER_CAPABILITY)
        def register(params: lsp.RegistrationParams) -> None:
            return None

        @feature(lsp.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def progress(params: lsp.WorkDoneProgressCreateParams) -> None:
            return None

    async def start(self, startup_timeout: float) -> None:
        """Start the program and complete the initialize handshake; a ToolError (the server is stopped) when it
        cannot run, exits or does not answer within `startup_timeout`."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - the server writes to it for its whole life
        try:
            self.process = await start_stream_server(self.argv, server_environment({}), self.root, self._log)
        except OSError as exc:
            self._log.close()
            raise self._failed(f"could not start ({exc.strerror or exc})") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self.client.protocol.set_writer(_PipeWriter(self.process.stdin))
        self._tasks.append(asyncio.create_task(run_async(
            stop_event=self._stop_reading, reader=self.process.stdout, protocol=self.client.protocol,
            logger=logging.getLogger("pygls.client"),
        )))
        self._tasks.append(asyncio.create_task(self._watch_exit()))
        params = lsp.InitializeParams(
            process_id=None,
            root_uri=self.root.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(uri=self.root.as_uri(), name=self.root.name)],
            initialization_options=self.spec.initialization_options or None,
            capabilities=_CAPABILITIES,
            client_info=lsp.ClientInfo(name="sneakycode"),
        )
        result = await self.ask(self.client.initialize_async(params), "initialize", startup_timeout)
        self.capabilities = result.capabilities
        self.client.initialized(lsp.InitializedParams())

    async def ask(self, request: Awaitable[T], what: str, timeout: float | None = None) -> T:
        """The answer to `request`; a ToolError when the server exits, answers with an error or takes longer
        than `timeout` (request_timeout by default): then it is stopped, and the next call starts it again."""
        limit = self.request_timeout if timeout is None else timeout
        answer = asyncio.ensure_future(request)
        exited = asyncio.create_task(self._exited.wait())
        try:
            done, _ = await asyncio.wait({answer, exited}, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:  # the call was cancelled, or the session is closing
            await _settle(answer, exited)
            raise
        await _settle(exited)
        if answer in done:
            try:
                return answer.result()
            except BrokenPipeError:
                raise self._failed(f"exited during {what}{self._stderr_tail()}") from None
            except Exception as exc:  # the server's error reply (a JsonRpcException) or a reply pygls could not read
                said = f": {exc}" if self.sealed else " (not shown: it could read files a deny rule hides)"
                raise ToolError(ErrorCode.LANGUAGE_SERVER_FAILED,
                                f"language server {self.spec.name} answered {what} with an error{said}") from None
        await _settle(answer)
        if exited in done or self._exited.is_set():
            raise self._failed(f"exited during {what}{self._stderr_tail()}")
        self.failure = f"did not answer {what} within {limit:g} s"
        await self.stop(graceful=False)
        raise ToolError(
            ErrorCode.LANGUAGE_SERVER_TIMEOUT,
            f"language server {self.spec.name} did not answer {what} within {limit:g} s; it was stopped",
        )

    def show(self, path: Path, text: str, language_id: str, stamp: tuple[int, int]) -> bool:
        """Make the server hold `text` for `path` (didOpen the first time, didChange after); False when it
        already did."""
        uri = path.as_uri()
        held = self.documents.get(uri)
        if held is not None and held.text == text:
            held.stamp = stamp
            return False
        if held is None:
            self.documents[uri] = OpenDocument(uri, text, 1, stamp)
            self._notify(lambda: self.client.text_document_did_open(lsp.DidOpenTextDocumentParams(
                text_document=lsp.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text))))
        else:
            held.version += 1
            held.text, held.stamp = text, stamp
            self._notify(lambda: self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=held.version),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)])))
        return True

    def forget(self, path: Path) -> None:
        """The file is gone: the server stops holding a text for it."""
        uri = path.as_uri()
        if self.documents.pop(uri, None) is not None:
            self._notify(lambda: self.client.text_document_did_close(
                lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri))))

    def _notify(self, send: Callable[[], None]) -> None:
        """Send a notification; a server that is gone is marked so (the next request or wait says so)."""
        try:
            send()
        except BrokenPipeError:
            if self.failure is None:
                self.failure = "exited"

    def publishes(self, path: Path) -> int:
        return self.published.get(path.as_uri(), Published()).count

    async def diagnostics_after(self, path: Path, count: int, timeout: float) -> list[lsp.Diagnostic] | None:
        """The diagnostics of the first publish for `path` after the `count`-th (None: none came in `timeout`)."""
        uri = path.as_uri()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.alive:
            seen = self.published.get(uri)
            if seen is not None and seen.count > count:
                held = self.documents.get(uri)
                if seen.version is None or held is None or seen.version >= held.version:
                    return seen.diagnostics
            left = deadline - loop.time()
            if left <= 0:
                return None
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), left)
            except TimeoutError:
                return None
        return None

    async def stop(self, *, graceful: bool = True) -> None:
        """shutdown and exit when it still answers (graceful), then its process group ended; never raises."""
        process = self.process
        if process is not None and graceful and self.alive:
            try:
                await asyncio.wait_for(self.client.shutdown_async(None), 2.0)
                self.client.exit(None)
            except Exception:
                pass
        if self.failure is None:
            self.failure = "stopped"
        self._stop_reading.set()
        if process is not None:
            # After `exit` a server has nothing left to save; some (jedi's) linger until SIGTERM, and a session's
            # end should not wait seconds for them.
            await stop_stream_server(process, grace=EXIT_GRACE_SECONDS if graceful else 0.0)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._log is not None:
            self._log.close()

    async def _watch_exit(self) -> None:
        assert self.process is not None
        while self.process.returncode is None:  # polled: wait() would also wait for pipes a child may hold
            await asyncio.sleep(0.05)
        self._exited.set()
        if self.failure is None:
            self.failure = f"exited with status {self.process.returncode}"
        self._changed.set()

    def _failed(self, why: str) -> ToolError:
        self.failure = why
        return ToolError(ErrorCode.LANGUAGE_SERVER_FAILED, f"language server {self.spec.name} {why}")

    def _stderr_tail(self) -> str:
        """The line of its stderr that says what went wrong: the last naming an error (a stack trace's
        frames say where, not what), else the last one; at most _STDERR_TAIL characters. Nothing from a server
        that could read files a deny rule hides: its stderr may quote them."""
        if not self.sealed:
            return ""
        try:
            text = self.log_path.read_bytes()[-8192:].decode("utf-8", errors="replace")
        except OSError:
            return ""
        lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
        if not lines:
            return ""
        said = next((line for line in reversed(lines) if "rror" in line or "xception" in line), lines[-1])
        return f"; its stderr said: {said[:_STDERR_TAIL]}"


async def _settle(*tasks: asyncio.Future[Any]) -> None:
    """Cancel what has not finished and let it finish: a task left pending when the loop closes is reported
    on stderr by asyncio ("Task was destroyed but it is pending")."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


_CAPABILITIES = lsp.ClientCapabilities(
    general=lsp.GeneralClientCapabilities(position_encodings=[lsp.PositionEncodingKind.Utf16]),
    text_document=lsp.TextDocumentClientCapabilities(
        synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=False),
        definition=lsp.DefinitionClientCapabilities(link_support=True),
        references=lsp.ReferenceClientCapabilities(),
        hover=lsp.HoverClientCapabilities(content_format=[lsp.MarkupKind.PlainText, lsp.MarkupKind.Markdown]),
        document_symbol=lsp.DocumentSymbolClientCapabilities(hierarchical_document_symbol_support=True),
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(version_support=True),
    ),
    workspace=lsp.WorkspaceClientCapabilities(
        symbol=lsp.WorkspaceSymbolClientCapabilities(), configuration=True, workspace_folders=True
    ),
)
