"""Tab completion of `/NAME` at the start of the input line: the built-in commands, custom commands and skills,
each with its one line of help beside it."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


class SlashCompleter(Completer):
    def __init__(self, entries: list[tuple[str, str]]) -> None:
        """`entries`: (name, help) pairs, in the order they should be offered."""
        self.entries = entries

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.startswith("/") or " " in text:
            return
        typed = text[1:]
        for name, help_text in self.entries:
            if name.startswith(typed):
                yield Completion(f"/{name}", start_position=-len(text), display_meta=help_text)
