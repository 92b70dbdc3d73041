"""The stdio transport: newline-delimited JSON-RPC, like the SDK's own, except that a line it cannot use is
answered instead of dropped: unparsable JSON gets a Parse error (-32700), a JSON value that is not a request,
notification or response gets an Invalid Request (-32600), both with id null as JSON-RPC 2.0 requires. The SDK's
transport logs and skips such a line, so a client waiting on it would wait for ever.

A line over the limit (50 MiB, the SDK's own) is dropped as it is read, never held (see lines.py), and
answered with an Invalid Request naming the request's id when its first bytes hold it. When it was the
client's answer to one of our requests (a huge file read from the editor), that request fails with the same
error instead of waiting for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from sneakycode.faces.acp.lines import BoundedLines, ByteSource, Overlong, head_members
from sneakycode.faces.acp.stdio import ByteSink

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def _error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def problem_with(message: Any) -> dict[str, Any] | None:
    """The error answer for a decoded line that is no JSON-RPC message, or None when it is one."""
    if not isinstance(message, dict):
        return _error(INVALID_REQUEST, f"Invalid Request: expected a JSON object, got {type(message).__name__}")
    request_id = message.get("id")
    if (request_id is not None and not isinstance(request_id, (int, str))) or isinstance(request_id, bool):
        return _error(INVALID_REQUEST, "Invalid Request: id must be a string or a number")
    if message.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    method = message.get("method")
    if "method" in message and not isinstance(method, str):
        return _error(INVALID_REQUEST, "Invalid Request: method must be a string", request_id)
    if method is None and "id" not in message:
        return _error(INVALID_REQUEST, "Invalid Request: neither a method nor an id")
    params = message.get("params")
    if method is not None and params is not None and not isinstance(params, (dict, list)):
        return _error(INVALID_REQUEST, "Invalid Request: params must be an object or an array", request_id)
    return None


class StdioWire:
    """The SDK's Transport (send, receive, close) over asyncio byte streams; lines of at most `limit` bytes."""

    def __init__(self, reader: ByteSource, writer: ByteSink, limit: int) -> None:
        self.lines = BoundedLines(reader, limit)
        self.limit = limit
        self.writer = writer
        self._writing = asyncio.Lock()
        self._closed = False

    async def send(self, message: dict[str, Any]) -> None:
        if self._closed:
            raise ConnectionError("the client has gone")
        data = (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
        async with self._writing:
            self.writer.write(data)
            await self.writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._line()
            if line is None:
                return None
            if isinstance(line, Overlong):
                ours = await self._dropped(line)
                if ours is not None:
                    return ours
                continue
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                await self._answer(_error(PARSE_ERROR, f"Parse error: {exc}"))
                continue
            problem = problem_with(message)
            if problem is not None:
                await self._answer(problem)
                continue
            return dict(message)

    async def _answer(self, error: dict[str, Any]) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            await self.send(error)

    async def _line(self) -> bytes | Overlong | None:
        try:
            return await self.lines.next()
        except (ConnectionError, OSError):
            return None

    async def _dropped(self, line: Overlong) -> dict[str, Any] | None:
        """Answers a line over the limit; returns the error our own request gets when it was the client's
        answer to one of ours."""
        members = head_members(line.head)
        request_id = members.get("id")
        if not isinstance(request_id, (int, str)) or isinstance(request_id, bool):
            request_id = None
        error = _error(INVALID_REQUEST, f"Invalid Request: the message is {line.size} bytes, over the limit of "
                                        f"{self.limit} bytes ({self.limit >> 20} MiB); it was dropped unread",
                       request_id)
        if request_id is not None and "method" not in members and ("result" in members or "error" in members):
            return error
        await self._answer(error)
        return None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            self.writer.close()
