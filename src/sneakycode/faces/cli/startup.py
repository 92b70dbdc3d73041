"""Moved to `faces/shared/startup.py`; these names stay importable here for the faces and tests that still
import them from the command line's package."""

from sneakycode.faces.shared.startup import (
    cancel_on_sigint,
    config_error_exit,
    debug_printer,
    notify_untrusted,
    options_from_args,
    protect_key,
    workspace_option,
    workspace_settings,
)

__all__ = ["cancel_on_sigint", "config_error_exit", "debug_printer", "notify_untrusted", "options_from_args",
           "protect_key", "workspace_option", "workspace_settings"]
