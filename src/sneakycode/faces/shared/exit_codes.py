"""How every command ends, for scripts and CI: one list, used by every command (docs/headless.md lists it),
and the one mapping from how a run ended (a Result's status, a failed model request's kind) to a code.

It lives apart from the entry point so a subcommand never imports `faces/cli/main.py` (which imports every
subcommand lazily; a subcommand importing main back made a cycle through every file of the face).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import TYPE_CHECKING

from sneakycode.api.errors import ModelError

if TYPE_CHECKING:
    from sneakycode.api.result import Result


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

# How a run that ended on its own is reported (`-p`): finished or answered is success.
RUN_EXIT_BY_STATUS: dict[str, ExitCode] = {
    "finished": ExitCode.OK,
    "answered": ExitCode.OK,
    "error": ExitCode.FAILURE,
    "turn_limit": ExitCode.BUDGET,
    "budget": ExitCode.BUDGET,
    "cancelled": ExitCode.INTERRUPTED,
}


def exit_for_error_kind(kind: str | None) -> ExitCode:
    """A failed model request's code: AUTH or STALLED when a script can act on its kind, else FAILURE."""
    return EXIT_BY_MODEL_ERROR.get(kind or "", ExitCode.FAILURE)


def exit_for_exception(exc: BaseException) -> ExitCode:
    """A SneakyError raised outside the loop's own requests (compaction): a ModelError by its kind."""
    return exit_for_error_kind(exc.kind) if isinstance(exc, ModelError) else ExitCode.FAILURE


def exit_for_result(result: Result, by_status: Mapping[str, ExitCode] = RUN_EXIT_BY_STATUS) -> ExitCode:
    """By how the run ended (`by_status`: a command's own reading of each status); a failed model request
    whose kind a script can act on has its own code."""
    if result.status == "error" and result.error_kind in EXIT_BY_MODEL_ERROR:
        return EXIT_BY_MODEL_ERROR[result.error_kind]
    return by_status[result.status]
