"""What the loop tells a model that is stuck: the nudge after an empty reply, the run's ending when it stays
empty, and a note when it repeats the same failing call."""

from __future__ import annotations

import json

from sneakycode.agent.protocol import AssistantTurn, ToolCall
from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolResult

REPEAT_LIMIT = 3
NUDGE = "continue: answer or call a tool"


def no_answer_message(reply: AssistantTurn) -> str:
    """Why a run ends after two empty replies in a row, for the user."""
    if reply.reasoning.strip():
        return (
            "The model only reasoned, twice in a row: no answer and no tool call, even after being asked to "
            "continue. Try again, rephrase the task, or choose another model with --model."
        )
    return "The model sent an empty reply (no text and no tool calls), twice in a row."


class RepeatWatch:
    """Counts the same failing call in a row; the REPEAT_LIMIT-th earns a note telling the model to change tack."""

    def __init__(self) -> None:
        self._failure: tuple[str, int] = ("", 0)

    def note(self, call: ToolCall, result: ToolResult) -> str:
        if result.success or result.code is ErrorCode.CANCELLED:
            self._failure = ("", 0)
            return ""
        signature = f"{call.name}:{_canonical(call.arguments)}"
        count = self._failure[1] + 1 if self._failure[0] == signature else 1
        self._failure = (signature, count)
        if count < REPEAT_LIMIT:
            return ""
        return (
            f"Note: this exact {call.name} call has now failed {count} times in a row. Repeating it will not "
            "work; change approach: follow the hint above, check the current state (read the file or list "
            "the folder again), or try a different tool or arguments."
        )


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (ValueError, RecursionError):  # arguments nested too deep are refused by the registry, not here
        return arguments
