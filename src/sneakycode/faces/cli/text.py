"""Moved to `faces/shared/text.py` (every face prints through it); these names stay importable here for the
faces that still import them from the command line's package."""

from sneakycode.faces.shared.text import loggable, markup_safe, plural, printable

__all__ = ["loggable", "markup_safe", "plural", "printable"]
