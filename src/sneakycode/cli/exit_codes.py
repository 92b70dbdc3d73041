"""How every command ends, for scripts and CI: one list, used by every command (docs/headless.md lists it).

It lives in its own module so a subcommand never imports the entry point (`cli/main.py` imports every
subcommand lazily; a subcommand importing main back made a cycle through every file of `cli/`).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """0 success, 1 failure, 2 usage or configuration, 3 a budget ran out, 130 interrupted."""

    OK = 0
    FAILURE = 1  # a tool failed, the model could not be reached, undo refused
    USAGE = 2  # bad flags or configuration: nothing was run or sent
    BUDGET = 3  # --max-turns, --max-tokens, --max-cost or --timeout ended the run (cleanly)
    TURN_LIMIT = 3  # the older name of BUDGET
    INTERRUPTED = 130
