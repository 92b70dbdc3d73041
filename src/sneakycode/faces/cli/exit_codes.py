"""Moved to `faces/shared/exit_codes.py`; these names stay importable here for the faces and tests that
still import them from the command line's package."""

from sneakycode.faces.shared.exit_codes import EXIT_BY_MODEL_ERROR, ExitCode

__all__ = ["EXIT_BY_MODEL_ERROR", "ExitCode"]
