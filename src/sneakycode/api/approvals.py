"""Approvals a session remembers: "always" and "never" answers, kept by the session (not by each face), so the
terminal, the editor and a program see and set the same ones, and subagents' questions are answered alike.

A face's approver answers `Remembered(True)` or `Remembered(False)` for "always" / "never"; the session's
wrapper stores the call's key (permissions/always.py `session_key`: the tool, or for a tool that runs a command
line, the same command line) and answers later calls with that key itself, without asking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sneakycode.tools.context import ToolContext

from sneakycode.permissions.always import session_key
from sneakycode.permissions.gate import Approver, Declined, PendingCall, Remembered


class Approvals:
    """The session's remembered answers, by key; safe to use from any thread."""

    def __init__(self) -> None:
        self._always: set[str] = set()
        self._never: set[str] = set()
        self._lock = threading.Lock()

    @property
    def always(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._always)

    @property
    def never(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._never)

    def remember(self, tool_name: str, arguments: dict[str, object], allowed: bool) -> str:
        """Answer every later call like this one (`allowed`) without asking; returns the key it is kept under."""
        key = session_key(tool_name, dict(arguments))
        with self._lock:
            (self._always if allowed else self._never).add(key)
            (self._never if allowed else self._always).discard(key)
        return key

    def forget(self) -> None:
        """Ask again about everything."""
        with self._lock:
            self._always.clear()
            self._never.clear()

    def recall(self, call: PendingCall) -> bool | Declined | None:
        """The remembered answer for `call`, or None when it must be asked about."""
        key = session_key(call.name, call.arguments)
        with self._lock:
            if key in self._always:
                return True
            if key in self._never:
                return Declined(f"the user rejected {key} for the rest of this session; do not try it again")
        return None


class RememberingApprover:
    """The face's approver behind the session's memory: remembered answers first, then the face, whose
    "always" / "never" is remembered."""

    def __init__(self, inner: Approver, approvals: Approvals) -> None:
        self.inner = inner
        self.approvals = approvals

    def approve(self, call: PendingCall, reason: str) -> bool | Declined | Remembered:
        known = self.approvals.recall(call)
        if known is not None:
            return known
        answer = self.inner.approve(call, reason)
        if isinstance(answer, Remembered):
            self.approvals.remember(call.name, call.arguments, answer.allowed)
        return answer


def remembering(approver_for: Callable[[ToolContext], Approver | None],
                approvals: Approvals) -> Callable[[ToolContext], Approver | None]:
    """The face's approver factory, each approver it makes behind the session's memory (None stays None:
    nobody can approve, and nothing is remembered)."""

    def make(ctx: ToolContext) -> Approver | None:
        inner = approver_for(ctx)
        return None if inner is None else RememberingApprover(inner, approvals)

    return make
