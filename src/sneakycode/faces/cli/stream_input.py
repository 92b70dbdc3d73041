"""Moved to `faces/shared/stream_input.py`; these names stay importable here for the tests that import them
from the command line's package."""

from sneakycode.faces.shared.stream_input import (
    EXPECTED_LINE,
    MAX_STDIN_MESSAGE_BYTES,
    BadLine,
    StdinUnusable,
    check_text,
    read_task,
    user_messages,
)

__all__ = ["EXPECTED_LINE", "MAX_STDIN_MESSAGE_BYTES", "BadLine", "StdinUnusable", "check_text", "read_task",
           "user_messages"]
