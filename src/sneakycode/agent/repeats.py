"""Repeated failures: the same failing call REPEAT_LIMIT times in a row earns a note telling the model to
change tack, because small models otherwise retry one broken call until the turn limit."""

from __future__ import annotations

import json

from sneakycode.errors import ErrorCode
from sneakycode.tools.base import ToolResult

REPEAT_LIMIT = 3


class RepeatedFailures:
    """Remembers the last failing call's signature and how many times in a row it failed."""

    def __init__(self) -> None:
        self._last: tuple[str, int] = ("", 0)

    def note(self, name: str, arguments: str, result: ToolResult) -> str:
        """The note to add to this result ("" for none)."""
        if result.success or result.code is ErrorCode.CANCELLED:
            self._last = ("", 0)
            return ""
        signature = f"{name}:{_canonical(arguments)}"
        count = self._last[1] + 1 if self._last[0] == signature else 1
        self._last = (signature, count)
        if count < REPEAT_LIMIT:
            return ""
        return (
            f"Note: this exact {name} call has now failed {count} times in a row. Repeating it will not "
            "work; change approach: follow the hint above, check the current state (read the file or list "
            "the folder again), or try a different tool or arguments."
        )


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except (ValueError, RecursionError):  # arguments nested too deep are refused by the registry, not here
        return arguments
