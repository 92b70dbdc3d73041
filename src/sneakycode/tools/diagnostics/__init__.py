"""Diagnostics after an edit: syntax errors and configured checkers' findings that the edit introduced.

`after_edit.diagnose_edit` is the one entry point the file tools call once the new text is written; it never
fails the edit, it only adds a short report (or a one-line note when a checker could not be used).
"""
