"""Streamed Markdown: finished blocks are printed once, rendered (headings, lists, syntax-highlighted code),
into the scrollback; only the block still being written is re-rendered live.

A block ends at a blank line outside a code fence, or with the fence that closes a code block. Splitting
there keeps every printed block valid Markdown on its own, so nothing printed ever has to change.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.console import RenderableType
from rich.markdown import Markdown

from sneakycode.faces.shared.text import printable

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_THEME = "monokai"


def split_blocks(text: str) -> tuple[list[str], str]:
    """Finished blocks of `text` and the rest (the open block, which may still grow). Only whole lines are
    judged: an unfinished last line always stays open."""
    blocks: list[str] = []
    fence: str | None = None
    start = 0
    position = 0
    for line in text.splitlines(keepends=True):
        position += len(line)
        if not line.endswith("\n"):
            break
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
        elif fence is not None and opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
            fence = None
            blocks.append(text[start:position])
            start = position
        elif fence is None and not line.strip():
            if text[start:position].strip():
                blocks.append(text[start:position])
            start = position
    return blocks, text[start:]


def markdown(text: str) -> Markdown:
    """Model text as Markdown, with control characters shown escaped rather than sent to the terminal."""
    return Markdown(printable(text), code_theme=CODE_THEME)


class MarkdownStream:
    """Feed text deltas; `emit` receives each finished block rendered, `show_open` the open one (or None)."""

    def __init__(self, emit: Callable[[RenderableType], None], show_open: Callable[[RenderableType | None], None]):
        self.emit = emit
        self.show_open = show_open
        self.buffer = ""

    @property
    def active(self) -> bool:
        return bool(self.buffer)

    def feed(self, text: str) -> None:
        self.buffer += text
        blocks, self.buffer = split_blocks(self.buffer)
        for block in blocks:
            self.emit(markdown(block))
        self.show_open(markdown(self.buffer) if self.buffer.strip() else None)

    def finish(self) -> None:
        """Print what is left (the reply ended) and close the live block."""
        rest, self.buffer = self.buffer, ""
        self.show_open(None)
        if rest.strip():
            self.emit(markdown(rest))
