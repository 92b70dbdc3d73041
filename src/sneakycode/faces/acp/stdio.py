"""The process's stdin and stdout as asyncio byte streams for the protocol.

Editors connect pipes (or sockets), which asyncio reads and writes without threads. Anything else (a file or
/dev/null redirected in or out, as in `sneakycode acp < requests.jsonl > answers.jsonl`) is read by a thread
and written synchronously (a file never blocks for long); asyncio cannot wait on those. Either way at most
about a megabyte waits unread: a pipe stops being read past it, the thread stops reading the file; so a
client that sends faster than lines are taken (a line over the limit, being dropped) holds no memory.

The protocol gets its own duplicate of stdout, and descriptor 1 is pointed at stderr for the rest of the
process: anything else that writes to it (a stray print, a library, a child that inherits it) would corrupt
the stream.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import stat
import sys
import threading
from typing import Protocol

from sneakycode.faces.acp.lines import READ_CHUNK, ByteSource

# A pipe is paused once twice this waits unread (asyncio's flow control); lines are taken by lines.py, so
# this is no limit on a line's length.
PIPE_BUFFER = 1 << 20
THREAD_CHUNKS = 4  # chunks read ahead by the thread


class ByteSink(Protocol):
    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class _FileSink:
    """Writes straight to a descriptor that is not a pipe (a regular file)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        os.close(self.fd)


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _ThreadSource:
    """A descriptor asyncio cannot wait on, read by a thread a few chunks ahead of what is taken."""

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._chunks: asyncio.Queue[bytes] = asyncio.Queue(THREAD_CHUNKS)
        self._ended = False
        threading.Thread(target=self._pump, args=(fd, loop), name="sneakycode-acp-stdin", daemon=True).start()

    def _pump(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        chunk = b"x"
        while chunk:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except OSError:
                chunk = b""
            try:  # waits while the queue is full: the backpressure a pipe gets from pausing
                asyncio.run_coroutine_threadsafe(self._chunks.put(chunk), loop).result()
            except (RuntimeError, concurrent.futures.CancelledError):  # the loop has ended
                return

    async def read(self, n: int) -> bytes:
        if self._ended:
            return b""
        chunk = await self._chunks.get()
        self._ended = not chunk
        return chunk  # (at most READ_CHUNK, whatever `n` is: lines.py asks for that much)


async def protocol_streams() -> tuple[ByteSource, ByteSink]:
    loop = asyncio.get_running_loop()
    stdin = sys.stdin.fileno()
    source: ByteSource
    if _is_pipe(stdin):
        reader = asyncio.StreamReader(limit=PIPE_BUFFER)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        source = reader
    else:
        source = _ThreadSource(stdin, loop)
    out = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if not _is_pipe(out):
        return source, _FileSink(out)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(out, "wb", buffering=0))
    return source, asyncio.StreamWriter(transport, protocol, None, loop)
