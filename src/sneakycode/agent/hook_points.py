"""Where the loop calls the user's hooks: one method per point of a run, each telling the user (through the
EventSink) what a hook reported, and returning only what the loop must act on.

Without hooks every method is a no-op, so the loop calls them unconditionally.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Literal

from sneakycode.agent.protocol import EventSink
from sneakycode.extensions.hooks import HookOutcome, HookRunner, NotifyingApprover
from sneakycode.extensions.tool_hooks import post_tool_use, pre_tool_use
from sneakycode.permissions.gate import Approver, Gate, PreparedCall
from sneakycode.tools.base import ToolContext, ToolResult

MAX_STOP_CONTINUES = 3  # a Stop hook that always blocks must not keep a run going for ever

StopEvent = Literal["Stop", "SubagentStop"]


class HookPoints:
    """The hooks of one Agent; `main`: the session's main agent, whose end runs the Stop hooks (a subagent's
    runs SubagentStop)."""

    def __init__(self, runner: HookRunner | None, sink: EventSink, *, main: bool) -> None:
        self.runner = runner
        self.sink = sink
        self.stop_event: StopEvent = "Stop" if main else "SubagentStop"
        self.continues = 0
        # The session's check of the final answer (an output schema, api/structured.py): the feedback that sends
        # the model back to work, or None. Asked before the Stop hooks, on every stop point.
        self.answer_check: Callable[[str], str | None] | None = None

    def approver(self, approver: Approver | None) -> Approver | None:
        """The approver, wrapped so the Notification hooks run whenever the user is asked."""
        if approver is None or self.runner is None or not self.runner.matching("Notification"):
            return approver
        return NotifyingApprover(approver, self.runner, self.report)

    def report(self, outcome: HookOutcome) -> None:
        for notice in outcome.notices:
            self.sink.emit({"type": "notice", "message": notice})

    def session_start(self, source: str) -> str:
        """SessionStart (`source`: startup, resume or clear); the context its hooks add for the model."""
        if self.runner is None:
            return ""
        outcome = self.runner.run("SessionStart", {"source": source}, subject=source)
        self.report(outcome)
        if outcome.blocked:
            self.sink.emit({"type": "notice", "message": f"SessionStart hook: {outcome.reason}"})
        return "\n\n".join(outcome.context)

    def session_end(self, reason: str) -> None:
        if self.runner is not None:
            self.report(self.runner.run("SessionEnd", {"reason": reason}, subject=reason, cancellable=False))

    def prompt(self, request: str) -> tuple[str | None, str]:
        """UserPromptSubmit: (why the prompt is refused, or None; the request with the hooks' context added)."""
        if self.runner is None:
            return None, request
        self.continues = 0
        outcome = self.runner.run("UserPromptSubmit", {"prompt": request})
        self.report(outcome)
        if outcome.blocked:
            return outcome.reason, request
        if not outcome.context:
            return None, request
        return None, "\n\n".join([request, *(f"<hook-context>\n{text}\n</hook-context>" for text in outcome.context)])

    def before_call(self, gate: Gate, prepared: PreparedCall) -> PreparedCall:
        if self.runner is None:
            return prepared
        prepared, outcome = pre_tool_use(self.runner, gate, prepared)
        self.report(outcome)
        if outcome.blocked:
            message = f"a PreToolUse hook blocked {prepared.name}: {outcome.reason}"
            self.sink.emit({"type": "notice", "message": message})
        return prepared

    def after_call(self, ctx: ToolContext, prepared: PreparedCall, result: ToolResult) -> list[str]:
        """PostToolUse for a call that ran: notes for the model, below the result."""
        if self.runner is None:
            return []
        notes, outcome = post_tool_use(self.runner, ctx, prepared, result)
        self.report(outcome)
        return notes

    def stop(self, message: str, cancel: threading.Event) -> str | None:
        """Stop (or SubagentStop) as the run is about to end: the message telling the model to continue, or
        None to end it."""
        if cancel.is_set():
            return None
        if self.answer_check is not None and (feedback := self.answer_check(message)) is not None:
            return feedback
        if self.runner is None or self.continues >= MAX_STOP_CONTINUES:
            return None
        fields = {"stop_hook_active": self.continues > 0, "last_message": message}
        outcome = self.runner.run(self.stop_event, fields)
        self.report(outcome)
        if not outcome.blocked:
            return None
        self.continues += 1
        self.sink.emit({"type": "notice", "message": f"a {self.stop_event} hook asks the model to continue: "
                        f"{outcome.reason}"})
        return f"A {self.stop_event} hook asks you to continue: {outcome.reason}"

    def before_compact(self, trigger: str) -> None:
        if self.runner is not None:
            self.report(self.runner.run("PreCompact", {"trigger": trigger, "custom_instructions": ""}, subject=trigger))
