"""The process's stdin and stdout as asyncio byte streams for the protocol.

Editors connect pipes (or sockets), which asyncio reads and writes without threads. Anything else (a file or
/dev/null redirected in or out, as in `sneakycode acp < requests.jsonl > answers.jsonl`) is read by a thread
and written synchronously (a file never blocks for long); asyncio cannot wait on those.

The protocol gets its own duplicate of stdout, and descriptor 1 is pointed at stderr for the rest of the
process: anything else that writes to it (a stray print, a library, a child that inherits it) would corrupt
the stream.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
import threading
from typing import Protocol

READ_CHUNK = 1 << 16


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


def _read_in_thread(fd: int, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
    def pump() -> None:
        try:
            while chunk := os.read(fd, READ_CHUNK):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="sneakycode-acp-stdin", daemon=True).start()


async def protocol_streams(limit: int) -> tuple[asyncio.StreamReader, ByteSink]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit)
    stdin = sys.stdin.fileno()
    if _is_pipe(stdin):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    else:
        _read_in_thread(stdin, reader, loop)
    out = os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if not _is_pipe(out):
        return reader, _FileSink(out)
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                        os.fdopen(out, "wb", buffering=0))
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
