"""What a headless run reads from stdin: the task (`-p -`) or, with `--input-format stream-json`, user messages
as JSON lines (the Claude Code convention).

stdin is outside input, so it is read as bytes within a bound (MAX_STDIN_MESSAGE_BYTES a message) and every
line is decoded (strict UTF-8) and parsed on its own. A line that is not a user message, for whatever reason
(not UTF-8, not JSON, nested too deep, the wrong shape, over the bound), is handed to `on_bad` with its
number and the problem, and the session goes on with the next line. Only a stdin that cannot be read at all
(closed, or not open for reading) ends it: StdinUnusable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from sneakycode.api.errors import ConfigError

# One user message: far beyond any model's context window, and small enough to hold while it is checked.
MAX_STDIN_MESSAGE_BYTES = 4 << 20
EXPECTED_LINE = '{"type": "user", "message": {"role": "user", "content": "..."}}'
_SKIP_BYTES = 1 << 16


class StdinUnusable(Exception):
    """stdin is closed or cannot be read; the message says which."""


@dataclass(frozen=True)
class BadLine:
    """A stdin line that was skipped: its number (from 1) and why it is not a user message."""

    number: int
    problem: str


def user_messages(stream: IO[bytes] | None, on_bad: Callable[[BadLine], None]) -> Iterator[str]:
    """The text of each user message on `stream`, in order, until end of input; blank lines are ignored."""
    if stream is None:
        raise StdinUnusable("stdin is closed, so no message can arrive on it")
    number = 0
    while True:
        line = _read(stream, MAX_STDIN_MESSAGE_BYTES + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_STDIN_MESSAGE_BYTES and not line.endswith(b"\n"):
            _skip_rest_of_line(stream)
            on_bad(BadLine(number, f"it is longer than {MAX_STDIN_MESSAGE_BYTES >> 20} MiB"))
            continue
        try:
            content = _content(line)
        except _NotAMessage as exc:
            on_bad(BadLine(number, str(exc)))
            continue
        if content is not None:
            yield content


def read_task(stream: IO[bytes] | None) -> str:
    """The whole of stdin as the task (`-p -`); a ConfigError when it cannot be read, is over the bound or is
    not UTF-8 text."""
    if stream is None:
        raise ConfigError("-p - reads the task from stdin, but stdin is closed")
    try:
        data = _read(stream, MAX_STDIN_MESSAGE_BYTES + 1, whole=True)
    except StdinUnusable as exc:
        raise ConfigError(str(exc)) from None
    if len(data) > MAX_STDIN_MESSAGE_BYTES:
        raise ConfigError(f"the task on stdin is longer than {MAX_STDIN_MESSAGE_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the task on stdin is not UTF-8 text ({_bad_byte(exc)})") from None


def check_text(task: str, what: str) -> None:
    """A ConfigError when `task` cannot be sent as text: a command line that is not UTF-8 reaches Python as
    lone surrogates, which no JSON encoder (the transcript, the request) accepts."""
    try:
        task.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} is not UTF-8 text") from None


class _NotAMessage(Exception):
    """The line's problem, worded to follow "is not a user message:"."""


def _content(line: bytes) -> str | None:
    """The message text of one line, None for a blank line; _NotAMessage says what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _NotAMessage(f"it is not UTF-8 text ({_bad_byte(exc)})") from None
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _NotAMessage(f"it is not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:  # the C parser counts its depth against the recursion limit
        raise _NotAMessage("its JSON is nested too deeply") from None
    except ValueError as exc:  # an integer of more digits than int() converts
        raise _NotAMessage(f"it is not usable JSON ({exc})") from None
    content = _message_content(data)
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" is valid JSON, but a lone surrogate is no text to send on
        raise _NotAMessage("its content has a lone surrogate escape (\\ud800-\\udfff), which is not text") from None
    if not content.strip():
        raise _NotAMessage("its content is empty")
    return content


def _message_content(data: Any) -> str:
    if not isinstance(data, dict):
        raise _NotAMessage(f"it is a JSON {_kind(data)}, not an object")
    if data.get("type") != "user":
        raise _NotAMessage(f'its "type" is {json.dumps(data.get("type"))[:40]}, not "user"')
    message = data.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(block, dict) for block in content):
        texts = [block.get("text") for block in content if block.get("type") == "text"]
        if all(isinstance(text, str) for text in texts):
            return "".join(texts)
    raise _NotAMessage('its "message" has no "content": a string, or a list of {"type": "text", "text": "..."}')


def _kind(value: Any) -> str:
    names = {list: "array", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _bad_byte(exc: UnicodeDecodeError) -> str:
    return f"byte 0x{exc.object[exc.start]:02x} at offset {exc.start}"


def _read(stream: IO[bytes], limit: int, *, whole: bool = False) -> bytes:
    """One line (or, with `whole`, everything) of at most `limit` bytes; StdinUnusable when reading fails."""
    try:
        return stream.read(limit) if whole else stream.readline(limit)
    except (OSError, ValueError) as exc:  # not open for reading, a closed file, an I/O error
        raise StdinUnusable(f"stdin cannot be read: {exc}") from None


def _skip_rest_of_line(stream: IO[bytes]) -> None:
    """Read past the end of an over-long line a bounded chunk at a time, so it is never held whole."""
    while (chunk := _read(stream, _SKIP_BYTES)) and not chunk.endswith(b"\n"):
        pass
