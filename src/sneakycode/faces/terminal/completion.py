"""Tab completion at the prompt: `/NAME` at the start of the line (the built-in commands, custom commands,
skills and MCP prompts, each with its one line of help beside it) and `@PATH` anywhere (the workspace's files
and folders, hiding what .gitignore and the other ignore files hide, as the search tools do)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


class SlashCompleter(Completer):
    def __init__(self, entries: list[tuple[str, str]], paths: Callable[[str], list[str]] | None = None) -> None:
        """`entries`: (name, help) pairs, in the order they should be offered; `paths`: the session's
        `complete_path` (typed text after `@` -> workspace paths; None: no path completion)."""
        self.entries = entries
        self.paths = paths

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@") and self.paths is not None:
            # folders end in `/` so Tab goes on into them
            for name in self.paths(word[1:]):
                yield Completion(f"@{name}", start_position=-len(word), display=name)
            return
        if not text.startswith("/") or " " in text:
            return
        typed = text[1:]
        for name, help_text in self.entries:
            if name.startswith(typed):
                yield Completion(f"/{name}", start_position=-len(text), display_meta=help_text)
