"""What the loop tells a model that is stuck: the nudge after an empty reply, the run's ending when it stays
empty, and the repetition watch.

The repetition watch is the one place that notices the loops small models fall into: the same call made again
and again (failing, or succeeding with the same result each time), and the same text or reasoning written
reply after reply. The REPEAT_LIMIT-th repetition earns one note to the model (in that call's tool result);
repeating once more after the note ends the run with the coded reason `repetition` (RunResult.error_kind).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from sneakycode.agent.protocol import AssistantTurn, ToolCall
from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolResult

REPEAT_LIMIT = 3
# Text shorter than this is not watched: a short lead-in ("Let me check.") is legitimately said again before
# different calls; a paragraph written again word for word is a loop.
MIN_REPEATED_TEXT = 80
NUDGE = "continue: answer or call a tool"
REPETITION = "repetition"
"""The coded reason a run ends with when the model keeps repeating itself (RunResult.error_kind)."""


def no_answer_message(reply: AssistantTurn) -> str:
    """Why a run ends after two empty replies in a row, for the user."""
    if reply.reasoning.strip():
        return (
            "The model only reasoned, twice in a row: no answer and no tool call, even after being asked to "
            "continue. Try again, rephrase the task, or choose another model with --model."
        )
    return "The model sent an empty reply (no text and no tool calls), twice in a row."


@dataclass
class _Streak:
    """The same thing seen `count` times in a row; `told` once the model has had its note."""

    key: str = ""
    count: int = 0
    told: bool = False

    def see(self, key: str) -> int:
        if key and key == self.key:
            self.count += 1
        else:
            self.key, self.count, self.told = key, (1 if key else 0), False
        return self.count


class RepeatWatch:
    """Counts repetitions in a row. `see` takes each reply before its calls run, `note` each call's result;
    `take_stuck` says, once the reply's calls are done, why the run must end (None while it may go on)."""

    def __init__(self) -> None:
        self._call = _Streak()
        self._text = {"text": _Streak(), "reasoning": _Streak()}
        self._pending = ""  # a note on repeated text, given with the reply's first tool result
        self._stuck: str | None = None

    def see(self, reply: AssistantTurn) -> None:
        for kind, written in (("text", reply.content), ("reasoning", reply.reasoning)):
            normalised = " ".join(written.split())
            streak = self._text[kind]
            count = streak.see(normalised if len(normalised) >= MIN_REPEATED_TEXT else "")
            if count < REPEAT_LIMIT:
                continue
            if streak.told:
                self._stuck = (f"The model wrote the same {kind} in {count} replies in a row, and again after being "
                               "told it was repeating itself, so the run was stopped.")
                continue
            streak.told = True
            self._pending += (f"Note: you have written the same {kind} in {count} replies in a row. You are "
                              "repeating yourself; do something different: check the current state, try another "
                              "approach, or finish with what you have.")

    def note(self, call: ToolCall, result: ToolResult) -> str:
        """The note to add to this call's result ("" for none)."""
        pending, self._pending = self._pending, ""
        if result.code is ErrorCode.CANCELLED:
            self._call.see("")
            return pending
        outcome = "failed" if not result.success else _digest(result)
        count = self._call.see(f"{call.name}:{_canonical(call.arguments)}:{outcome}")
        if count < REPEAT_LIMIT:
            return pending
        if self._call.told:
            self._stuck = (f"The model made the same {call.name} call {count} times in a row, and again after "
                           "being told it was repeating itself, so the run was stopped.")
            return pending
        self._call.told = True
        if result.success:
            said = (f"Note: this exact {call.name} call has now returned the same result {count} times in a row. "
                    "Repeating it will not tell you anything new; use the result above and move on: make the "
                    "change, try a different tool or arguments, or finish.")
        else:
            said = (f"Note: this exact {call.name} call has now failed {count} times in a row. Repeating it will "
                    "not work; change approach: follow the hint above, check the current state (read the file or "
                    "list the folder again), or try a different tool or arguments.")
        return f"{pending}\n\n{said}" if pending else said

    def take_stuck(self) -> str | None:
        """Why the run must end now (the message for the user), once; None while it may go on."""
        stuck, self._stuck = self._stuck, None
        if stuck is None:
            return None
        self._call = _Streak()
        self._text = {"text": _Streak(), "reasoning": _Streak()}
        return f"{stuck} Try again with a more specific request, or choose a larger model with --model."


def _digest(result: ToolResult) -> str:
    """A short fingerprint of what a call returned: the same call returning something new is not a loop (a
    job polled while it runs, a test rerun after an edit)."""
    return hashlib.sha256(result.render().encode("utf-8", "replace")).hexdigest()[:16]


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (ValueError, RecursionError):  # arguments nested too deep are refused by the registry, not here
        return arguments
