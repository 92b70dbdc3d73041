"""The stdio transport: newline-delimited JSON-RPC over a server process's stdin and stdout.

Hand-written rather than the SDK's `stdio_client` because SneakyCode must know the server's process: it
is a child subreaper that ends unknown children in other sessions (see process/reaper.py), so the process
is started and registered by `process.servers`; knowing it also lets a dead server be told from a slow
one, and its stderr go to a log whose tail is shown when it dies. Framing and shutdown follow the SDK's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import mcp_types
from anyio.abc import Process
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from sneakycode.process.servers import server_environment, start_server, stop_server

# One message larger than this ends the connection: a server must not make SneakyCode hold gigabytes.
MAX_MESSAGE_BYTES = 64 << 20
_CLOSED = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


@dataclass
class ServerProcess:
    """The running server as the connection sees it: its pid, and where its stderr goes."""

    stderr_log: Path
    process: Process | None = None
    ready: bool = False  # it answered the handshake, so it gets a grace period to exit when stopped
    notes: list[str] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def exit_code(self) -> int | None:
        return self.process.returncode if self.process is not None else None


@asynccontextmanager
async def stdio_transport(
    argv: Sequence[str], env: dict[str, str], cwd: Path, server: ServerProcess
) -> AsyncIterator[TransportStreams]:
    """Start the server and yield the SDK's read and write streams; on exit stop it (shielded, bounded)."""
    server.stderr_log.parent.mkdir(parents=True, exist_ok=True)
    with server.stderr_log.open("ab") as stderr:
        process = await start_server(argv, server_environment(env), cwd, stderr)
    server.process = process
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_stdout() -> None:
        assert process.stdout is not None
        buffer = bytearray()
        async with read_writer:
            with suppress(*_CLOSED):
                async for chunk in process.stdout:
                    buffer += chunk
                    while (end := buffer.find(b"\n")) >= 0:
                        line = bytes(buffer[:end])
                        del buffer[: end + 1]
                        if line.strip():
                            await read_writer.send(_parse(line))
                    if len(buffer) > MAX_MESSAGE_BYTES:
                        server.notes.append(f"It sent a message over {MAX_MESSAGE_BYTES >> 20} MiB, so it was stopped.")
                        return

    async def write_stdin() -> None:
        assert process.stdin is not None
        try:
            async with write_reader:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send(text.encode("utf-8") + b"\n")
        except _CLOSED:
            # The server stopped reading: end the read side too, so a request fails instead of waiting.
            await read_writer.aclose()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_stdout)
        tasks.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                read_stream.close()
                write_stream.close()
                await stop_server(process, graceful=server.ready)
            tasks.cancel_scope.cancel()


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc
