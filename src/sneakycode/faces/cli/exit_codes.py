"""How every command ends, for scripts and CI: one list, used by every command (docs/headless.md lists it).

It lives in its own module so a subcommand never imports the entry point (`cli/main.py` imports every
subcommand lazily; a subcommand importing main back made a cycle through every file of `cli/`).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """0 success, 1 failure, 2 usage or configuration, 3 a budget ran out, 4 the provider refused the key or
    the model, 5 the model server stalled, 130 interrupted."""

    OK = 0
    FAILURE = 1  # a tool failed, the model could not be reached, undo refused, rewind left a path as it was
    USAGE = 2  # bad flags or configuration: nothing was run or sent
    BUDGET = 3  # --max-turns, --max-tokens, --max-cost or --timeout ended the run (cleanly)
    TURN_LIMIT = 3  # the older name of BUDGET
    AUTH = 4  # the provider rejected the API key (401/403) or does not offer the model (404): never retried
    STALLED = 5  # the model server went silent (stall_timeout or request_timeout), and again on the one retry
    INTERRUPTED = 130


# A failed model request whose kind (errors.ModelErrorKind) a script can act on gets its own code: fix the
# configuration (AUTH), or try again later or raise stall_timeout (STALLED). Every other kind is FAILURE.
EXIT_BY_MODEL_ERROR: dict[str, ExitCode] = {
    "auth": ExitCode.AUTH, "model_not_found": ExitCode.AUTH, "timeout": ExitCode.STALLED,
}
