"""Never silently stuck: while the model answers or a tool runs, a watcher thread says what is going on.

- `stall`: nothing arrived (no token from the model, no output from a tool call) for `stall_seconds`; said
  again each time as long again passes, so a hung server or command is never silent.
- `progress`: a tool call running longer than PROGRESS_AFTER seconds reports its elapsed time and its last
  line of output every PROGRESS_EVERY seconds.

The watch only tells: giving up is the model client's (stall_timeout, request_timeout, each retried once) and
the tool's own (a command's timeout). Its thread runs only while something is watched and emits from there
(the session's sink takes events from any thread). What a subagent receives counts as output of the call that
runs it: the watch forwards every arrival to the listener of the thread it started in.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Literal

from sneakycode.agent.events import Event, ProgressEvent, StallEvent
from sneakycode.tools.activity import OutputListener, listening, output_listener

PROGRESS_AFTER = 3.0  # seconds a tool call runs before it reports progress
PROGRESS_EVERY = 3.0  # seconds between two progress events of one call
TICK = 0.2
LAST_LINE_CHARS = 200
PARTIAL_LIMIT = 4096  # bytes of an unfinished line kept: a line is shown, never a megabyte


@dataclass
class _Watched:
    source: Literal["model", "tool"]
    started: float
    id: str = ""
    name: str = ""
    last: float = 0.0  # when something last arrived (or the start)
    arrived: bool = False
    told: int = 0  # stall notices given since the last arrival
    next_progress: float = 0.0
    line: str = ""
    partial: bytearray = field(default_factory=bytearray)

    def heard(self, now: float, chunk: bytes) -> None:
        self.last, self.arrived, self.told = now, True, 0
        if not chunk:
            return
        data = self.partial + chunk
        *lines, rest = data.split(b"\n")
        self.partial = bytearray(rest[-PARTIAL_LIMIT:])
        for candidate in (rest, *reversed(lines)):
            text = _shown(candidate)
            if text:
                self.line = text
                return


def _shown(raw: bytes | bytearray) -> str:
    """A line as a person reads it: what a carriage return left visible, control characters dropped."""
    text = raw.decode("utf-8", "replace").rsplit("\r", 1)[-1]
    text = "".join(c for c in text if c.isprintable()).strip()
    return text[:LAST_LINE_CHARS]


class RunWatch:
    """One per agent. `first_byte_limit` and `stall_limit` are when the model client gives up on a silent
    request (request_timeout before the first byte, stall_timeout after): the stall notice says so."""

    def __init__(
        self,
        emit: Callable[[Event], None],
        stall_seconds: float,
        *,
        first_byte_limit: float,
        stall_limit: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self.stall_seconds = stall_seconds
        self.first_byte_limit = first_byte_limit
        self.stall_limit = stall_limit
        self._clock = clock
        self._lock = threading.Lock()
        # Held while events are told, and taken by a watched item's end: nothing of it is told after it ended
        # (no heartbeat after the tool's result, no stall after the stream's `final`). Always before `_lock`.
        self._telling = threading.Lock()
        self._watched: dict[str, _Watched] = {}
        self._thread: threading.Thread | None = None

    @contextmanager
    def model_request(self) -> Iterator[Callable[[], None]]:
        """Watch one model request; the block gets the callback to pass as `on_activity`."""
        outer = output_listener()
        item = _Watched("model", self._clock())
        item.last = item.started

        def activity() -> None:
            with self._lock:
                item.heard(self._clock(), b"")
            if outer is not None:
                outer(b"")

        with self._watching("model", item):
            yield activity

    @contextmanager
    def tool_call(self, call_id: str, name: str) -> Iterator[None]:
        """Watch one tool call run inside the block (in this thread): its output reaches the watch."""
        outer = output_listener()
        item = _Watched("tool", self._clock(), id=call_id, name=name)
        item.last, item.next_progress = item.started, item.started + PROGRESS_AFTER

        def output(chunk: bytes) -> None:
            with self._lock:
                item.heard(self._clock(), chunk)
            if outer is not None:
                outer(b"")

        listener: OutputListener = output
        with self._watching(f"tool:{call_id}", item), listening(listener):
            yield

    @contextmanager
    def _watching(self, key: str, item: _Watched) -> Iterator[None]:
        with self._lock:
            self._watched[key] = item
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="stall-watch", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._telling, self._lock:
                self._watched.pop(key, None)

    def _run(self) -> None:
        while True:
            with self._telling:
                with self._lock:
                    if not self._watched:
                        self._thread = None  # under the lock: the next watched item starts a new thread
                        return
                    due = self._due(self._clock())
                for event in due:
                    with suppress(Exception):  # a face that fails to show a notice must not stop the watch
                        self._emit(event)
            time.sleep(TICK)

    def _due(self, now: float) -> list[Event]:
        due: list[Event] = []
        for item in self._watched.values():
            silent = now - item.last
            if silent >= self.stall_seconds * (item.told + 1):
                item.told += 1
                due.append(self._stall(item, silent, now))
            if item.source == "tool" and now >= item.next_progress:
                item.next_progress = now + PROGRESS_EVERY
                progress: ProgressEvent = {"type": "progress", "id": item.id, "name": item.name,
                                           "elapsed": round(now - item.started), "last_line": item.line}
                due.append(progress)
        return due

    def _stall(self, item: _Watched, silent: float, now: float) -> StallEvent:
        seconds = max(1, round(silent))
        if item.source == "tool":
            message = (f"{item.name} has printed nothing for {seconds} s (running for {round(now - item.started)} s; "
                       "its timeout stops it)")
            return {"type": "stall", "source": "tool", "seconds": seconds, "message": message, "id": item.id,
                    "name": item.name}
        if item.arrived:
            message = (f"the model's reply has sent nothing for {seconds} s; after stall_timeout "
                       f"({self.stall_limit:g} s) the request is sent once more, then the run ends")
        else:
            message = (f"no reply from the model for {seconds} s yet (the server may still be reading the prompt); "
                       f"after request_timeout ({self.first_byte_limit:g} s) the request is sent once more, "
                       "then the run ends")
        return {"type": "stall", "source": "model", "seconds": seconds, "message": message}
