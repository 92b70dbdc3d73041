"""How a session's events reach everyone who listens: the one sink (`Fanout`) that records refused calls for the
result and hands each event to the face, the program's `on_event` and the running stream; and one streamed
request (`StreamedRequest`), which its consumer may withdraw before it begins."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sneakycode.agent.events import Event

# The events a program (and `-p --output-format stream-json`) sees; turn markers and text deltas are the
# terminal's. Reasoning deltas are a program's too: a long thought is the one sign of life before the answer.
STREAMED_EVENTS = frozenset(
    {"assistant", "reasoning_delta", "reasoning", "tool_call", "permission", "tool_result", "usage", "tasks",
     "notice", "subagent", "stall", "progress"}
)
DONE = object()


class Fanout:
    """The session's one sink: remembers refused calls for the result, then hands each event on to the
    face's sink, the program's `on_event` and the running stream."""

    def __init__(self, sinks: list[Callable[[Event], None]]) -> None:
        self.sinks = sinks
        self.denied: list[dict[str, Any]] = []
        self._arguments: dict[str, str] = {}
        self.stream: Callable[[Event], None] | None = None
        # Events come from the loop, tool threads and the stall watch's thread: one at a time, so lines never mix.
        self._one_at_a_time = threading.RLock()

    def emit(self, event: Event) -> None:
        with self._one_at_a_time:
            self._emit(event)

    def _emit(self, event: Event) -> None:
        if event["type"] == "tool_call":
            self._arguments[event["id"]] = event["arguments"]
        if event["type"] == "permission" and event["outcome"] in ("denied", "rejected"):
            # Rejected: the one asked (Options.can_use_tool, or the person at the terminal) said no; refused all
            # the same (issue 37: a policy's refusals were missing here).
            reason = event["reason"] if event["outcome"] == "denied" else f"declined when asked ({event['reason']})"
            self.denied.append({
                "tool": event["name"], "arguments": self._arguments.get(event["id"], ""), "reason": reason,
                "rule": event["rule"], "how_to_allow": event.get("how_to_allow"),
            })  # fmt: skip
        if event["type"] == "tool_result" and event["code"] == "network_denied":  # the sandbox's proxy refused a host
            reason = event["content"].partition("\n")[0].removeprefix("Error [network_denied]: ")
            self.denied.append({"tool": event["name"], "arguments": self._arguments.get(event["id"], ""),
                                "reason": reason, "rule": "tools.shell.allowed_hosts", "how_to_allow": None})
        for sink in self.sinks:
            sink(event)
        stream = self.stream
        if stream is not None and event["type"] in STREAMED_EVENTS:
            stream(event)


class Abandoned(Exception):
    """A streamed request whose consumer left before it could start."""


class StreamedRequest:
    """One stream's request: its event callback, its worker, and whether it began or was withdrawn first (under
    one lock, so a consumer that leaves either withdraws it or cancels it, never another request)."""

    def __init__(self, forward: Callable[[Event], None]) -> None:
        self.forward = forward
        self.worker = threading.Thread()
        self._state = "waiting"
        self._lock = threading.Lock()

    def begin(self) -> bool:
        with self._lock:
            if self._state == "left":
                return False
            self._state = "running"
            return True

    def leave(self) -> bool:
        """Withdraw it; True when it had begun already (then it is the running request, to cancel)."""
        with self._lock:
            began = self._state == "running"
            self._state = "left"
            return began
