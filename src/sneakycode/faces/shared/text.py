"""Text a person reads: control characters from the model, files or commands are shown, never obeyed.

A terminal obeys escape sequences in whatever it prints: `\\x1b[8m` conceals the text after it, `\\r` lets
a line overwrite itself, a right-to-left override reorders what is shown. An approval prompt must show what
will run, so every place that prints model, file or command text to a terminal passes it through here.

A CI job's log obeys more: a line that opens with `::` or holds `##[` is a workflow command to GitHub's
runner (`::add-mask::`, `::stop-commands::`). So what a non-interactive run prints (headless `-p`, `review`,
`tool`, the Action) goes through `loggable`, which also makes every such line inert.
"""

from __future__ import annotations

import re

from sneakycode.api.workflow_text import inert

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides and isolates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _shown(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control character written out (`\\x1b`); CRLF line ends count as newlines."""
    return _UNSAFE.sub(_shown, text.replace("\r\n", "\n"))


def markup_safe(text: str) -> str:
    """`printable`, then escaped for rich markup, for text placed inside a rich markup string."""
    from rich.markup import escape

    return escape(printable(text))


def loggable(text: str) -> str:
    """`printable`, and no line of it can start a workflow command in a CI log (workflow_commands.inert)."""
    return inert(printable(text))


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 turn`, `3 turns` (`many` for a word whose plural is not word + s): never `turn(s)`."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"
